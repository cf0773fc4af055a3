"""Information-set Monte Carlo tree search for Clue: ``ismcts`` (tracker issue 13).

The tree is built over this agent's own information sets only; the hidden cards come from
*determinisations* drawn exactly uniformly from its own knowledge base (``solvers.sample``),
never from the true state.

- **Start of a turn.** Root actions are a *candidate set*, not all 324 suggestions: the
  ``top_k`` best by exact expected information gain (``agents.clue.questions``) among the symmetry
  classes scored within ``score_share`` of the search budget (most promising classes first,
  as the lookahead agent orders them); their gains, normalised, are the PUCT priors. Each
  iteration samples a world, picks a suggestion by PUCT, and lets the world answer it (the
  refuter shows a card it showed this agent before, else one uniformly - RULES.md §5C's
  default), which leads to the information-set node of that answer. An answer node has two
  arms: *gamble* (a known value: the exact chance that the best accusation is right, looking
  at the leftover pile first when the rules allow; computed once the node has been visited
  twice, and offered when at least ``min_gamble``) and *go on* (a rollout), chosen by UCB1.
  The most visited suggestion is played (a random member of its symmetry class) if its mean
  beats the most informative candidate's by ``confidence`` standard errors; otherwise the
  most informative one, ``infogain``'s own choice when every class was scored in time
  (rollout values are noisy; information is a strong default).
- **After the suggestion.** Accuse when certain, look at the pile when that settles the
  envelope. Otherwise ``gambles_by`` decides, never on a chance (looking at the pile first when
  allowed) below ``min_gamble`` (default one over the number of opponents, as ``infogain``):
  ``"mirror"`` (default) gambles exactly when ``infogain`` would, when the chance beats the
  value of waiting a lap in its mirror race model (``agents.clue.deduction.InfogainAgent.waiting_value``,
  from the exact chance that the next best question settles the envelope); ``"rollouts"``
  when it beats the chance of winning by going on estimated with ``iterations`` rollouts;
  ``"both"`` only when both say so. Timing gambles decides most games at 4 and 6 players,
  and the mirror rule beat the rollout estimate there (README), so it is the default policy
  and the search only deviates from ``infogain`` on suggestions, where it is confident.
- **Rollouts** play the race to the end on the sampled world with cheap opponent models: each
  live player is a rule-propagating notebook (own hand, cards shown, passes, refutation
  clauses, hand and envelope counts) that suggests unplaced envelope candidates, accuses as
  soon as its notebook settles the envelope (looking at the pile when that settles it) and,
  like the gambling agents it stands for, gambles after its suggestion when at most
  ``rollout_gamble`` envelope candidates remain (after looking at the pile when allowed). The rollout
  reads the determinised world (that is what determinisation means), never the true state.
  An opponent's starting notebook is rebuilt from the public record and the world (which card
  it was shown, when this agent did not see it, is drawn from the world). A rollout that
  reaches ``horizon`` laps without a winner scores 1/(players still in) if this agent is.
- **Refuting** uses the lookahead agent's leak-least policy (``agents.clue.lookahead.refute``).

**Budget.** By default every decision does a fixed amount of work: ``classes`` suggestion
classes scored and ``iterations`` search iterations, so play is reproducible from the seed alone,
whatever the machine's speed or load. ``deadline`` (seconds per decision, opt-in; ``budget`` of it
for search, ``score_share`` of that for scoring) also stops the work when time runs out, for
protocols with a clock (Speed Clue); what it returns then depends on the machine, so play with a
deadline is not reproducible.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from math import inf, log, prod, sqrt
from typing import Any

import numpy as np

from agents.base import Agent
from agents.clue.deduction import InfogainAgent
from agents.clue.lookahead import REFUTE_POLICIES, board_blind, refute, suggestion_classes
from deduce.constraints import At, Constraint, NotAt
from deduce.games.base import Action, Observation
from deduce.games.clue.rules import (
    ENVELOPE,
    EXTRA,
    Accuse,
    CardAt,
    CardNotAt,
    ClueGame,
    ClueObservation,
    EndTurn,
    ExtraRevealed,
    Suggest,
    Suggestion,
    ViewExtra,
)
from deduce.knowledge import KnowledgeBase

__all__ = ["ISMCTSAgent", "GAMBLE_POLICIES", "Notebook", "Race", "SearchRecord"]

#: who decides a gamble after the suggestion: infogain's mirror race model, rollouts, or both
GAMBLE_POLICIES = ("mirror", "rollouts", "both")

Answer = tuple[int, int] | None  # (refuter, card shown) or None: everybody passed
_BATCH = 8  # suggestion classes scored per DP batch
_EXACT_AFTER = 2  # visits before an answer node's gamble value is computed exactly
#: default work per decision: about what the old 1 s deadline did in CPU time (a median of 178
#: iterations and 27 classes scored per suggestion; these take a median 0.50 s CPU against 0.58)
DEFAULT_ITERATIONS = 200
DEFAULT_CLASSES = 24


@dataclass
class Notebook:
    """A rollout player's knowledge: a bitmask of possible locations per card, plus the
    refutation clauses ("``r`` holds one of ``cards``") it has not resolved yet."""

    dom: list[int]
    clauses: list[tuple[tuple[int, ...], int]] = field(default_factory=list)

    def copy(self) -> Notebook:
        """An independent copy (rollouts mutate their notebooks)."""
        return Notebook(list(self.dom), list(self.clauses))


class Race:
    """The rules a rollout needs: locations, hand sizes, categories, and one player's
    propagation, decisions and the resolution of a suggestion on a determinised world."""

    def __init__(self, game: ClueGame, obs: ClueObservation) -> None:
        n = obs.num_players
        self.n = n
        self.env = n
        self.extra = n + 1 if obs.extra_size > 0 else None
        cfg = game.config
        #: an accuser may look at the face-down leftover pile first (RULES.md §5 seed rule)
        self.viewable = self.extra is not None and cfg.accuser_views_extra and cfg.deal_mode == "equal_leftover"
        self.num_locs = n + 1 + (1 if self.extra is not None else 0)
        self.all_bits = (1 << self.num_locs) - 1
        self.caps = [(z, size) for z, size in enumerate(obs.hand_sizes)]
        if self.extra is not None:
            self.caps.append((self.extra, obs.extra_size))
        self.categories = game.categories
        self.num_cards = len(game.deck)

    # -- knowledge -----------------------------------------------------------------------------
    def propagate(self, nb: Notebook) -> None:
        """Sound rule propagation to a fixed point: counts per hand / pile, one card per
        category in the envelope, unit refutation clauses."""
        dom = nb.dom
        ebit = 1 << self.env
        changed = True
        while changed:
            changed = False
            for z, size in self.caps:
                b = 1 << z
                fixed = poss = 0
                for d in dom:
                    if d & b:
                        poss += 1
                        fixed += d == b
                if fixed == size and poss > size:
                    for c, d in enumerate(dom):
                        if d & b and d != b:
                            dom[c] = d & ~b
                    changed = True
                elif poss == size and fixed < size:
                    for c, d in enumerate(dom):
                        if d & b:
                            dom[c] = b
                    changed = True
            for cat in self.categories:
                cands = [c for c in cat if dom[c] & ebit]
                if len(cands) == 1 and dom[cands[0]] != ebit:
                    dom[cands[0]] = ebit
                    changed = True
                elif len(cands) > 1 and any(dom[c] == ebit for c in cands):
                    for c in cands:
                        if dom[c] != ebit:
                            dom[c] &= ~ebit
                    changed = True
            keep = []
            for cards, r in nb.clauses:
                b = 1 << r
                live = [c for c in cards if dom[c] & b]
                if any(dom[c] == b for c in live):
                    continue
                if len(live) == 1:
                    dom[live[0]] = b
                    changed = True
                    continue
                keep.append((cards, r))
            nb.clauses = keep

    def solved(self, nb: Notebook) -> bool:
        """The notebook settles the envelope (after :meth:`propagate`)."""
        ebit = 1 << self.env
        return all(sum(1 for c in cat if nb.dom[c] & ebit) == 1 for cat in self.categories)

    def settled_by_pile(self, nb: Notebook) -> bool:
        """Looking at the leftover pile would settle the envelope: every unsettled envelope
        candidate can only be in the envelope or the pile."""
        if not self.viewable:
            return False
        ebit = 1 << self.env
        both = ebit | 1 << self.extra
        return all(d | both == both for d in nb.dom if d & ebit and d != ebit)

    def choose_suggestion(self, nb: Notebook, player: int, rnd: random.Random) -> tuple[int, ...]:
        """Per category an unplaced envelope candidate; in a settled category an own card (or
        the settled one), so that refuters must speak about the rest."""
        ebit = 1 << self.env
        me = 1 << player
        out = []
        for cat in self.categories:
            cands = [c for c in cat if nb.dom[c] & ebit]
            pool = [c for c in cands if nb.dom[c] != ebit] if len(cands) > 1 else []
            if not pool:
                pool = [c for c in cat if nb.dom[c] == me] or cands or list(cat)
            out.append(pool[rnd.randrange(len(pool))])
        return tuple(out)

    # -- the race ------------------------------------------------------------------------------
    def answer(self, world: Sequence[int], by: int, cards: Sequence[int], rnd: random.Random,
               preferred: dict[int, set[int]] | None = None) -> tuple[list[int], Answer]:
        """Who passes and the answer to ``by`` naming ``cards`` in ``world`` (a refuter shows
        a card in ``preferred[refuter]`` if it holds one, else one uniformly)."""
        passed = []
        for k in range(1, self.n):
            q = (by + k) % self.n
            held = [c for c in cards if world[c] == q]
            if held:
                pref = [c for c in held if preferred and c in preferred.get(q, ())]
                pool = pref or held
                return passed, (q, pool[rnd.randrange(len(pool))])
            passed.append(q)
        return passed, None

    def learn(self, books: dict[int, Notebook], by: int, cards: Sequence[int], passed: Sequence[int],
              ans: Answer) -> None:
        """Every notebook learns the public part of a suggestion; the suggester the card."""
        for nb in books.values():
            for q in passed:
                mask = ~(1 << q)
                for c in cards:
                    nb.dom[c] &= mask
        if ans is None:
            return
        r, shown = ans
        for p, nb in books.items():
            if p == by:
                nb.dom[shown] = 1 << r
            elif p != r:
                nb.clauses.append((tuple(cards), r))

    def rollout(self, world: Sequence[int], books: dict[int, Notebook], first: int,
                horizon: int, rnd: random.Random, gamble_at: int = 0) -> int | None:
        """Play the race from ``first``'s turn among the players in ``books``; the winner, or
        None after ``horizon`` laps (or when every player is out). Mutates ``books`` (a player
        who is out loses its notebook).

        A player accuses as soon as its notebook settles the envelope (before or after its
        suggestion, looking at the pile when that settles it) and, after its suggestion,
        gambles on a uniformly drawn candidate when at most ``gamble_at`` remain once the pile
        (when it may be viewed) is looked at (a wrong gambler is out, but still refutes)."""
        order = [p % self.n for p in range(first, first + self.n) if p % self.n in books]
        for _ in range(horizon * len(order)):
            if not order:
                return None
            p = order[0]
            nb = books[p]
            self.propagate(nb)
            if self.solved(nb) or self.settled_by_pile(nb):
                return p  # sound deduction from constraints true in the world: it wins
            cards = self.choose_suggestion(nb, p, rnd)
            passed, ans = self.answer(world, p, cards, rnd)
            self.learn(books, p, cards, passed, ans)
            self.propagate(nb)
            if self.solved(nb) or self.settled_by_pile(nb):
                return p
            if gamble_at:
                ebit = 1 << self.env
                # a gambler looks at the pile first when it may: those cards are out
                cands = [[c for c in cat if nb.dom[c] & ebit and not (self.viewable and world[c] == self.extra)]
                         for cat in self.categories]
                if prod(len(c) for c in cands) <= gamble_at:
                    if all(world[c[rnd.randrange(len(c))]] == self.env for c in cands):
                        return p
                    order = order[1:]  # a wrong accusation: out of the race
                    del books[p]
                    continue
            order = order[1:] + order[:1]
        return None

    # -- starting notebooks ----------------------------------------------------------------------
    def opponent_books(self, obs: ClueObservation, world: Sequence[int], players: Sequence[int],
                       rnd: random.Random) -> dict[int, Notebook]:
        """Each of ``players``' notebook if ``world`` is the truth: its hand, the public record,
        and the cards it was shown (drawn from the world when this observer did not see them)."""
        base = [self.all_bits] * self.num_cards
        public_clauses: list[tuple[tuple[int, ...], int, int]] = []  # (cards, refuter, by)
        private: list[tuple[tuple[int, ...], int, int, int | None]] = []  # (cards, by, refuter, shown)
        for e in obs.events:
            if isinstance(e, Suggestion):
                for q in e.passed:
                    for c in e.cards:
                        base[c] &= ~(1 << q)
                for r, s in zip(e.refuters, e.shown, strict=True):
                    public_clauses.append((tuple(e.cards), r, e.by))
                    private.append((tuple(e.cards), e.by, r, s))
            elif isinstance(e, ExtraRevealed) and self.extra is not None:
                for c in e.cards:
                    base[c] = 1 << self.extra
            elif isinstance(e, CardAt):
                base[e.card] = 1 << self._loc(obs, e.loc)
            elif isinstance(e, CardNotAt):
                base[e.card] &= ~(1 << self._loc(obs, e.loc))
        books = {}
        for j in players:
            jb = 1 << j
            dom = [jb if world[c] == j else d & ~jb for c, d in enumerate(base)]
            nb = Notebook(dom)
            for cards, by, r, s in private:
                if by != j:
                    if r != j:
                        nb.clauses.append((cards, r))
                    continue
                if s is None:
                    held = [c for c in cards if world[c] == r]
                    s = held[rnd.randrange(len(held))] if held else None
                if s is not None:
                    nb.dom[s] = 1 << r
            books[j] = nb
        return books

    def _loc(self, obs: ClueObservation, name: str) -> int:
        if name == ENVELOPE:
            return self.env
        if name == EXTRA and self.extra is not None:
            return self.extra
        return obs.names.index(name)


@dataclass
class _Answered:
    """An information-set node after one of this agent's suggestions: its exact gamble value
    and the rollout statistics of going on."""

    gamble: float
    book: Notebook
    #: False until ``gamble`` is computed exactly (after a few visits; until then 0 unless the
    #: notebook already settles the envelope)
    exact: bool = True
    visits: int = 0
    go_visits: int = 0
    go_wins: float = 0.0


@dataclass
class _Arm:
    cards: tuple[int, ...]
    prior: float
    members: list[tuple[int, ...]]
    visits: int = 0
    value: float = 0.0
    children: dict[Answer, _Answered] = field(default_factory=dict)


@dataclass(frozen=True)
class SearchRecord:
    """One decision: turn, kind (``suggest``/``after``/...), iterations, seconds, and the
    estimated chance of winning by going on (after a suggestion), if it was estimated."""

    turn: int
    kind: str
    iterations: int
    seconds: float
    go_on: float | None = None


class ISMCTSAgent(Agent):
    """Information-set MCTS over this agent's own decisions (see the module docstring).

    Parameters: ``iterations`` search iterations per decision and ``classes`` suggestion
    classes scored for its candidates (the work budget; None: no cap, then a ``deadline`` must
    bound the search); ``deadline`` seconds per decision (default None; opt-in, and it makes play
    depend on the machine's speed and load, so not reproducible from the seed), ``budget`` the
    share of it spent searching and ``score_share`` the share of that spent scoring;
    ``top_k`` candidate suggestions, the best of the classes scored; ``c_puct`` PUCT exploration at the root and ``c_uct`` UCB1
    at answer nodes; ``confidence`` how many standard errors the most visited suggestion's
    mean must beat the most informative one's by to be played; ``min_gamble`` the smallest accusation chance short of certainty it
    considers (None: one over the number of opponents); ``gambles_by`` ``"mirror"``,
    ``"rollouts"`` or ``"both"`` (who decides a gamble, see the module docstring); ``gamble`` (False: accuse only when certain); ``view_extra`` (look at the
    leftover pile before a gamble when allowed); ``horizon`` rollout laps; ``rollout_gamble``
    the number of envelope candidates at or below which rollout players gamble (0: never);
    ``refute`` one of
    ``agents.clue.lookahead.REFUTE_POLICIES``; ``measure`` what its candidate suggestions and its
    mirror race model's next question are scored by (``agents.clue.questions.MEASURES``).
    """

    name = "ismcts"

    def __init__(
        self,
        deadline: float | None = None,
        budget: float = 0.6,
        iterations: int | None = DEFAULT_ITERATIONS,
        classes: int | None = DEFAULT_CLASSES,
        top_k: int = 6,
        score_share: float = 0.4,
        c_puct: float = 1.0,
        c_uct: float = 0.5,
        confidence: float = 1.0,
        min_gamble: float | None = None,
        gambles_by: str = "mirror",
        gamble: bool = True,
        view_extra: bool = True,
        horizon: int = 10,
        rollout_gamble: int = 2,
        refute: str = "leak-least",
        measure: str = "shannon",
        limit: int | None = None,
        **params: Any,
    ) -> None:
        super().__init__(
            deadline=deadline, budget=budget, iterations=iterations, classes=classes, top_k=top_k, score_share=score_share,
            c_puct=c_puct, c_uct=c_uct, confidence=confidence,
            min_gamble=min_gamble, gambles_by=gambles_by, gamble=gamble, view_extra=view_extra, horizon=horizon,
            rollout_gamble=rollout_gamble, refute=refute, measure=measure,
            limit=limit, **params,
        )
        from solvers.exact_dp import DEFAULT_LIMIT

        if gambles_by not in GAMBLE_POLICIES:
            raise ValueError(f"ismcts: gambles_by must be one of {GAMBLE_POLICIES}, not {gambles_by!r}")
        if refute not in REFUTE_POLICIES:
            raise ValueError(f"ismcts: refute must be one of {REFUTE_POLICIES}, not {refute!r}")
        from agents.clue.questions import MEASURES

        if measure not in MEASURES:
            raise ValueError(f"ismcts: measure must be one of {MEASURES}, not {measure!r}")
        if (deadline is not None and not deadline > 0) or not 0 < budget <= 1:
            raise ValueError(f"ismcts: deadline must be positive (or None) and budget in (0, 1], not {deadline!r}, {budget!r}")
        for what, value in (("iterations", iterations), ("classes", classes)):
            if value is not None and value < 1:
                raise ValueError(f"ismcts: {what} must be positive or None, not {value!r}")
        if iterations is None and deadline is None:
            raise ValueError("ismcts: iterations=None needs a deadline, or the search never ends")
        if top_k < 1 or horizon < 1:
            raise ValueError(f"ismcts: top_k and horizon must be positive, not {top_k!r}, {horizon!r}")
        #: seconds per decision, or None (the default: work budgets only, reproducible)
        self.deadline = None if deadline is None else float(deadline)
        self.budget = float(budget)
        self.iterations = None if iterations is None else int(iterations)
        self.classes = None if classes is None else int(classes)
        self.top_k = int(top_k)
        self.score_share = float(score_share)
        self.c_puct = float(c_puct)
        self.c_uct = float(c_uct)
        self.confidence = float(confidence)
        self.min_gamble = None if min_gamble is None else float(min_gamble)
        self.gambles_by = gambles_by
        self.gamble = bool(gamble)
        self.view_extra = bool(view_extra)
        self.horizon = int(horizon)
        self.rollout_gamble = int(rollout_gamble)
        self.refute = refute
        self.measure = measure
        self.limit = int(limit) if limit is not None else DEFAULT_LIMIT
        #: the clock a deadline is measured on (tests replace it); without one it only times
        self.clock: Callable[[], float] = time.perf_counter
        self._solver: Any = None
        #: infogain's own waiting value (the mirror race model) is reused, not repeated
        self._mirror = InfogainAgent(gamble=True, measure=measure, limit=self.limit)
        #: per decision: (turn, kind, seconds), as the lookahead agent keeps it
        self.timing: list[tuple[int, str, float]] = []
        #: (turn, accusation chance) of every accusation made while not certain
        self.gambles: list[tuple[int, float]] = []
        #: per searched decision: iterations, seconds, go-on estimate
        self.searches: list[SearchRecord] = []
        #: every determinisation drawn in the last search (for tests and diagnostics)
        self.last_worlds: list[np.ndarray] = []

    def reset(self, game: Any, player: int, seed: Any = None) -> None:
        super().reset(game, player, seed)
        self._mirror.reset(game, player, seed)
        self.timing = []
        self.gambles = []
        self.searches = []
        self.last_worlds = []

    def cannot_play(self, game: Any) -> str | None:
        """Why this agent cannot play ``game``, or None (``agents.clue.lookahead.board_blind``)."""
        return board_blind(self, game)

    # -- helpers ---------------------------------------------------------------------------------
    def _sampler(self) -> Any:
        if self._solver is None:
            from solvers.sample import SampleSolver

            self._solver = SampleSolver(limit=self.limit)
        return self._solver

    def _worlds(self, kb: KnowledgeBase, n: int) -> list[np.ndarray]:
        got = self._sampler().sample(kb, n, self.rng)
        self.last_worlds.extend(got)
        return got

    def _gamble_value(self, kb: KnowledgeBase, viewable: bool) -> tuple[float, float, tuple[int, ...]]:
        """(chance the best accusation now is right, chance after looking at the pile, that
        accusation), exactly."""
        from agents.clue.questions import joint_sets

        env = kb.loc(ENVELOPE)
        got = None
        if viewable:
            got = joint_sets(kb, [env, kb.loc(EXTRA)], self.limit, max_items=5_000)
        if got:
            by_env: dict[tuple[int, ...], int] = {}
            best_per_pile: dict[tuple[int, ...], int] = {}
            for (e, x), v in got.items():
                by_env[e] = by_env.get(e, 0) + v
                best_per_pile[x] = max(best_per_pile.get(x, 0), v)
            total = sum(by_env.values())
            view = sum(best_per_pile.values()) / total
        else:
            raw = joint_sets(kb, [env], self.limit, max_items=10**7)
            assert raw is not None
            by_env = {k[0]: v for k, v in raw.items()}
            total = sum(by_env.values())
            view = 0.0
        best, top = max(by_env.items(), key=lambda kv: (kv[1], kv[0]))
        return top / total, max(view, top / total), best

    def _my_book(self, kb: KnowledgeBase) -> Notebook:
        possible = self._sampler().possible(kb)
        return Notebook([int(sum(1 << int(z) for z in np.flatnonzero(row))) for row in possible])

    def _go_on(self, race: Race, obs: ClueObservation, world: np.ndarray, mine: Notebook, rnd: random.Random,
               asked: tuple[tuple[int, ...], Sequence[int], Answer] | None = None) -> float:
        """One rollout from the next player's turn: 1 if this agent wins. ``asked``: this
        agent's simulated suggestion (cards, passes, answer), which the opponents learn from too."""
        me = obs.player
        assert me is not None
        live = [j for j in range(race.n) if j not in obs.eliminated]
        books = race.opponent_books(obs, world, [j for j in live if j != me], rnd)
        if asked is not None:
            race.learn(books, me, *asked)
        books[me] = mine.copy()
        winner = race.rollout(world, books, (me + 1) % race.n, self.horizon, rnd, self.rollout_gamble)
        if winner is None:  # no winner within the horizon: an even share among those still in
            return 1.0 / len(books) if me in books else 0.0
        return float(winner == me)

    # -- acting ----------------------------------------------------------------------------------
    def act(self, observation: Observation) -> Action:
        obs = observation
        assert isinstance(obs, ClueObservation) and isinstance(self.game, ClueGame)
        t0 = self.clock()
        stop = inf if self.deadline is None else t0 + self.budget * self.deadline
        self.last_worlds = []
        if obs.to_refute is not None:
            action: Action = refute(self.game, obs, self.refute, self.rng, self.limit)
            kind = "refute"
        else:
            action, kind = self._turn(obs, t0, stop)
        self.timing.append((obs.turn, kind, self.clock() - t0))
        return action

    def _turn(self, obs: ClueObservation, t0: float, stop: float) -> tuple[Action, str]:
        legal = obs.legal_actions
        kb = self.game.knowledge(obs)  # type: ignore[union-attr]
        viewable = self.view_extra and ViewExtra() in legal
        # the pile matters only after the suggestion (before it, suggesting first is better)
        top, view, best = self._gamble_value(kb, viewable and EndTurn() in legal)
        if top >= 1.0 or not any(isinstance(a, Suggest | EndTurn | ViewExtra) for a in legal):
            return Accuse(best), "accuse"  # type: ignore[arg-type]
        if EndTurn() in legal:
            if view >= 1.0:
                return ViewExtra(), "view"  # the pile settles the envelope: no gamble at all
            if self.gamble and view >= self._floor(obs) and self._gamble_beats_waiting(obs, kb, top, view, t0, stop):
                self.gambles.append((obs.turn, view))
                return (ViewExtra() if viewable else Accuse(best)), "gamble"  # type: ignore[arg-type]
            return EndTurn(), "end"
        if not any(isinstance(a, Suggest) for a in legal):
            return Accuse(best), "accuse"  # type: ignore[arg-type]
        return self._search(obs, kb, t0, stop), "suggest"

    def _floor(self, obs: ClueObservation) -> float:
        """The smallest accusation chance short of certainty worth a gamble."""
        return 1.0 / (obs.num_players - 1) if self.min_gamble is None else self.min_gamble

    def _gamble_beats_waiting(self, obs: ClueObservation, kb: KnowledgeBase, top: float, view: float,
                              t0: float, stop: float) -> bool:
        """Whether accusing now (chance ``top``, ``view`` after looking at the pile when
        allowed) beats ending the turn, by ``gambles_by``'s judge(s)."""
        if self.gambles_by != "rollouts" and view <= self._mirror.waiting_value(obs, top):
            return False
        return self.gambles_by == "mirror" or view > self._estimate_go_on(obs, kb, t0, stop)

    def _estimate_go_on(self, obs: ClueObservation, kb: KnowledgeBase, t0: float, stop: float) -> float:
        """The chance of winning by ending the turn now, from rollouts until ``stop``."""
        race = Race(self.game, obs)  # type: ignore[arg-type]
        rnd = random.Random(int(self.rng.integers(2**63)))
        mine = self._my_book(kb)
        wins = 0.0
        done = 0
        worlds: list[np.ndarray] = []
        slowest = 0.0  # the longest iteration so far: never start one that cannot finish
        while self.iterations is None or done < self.iterations:
            now = self.clock()
            if now + slowest >= stop:
                break
            if not worlds:
                worlds = self._worlds(kb, 32)
            wins += self._go_on(race, obs, worlds.pop(), mine, rnd)
            done += 1
            slowest = max(slowest, self.clock() - now)
        go_on = wins / done if done else 1.0  # no time for a single rollout: no gamble
        self.searches.append(SearchRecord(obs.turn, "after", done, self.clock() - t0, go_on))
        return go_on

    def _search(self, obs: ClueObservation, kb: KnowledgeBase, t0: float, stop: float) -> Action:
        """Candidates scored anytime, then PUCT over them with answers drawn from determinisations."""
        from agents.clue.questions import score_questions
        from deduce.games.clue.rules import refute_order, shown_to

        me = obs.player
        assert me is not None
        n = obs.num_players
        env = kb.loc(ENVELOPE)
        responders = refute_order(me, n)
        options = [a.cards for a in obs.legal_actions if isinstance(a, Suggest)]
        pref = shown_to(obs, me)
        ranked = suggestion_classes(kb, options, pref, self._sampler(), self.rng)
        # candidates: up to ``classes`` classes scored best-first by exact expected information,
        # a few per DP batch (with a deadline, for a share of it; at least one batch)
        score_stop = t0 + self.score_share * (stop - t0)
        todo = ranked if self.classes is None else ranked[: self.classes]
        scored: list[tuple[float, list[tuple[int, ...]]]] = []
        slowest = 0.0
        for b in range(0, len(todo), _BATCH):
            now = self.clock()
            if scored and now + slowest > score_stop:
                break
            batch = todo[b : b + _BATCH]
            gains = score_questions(kb, env, [m[0] for m in batch], responders, pref, self.limit, measure=self.measure)
            scored += [(gains[m[0]], m) for m in batch]
            slowest = max(slowest, self.clock() - now)
        scored.sort(key=lambda t: -t[0])  # stable: ties keep the promise order
        chosen = scored[: self.top_k]
        mass = sum(max(g, 1e-9) for g, _ in chosen)
        arms = [_Arm(m[0], max(g, 1e-9) / mass, members=m) for g, m in chosen]
        pick = arms[0]
        total = 0
        if len(arms) > 1:
            pick, total = self._puct(obs, kb, arms, pref, stop)
        self.searches.append(SearchRecord(obs.turn, "suggest", total, self.clock() - t0))
        return Suggest(pick.members[int(self.rng.integers(len(pick.members)))])  # type: ignore[arg-type]

    def _puct(self, obs: ClueObservation, kb: KnowledgeBase, arms: list[_Arm], pref: dict[int, set[int]],
              stop: float) -> tuple[_Arm, int]:
        me = obs.player
        assert me is not None
        race = Race(self.game, obs)  # type: ignore[arg-type]
        rnd = random.Random(int(self.rng.integers(2**63)))
        viewable = self.view_extra and ViewExtra() in obs.legal_actions  # legal after the suggestion too
        root_book = self._my_book(kb)
        worlds: list[np.ndarray] = []
        total = 0
        slowest = 0.0  # the longest iteration so far: never start one that cannot finish
        while self.iterations is None or total < self.iterations:
            now = self.clock()
            if now + slowest >= stop:
                break
            if not worlds:
                worlds = self._worlds(kb, 32)
            w = worlds.pop()
            sq = sqrt(total + 1)
            arm = max(arms, key=lambda a: (a.value / a.visits if a.visits else 0.0)
                      + self.c_puct * a.prior * sq / (1 + a.visits))
            passed, ans = race.answer(w, me, arm.cards, rnd, pref)
            node = arm.children.get(ans)
            if node is None:
                book = root_book.copy()
                race.learn({me: book}, me, arm.cards, passed, ans)
                race.propagate(book)
                node = arm.children[ans] = _Answered(gamble=1.0 if race.solved(book) else 0.0, book=book,
                                                     exact=race.solved(book))
            if not node.exact and node.visits >= _EXACT_AFTER and self.gamble:
                node.gamble = self._answer_gamble(kb, arm.cards, passed, ans, viewable)
                node.exact = True
            reward = self._visit(node, race, obs, w, rnd, (arm.cards, passed, ans))
            arm.visits += 1
            arm.value += reward
            total += 1
            slowest = max(slowest, self.clock() - now)
        return self._pick(arms), total

    def _pick(self, arms: list[_Arm]) -> _Arm:
        """The most visited suggestion, if its mean beats the most informative one's by
        ``confidence`` standard errors; else the most informative one (rollout values are
        noisy, and information alone is a strong default)."""
        best = max(arms, key=lambda a: (a.visits, a.prior))
        base = arms[0]
        if best is base or not base.visits:
            return best
        qb, qa = best.value / best.visits, base.value / base.visits
        se = sqrt(qb * (1 - qb) / best.visits + qa * (1 - qa) / base.visits)
        return best if qb - qa > self.confidence * se else base

    def _answer_gamble(self, kb: KnowledgeBase, cards: tuple[int, ...], passed: Sequence[int], ans: Answer,
                       viewable: bool) -> float:
        """The exact chance of a right accusation after ``ans`` (looking at the pile first
        when ``viewable``)."""
        cs: list[Constraint] = [NotAt(c, q) for q in passed for c in cards]
        if ans is not None:
            cs.append(At(ans[1], ans[0]))
        sub = kb.copy()
        sub.extend(cs, source="simulated answer", check=False)
        top, view, _ = self._gamble_value(sub, viewable)
        return 1.0 if top >= 1.0 else view

    def _visit(self, node: _Answered, race: Race, obs: ClueObservation, w: np.ndarray, rnd: random.Random,
               asked: tuple[tuple[int, ...], Sequence[int], Answer]) -> float:
        """One pass through an answer node: the known gamble value, or a rollout (UCB1)."""
        node.visits += 1
        if node.gamble >= 1.0 - 1e-12:
            return 1.0
        can_gamble = self.gamble and node.gamble >= self._floor(obs)
        if can_gamble and node.go_visits:
            index = node.go_wins / node.go_visits + self.c_uct * sqrt(log(node.visits) / node.go_visits)
            if node.gamble >= index:
                return node.gamble
        r = self._go_on(race, obs, w, node.book, rnd, asked)
        node.go_visits += 1
        node.go_wins += r
        return r


#: this module's Clue agents by name (the registry loads ``agents.clue_*`` modules).
AGENTS: dict[str, type[Agent]] = {"ismcts": ISMCTSAgent}
