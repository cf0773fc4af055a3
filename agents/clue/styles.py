"""Clue opponents of other styles than the deduction family (``notebook`` to ``racer``), so that
agents are no longer tuned only against their own kind (issue 26):

- ``aggressive-accuser``: asks about its best guess and accuses as soon as that guess's chance
  of being right beats a threshold;
- ``own-evidence``: full deduction, but only from its own hand and the answers to its own
  suggestions; it ignores every suggestion between other players;
- ``own-card-prober``: full deduction, suggestions built around its own cards so each answer
  speaks about one unknown card only;
- ``memory-notebook``: a careful human's notebook that, unlike ``notebook``, writes down who
  holds each card and who refuted what without showing it, and counts hands.

Each sees only its Observation and draws every random choice from ``self.rng``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from agents.clue.deduction import DeductiveAgent, InfogainAgent, _ClueAgent, refute_repeat_random
from deduce.errors import InvalidConfig
from deduce.games.base import Action, Dealt, Observation
from deduce.games.clue.rules import (
    ENVELOPE,
    EXTRA,
    Accusation,
    CardAt,
    CardNotAt,
    ClueGame,
    ClueObservation,
    EndTurn,
    EnvelopeSeen,
    ExtraRevealed,
    ExtraSeen,
    Suggest,
    Suggestion,
    ViewExtra,
)

__all__ = [
    "AggressiveAccuserAgent",
    "OwnEvidenceAgent",
    "OwnCardProberAgent",
    "MemoryNotebookAgent",
    "own_evidence",
    "notebook_grid",
]


class AggressiveAccuserAgent(InfogainAgent):
    """Accuses the most likely envelope as soon as its exact chance of being right beats
    ``threshold`` (strictly; default 0.5), before suggesting and again once its suggestion is
    answered; it looks at the leftover pile when the best accusation after looking would beat
    the threshold. Its suggestion is its current best guess, the most likely envelope among
    the legal suggestions (ties at random): a hunch player, not an information maximiser.
    ``racer`` and ``infogain`` gamble only when a race model says waiting is worth less; this
    agent never waits once the threshold is passed."""

    name = "aggressive-accuser"

    def __init__(self, threshold: float = 0.5, limit: int | None = None, **params: Any) -> None:
        if not 0.0 <= float(threshold) < 1.0:
            raise InvalidConfig("threshold", threshold, "a chance in [0, 1)")
        super().__init__(gamble=False, limit=limit, **params)
        self.threshold = float(threshold)
        self.params = {"threshold": self.threshold, "limit": limit, **params}

    def act(self, observation: Observation) -> Action:
        obs = observation
        assert isinstance(obs, ClueObservation) and isinstance(self.game, ClueGame)
        if obs.to_refute is not None:
            return refute_repeat_random(self, obs)
        dist = self.envelope_distribution(obs)
        total = sum(dist.values())
        best, top = max(dist.items(), key=lambda kv: (kv[1], kv[0]))
        legal = obs.legal_actions
        if top > self.threshold * total or not any(isinstance(a, (Suggest, EndTurn, ViewExtra)) for a in legal):
            return self._accuse(obs, best, top, total)
        if EndTurn() in legal:
            if self.win_chance_after_viewing_extra(obs) > self.threshold:
                return ViewExtra()
            return EndTurn()
        options = [a.cards for a in legal if isinstance(a, Suggest)]
        weight = max(dist.get(q, 0) for q in options)
        hunches = [q for q in options if dist.get(q, 0) == weight]
        return Suggest(hunches[int(self.rng.integers(len(hunches)))])  # type: ignore[arg-type]


def own_evidence(obs: ClueObservation) -> ClueObservation:
    """``obs`` with only what a player learns first-hand: its hand, the answers to its own
    suggestions (cards shown, who could not refute), piles and envelopes it looked at, and
    cards revealed to all. Other players' suggestions and accusations are dropped."""
    me = obs.player
    keep = [e for e in obs.events
            if not isinstance(e, Accusation) and (not isinstance(e, Suggestion) or e.by == me)]
    return dataclasses.replace(obs, events=tuple(keep))


