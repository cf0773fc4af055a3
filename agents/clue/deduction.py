"""Clue agents: ``notebook`` (a careful human's checklist), ``deductive`` (solver-backed),
``infogain`` (asks the question worth the most expected information about the envelope) and
``racer`` (asks the question that most raises its chance of accusing right, telling opponents
little)."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import Agent
from deduce.games.base import Action, Observation
from deduce.games.clue.rules import (
    ENVELOPE,
    Accuse,
    ClueGame,
    ClueObservation,
    Dealt,
    EndTurn,
    EnvelopeSeen,
    ExtraRevealed,
    ExtraSeen,
    Show,
    Suggest,
    Suggestion,
    ViewExtra,
    refute_order,
    shown_to,
)
from deduce.knowledge import KnowledgeBase

#: suggestion classes scored per batch when a deadline makes scoring anytime
_BATCH = 8

__all__ = [
    "NotebookAgent",
    "DeductiveAgent",
    "InfogainAgent",
    "RacerAgent",
    "refute_repeat_random",
    "win_chance_after_viewing_extra",
    "waiting_value",
]


def refute_repeat_random(agent: Agent, obs: ClueObservation) -> Action:
    """Show a card this suggester has already seen from us if possible, else a random one
    (RULES.md §5C default refutation policy; ``agents.clue.lookahead.refute`` with
    ``"repeat-random"`` is the same policy, drawing from the generator in another order, so the
    rules agents keep this one and their seeded games stay as they were)."""
    assert obs.to_refute is not None
    suggester, _ = obs.to_refute
    options = [a.card for a in obs.legal_actions if isinstance(a, Show)]
    already = set()
    for e in obs.events:
        if isinstance(e, Suggestion) and e.by == suggester:
            for r, s in zip(e.refuters, e.shown, strict=True):
                if r == obs.player and s is not None:
                    already.add(s)
    repeat = [c for c in options if c in already]
    pool = repeat or options
    return Show(pool[int(agent.rng.integers(len(pool)))])


class _ClueAgent(Agent):
    """Shared turn logic: refute, accuse when the envelope is known, otherwise suggest."""

    #: look at the face-down leftover pile when that is sure to settle the envelope
    views_extra: bool = False

    def cannot_play(self, game: Any) -> str | None:
        """Why this agent cannot play ``game``, or None: it moves no token, so on the board a
        ``*-board`` agent must wrap it (see :func:`agents.clue.lookahead.board_blind`)."""
        from agents.clue.lookahead import board_blind

        return board_blind(self, game)

    def envelope_candidates(self, obs: ClueObservation) -> list[list[int]]:
        raise NotImplementedError

    def placed(self, obs: ClueObservation) -> np.ndarray:
        """bool[card]: cards whose location this agent already knows."""
        raise NotImplementedError

    def act(self, observation: Observation) -> Action:
        obs = observation
        assert isinstance(obs, ClueObservation) and isinstance(self.game, ClueGame)
        if obs.to_refute is not None:
            return refute_repeat_random(self, obs)
        candidates = self.envelope_candidates(obs)
        legal = obs.legal_actions
        if all(len(c) == 1 for c in candidates) or not any(isinstance(a, (Suggest, EndTurn)) for a in legal):
            return Accuse(tuple(c[0] for c in candidates))  # type: ignore[arg-type]
        if EndTurn() in legal:
            if self.views_extra and win_chance_after_viewing_extra(self.game, obs) >= 1.0:
                return ViewExtra()
            return EndTurn()
        return self.suggest(obs, candidates)

    def suggest(self, obs: ClueObservation, candidates: list[list[int]]) -> Action:
        """Name unplaced cards, preferring envelope candidates; in a solved category name one's
        own card (or the solved one) so the refuters must speak about the rest."""
        placed = self.placed(obs)
        hand = set(obs.hand)
        picks: list[int] = []
        for k, cat in enumerate(self.game.categories):  # type: ignore[union-attr]
            if k == 2 and obs.barred_room is not None:
                cat = tuple(c for c in cat if c != obs.barred_room)
                cands = [c for c in candidates[k] if c != obs.barred_room]
            else:
                cands = list(candidates[k])
            unplaced = [c for c in cands if not placed[c]] if len(candidates[k]) > 1 else []
            if unplaced:
                pool = unplaced
            else:
                own = [c for c in cat if c in hand]
                pool = own or cands or list(cat)
            picks.append(pool[int(self.rng.integers(len(pool)))])
        return Suggest(tuple(picks))  # type: ignore[arg-type]


class NotebookAgent(_ClueAgent):
    """What a careful human does with the printed checklist, no solver: own cards, cards shown
    to me, passes, and a category whose other cards are all accounted for."""

    name = "notebook"

    def _grid(self, obs: ClueObservation) -> tuple[np.ndarray, np.ndarray]:
        game = self.game
        assert isinstance(game, ClueGame)
        n_cards = len(game.deck)
        held = np.zeros(n_cards, dtype=bool)  # known to be in some player's hand or the extra pile
        not_held = np.zeros((n_cards, obs.num_players), dtype=bool)
        envelope = np.zeros(n_cards, dtype=bool)
        if obs.player is not None:  # I know my own hand: I hold nothing else
            not_held[:, obs.player] = True
            not_held[list(obs.hand), obs.player] = False
        for e in obs.events:
            if isinstance(e, Dealt) or isinstance(e, (ExtraSeen, ExtraRevealed)) and e.cards:
                held[list(e.cards)] = True
            elif isinstance(e, Suggestion):
                for p in e.passed:
                    not_held[list(e.cards), p] = True
                for s in e.shown:
                    if s is not None:
                        held[s] = True
            elif isinstance(e, EnvelopeSeen):
                envelope[list(e.cards)] = True
        # a card no player holds is in the envelope, when there is no hidden leftover pile
        if obs.extra_size == 0:
            envelope |= not_held.all(axis=1) & ~held
        return held, envelope

    def envelope_candidates(self, obs: ClueObservation) -> list[list[int]]:
        held, envelope = self._grid(obs)
        out = []
        for cat in self.game.categories:  # type: ignore[union-attr]
            known = [c for c in cat if envelope[c]]
            out.append(known or [c for c in cat if not held[c]])
        return out

    def placed(self, obs: ClueObservation) -> np.ndarray:
        held, envelope = self._grid(obs)
        return held | envelope


class DeductiveAgent(_ClueAgent):
    """Full solver deduction (every location the knowledge base still allows), plain question
    choice; accuses only when the envelope is certain, and looks at the face-down leftover
    pile when that is sure to settle it (cards there can never be shown, so with a hidden
    pile the envelope is otherwise often never certain)."""

    name = "deductive"
    views_extra = True

    def __init__(self, solver: str = "auto", **params: Any) -> None:
        super().__init__(solver=solver, **params)
        self.solver_name = solver
        self._solver = None
        self._cache: tuple[int, np.ndarray] | None = None

    def reset(self, game: Any, player: int, seed: Any = None) -> None:
        super().reset(game, player, seed)
        self._cache = None  # keyed by event count: never carry it into another game

    def _possible(self, obs: ClueObservation) -> np.ndarray:
        key = len(obs.events)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        if self._solver is None:
            import solvers

            self._solver = solvers.get(self.solver_name)
        kb = self.game.knowledge(obs)  # type: ignore[union-attr]
        possible = self._solver.possible(kb)
        self._cache = (key, possible)
        return possible

    def envelope_candidates(self, obs: ClueObservation) -> list[list[int]]:
        possible = self._possible(obs)
        env = len(obs.names)  # the envelope comes right after the seats
        assert self.game.locations[env] == ENVELOPE  # type: ignore[union-attr]
        return [[c for c in cat if possible[c, env]] for cat in self.game.categories]  # type: ignore[union-attr]

    def placed(self, obs: ClueObservation) -> np.ndarray:
        return self._possible(obs).sum(axis=1) == 1

def win_chance_after_viewing_extra(game: Any, obs: ClueObservation, limit: int | None = None) -> float:
    """P(the most likely envelope given the leftover pile is right), exactly, from ``obs``'s
    knowledge; 0 when the pile cannot be viewed now or the joint is too large to list."""
    from agents.clue.questions import joint_sets
    from solvers.exact_dp import DEFAULT_LIMIT

    if not any(isinstance(a, ViewExtra) for a in obs.legal_actions):
        return 0.0
    kb = game.knowledge(obs)
    got = joint_sets(kb, [kb.loc(ENVELOPE), kb.loc("extra")], limit or DEFAULT_LIMIT)
    if not got:
        return 0.0
    best: dict[tuple[int, ...], int] = {}
    for (_, extra), v in got.items():
        best[extra] = max(best.get(extra, 0), v)
    return sum(best.values()) / sum(got.values())


@dataclass(frozen=True)
class RaceView:
    """One seat's position in the race: its knowledge, the envelope's location, who answers
    its questions in turn, how many opponents are still in, what it was shown, every triple."""

    kb: KnowledgeBase
    env: int
    responders: list[int]
    opponents: int
    shown: Any
    options: list[Any]


def waiting_value(c: float, opponents: int, p: float) -> float:
    """The mirror race model's chance of winning by waiting: each lap, every one of
    ``opponents`` and then this agent settles the envelope with chance ``c``; this agent can
    always fall back on an accusation with chance ``p``. The larger of waiting for certainty
    (the race's fixed point, ``1 / (opponents + 1)`` when ``c`` is 0) and waiting one lap."""
    survive = (1.0 - c) ** opponents
    one_lap = survive * (c + (1.0 - c) * p)
    race = 1.0 / (opponents + 1) if c <= 0.0 else survive * c / (1.0 - survive * (1.0 - c))
    return max(race, one_lap)


class InfogainAgent(Agent):
    """Asks the suggestion with the largest exact expected information gain about the envelope.

    Gain = H(envelope) - E[H(envelope | answer)], the answer being who refutes first and which
    card this agent is shown, with refuters modelled by RULES.md §5C's default policy (a card
    already shown to this agent first, else uniform). Own cards named in a suggestion act as
    blockers: the model knows nobody can show them, so they focus the question - no special
    rule is needed. Accuses once the most likely envelope has probability at least
    ``accuse_threshold`` (1: only when certain); looks at the face-down leftover pile (and then
    must accuse) when the chance that the best accusation after looking is right reaches
    ``view_extra_threshold``. Ties between equally good suggestions are broken with ``self.rng``.
    ``leak_weight`` w > 0 scores I(envelope; answer) - w I(envelope; who refuted) instead: who
    refuted is public, so that part of the gain helps every opponent as much.
    ``refute="leak-least"`` refutes with the card that lowers the asker's known envelope entropy
    least (:func:`agents.clue.lookahead.least_leaking`) instead of the rules' default. With chance
    ``bluff`` per suggestion it asks the most informative suggestion naming one of its own cards
    (others then learn less from who could not refute it). ``deadline`` (seconds, default None:
    score every suggestion) makes scoring anytime: classes of suggestions most promising first,
    a batch at a time, until the deadline, then the best so far (the benchmarks run without one,
    so their games replay exactly whatever the machine's load).
    ``measure="hartley"`` scores the expected fall of log2(number of possible envelopes) instead
    of Shannon entropy: only eliminations count, which is what certainty needs;
    ``measure="accuracy"`` the expected rise in the chance that the most likely envelope is right
    (what a gamble right after the answer wins).

    With ``gamble`` (the default) it also accuses, after its suggestion's answer, when the best
    accusation's chance ``p`` beats the value of waiting a lap in a *mirror* race model: every
    active opponent is taken to be as close to solving as this agent is, so each solves on its
    turn with the chance ``c`` that this agent's next best question (by gain) leaves the
    envelope certain, computed exactly, and so does this agent; waiting is worth the larger of
    that race's value ``(1-c)^m c / (1 - (1-c)^(m+1))`` (``1/(m+1)`` at ``c = 0``) and one lap
    then the same gamble, ``(1-c)^m (c + (1-c) p)``, with ``m`` opponents still in the game
    (:func:`waiting_value`). It never gambles on a chance below ``min_gamble``, by default one
    over the number of opponents (0.5 at 3 players, 0.2 at 6): the mirror model alone gambled
    on 20-30% chances at 3 players and lost most, while at 6 players, where games last about
    three laps, gambles from 20% on pay (``python -m benchmarks.agents``). The leftover pile is viewed by the same comparison. ``gamble=False`` accuses only at
    ``accuse_threshold``: the pure information agent.
    """

    name = "infogain"

    def __init__(
        self,
        accuse_threshold: float = 1.0,
        view_extra_threshold: float = 1.0,
        leak_weight: float = 0.0,
        gamble: bool = True,
        min_gamble: float | None = None,
        measure: str = "shannon",
        refute: str = "repeat-random",
        bluff: float = 0.0,
        deadline: float | None = None,
        limit: int | None = None,
        **params: Any,
    ) -> None:
        super().__init__(
            accuse_threshold=accuse_threshold, view_extra_threshold=view_extra_threshold, leak_weight=leak_weight,
            gamble=gamble, min_gamble=min_gamble, measure=measure, refute=refute, bluff=bluff, deadline=deadline,
            limit=limit, **params
        )
        from solvers.exact_dp import DEFAULT_LIMIT

        self.accuse_threshold = float(accuse_threshold)
        self.view_extra_threshold = float(view_extra_threshold)
        self.leak_weight = float(leak_weight)
        self.gamble = bool(gamble)
        self.min_gamble = None if min_gamble is None else float(min_gamble)
        from agents.clue.questions import MEASURES

        if measure not in MEASURES:
            raise ValueError(f"unknown measure {measure!r}: one of {', '.join(MEASURES)}")
        self.measure = measure
        from agents.clue.lookahead import REFUTE_POLICIES

        if refute not in REFUTE_POLICIES:
            raise ValueError(f"unknown refute policy {refute!r}: one of {', '.join(REFUTE_POLICIES)}")
        self.refute = refute
        if not 0.0 <= float(bluff) <= 1.0:
            raise ValueError(f"bluff must be a chance in [0, 1], not {bluff!r}")
        self.bluff = float(bluff)
        if deadline is not None and not deadline > 0:
            raise ValueError(f"deadline must be positive seconds or None, not {deadline!r}")
        self.deadline = None if deadline is None else float(deadline)
        #: the clock deadlines are measured on (tests replace it)
        self.clock: Any = time.perf_counter
        self.limit = int(limit) if limit is not None else DEFAULT_LIMIT
        #: per decision: (turn, seconds spent scoring suggestions, best expected gain: bits, or a
        #: probability for measure="accuracy")
        self.scoring_log: list[tuple[int, float, float]] = []
        #: (turn, chance of being right) of every accusation made while not certain
        self.gambles: list[tuple[int, float]] = []

    def reset(self, game: Any, player: int, seed: Any = None) -> None:
        super().reset(game, player, seed)
        self.scoring_log = []
        self.gambles = []

    def cannot_play(self, game: Any) -> str | None:
        """Why this agent cannot play ``game``, or None: it moves no token, so on the board a
        ``*-board`` agent must wrap it (see :func:`agents.clue.lookahead.board_blind`)."""
        from agents.clue.lookahead import board_blind

        return board_blind(self, game)

    def _accuse(self, obs: ClueObservation, best: tuple[int, ...], top: int, total: int) -> Action:
        if top < total:
            self.gambles.append((obs.turn, top / total))
        return Accuse(best)

    def envelope_distribution(self, obs: ClueObservation) -> dict[tuple[int, ...], int]:
        """Exact number of consistent worlds per envelope triple, from this agent's knowledge."""
        from agents.clue.questions import joint_sets

        kb = self.game.knowledge(obs)  # type: ignore[union-attr]
        got = joint_sets(kb, [kb.loc(ENVELOPE)], self.limit, max_items=10**7)
        assert got is not None
        return {k[0]: v for k, v in got.items()}

    def win_chance_after_viewing_extra(self, obs: ClueObservation) -> float:
        """See :func:`win_chance_after_viewing_extra`."""
        return win_chance_after_viewing_extra(self.game, obs, self.limit)

    def act(self, observation: Observation) -> Action:
        obs = observation
        assert isinstance(obs, ClueObservation) and isinstance(self.game, ClueGame)
        if obs.to_refute is not None:
            if self.refute == "repeat-random":
                return refute_repeat_random(self, obs)
            from agents.clue.lookahead import refute

            return refute(self.game, obs, self.refute, self.rng, self.limit)
        dist = self.envelope_distribution(obs)
        total = sum(dist.values())
        best, top = max(dist.items(), key=lambda kv: (kv[1], kv[0]))
        legal = obs.legal_actions
        if top >= self.accuse_threshold * total or not any(isinstance(a, (Suggest, EndTurn, ViewExtra)) for a in legal):
            return self._accuse(obs, best, top, total)
        if EndTurn() in legal:
            view = self.win_chance_after_viewing_extra(obs)
            if view >= self.view_extra_threshold:
                return ViewExtra()
            p = top / total
            floor = 1.0 / (obs.num_players - 1) if self.min_gamble is None else self.min_gamble
            if self.gamble and max(p, view) >= floor:
                wait = self.waiting_value(obs, p)
                if p > wait and p >= view:
                    return self._accuse(obs, best, top, total)
                if view > wait:
                    return ViewExtra()
            return EndTurn()
        return self.suggest(obs)

    def _scores(
        self, kb: KnowledgeBase, options: list[tuple[int, ...]], responders: list[int], shown: dict[int, set[int]],
        leak_weight: float = 0.0, started: float | None = None,
    ) -> dict[tuple[int, ...], float]:
        """Every option's score; with a ``deadline``, anytime: symmetry classes most promising
        first (``agents.clue.lookahead.suggestion_classes``), a batch at a time, until the deadline
        counted from ``started`` (the decision's start on :attr:`clock`; default now; at least one
        batch), so only the options scored are returned."""
        from agents.clue.questions import score_questions

        env = kb.loc(ENVELOPE)
        if self.deadline is None:
            return score_questions(kb, env, options, responders, shown, self.limit, leak_weight, self.measure)
        from agents.clue.lookahead import suggestion_classes
        from solvers.exact import ExactSolver

        start = self.clock() if started is None else started
        stop = start + self.deadline
        ranked = suggestion_classes(kb, options, shown, ExactSolver(limit=self.limit), self.rng)
        scores: dict[tuple[int, ...], float] = {}
        slowest = 0.0
        for b in range(0, len(ranked), _BATCH):
            now = self.clock()
            if scores and now + slowest > stop:
                break
            batch = ranked[b : b + _BATCH]
            got = score_questions(kb, env, [m[0] for m in batch], responders, shown, self.limit, leak_weight, self.measure)
            for members in batch:
                scores.update((q, got[members[0]]) for q in members)
            slowest = max(slowest, self.clock() - now)
        return scores

    def waiting_value(self, obs: ClueObservation, p: float) -> float:
        """The mirror model's chance of winning by ending the turn with best accusation
        chance ``p`` (see the class docstring)."""
        from agents.clue.questions import certainty_chance

        view = self.race_view(obs)
        scores = self._scores(view.kb, view.options, view.responders, view.shown)
        question = max(scores, key=lambda q: (scores[q], q))
        c = certainty_chance(view.kb, view.env, question, view.responders, view.shown, self.limit)
        return waiting_value(c, view.opponents, p)

    def race_view(self, obs: ClueObservation) -> RaceView:
        """What the accuse-or-wait rule weighs (shared by every racer's ``waiting_value``)."""
        kb = self.game.knowledge(obs)  # type: ignore[union-attr]
        me = obs.player
        assert me is not None
        n = obs.num_players
        responders = refute_order(me, n)
        return RaceView(kb=kb, env=kb.loc(ENVELOPE), responders=responders,
                        opponents=sum(1 for r in responders if r not in obs.eliminated),
                        shown=shown_to(obs, me), options=list(self.game.triples()))  # type: ignore[union-attr]

    def suggest(self, obs: ClueObservation) -> Action:
        """The legal suggestion with the largest expected gain (ties: uniformly at random); with
        a ``deadline``, the best of those scored in time."""
        kb = self.game.knowledge(obs)  # type: ignore[union-attr]
        n = obs.num_players
        me = obs.player
        assert me is not None
        responders = refute_order(me, n)
        options = [a.cards for a in obs.legal_actions if isinstance(a, Suggest)]
        if self.bluff and self.rng.random() < self.bluff:
            own = [q for q in options if set(q) & set(obs.hand)]
            options = own or options
        t0 = self.clock()
        scores = self._scores(kb, options, responders, shown_to(obs, me), self.leak_weight)
        top = max(scores.values())
        self.scoring_log.append((obs.turn, self.clock() - t0, top))
        ties = [q for q in options if q in scores and scores[q] >= top - 1e-9]
        return Suggest(ties[int(self.rng.integers(len(ties)))])  # type: ignore[arg-type]


class RacerAgent(InfogainAgent):
    """``infogain`` built for the race, three changes from it:

    - each suggestion maximises the expected chance that the most likely envelope is right once
      it is answered (``measure="accuracy"``), not the expected entropy fall, so bold questions
      that may settle the envelope beat broad ones;
    - from that score it subtracts half what the public part of the answer (who refuted) is
      worth by the same measure (``leak_weight=0.5``): every opponent hears that part too;
    - it refutes with the card that tells the asker least (``refute="leak-least"``).

    Accusations, gambles and the leftover pile follow ``infogain``'s mirror race model
    unchanged. Measured against ``infogain`` on duplicate deals (``python -m
    benchmarks.search_agents --agent racer --vs infogain``; figures and the ablation of the three
    ingredients in the README).
    """

    name = "racer"

    def __init__(
        self, measure: str = "accuracy", leak_weight: float = 0.5, refute: str = "leak-least", **params: Any
    ) -> None:
        super().__init__(measure=measure, leak_weight=leak_weight, refute=refute, **params)
