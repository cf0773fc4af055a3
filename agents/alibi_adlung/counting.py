"""Alibi (Adlung 2001) agents: ``random`` and ``counting``.

``counting`` values a position by who is likely to be convicted and by whom, given what the
opponents probably hold: exact marginals P(card in opponent q's hand / in the deck) from the
knowledge base (the ``exact`` counter) give each opponent's expected cards of every feature.
It plays the evidence (or special card) whose resulting position is worth most in expected
points relative to the opponents, names the culprit that pays it most, exchanges the cards
worth less than an average draw, and never declines to name.

The value model, in short (see :meth:`CountingAgent.value`):

* a suspect ``s`` still needing ``k`` different features is convicted this round with weight
  ``exp(-beta k)`` (zero when the missing features are no longer available anywhere);
* its worth to me is my tableau cards matching it, plus ``lam`` per matching card still in my
  hand, plus the naming bonus times the chance that I name it, minus the same for the average
  opponent (whose hand is its expected feature counts). With one feature missing, the
  opponents who play before me are likely to finish it: P(q holds a missing feature) comes
  from the marginals, and the bonus goes to the first one who does;
* special cards in hand are worth a constant (``kappa``); a move that lets me name a culprit
  now is worth its certain points.

These probabilities are a heuristic model on top of exact counts for the knowledge base (which
is itself a sound relaxation of the posterior after voids): approximate, not exact. The card
marginals themselves are the exact posterior (``exact_time=True``, the default: the
time-indexed knowledge of :mod:`deduce.games.alibi_adlung.history`, counted by
``solvers.timeline``, as fast as the static model); ``exact_time=False`` uses ``solver``
on the static relaxation (``cohorts=False``: without the reshuffle facts, the agent before).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from agents.base import Agent
from agents.random_agent import RandomAgent
from deduce.errors import NotSupported, TooLarge
from deduce.games.alibi_adlung.rules import (
    AlibiAdlungGame,
    AlibiAdlungObservation,
    Decline,
    Exchange,
    Name,
    Pass,
    Phase,
    PlayAlibi,
    PlayBribe,
    PlayEvidence,
    PlayEye,
    Special,
)
from deduce.games.base import Action, Observation

__all__ = ["CountingAgent", "RandomAgent", "Position"]


@dataclass(frozen=True)
class Position:
    """The public table plus my hand, after some hypothetical plays of mine."""

    row: tuple[int, ...]
    alibied: frozenset[int]
    tableaux: tuple[tuple[int, ...], ...]
    hand: tuple[int, ...]
    laid: bool = False
    third: int | None = None


class CountingAgent(Agent):
    """Plays for expected points from exact card-location marginals (module docstring)."""

    name = "counting"

    def __init__(
        self,
        beta: float = 1.2,
        lam: float = 0.5,
        kappa: float = 0.25,
        kappa_eye: float = 0.6,
        swap_margin: float = 0.05,
        solver: str = "exact",
        exact_time: bool = True,
        cohorts: bool = True,
        **params: Any,
    ) -> None:
        super().__init__(beta=beta, lam=lam, kappa=kappa, kappa_eye=kappa_eye, swap_margin=swap_margin,
                         solver=solver, exact_time=exact_time, cohorts=cohorts, **params)
        self.beta = float(beta)
        self.lam = float(lam)
        self.kappa = float(kappa)
        self.kappa_eye = float(kappa_eye)
        self.swap_margin = float(swap_margin)
        self.solver_name = solver
        #: True (default): exact posterior marginals of the time-indexed knowledge
        #: (solvers.timeline); False: ``solver`` on the static relaxation.
        self.exact_time = bool(exact_time)
        #: the static knowledge base knows which hidden cards cannot be in a reshuffled deck.
        self.cohorts = bool(cohorts)
        self._solver: Any = None
        self._counter: Any = None
        self._cache: tuple[int, np.ndarray, np.ndarray] | None = None
        #: how often a model refused: the exact posterior (then the static model is used) or the
        #: static solver (then card counting alone).
        self.fallbacks = 0

    # -- beliefs ------------------------------------------------------------------------------
    def beliefs(self, obs: AlibiAdlungObservation) -> tuple[np.ndarray, np.ndarray]:
        """``(E, deck_p)``: E[q, feature index] = expected cards of that feature in q's hand;
        ``deck_p[card]`` = P(card in the deck). Exact marginals of the knowledge base, cached per
        observation (several decisions of one turn share it)."""
        key = len(obs.events)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1], self._cache[2]
        game = self.game
        assert isinstance(game, AlibiAdlungGame)
        n = obs.num_players
        try:
            m = self.marginals(obs)
        except NotSupported:  # a refused query: uniform over the unknown places (card counting)
            self.fallbacks += 1
            m = self._uniform(obs)
        feats = [f for f, _ in game.config.evidence_counts]
        E = np.zeros((n + 1, len(feats)))
        for i, f in enumerate(feats):
            cards = list(game.cards_of_feature[f])
            if cards:
                E[:, i] = m[cards, : n + 1].sum(axis=0)
        self._cache = (key, E, m[:, n])
        return E, m[:, n]

    def marginals(self, obs: AlibiAdlungObservation) -> np.ndarray:
        """float[card, loc] now: the exact posterior (``exact_time``) or ``solver`` on the
        static knowledge base."""
        game = self.game
        assert isinstance(game, AlibiAdlungGame)
        if self.exact_time:
            from deduce.games.alibi_adlung.history import timeline
            from solvers.timeline import TimelineCounter

            if self._counter is None:
                self._counter = TimelineCounter()
            try:
                return np.asarray(self._counter.marginals(timeline(game, obs)), dtype=float)
            except TooLarge:  # too many pooled states: the static relaxation instead
                self.fallbacks += 1
        if self._solver is None:
            import solvers

            self._solver = solvers.get(self.solver_name)
        return np.asarray(self._solver.marginals(game.knowledge(obs, cohorts=self.cohorts)), dtype=float)

    def _uniform(self, obs: AlibiAdlungObservation) -> np.ndarray:
        game = self.game
        assert isinstance(game, AlibiAdlungGame)
        n = obs.num_players
        known = set(obs.hand) | set(obs.discard) | {c for t in obs.tableaux for c in t}
        known |= {c for _, c in obs.alibis} | {c for _, c in obs.eyes}
        places = [q for q in range(n) if q != obs.player] + [n]
        sizes = [obs.hand_sizes[q] for q in places[:-1]] + [obs.deck_size]
        total = max(1, sum(sizes))
        m = np.zeros((len(game.deck), n + 3))
        for c in range(len(game.deck)):
            if c not in known:
                for z, k in zip(places, sizes, strict=True):
                    m[c, z] = k / total
        return m

    # -- the value model ----------------------------------------------------------------------
    def _feature_index(self) -> dict[str, int]:
        game = self.game
        assert isinstance(game, AlibiAdlungGame)
        return {f: i for i, (f, _) in enumerate(game.config.evidence_counts)}

    def _pts(self, tableau: tuple[int, ...], s: int) -> int:
        game = self.game
        assert isinstance(game, AlibiAdlungGame)
        return sum(1 for c in tableau if game.matches(c, s))

    def suspect_weights(self, obs: AlibiAdlungObservation, pos: Position) -> dict[int, float]:
        """Unnormalised chance that each uncovered suspect is this round's culprit."""
        game = self.game
        assert isinstance(game, AlibiAdlungGame)
        need_total = game.config.convict_distinct
        on_table = {game.feature_of[c] for t in pos.tableaux for c in t}
        avail = self._available(obs, pos)
        out: dict[int, float] = {}
        for s in pos.row:
            if s in pos.alibied:
                continue
            feats = game.suspects[s]
            have = len(feats & on_table)
            need = max(0, need_total - have)
            missing = [f for f in feats - on_table if avail.get(f, 0) > 0]
            if len(missing) < need:
                continue
            out[s] = math.exp(-self.beta * need)
        return out

    def _available(self, obs: AlibiAdlungObservation, pos: Position) -> dict[str, int]:
        """Cards of each feature not on the table or in the discard pile (still drawable/held)."""
        game = self.game
        assert isinstance(game, AlibiAdlungGame)
        gone = set(obs.discard) | {c for t in pos.tableaux for c in t}
        out: dict[str, int] = {}
        for f, cards in game.cards_of_feature.items():
            out[f] = sum(1 for c in cards if c not in gone)
        return out

    def value(self, obs: AlibiAdlungObservation, pos: Position) -> float:
        """Expected points of mine minus the average opponent's, for this round (module doc)."""
        game = self.game
        assert isinstance(game, AlibiAdlungGame)
        me, n = obs.player, obs.num_players
        assert me is not None
        bonus = game.config.convict_bonus
        specials = self._special_value(pos.hand)
        opps = [(me + i) % n for i in range(1, n)]
        # a culprit I can name at the end of this turn: certain points
        if pos.laid or pos.third is not None:
            need = game.config.convict_distinct
            on_table = {game.feature_of[c] for t in pos.tableaux for c in t}
            options = [s for s in pos.row if s not in pos.alibied and len(game.suspects[s] & on_table) >= need]
            if pos.third is not None:
                options.append(pos.third)
            if options:
                best = max(self.conviction_gain(pos, s) for s in options)
                return best + specials + self._hand_potential(obs, pos, exclude=None)
        weights = self.suspect_weights(obs, pos)
        total = sum(weights.values())
        if total <= 0:
            return specials
        E, _ = self.beliefs(obs)
        fidx = self._feature_index()
        avail = self._available(obs, pos)
        on_table = {game.feature_of[c] for t in pos.tableaux for c in t}
        worth = 0.0
        for s, w in weights.items():
            feats = game.suspects[s]
            idx = [fidx[f] for f in feats if f in fidx]
            need = max(0, game.config.convict_distinct - len(feats & on_table))
            # who names it
            p_name = {q: 1.0 / n for q in range(n)}
            if need <= 1:
                miss = [fidx[f] for f in feats - on_table if avail.get(f, 0) > 0]
                left = 1.0
                for q in opps:
                    h = 1.0 - math.exp(-float(E[q, miss].sum())) if miss else 0.0
                    p_name[q] = left * h
                    left *= 1.0 - h
                p_name[me] = left
            mine = self._pts(pos.tableaux[me], s) + self.lam * sum(1 for c in pos.hand if game.matches(c, s))
            mine += bonus * p_name[me]
            theirs = 0.0
            for q in opps:
                theirs += self._pts(pos.tableaux[q], s) + self.lam * float(E[q, idx].sum()) + bonus * p_name[q]
            worth += w * (mine - theirs / len(opps))
        return worth / total + specials

    def conviction_gain(self, pos: Position, s: int) -> float:
        """My points minus the average opponent's if I name ``s`` now."""
        game = self.game
        assert isinstance(game, AlibiAdlungGame) and self.player >= 0
        me = self.player
        n = len(pos.tableaux)
        theirs = sum(self._pts(pos.tableaux[q], s) for q in range(n) if q != me) / (n - 1)
        return self._pts(pos.tableaux[me], s) + game.config.convict_bonus - theirs

    def _special_value(self, hand: tuple[int, ...]) -> float:
        game = self.game
        assert isinstance(game, AlibiAdlungGame)
        out = 0.0
        for c in hand:
            kind = game.special_of[c]
            if kind is Special.EYE:
                out += self.kappa_eye
            elif kind is not None:
                out += self.kappa
        return out

    def _hand_potential(self, obs: AlibiAdlungObservation, pos: Position, exclude: int | None) -> float:
        """After a conviction the next round is open: each evidence card is worth ``lam`` times
        the share of row suspects it matches."""
        game = self.game
        assert isinstance(game, AlibiAdlungGame)
        row = [s for s in pos.row]
        if not row:
            return 0.0
        return self.lam * sum(
            sum(1 for s in row if game.matches(c, s)) / len(row) for c in pos.hand if game.feature_of[c]
        )

    def card_values(self, obs: AlibiAdlungObservation, pos: Position) -> dict[int, float]:
        """What each card is worth to hold (for exchanges): ``lam`` x P(a suspect it matches is
        the culprit) for evidence (a little for covered suspects, who return next round);
        ``kappa`` for special cards."""
        game = self.game
        assert isinstance(game, AlibiAdlungGame)
        weights = self.suspect_weights(obs, pos)
        total = sum(weights.values()) or 1.0
        out: dict[int, float] = {}
        for c in range(len(game.deck)):
            kind = game.special_of[c]
            if kind is not None:
                out[c] = self.kappa_eye if kind is Special.EYE else self.kappa
                continue
            v = sum(w for s, w in weights.items() if game.matches(c, s)) / total
            v += 0.25 * sum(1 for s in pos.alibied if game.matches(c, s)) / max(1, len(pos.row))
            out[c] = self.lam * v
        return out

    # -- moves --------------------------------------------------------------------------------
    def position(self, obs: AlibiAdlungObservation) -> Position:
        return Position(
            row=obs.row,
            alibied=frozenset(s for s, _ in obs.alibis),
            tableaux=obs.tableaux,
            hand=obs.hand,
        )

    def after(self, pos: Position, action: Action) -> Position:
        """The position after one of my plays (draws are not modelled)."""
        me = self.player
        game = self.game
        assert isinstance(game, AlibiAdlungGame)
        card = getattr(action, "card", None)
        hand = tuple(c for c in pos.hand if c != card)
        if isinstance(action, PlayEvidence):
            tabs = list(pos.tableaux)
            tabs[me] = tabs[me] + (action.card,)
            return replace(pos, hand=hand, tableaux=tuple(tabs), laid=True)
        if isinstance(action, PlayAlibi):
            alibied = pos.alibied | {action.suspect}
            left = [s for s in pos.row if s not in alibied]
            third = pos.third
            if game.config.third_alibi_rule and len(left) == 1 and len(alibied) == game.config.row_size - 1:
                third = left[0]
            return replace(pos, hand=hand, alibied=alibied, third=third)
        if isinstance(action, PlayBribe):
            tabs = tuple(tuple(c for c in t if c != action.target) for t in pos.tableaux)
            return replace(pos, hand=hand, tableaux=tabs)
        return replace(pos, hand=hand)

    def _eye_value(self, obs: AlibiAdlungObservation, pos: Position, plays: int) -> float:
        """Value after a Watchful Eye: the best greedy sequence of up to ``plays`` more plays."""
        best = self.value(obs, pos)
        if plays <= 0:
            return best
        for a in self._plays(obs, pos):
            if isinstance(a, PlayEye):
                continue
            v = self._eye_value(obs, self.after(pos, a), plays - 1) if plays > 1 else self.value(obs, self.after(pos, a))
            best = max(best, v)
        return best

    def _plays(self, obs: AlibiAdlungObservation, pos: Position) -> list[Action]:
        """My legal plays in a hypothetical position (same rules as the engine)."""
        game = self.game
        assert isinstance(game, AlibiAdlungGame)
        uncovered = [s for s in pos.row if s not in pos.alibied]
        pool = pos.row if game.config.alibied_count_for_matching else uncovered
        feats = {f for s in pool for f in game.suspects[s]}
        out: list[Action] = [PlayEvidence(c) for c in pos.hand if game.feature_of[c] in feats]
        for c in pos.hand:
            if game.special_of[c] is Special.ALIBI and len(uncovered) > 1:
                out += [PlayAlibi(c, s) for s in uncovered]
            elif game.special_of[c] is Special.BRIBE:
                out += [PlayBribe(c, t) for q, tab in enumerate(pos.tableaux) if q != self.player for t in tab]
        return out

    def _score(self, obs: AlibiAdlungObservation, pos: Position, action: Action) -> float:
        if isinstance(action, PlayEye):
            return self._eye_value(obs, self.after(pos, action), self.game.config.eye_extra_plays)  # type: ignore[union-attr]
        return self.value(obs, self.after(pos, action))

    def _best(self, obs: AlibiAdlungObservation, options: list[Action], pos: Position) -> tuple[float, Action]:
        scored = [(self._score(obs, pos, a), i) for i, a in enumerate(options)]
        top = max(v for v, _ in scored)
        ties = [i for v, i in scored if v >= top - 1e-9]
        return top, options[ties[int(self.rng.integers(len(ties)))]]

    def act(self, observation: Observation) -> Action:
        obs = observation
        game = self.game
        assert isinstance(obs, AlibiAdlungObservation) and isinstance(game, AlibiAdlungGame)
        legal = list(obs.legal_actions)
        pos = self.position(obs)
        if obs.phase == Phase.NAME.value:
            names = [a for a in legal if isinstance(a, Name)]
            if not names:
                return Decline()
            return max(names, key=lambda a: self.conviction_gain(pos, a.suspect))
        if obs.phase == Phase.SWAP.value:
            return self._swap(obs, pos, legal)
        plays = [a for a in legal if isinstance(a, PlayEvidence | PlayAlibi | PlayBribe | PlayEye)]
        if obs.phase == Phase.EYE.value:
            if not plays:
                return Pass()
            best_v, best = self._best(obs, plays, pos)
            return best if best_v > self.value(obs, pos) + 1e-9 else Pass()
        exchanges = [a for a in legal if isinstance(a, Exchange)]
        if not exchanges:  # holding playable evidence: must play
            if plays:
                return self._best(obs, plays, pos)[1]
            return legal[0]
        # nothing matches: a special card if it beats the best exchange, else exchange
        ex, ex_gain = self._exchange_choice(obs, pos, exchanges)
        if plays:
            best_v, best = self._best(obs, plays, pos)
            if best_v > self.value(obs, pos) + ex_gain:
                return best
        return ex if ex is not None else legal[0]

    def _draw_value(self, obs: AlibiAdlungObservation, values: dict[int, float]) -> float:
        _, deck_p = self.beliefs(obs)
        total = float(deck_p.sum())
        if total <= 0:  # the deck will be the reshuffled discard pile
            pile = obs.discard
            return sum(values[c] for c in pile) / len(pile) if pile else 0.0
        return float(sum(deck_p[c] * v for c, v in values.items())) / total

    def _exchange_choice(
        self, obs: AlibiAdlungObservation, pos: Position, exchanges: list[Exchange]
    ) -> tuple[Exchange | None, float]:
        """The exchange of every card worth less than an average draw (at least the worst one),
        and its expected gain."""
        values = self.card_values(obs, pos)
        draw = self._draw_value(obs, values)
        hand = sorted(pos.hand, key=lambda c: values[c])
        chosen = tuple(sorted(c for c in hand if values[c] < draw)) or (hand[0],)
        action = Exchange(chosen)
        if action not in exchanges:
            return (exchanges[0] if exchanges else None), 0.0
        return action, sum(draw - values[c] for c in chosen)

    def _swap(self, obs: AlibiAdlungObservation, pos: Position, legal: list[Action]) -> Action:
        if not pos.hand:
            return Pass()
        values = self.card_values(obs, pos)
        draw = self._draw_value(obs, values)
        worst = min(pos.hand, key=lambda c: values[c])
        if draw - values[worst] > self.swap_margin and Exchange((worst,)) in legal:
            return Exchange((worst,))
        return Pass()