class OwnEvidenceAgent(DeductiveAgent):
    """``deductive`` with no third-party inference: the solver sees only :func:`own_evidence`
    (its hand, the answers to its suggestions, hand sizes), never what other players asked,
    who passed on their questions or who refuted them. Questions, accusations (only when
    certain) and the leftover pile as ``deductive``; refutes by the rules' default policy,
    remembering what it showed whom."""

    name = "own-evidence"

    def _possible(self, obs: ClueObservation) -> np.ndarray:
        return super()._possible(own_evidence(obs))

    def act(self, observation: Observation) -> Action:
        assert isinstance(observation, ClueObservation)
        if observation.to_refute is not None:
            return refute_repeat_random(self, observation)
        return super().act(own_evidence(observation))


class OwnCardProberAgent(DeductiveAgent):
    """``deductive``'s full deduction and accusations, with probing questions: one unsolved
    category gets an unplaced candidate (the category with most of them, ties at random), the
    other two a card of its own hand (else the card known to be in the envelope), so no one
    can show those and the answer - a card, or who cannot refute - is about the probed card
    alone. ``deductive`` names unknown cards in every unsolved category instead."""

    name = "own-card-prober"

    def suggest(self, obs: ClueObservation, candidates: list[list[int]]) -> Action:
        game = self.game
        assert isinstance(game, ClueGame)
        placed = self.placed(obs)
        hand = set(obs.hand)
        barred = obs.barred_room

        def allowed(k: int, cards: list[int]) -> list[int]:
            return [c for c in cards if not (k == 2 and c == barred)]

        probes = {k: allowed(k, [c for c in candidates[k] if not placed[c]])
                  for k in range(3) if len(candidates[k]) > 1}
        probes = {k: v for k, v in probes.items() if v}
        if not probes:
            return super().suggest(obs, candidates)
        most = max(len(v) for v in probes.values())
        targets = [k for k, v in probes.items() if len(v) == most]
        target = targets[int(self.rng.integers(len(targets)))]
        picks: list[int] = []
        for k, cat in enumerate(game.categories):
            if k == target:
                pool = probes[k]
            else:
                own = allowed(k, [c for c in cat if c in hand])
                solved = allowed(k, candidates[k]) if len(candidates[k]) == 1 else []
                pool = own or solved or allowed(k, list(candidates[k])) or allowed(k, list(cat))
            picks.append(pool[int(self.rng.integers(len(pool)))])
        return Suggest(tuple(picks))  # type: ignore[arg-type]


