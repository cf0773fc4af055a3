"""Crime Hotel agents: ``expected-points`` (expected points from the exact hidden-room marginals).

``random`` is the generic agent. The expected-points agent:

* **deduces** on the legal guess space with the highest expected points over the exact
  posterior of the hidden room (floor 2·P(floor), end digit 5·P(digit), room 10·P(room), plus
  the bonus slot it holds when the guess makes its deductions score);
* **supports** with the department worth most: a check or an exchange by the expected gain of
  its future deductions from the cards it would see (an exchange discounted by what the other
  player learns), the bonus by its slot value times the chance of scoring, a move of its own
  meeple by the expected-points gain, double placement by the gain over the best free space;
* **plays cards** to win the parking space whose action is worth more (the skid spaces deduce,
  the others support; under the beginner rule the others are worth nothing), estimating each
  card's rank in the trick by simulating the players still to play, and, among cards worth
  about the same, plays the one that leaks least: the room whose lighting helps the table's
  public estimate of the hidden room least.

The posterior comes from :class:`solvers.chain.ChainSolver` on the player's own
time-indexed knowledge base, cached per observation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent
from deduce.errors import NotSupported
from deduce.games.base import Action, Observation
from deduce.games.crime_hotel.rules import (
    HIDDEN,
    Bonus,
    Check,
    CrimeHotelGame,
    CrimeHotelObservation,
    Deduce,
    Double,
    Exchange,
    MovePolice,
    Play,
    Space,
)

__all__ = ["ExpectedPointsAgent"]


class ExpectedPointsAgent(Agent):
    """Expected-points play from exact hidden-room marginals (see the module docstring).

    ``leak_weight``: how much a card's help to the table's public estimate counts against it;
    ``samples``: simulated completions of a trick when estimating where a card will rank.
    """

    name = "expected-points"

    def __init__(self, leak_weight: float = 0.3, samples: int = 40, **params: Any) -> None:
        super().__init__(leak_weight=leak_weight, samples=samples, **params)
        self.leak_weight = float(leak_weight)
        self.samples = int(samples)
        self._solver: Any = None
        self._cache: tuple[tuple[int, int], np.ndarray, np.ndarray] | None = None

    # -- beliefs ----------------------------------------------------------------------------------
    @property
    def g(self) -> CrimeHotelGame:
        assert isinstance(self.game, CrimeHotelGame)
        return self.game

    def beliefs(self, obs: CrimeHotelObservation) -> tuple[np.ndarray, np.ndarray]:
        """(P(hidden = card), P(card is at each location now)) from the exact counter."""
        key = (obs.game_index, len(obs.events))
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1], self._cache[2]
        if self._solver is None:
            from solvers.chain import ChainSolver

            self._solver = ChainSolver()
        kb = self.g.knowledge(obs)
        try:
            marg = np.asarray(self._solver.marginals(kb), dtype=float)
        except NotSupported:  # too many states: fall back on what propagation rules out
            from deduce.knowledge import propagate

            poss = propagate(kb).possible[-1].astype(float)
            marg = poss / np.maximum(poss.sum(axis=1, keepdims=True), 1)
        hidden = marg[:, kb.loc(HIDDEN)]
        hidden = hidden / hidden.sum() if hidden.sum() > 0 else np.full(len(hidden), 1 / len(hidden))
        self._cache = (key, hidden, marg)
        return hidden, marg

    def space_values(self, p: np.ndarray) -> dict[Space, float]:
        """Expected points of every guess space when the hidden room has distribution ``p``."""
        g, cfg = self.g, self.g.config
        floors = np.asarray(g.floor_of)
        digits = np.asarray(g.digit_of)
        out: dict[Space, float] = {}
        for f in range(1, cfg.floors + 1):
            out[Space("floor", f)] = cfg.floor_points * float(p[floors == f].sum())
        for d in range(1, cfg.digits + 1):
            out[Space("digit", d)] = cfg.digit_points * float(p[digits == d].sum())
        for c in range(len(p)):
            out[Space("room", c)] = cfg.room_points * float(p[c])
        return out

    def _open_spaces(self, obs: CrimeHotelObservation) -> list[Space]:
        """Spaces this player could deduce on now (free, or occupied with a double right)."""
        me = obs.player
        rights = obs.double_rights[me] > 0 if obs.double_rights else False
        occupied: dict[Space, set[int]] = {}
        for s, p in obs.board:
            occupied.setdefault(s, set()).add(p)
        return [s for s in self.g.spaces if me not in occupied.get(s, set()) and (rights or s not in occupied)]

    def best_deduction(self, obs: CrimeHotelObservation, p: np.ndarray) -> float:
        values = self.space_values(p)
        return max((values[s] for s in self._open_spaces(obs)), default=0.0)

    def _my_bonus(self, obs: CrimeHotelObservation) -> int:
        slots = self.g.config.bonus_slots
        mine = dict(obs.stations).get("bonus", ())
        return max((slots[i] for i, q in enumerate(mine) if q == obs.player), default=0)

    def _score_matrix(self, obs: CrimeHotelObservation, extra: list[Space] = ()) -> np.ndarray:
        """Points of this player's deductions for each possible hidden room."""
        g = self.g
        spaces = [s for s, q in obs.board if q == obs.player] + list(extra)
        return np.array([sum(g.points(s, h) for s in spaces) for h in range(len(g.deck))], dtype=float)

    def _expected_game_points(self, obs: CrimeHotelObservation, p: np.ndarray, extra: list[Space] = (), bonus: int | None = None) -> float:
        pts = self._score_matrix(obs, list(extra))
        b = self._my_bonus(obs) if bonus is None else bonus
        return float(p @ (pts + b * (pts > 0)))

    def _future_deductions(self, obs: CrimeHotelObservation) -> float:
        """How many more deductions this player expects this game (skid spaces per round)."""
        cfg = self.g.config
        rounds_left = cfg.rounds - obs.round - (0 if obs.phase == "play" else 1)
        return max(rounds_left, 0) * 2 / cfg.num_players

    # -- information value ------------------------------------------------------------------------
    def info_value(self, obs: CrimeHotelObservation, target: int, k: int) -> float:
        """Expected gain of the best future deduction from seeing ``k`` random cards of
        ``target`` (cards drawn by their chance of being in that hand; each seen card is ruled
        out as the hidden room)."""
        hidden, marg = self.beliefs(obs)
        size = obs.hand_sizes[target] if obs.hand_sizes else 1
        if size <= 0 or k <= 0:
            return 0.0
        q = marg[:, target].copy()
        q[hidden <= 0] = 0.0  # cards that cannot be hidden teach nothing about the hidden room
        mass = q.sum()
        base = self.best_deduction(obs, hidden)
        if mass <= 0:
            return 0.0
        gain = 0.0
        hand_total = max(marg[:, target].sum(), 1e-9)
        for c in np.flatnonzero(q):
            # chance that card c is among the k seen (k/size of the time it is there)
            seen = q[c] / hand_total * min(k, size)
            post = hidden.copy()
            post[c] = 0.0
            post /= post.sum()
            gain += seen * (self.best_deduction(obs, post) - base)
        return max(gain, 0.0) * max(self._future_deductions(obs), 0.5)

    # -- decisions --------------------------------------------------------------------------------
    def act(self, observation: Observation) -> Action:
        obs = observation
        assert isinstance(obs, CrimeHotelObservation)
        legal = obs.legal_actions
        if obs.decision == "play":
            return self.play(obs)
        if obs.decision == "deduce":
            return self.deduce(obs)
        if obs.decision == "support":
            return self.support(obs)
        return legal[int(self.rng.integers(len(legal)))]

    def deduce(self, obs: CrimeHotelObservation) -> Action:
        hidden, _ = self.beliefs(obs)
        options = [a for a in obs.legal_actions if isinstance(a, Deduce)]
        values = [self._expected_game_points(obs, hidden, [a.space]) for a in options]
        return options[int(np.argmax(values))]

    def support_values(self, obs: CrimeHotelObservation) -> dict[Action, float]:
        """Expected worth of each kind of support action (one representative per kind)."""
        hidden, _ = self.beliefs(obs)
        cfg = self.g.config
        legal = obs.legal_actions
        now = self._expected_game_points(obs, hidden)
        stations = dict(obs.stations)
        out: dict[Action, float] = {}
        future = self._future_deductions(obs)
        p_score = float(hidden @ (self._score_matrix(obs) > 0))
        p_score = max(p_score, 1 - 0.35 ** future) if future > 0 else p_score
        if Bonus() in legal:
            slot = cfg.bonus_slots[len(stations.get("bonus", ()))]
            out[Bonus()] = max(slot - self._my_bonus(obs), 0) * p_score
        if Double() in legal:
            values = self.space_values(hidden)
            occupied = {s for s, q in obs.board if q != obs.player}
            free = [values[s] for s in self.g.spaces if s not in occupied]
            taken = [values[s] for s in occupied]
            gain = max(max(taken, default=0.0) - max(free, default=0.0), 0.0)
            out[Double()] = gain * min(future, 1.0)
        moves = [a for a in legal if isinstance(a, MovePolice)]
        if moves:
            best, best_v = MovePolice(), 0.0
            for a in moves:
                if a.src is None:
                    continue
                spaces = [s for s, q in obs.board if q == obs.player]
                spaces.remove(a.src)
                spaces.append(a.dst)
                pts = np.array([sum(self.g.points(s, h) for s in spaces) for h in range(len(hidden))], dtype=float)
                b = self._my_bonus(obs)
                v = float(hidden @ (pts + b * (pts > 0))) - now
                if v > best_v:
                    best, best_v = a, v
            out[best] = best_v
        checks = [a for a in legal if isinstance(a, Check)]
        if checks:
            k = cfg.check_slots[len(stations.get("check", ()))]
            vals = {a: self.info_value(obs, a.target, k) for a in checks}
            a = max(vals, key=vals.get)
            out[a] = vals[a]
        exchanges = [a for a in legal if isinstance(a, Exchange)]
        if exchanges:
            k = len(exchanges[0].give)
            targets = sorted({a.target for a in exchanges})
            vals = {t: self.info_value(obs, t, k) for t in targets}
            t = max(vals, key=vals.get)
            give = self.cards_to_give(obs, [a for a in exchanges if a.target == t])
            # the other player learns as many of our cards: half a rival's gain counts against us
            out[give] = vals[t] * 0.5
        return out

    def support(self, obs: CrimeHotelObservation) -> Action:
        values = self.support_values(obs)
        if not values:
            legal = obs.legal_actions
            return legal[int(self.rng.integers(len(legal)))]
        return max(values, key=values.get)

    def cards_to_give(self, obs: CrimeHotelObservation, options: list[Exchange]) -> Exchange:
        """Give middling cards: keep the extremes that win the deduction parking spaces."""
        rank = self.g.rank_of
        hand = sorted(obs.hand, key=lambda c: rank[c])
        middle = {c: abs(i - (len(hand) - 1) / 2) for i, c in enumerate(hand)}
        return min(options, key=lambda a: sum(middle[c] for c in a.give))

    # -- card play --------------------------------------------------------------------------------
    def play(self, obs: CrimeHotelObservation) -> Action:
        g, cfg = self.g, self.g.config
        n = cfg.num_players
        options = [a for a in obs.legal_actions if isinstance(a, Play)]
        if len(options) == 1:
            return options[0]
        hidden, _ = self.beliefs(obs)
        deduce_value = self.best_deduction(obs, hidden)
        if cfg.beginner:
            support_value = 0.0
        else:
            support_value = max(self.support_values_estimate(obs), 0.0)
        # who still plays after us, and which cards they might hold (unknown to us)
        played = dict(obs.trick)
        me = obs.player
        later = [(obs.leader + k) % n for k in range(n) if (obs.leader + k) % n not in played and (obs.leader + k) % n != me]
        known = set(obs.hand) | set(played.values())
        public = self._public_cards(obs)
        pool = [c for c in range(len(g.deck)) if c not in known and c not in public]
        rank = np.asarray(g.rank_of)
        led = obs.led
        leak = self._leaks(obs, [a.card for a in options])
        best, best_v = options[0], -np.inf
        for a in options:
            led_here = led if led is not None else g.floor_of[a.card]
            p_extreme = self._p_extreme(a.card, list(played.values()), later, pool, led_here, rank)
            v = p_extreme * deduce_value + (1 - p_extreme) * support_value - self.leak_weight * leak[a.card]
            if v > best_v:
                best, best_v = a, v
        return best

    def support_values_estimate(self, obs: CrimeHotelObservation) -> float:
        """What a support action is worth now (before the trick: a proxy for after it)."""
        hidden, _ = self.beliefs(obs)
        cfg = self.g.config
        stations = dict(obs.stations)
        me = obs.player
        others = [p for p in range(cfg.num_players) if p != me]
        best = 0.0
        if len(stations.get("check", ())) < len(cfg.check_slots):
            k = cfg.check_slots[len(stations.get("check", ()))]
            best = max(best, max(self.info_value(obs, t, k) for t in others))
        if len(stations.get("bonus", ())) < len(cfg.bonus_slots):
            slot = cfg.bonus_slots[len(stations.get("bonus", ()))]
            best = max(best, max(slot - self._my_bonus(obs), 0) * 0.8)
        return best

    def _p_extreme(self, card: int, played: list[int], later: list[int], pool: list[int], led: int, rank: np.ndarray) -> float:
        """Chance that ``card`` ends highest or lowest in the trick, simulating the players still
        to play (each follows the led floor from the unknown cards when it can, as far as the
        pool suggests)."""
        if not later:
            ranks = [rank[c] for c in played] + [rank[card]]
            return 1.0 if rank[card] in (max(ranks), min(ranks)) else 0.0
        floor_of = self.g.floor_of
        same = [c for c in pool if floor_of[c] == led]
        hits = 0
        for _ in range(self.samples):
            cards = list(played) + [card]
            avail = list(pool)
            for _p in later:
                follow = [c for c in avail if c in same]
                # a player follows when it can; with a pool this large it usually can
                src = follow if follow and self.rng.random() < 0.8 else avail
                if not src:
                    break
                pick = src[int(self.rng.integers(len(src)))]
                avail.remove(pick)
                cards.append(pick)
            ranks = [rank[c] for c in cards]
            hits += rank[card] in (max(ranks), min(ranks))
        return hits / self.samples

    def _public_cards(self, obs: CrimeHotelObservation) -> set[int]:
        from deduce.games.crime_hotel.rules import GameStarted, Played

        events = CrimeHotelGame.current_game_events(obs.events)
        out: set[int] = set()
        for e in events:
            if isinstance(e, GameStarted):
                out |= set(e.revealed)
            elif isinstance(e, Played):
                out.add(e.card)
        return out

    def _leaks(self, obs: CrimeHotelObservation, cards: list[int]) -> dict[int, float]:
        """How much lighting each card would raise the table's best public deduction (the public
        view: every unlit room equally likely)."""
        public = self._public_cards(obs)
        p = np.array([0.0 if c in public else 1.0 for c in range(len(self.g.deck))])
        p /= p.sum()
        base = max(self.space_values(p).values())
        out = {}
        for c in cards:
            q = p.copy()
            q[c] = 0.0
            q /= q.sum()
            out[c] = max(self.space_values(q).values()) - base
        return out
