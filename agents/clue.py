"""Clue agents: ``notebook`` (a careful human's checklist) and ``deductive`` (solver-backed)."""

from __future__ import annotations

from typing import Any

import numpy as np

from deduce.games.base import Action, Observation
from deduce.games.clue import (
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
)
from agents.base import Agent

__all__ = ["NotebookAgent", "DeductiveAgent", "refute_leaking_least"]


def refute_leaking_least(agent: Agent, obs: ClueObservation) -> Action:
    """Show a card this suggester has already seen from us if possible, else a random one
    (RULES.md §5C default refutation policy)."""
    assert obs.to_refute is not None
    suggester, _ = obs.to_refute
    options = [a.card for a in obs.legal_actions if isinstance(a, Show)]
    already = set()
    for e in obs.events:
        if isinstance(e, Suggestion) and e.by == suggester:
            for r, s in zip(e.refuters, e.shown):
                if r == obs.player and s is not None:
                    already.add(s)
    repeat = [c for c in options if c in already]
    pool = repeat or options
    return Show(pool[int(agent.rng.integers(len(pool)))])


class _ClueAgent(Agent):
    """Shared turn logic: refute, accuse when the envelope is known, otherwise suggest."""

    def envelope_candidates(self, obs: ClueObservation) -> list[list[int]]:
        raise NotImplementedError

    def placed(self, obs: ClueObservation) -> np.ndarray:
        """bool[card]: cards whose location this agent already knows."""
        raise NotImplementedError

    def act(self, observation: Observation) -> Action:
        obs = observation
        assert isinstance(obs, ClueObservation) and isinstance(self.game, ClueGame)
        if obs.to_refute is not None:
            return refute_leaking_least(self, obs)
        candidates = self.envelope_candidates(obs)
        if all(len(c) == 1 for c in candidates):
            return Accuse(tuple(c[0] for c in candidates))  # type: ignore[arg-type]
        legal = obs.legal_actions
        if EndTurn() in legal:
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
    choice; accuses only when the envelope is certain."""

    name = "deductive"

    def __init__(self, solver: str = "auto", **params: Any) -> None:
        super().__init__(solver=solver, **params)
        self.solver_name = solver
        self._solver = None
        self._cache: tuple[int, np.ndarray] | None = None

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

AGENTS = {"notebook": NotebookAgent, "deductive": DeductiveAgent}
