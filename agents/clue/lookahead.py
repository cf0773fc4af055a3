"""Clue agents that play to win, not just to learn (tracker issue 13, first increment).

``lookahead`` plays the race from the exact posterior over envelopes. With
``objective="win"`` it picks the suggestion that maximises its estimated probability of
winning (with the default ``objective="info"``, the most informative one, and the race model
decides only when to gamble):

- for each legal suggestion it computes, exactly, the distribution of the answer (who shows,
  which card) and for each answer the posterior's best accusation chance ``p_top`` and
  entropy ``H``; the value of an answer is ``max(p_top, C(H))`` - gamble on the spot, or go on;
- ``C(H)`` is the chance that no opponent solves before this agent does, from an opponent
  model: determinisations drawn exactly uniformly from this agent's knowledge base
  (``solvers.exact``), in each of which every opponent's own knowledge base is rebuilt from
  what it was shown and asked, giving its envelope entropy ``H_j``; an opponent solves on a
  given lap with probability ``q_j = min(1, 2 ** (-sharpness * (H_j - 0.5)))`` (about 0.64
  at one bit, 0.26 at two, 0.04 at four), and this agent needs ``max(1, H / rate)`` more
  laps, so ``C(H) = prod_j (1 - q_j) ** max(1, H / rate)``; the hazard is a first guess,
  not yet fitted to logged games;
- after its suggestion it accuses (a *gamble*, when not certain) if the best accusation
  chance beats ``C(H)`` and is at least ``min_gamble``; before accusing it looks at the face-down leftover pile whenever the
  rules allow (an accusation follows anyway, so looking is free information);
- it refutes leaking least: a card that suggester has already seen from it, otherwise the card
  whose revelation lowers the suggester's envelope entropy least (in a knowledge base of what
  that suggester is known to know); and with probability ``bluff`` it names one of its own
  cards in its suggestion to blur what others learn from it.

**Budget.** By default every choice does a fixed amount of work, so play is reproducible from
the seed whatever the machine's speed or load: suggestions are scored best-first by exact
information gain, every symmetry class of them (or the first ``classes``), and the race model draws ``samples``
determinisations per opponent. ``deadline`` (seconds per move, opt-in) also stops scoring and
sampling when time runs out, with the best so far; what it returns then depends on the machine,
so play with a deadline is not reproducible.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from math import inf, log2
from typing import Any

import numpy as np

from agents.base import Agent
from deduce.constraints import At, AtLeastOne, Constraint, NotAt
from deduce.games.base import Action, Observation
from deduce.games.clue.rules import (
    ENVELOPE,
    EXTRA,
    Accusation,
    Accuse,
    CardAt,
    CardNotAt,
    ClueGame,
    ClueObservation,
    EndTurn,
    ExtraRevealed,
    Show,
    Suggest,
    Suggestion,
    ViewExtra,
    refute_order,
    shown_to,
)
from deduce.knowledge import KnowledgeBase

__all__ = [
    "LookaheadAgent",
    "grouped_entropy",
    "answer_values",
    "opponent_view",
    "suggester_view",
    "shown_by_me",
    "REFUTE_POLICIES",
    "refute",
    "least_leaking",
    "suggestion_classes",
    "board_blind",
]

#: refutation policies: least-leaking, RULES.md §5C default (repeat else random), uniform.
REFUTE_POLICIES = ("leak-least", "repeat-random", "random")


def grouped_entropy(weights: dict[tuple, int], mult: dict[tuple, int]) -> float:
    """Entropy (bits) of a distribution given as groups of ``mult[g]`` equally likely sets."""
    total = sum(weights.values())
    if not total:
        return 0.0
    lt = log2(total)
    return -sum(w / total * (log2(w) - lt - log2(mult[g])) for g, w in weights.items() if w)


def answer_values(
    kb: KnowledgeBase, env: int, cards: Sequence[int], responders: Sequence[int],
    preferred: dict[int, set[int]], limit: int,
) -> list[tuple[float, float, float]]:
    """Per possible answer to suggesting ``cards``: (probability, best accusation chance,
    envelope entropy after it), all from exact counts."""
    from agents.clue.questions import outcomes

    o = outcomes(kb, env, cards, responders, preferred, limit)
    out = []
    for w in o.weights.values():
        mass = sum(w.values())
        if not mass:
            continue
        top = max(v / o.multiplicity[g] for g, v in w.items()) / mass
        out.append((mass / o.total, top, grouped_entropy(w, o.multiplicity)))
    return out


def shown_by_me(obs: ClueObservation, asker: int) -> set[int]:
    """Cards this observer has already shown ``asker``."""
    out: set[int] = set()
    for e in obs.events:
        if isinstance(e, Suggestion) and e.by == asker:
            for r, s in zip(e.refuters, e.shown, strict=True):
                if r == obs.player and s is not None:
                    out.add(s)
    return out


def _public(game: ClueGame, kb: KnowledgeBase, e: Any) -> list[Constraint]:
    """Constraints of a public event (accusations, a revealed pile, log facts)."""
    if isinstance(e, Accusation | ExtraRevealed | CardAt | CardNotAt):
        return game.event_constraints(kb, e)
    return []


def opponent_view(
    game: ClueGame, obs: ClueObservation, who: int, world: np.ndarray, rng: np.random.Generator,
) -> KnowledgeBase:
    """Opponent ``who``'s knowledge base if ``world`` (card -> location) is the truth: its hand,
    the cards shown to it (a refuter holding several named cards picks uniformly, unless this
    observer saw the card), the public passes, refutations and accusations."""
    kb = game.base_knowledge(obs.hand_sizes, obs.extra_size)
    cs: list[Constraint] = [At(int(c), who) for c in np.flatnonzero(world == who)]
    for e in obs.events:
        if isinstance(e, Suggestion):
            cs += [NotAt(c, p) for p in e.passed for c in e.cards]
            for r, s in zip(e.refuters, e.shown, strict=True):
                if who in (e.by, r):
                    if s is None:
                        held = [c for c in e.cards if world[c] == r]
                        s = held[int(rng.integers(len(held)))] if held else None
                    cs.append(At(s, r) if s is not None else AtLeastOne(e.cards, r))
                else:
                    cs.append(AtLeastOne(e.cards, r))
        else:
            cs += _public(game, kb, e)
    kb.extend(cs, source="opponent view", check=False)
    return kb


def suggester_view(game: ClueGame, obs: ClueObservation, asker: int) -> KnowledgeBase:
    """What ``asker`` is known (to this observer) to know, without ``asker``'s own hand:
    public passes and refutations, and the cards that passed between it and this observer."""
    me = obs.player
    kb = game.base_knowledge(obs.hand_sizes, obs.extra_size)
    cs: list[Constraint] = []
    for e in obs.events:
        if isinstance(e, Suggestion):
            cs += [NotAt(c, p) for p in e.passed for c in e.cards]
            for r, s in zip(e.refuters, e.shown, strict=True):
                known = s is not None and {e.by, r} == {asker, me}
                cs.append(At(s, r) if known and s is not None else AtLeastOne(e.cards, r))
        else:
            cs += _public(game, kb, e)
    kb.extend(cs, source="suggester view", check=False)
    return kb


def suggestion_classes(
    kb: KnowledgeBase, options: Sequence[tuple[int, ...]], preferred: dict[int, set[int]], solver: Any,
    rng: np.random.Generator,
) -> list[list[tuple[int, ...]]]:
    """``options`` grouped by symmetry class (equal information, equal race value), most
    promising first (the most uncertain, most envelope-likely cards; ties by ``rng``): the
    order in which anytime scorers spend their deadline."""
    from agents.clue.questions import card_classes
    from solvers.exact_dp import problem_from_kb

    env = kb.loc(ENVELOPE)
    sig = card_classes(problem_from_kb(kb), preferred)
    assert sig is not None
    classes: dict[tuple, list[tuple[int, ...]]] = {}
    for q in options:
        classes.setdefault(tuple(sig[c] for c in q), []).append(q)
    tally = solver.tallies(kb)
    p_env = [int(row[env]) / tally.total for row in tally.cells]
    p_unknown = [1.0 - max(int(v) for v in row) / tally.total for row in tally.cells]

    def promise(q: tuple[int, ...]) -> float:
        return sum(p_unknown[c] + p_env[c] for c in q)

    keys = list(classes)
    jitter = rng.random(len(keys))
    order = sorted(range(len(keys)), key=lambda i: (-promise(classes[keys[i]][0]), jitter[i]))
    return [classes[keys[i]] for i in order]


def _envelope_counts(kb: KnowledgeBase, limit: int) -> dict[tuple[int, ...], int]:
    from agents.clue.questions import joint_sets

    got = joint_sets(kb, [kb.loc(ENVELOPE)], limit, max_items=10**7)
    assert got is not None
    return {k[0]: v for k, v in got.items()}


def _entropy(counts: Iterable[int]) -> float:
    from agents.clue.questions import entropy_bits

    return entropy_bits(counts)


def board_blind(agent: Agent, game: Any) -> str | None:
    """Why ``agent``, which plays Clue without moving a token, cannot play ``game`` (None when
    it can): what the search agents' ``cannot_play`` says (on the board, a ``*-board`` agent
    wraps a board-blind one)."""
    if not isinstance(game, ClueGame):
        return f"{agent.name} plays Clue, not {getattr(game, 'name', game)!r}"
    if game.board is not None:
        return f"{agent.name} moves no token: it plays board_mode='any_room' (on the board, seat a *-board agent)"
    return None


class LookaheadAgent(Agent):
    """Maximises the estimated probability of winning the race (see the module docstring).

    Parameters: ``classes`` suggestion classes scored per suggestion (the work budget; None,
    the default: every class, which on a 2-core machine took a median 0.15 s CPU per suggestion
    against 0.18 s for the 1 s deadline it replaces, and is the exact best); ``deadline`` seconds per move (default None; opt-in, and it makes play depend
    on the machine's speed and load, so not reproducible from the seed); ``rate`` bits this agent learns per lap and
    ``sharpness`` of the opponents' per-lap hazard in the race model; ``min_gamble`` the
    smallest chance it accuses on short of certainty (3-player gambles below one half lost
    far more often than the model expected); ``samples`` determinisations for the opponent model (0: opponents ignored,
    ``C = 1``); ``gamble`` (False: accuse only when certain); ``view_extra`` (look at the
    leftover pile before every accusation); ``refute`` one of ``leak-least``,
    ``repeat-random`` (RULES.md default) or ``random``; ``bluff`` the chance per turn of
    naming one of its own cards; ``objective`` ``info`` (default: the suggestion with the
    largest expected information, scored anytime) or ``win`` (the race value below; on the
    same 3-player deals it won 0.302 of seats against 0.365 for ``info``, so it is not yet
    the default).
    """

    name = "lookahead"

    def __init__(
        self,
        deadline: float | None = None,
        classes: int | None = None,
        rate: float = 1.5,
        sharpness: float = 1.3,
        min_gamble: float = 0.5,
        samples: int = 4,
        gamble: bool = True,
        view_extra: bool = True,
        refute: str = "leak-least",
        bluff: float = 0.0,
        objective: str = "info",
        limit: int | None = None,
        **params: Any,
    ) -> None:
        super().__init__(
            deadline=deadline, classes=classes, rate=rate, sharpness=sharpness, min_gamble=min_gamble, samples=samples, gamble=gamble, view_extra=view_extra,
            refute=refute, bluff=bluff, objective=objective, limit=limit, **params,
        )
        from solvers.exact_dp import DEFAULT_LIMIT

        if refute not in REFUTE_POLICIES:
            raise ValueError(f"refute must be one of {REFUTE_POLICIES}, not {refute!r}")
        if objective not in ("win", "info"):
            raise ValueError(f"objective must be 'win' or 'info', not {objective!r}")
        if deadline is not None and not deadline > 0:
            raise ValueError(f"deadline must be positive seconds or None, not {deadline!r}")
        if classes is not None and classes < 1:
            raise ValueError(f"classes must be positive or None, not {classes!r}")
        #: seconds per move, or None (the default: work budgets only, reproducible)
        self.deadline = None if deadline is None else float(deadline)
        self.classes = None if classes is None else int(classes)
        #: the clock a deadline is measured on (tests replace it); without one it only times
        self.clock: Callable[[], float] = time.perf_counter
        self.rate = float(rate)
        self.sharpness = float(sharpness)
        self.min_gamble = float(min_gamble)
        self.samples = int(samples)
        self.gamble = bool(gamble)
        self.view_extra = bool(view_extra)
        self.refute = refute
        self.bluff = float(bluff)
        self.objective = objective
        self.limit = int(limit) if limit is not None else DEFAULT_LIMIT
        self._solver: Any = None
        self._threat: tuple[int, dict[int, float]] | None = None
        #: per decision: (turn, kind, seconds)
        self.timing: list[tuple[int, str, float]] = []
        #: (turn, best accusation chance) of every accusation made while not certain
        self.gambles: list[tuple[int, float]] = []
        #: per suggestion: (turn, symmetry classes scored), the work it did
        self.scored: list[tuple[int, int]] = []

    def reset(self, game: Any, player: int, seed: Any = None) -> None:
        super().reset(game, player, seed)
        self._threat = None
        self.timing = []
        self.gambles = []
        self.scored = []

    def cannot_play(self, game: Any) -> str | None:
        """Why this agent cannot play ``game``, or None (see :func:`board_blind`)."""
        return board_blind(self, game)

    # -- the race model ------------------------------------------------------------------------
    def threat(self, obs: ClueObservation, stop: float) -> dict[int, float]:
        """Per live opponent, the estimated chance it solves on its next turn (cached per
        turn; ``samples`` determinisations, or with a deadline up to ``stop`` on :attr:`clock`,
        after one per opponent)."""
        key = obs.turn  # one estimate per turn: the own suggestion barely changes it
        if self._threat is not None and self._threat[0] == key:
            return self._threat[1]
        me = obs.player
        live = [j for j in range(obs.num_players) if j != me and j not in obs.eliminated]
        out = {j: 0.0 for j in live}
        if self.samples > 0 and live:
            if self._solver is None:
                from solvers.exact import ExactSolver

                self._solver = ExactSolver(limit=self.limit)
            kb = self.game.knowledge(obs)  # type: ignore[union-attr]
            worlds = self._solver.sample(kb, self.samples, self.rng)
            sums = dict.fromkeys(live, 0.0)
            done = dict.fromkeys(live, 0)
            for w in worlds:
                for j in live:
                    if done[j] and self.clock() > stop:
                        break
                    h = _entropy(_envelope_counts(opponent_view(self.game, obs, j, w, self.rng), self.limit).values())  # type: ignore[arg-type]
                    sums[j] += min(1.0, 2.0 ** (-self.sharpness * (h - 0.5)))
                    done[j] += 1
            out = {j: sums[j] / done[j] for j in live if done[j]}
        self._threat = (key, out)
        return out

    def _threat_stop(self) -> float:
        """When the race model stops sampling: a quarter of the deadline from now, if any."""
        return inf if self.deadline is None else self.clock() + 0.25 * self.deadline

    def survival(self, entropy: float, threat: dict[int, float]) -> float:
        """``C(H)``: the chance no opponent solves in the laps this agent still needs."""
        laps = max(1.0, entropy / self.rate)
        s = 1.0
        for q in threat.values():
            s *= max(0.0, 1.0 - q) ** laps
        return s

    # -- acting --------------------------------------------------------------------------------
    def act(self, observation: Observation) -> Action:
        obs = observation
        assert isinstance(obs, ClueObservation) and isinstance(self.game, ClueGame)
        t0 = self.clock()
        stop = inf if self.deadline is None else t0 + 0.6 * self.deadline
        if obs.to_refute is not None:
            action = self.show(obs)
            kind = "refute"
        else:
            action, kind = self._turn(obs, stop)
        self.timing.append((obs.turn, kind, self.clock() - t0))
        return action

    def _turn(self, obs: ClueObservation, stop: float) -> tuple[Action, str]:
        legal = obs.legal_actions
        kb = self.game.knowledge(obs)  # type: ignore[union-attr]
        counts = _envelope_counts(kb, self.limit)
        total = sum(counts.values())
        best, top = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
        if top == total or not any(isinstance(a, Suggest | EndTurn | ViewExtra) for a in legal):
            return Accuse(best), "accuse"  # type: ignore[arg-type]
        if EndTurn() in legal:  # after the suggestion: gamble or go on
            if self.gamble:
                h = _entropy(counts.values())
                go_on = self.survival(h, self.threat(obs, self._threat_stop()))
                chance = top / total
                viewable = self.view_extra and ViewExtra() in legal
                if viewable:
                    chance = max(chance, self._chance_after_viewing(kb))
                if (chance > go_on and chance >= self.min_gamble) or chance >= 1.0:
                    self.gambles.append((obs.turn, chance))
                    return (ViewExtra() if viewable else Accuse(best)), "gamble"  # type: ignore[arg-type]
            elif self.view_extra and ViewExtra() in legal and self._chance_after_viewing(kb) >= 1.0:
                return ViewExtra(), "view"  # the pile settles the envelope: no gamble at all
            return EndTurn(), "end"
        if not any(isinstance(a, Suggest) for a in legal):
            return Accuse(best), "accuse"  # type: ignore[arg-type]
        return self.suggest(obs, kb, stop), "suggest"

    def _chance_after_viewing(self, kb: KnowledgeBase) -> float:
        from agents.clue.questions import joint_sets

        got = joint_sets(kb, [kb.loc(ENVELOPE), kb.loc(EXTRA)], self.limit, max_items=5_000)
        if not got:  # None: too many combinations to list within the deadline
            return 0.0
        best: dict[tuple[int, ...], int] = {}
        for (_, extra), v in got.items():
            best[extra] = max(best.get(extra, 0), v)
        return sum(best.values()) / sum(got.values())

    def suggest(self, obs: ClueObservation, kb: KnowledgeBase, stop: float) -> Action:
        """The suggestion worth most in the race, with probability ``bluff`` among those naming
        an own card. Anytime: one suggestion per symmetry class is scored exactly, classes
        naming the most uncertain cards first: all of them, or the first ``classes`` (fewer if
        ``stop`` comes first)."""

        n = obs.num_players
        me = obs.player
        assert me is not None
        responders = refute_order(me, n)
        options = [a.cards for a in obs.legal_actions if isinstance(a, Suggest)]
        hand = set(obs.hand)
        if self.bluff > 0 and self.rng.random() < self.bluff:
            own = [q for q in options if hand & set(q)]
            options = own or options
        pref = shown_to(obs, me)
        env = kb.loc(ENVELOPE)
        if self._solver is None:
            from solvers.exact import ExactSolver

            self._solver = ExactSolver(limit=self.limit)
        ranked = suggestion_classes(kb, options, pref, self._solver, self.rng)
        if self.classes is not None:
            ranked = ranked[: self.classes]
        h0 = _entropy(_envelope_counts(kb, self.limit).values())
        threat = {} if self.objective == "info" else self.threat(obs, self._threat_stop())
        best_i, best_v = 0, (-1.0, -1.0)
        slowest = 0.0  # the longest single evaluation so far: never start one that cannot finish
        done = 0
        for i, members in enumerate(ranked):
            now = self.clock()
            if now + slowest > stop and best_v[0] >= 0:
                break
            done += 1
            value = gain = 0.0
            for p, top, h in answer_values(kb, env, members[0], responders, pref, self.limit):
                gain += p * (h0 - h)
                if self.objective == "info":
                    continue
                cont = self.survival(h, threat)
                value += p * (max(top, cont) if self.gamble else (1.0 if top >= 1.0 - 1e-12 else cont))
            v = (gain, 0.0) if self.objective == "info" else (value, gain)
            slowest = max(slowest, self.clock() - now)
            if v[0] > best_v[0] + 1e-12 or (v[0] >= best_v[0] - 1e-12 and v[1] > best_v[1] + 1e-12):
                best_i, best_v = i, v
        self.scored.append((obs.turn, done))
        members = ranked[best_i]
        return Suggest(members[int(self.rng.integers(len(members)))])  # type: ignore[arg-type]

    # -- refuting ------------------------------------------------------------------------------
    def show(self, obs: ClueObservation) -> Action:
        """Refute by the configured policy."""
        return refute(self.game, obs, self.refute, self.rng, self.limit)  # type: ignore[arg-type]


def refute(game: ClueGame, obs: ClueObservation, policy: str, rng: np.random.Generator, limit: int) -> Show:
    """The card to show by ``policy`` (one of :data:`REFUTE_POLICIES`): shared by the search
    agents so their refutations are comparable."""
    assert obs.to_refute is not None
    asker, _ = obs.to_refute
    options = sorted(a.card for a in obs.legal_actions if isinstance(a, Show))
    if policy != "random":
        again = [c for c in options if c in shown_by_me(obs, asker)]
        if again:
            return Show(again[int(rng.integers(len(again)))])
    if policy == "leak-least" and len(options) > 1:
        return Show(least_leaking(game, obs, asker, options, rng, limit))
    return Show(options[int(rng.integers(len(options)))])


def least_leaking(
    game: ClueGame, obs: ClueObservation, asker: int, options: list[int], rng: np.random.Generator, limit: int,
) -> int:
    """The card whose revelation lowers the asker's envelope entropy least (ties: ``rng``)."""
    me = obs.player
    assert me is not None
    base = suggester_view(game, obs, asker)
    h0 = _entropy(_envelope_counts(base, limit).values())
    drops = []
    for c in options:
        kb = base.copy()
        kb.extend([At(c, me)], source="shown", check=False)
        drops.append(h0 - _entropy(_envelope_counts(kb, limit).values()))
    low = min(drops)
    ties = [c for c, d in zip(options, drops, strict=True) if d <= low + 1e-9]
    return ties[int(rng.integers(len(ties)))]


#: this module's Clue agents by name (merged into agents.clue.deduction's registry later).
AGENTS: dict[str, type[Agent]] = {"lookahead": LookaheadAgent}