def notebook_grid(game: ClueGame, obs: ClueObservation) -> np.ndarray:
    """bool[card, location]: where each card may still be, by the rules a careful human applies
    with pencil and paper. Locations are the seats, then the envelope, then the leftover pile
    when there is one. Written down: own hand, cards seen, passes, envelopes and piles looked
    at; "refuter holds one of these three" for every refutation not shown to this player, and
    wrong accusations. Applied until nothing changes: a card found somewhere is nowhere else; a
    card with one place left is there; a hand (or pile) whose known cards fill its size holds
    nothing else, and one with exactly as many possible cards as its size holds them all; one
    envelope card per category; a refuter holds the only card of its clause it still may."""
    n = obs.num_players
    names = list(obs.names) if obs.names else [f"p{i}" for i in range(n)]
    locs = names + [ENVELOPE] + ([EXTRA] if obs.extra_size > 0 else [])
    env = n
    sizes = list(obs.hand_sizes) + [-1] + ([obs.extra_size] if obs.extra_size > 0 else [])
    grid = np.ones((len(game.deck), len(locs)), dtype=bool)

    def at(card: int, loc: int) -> None:
        grid[card, :] = False
        grid[card, loc] = True

    clauses: list[tuple[int, tuple[int, ...]]] = []  # (refuter, cards): it holds one of them
    wrong: list[tuple[int, ...]] = []  # accusations known wrong
    if obs.player is not None:
        grid[:, obs.player] = False
        for c in obs.hand:
            at(c, obs.player)
    for e in obs.events:
        if isinstance(e, Dealt):
            for c in e.cards:
                at(c, e.player)
        elif isinstance(e, (ExtraSeen, ExtraRevealed)) and e.cards and obs.extra_size > 0:
            for c in e.cards:
                at(c, n + 1)
        elif isinstance(e, EnvelopeSeen):
            for c in e.cards:
                at(c, env)
        elif isinstance(e, Suggestion):
            for p in e.passed:
                grid[list(e.cards), p] = False
            for r, s in zip(e.refuters, e.shown, strict=True):
                if s is not None:
                    at(s, r)
                else:
                    clauses.append((r, tuple(e.cards)))
            clauses += [(p, tuple(e.cards)) for p in e.declined]
        elif isinstance(e, Accusation) and not e.correct:
            wrong.append(tuple(e.cards))
        elif isinstance(e, (CardAt, CardNotAt)) and e.loc in locs:
            if isinstance(e, CardAt):
                at(e.card, locs.index(e.loc))
            else:
                grid[e.card, locs.index(e.loc)] = False
    while True:
        before = grid.copy()
        known = grid.sum(axis=1) == 1
        for loc, size in enumerate(sizes):
            if size < 0:
                continue
            here = known & grid[:, loc]
            if here.sum() == size:
                grid[~here, loc] = False
            elif grid[:, loc].sum() == size:
                for c in np.flatnonzero(grid[:, loc]):
                    at(int(c), loc)
        for cat in game.categories:
            cands = [c for c in cat if grid[c, env]]
            sure = [c for c in cands if grid[c].sum() == 1]
            if len(cands) == 1 or sure:
                keep = cands[0] if len(cands) == 1 else sure[0]
                grid[[c for c in cat if c != keep], env] = False
                at(keep, env)
        for r, cards in clauses:
            if any(grid[c].sum() == 1 and grid[c, r] for c in cards):
                continue
            left = [c for c in cards if grid[c, r]]
            if len(left) == 1:
                at(left[0], r)
        for cards in wrong:
            open_ = [c for c in cards if not (grid[c].sum() == 1 and grid[c, env])]
            if len(open_) == 1:
                grid[open_[0], env] = False
        if (grid == before).all():
            return grid


class MemoryNotebookAgent(_ClueAgent):
    """A careful human with a notebook and a memory for who refuted what
    (:func:`notebook_grid`). ``notebook`` only marks cards as "held by someone" from what it is
    shown, and passes; this one also knows *who* holds each card, keeps every refutation it did
    not see as "that player holds one of these three" and settles it once two are ruled out,
    counts each hand against its size, and looks at the leftover pile when every open envelope
    candidate can only be in the envelope or the pile (so looking settles the envelope).
    Still no solver: chains a human does not follow (two clauses together, case splits) stay
    open. Questions and refutations as ``notebook``."""

    name = "memory-notebook"

    def grid(self, obs: ClueObservation) -> np.ndarray:
        """This agent's notebook for ``obs`` (see :func:`notebook_grid`)."""
        return notebook_grid(self.game, obs)  # type: ignore[arg-type]

    def envelope_candidates(self, obs: ClueObservation) -> list[list[int]]:
        grid = self.grid(obs)
        return [[c for c in cat if grid[c, obs.num_players]] for cat in self.game.categories]  # type: ignore[union-attr]

    def placed(self, obs: ClueObservation) -> np.ndarray:
        return self.grid(obs).sum(axis=1) == 1

    def act(self, observation: Observation) -> Action:
        obs = observation
        assert isinstance(obs, ClueObservation)
        if obs.to_refute is None and ViewExtra() in obs.legal_actions and obs.extra_size > 0:
            grid = self.grid(obs)
            env = obs.num_players
            cands = [c for cat in self.game.categories for c in cat if grid[c, env]]  # type: ignore[union-attr]
            if any(grid[c].sum() > 1 for c in cands) and all(not grid[c, :env].any() for c in cands):
                return ViewExtra()
        return super().act(obs)
