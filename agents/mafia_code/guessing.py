"""Mafia Code agents: ``facts`` (a careful human's sheet reading) and ``guess-chain`` (exact marginals
and the value of a guess chain).

Both choose among the legal :class:`~deduce.games.mafia_code.rules.Guess` actions (and ``Stop`` where
the rules allow it). ``facts`` uses only what is written on the public sheets: X marks, zero
cells, circled cells, reveals and its own hand. ``guess-chain`` asks an exact counter for
P(card in a player's hand) given everything it has seen, and values a guess by what it is worth
with the turn's continuation, its effect on ending the game, and, under the expert rule, the
points a miss would cost.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent
from deduce.constraints import At
from deduce.errors import NotSupported
from deduce.games.base import Action, Observation
from deduce.games.mafia_code.rules import Guess, MafiaCodeGame, MafiaCodeObservation, Stop
from deduce.knowledge import KnowledgeBase

__all__ = ["FactsAgent", "GuessChainAgent", "GreedyAgent", "direct_exclusions", "chain_value"]


def direct_exclusions(game: MafiaCodeGame, obs: MafiaCodeObservation) -> np.ndarray:
    """bool[card, seat]: cards a player is known not to hold from the sheets' direct facts.

    Own hand (nobody else holds it), reveals, X marks from misses, zero cells and circled
    cells (every unrevealed card of the cell's colour or letter). No counting beyond that.
    """
    n = obs.num_players
    out = np.zeros((game.config.num_cards, n), dtype=bool)
    if obs.player is not None:
        for c in obs.hand:
            out[c, :] = True
            out[c, obs.player] = False
    for q, shown in enumerate(obs.revealed):
        for c in shown:
            out[c, :] = True
            out[c, q] = False
    for q, crossed in enumerate(obs.crossed):
        out[list(crossed), q] = True
    for q, cells in enumerate(obs.cells):
        for colour, letter, count in cells:
            if count == 0:
                out[list(game.matching(colour, letter)), q] = True
    for q, circled in enumerate(obs.circled):
        shown = set(obs.revealed[q])
        for colour, letter in circled:
            out[[c for c in game.matching(colour, letter) if c not in shown], q] = True
    return out


def chain_value(p_next: float, remaining: int) -> float:
    """Expected further hits when each guess succeeds with probability ``p_next`` (a geometric
    chain, at most ``remaining`` long): the worth of being allowed to go on after a hit."""
    if remaining <= 0 or p_next <= 0.0:
        return 0.0
    if p_next >= 1.0:
        return float(remaining)
    return p_next * (1.0 - p_next**remaining) / (1.0 - p_next)


def _guesses(obs: Observation) -> list[Guess]:
    return [a for a in obs.legal_actions if isinstance(a, Guess)]


def _ends_badly(obs: MafiaCodeObservation, game: MafiaCodeGame, target: int) -> bool:
    """Whether revealing ``target``'s last card would end the game with this player not on top."""
    left = game.config.hand_sizes()[target] - len(obs.revealed[target])
    if left != 1 or obs.player is None:
        return False
    scores = list(obs.scores)
    scores[obs.player] += 1
    return scores[obs.player] < max(scores)


class FactsAgent(Agent):
    """The human baseline: rule out cards by the sheets' direct facts, then name a card of the
    player with the best odds (unrevealed cards / cards not ruled out), uniformly among those
    left. Under the expert rule it stops once those odds no longer pay for the points at risk."""

    name = "facts"

    def act(self, observation: Observation) -> Action:
        obs = observation
        game = self.game
        assert isinstance(obs, MafiaCodeObservation) and isinstance(game, MafiaCodeGame)
        guesses = _guesses(obs)
        if not guesses:
            return obs.legal_actions[0]
        excluded = direct_exclusions(game, obs)
        best: tuple[float, int] | None = None
        for q in sorted({g.target for g in guesses}):
            left = game.config.hand_sizes()[q] - len(obs.revealed[q])
            open_cards = [g.card for g in guesses if g.target == q and not excluded[g.card, q]]
            if not open_cards:
                continue
            odds = min(1.0, left / len(open_cards))
            if _ends_badly(obs, game, q):
                odds -= 1.0
            if best is None or odds > best[0]:
                best = (odds, q)
        if best is None:  # every legal card is ruled out: forced to waste a guess, or stop
            if Stop() in obs.legal_actions:
                return Stop()
            return guesses[int(self.rng.integers(len(guesses)))]
        odds, q = best
        if Stop() in obs.legal_actions and obs.expert and odds < obs.turn_gain / (1.0 + obs.turn_gain):
            return Stop()
        pool = [g for g in guesses if g.target == q and not excluded[g.card, q]]
        return pool[int(self.rng.integers(len(pool)))]


class GuessChainAgent(Agent):
    """Guesses the card worth most given exact marginals P(card in player's hand).

    Value of a guess = P(hit) x (1 + value of going on), where going on is valued from the
    best hit probability *after* that hit (the knowledge base plus the revealed card, solved
    again for the ``lookahead`` most likely candidates) as a geometric chain. Certain hits are
    free and go first. A hit that would end the game with this player behind is avoided. Under
    the expert rule (when stopping is allowed) a guess is valued by its expected change in
    points, P x (1 + going on) - (1 - P) x points at risk, going on is only the option of one
    more such guess, and it stops as soon as no guess has a positive value. Optionally
    (``leak_weight``) a hit is charged for what it tells the next player, measured on the
    public knowledge base.

    Marginals come from the ``split`` backend (the exact class DP, branching on card locations
    where Mafia Code's crossing counts make one DP too wide), which answers every knowledge base
    of the benchmark corpus exactly. Should a backend still refuse (``TooLarge`` past ``limit``
    DP transitions, or a knowledge base it does not support), marginals are approximated from
    the set of possible locations (``cpsat``): hand cards left / possible cards, per player;
    ``fallbacks`` counts those.
    """

    name = "guess-chain"

    def __init__(
        self,
        solver: str = "split",
        limit: int = 1_000_000_000,
        lookahead: int = 3,
        leak_weight: float = 0.0,
        **params: Any,
    ) -> None:
        super().__init__(solver=solver, limit=limit, lookahead=lookahead, leak_weight=leak_weight, **params)
        self.solver_name = solver
        self.limit = int(limit)
        self.lookahead = int(lookahead)
        self.leak_weight = float(leak_weight)
        self._solver: Any = None
        self._fallback: Any = None
        #: how many marginal queries fell back to the possible-location approximation.
        self.fallbacks = 0
        self.queries = 0

    # -- solving ------------------------------------------------------------------------------
    def _backend(self) -> Any:
        if self._solver is None:
            import solvers

            kwargs = {"limit": self.limit} if self.solver_name in ("split", "exact", "cpsat", "brute") else {}
            self._solver = solvers.get(self.solver_name, **kwargs)
        return self._solver

    def marginals(self, kb: KnowledgeBase, hand_left: list[int]) -> np.ndarray:
        """float[card, loc]: exact P(card at loc), or the possible-location approximation."""
        self.queries += 1
        try:
            return np.asarray(self._backend().marginals(kb), dtype=float)
        except NotSupported:  # TooLarge is a NotSupported
            self.fallbacks += 1
            if self._fallback is None:
                import solvers

                self._fallback = solvers.get("cpsat")
            possible = self._fallback.possible(kb).astype(float)
            out = possible.copy()
            for q, left in enumerate(hand_left):
                fixed = (possible.sum(axis=1) == 1) & (possible[:, q] > 0)
                free = (possible[:, q] > 0) & ~fixed
                if free.any():
                    out[free, q] = max(0.0, left - fixed.sum()) / free.sum()
            return out

    # -- deciding -----------------------------------------------------------------------------
    def act(self, observation: Observation) -> Action:
        obs = observation
        game = self.game
        assert isinstance(obs, MafiaCodeObservation) and isinstance(game, MafiaCodeGame)
        guesses = _guesses(obs)
        if not guesses:
            return obs.legal_actions[0]
        kb = game.knowledge(obs)
        sizes = game.config.hand_sizes()
        hand_left = [sizes[q] - len(obs.revealed[q]) for q in range(obs.num_players)]
        m = self.marginals(kb, hand_left)
        p = np.array([m[g.card, g.target] for g in guesses])
        bad_end = np.array([_ends_badly(obs, game, g.target) for g in guesses])
        can_stop = Stop() in obs.legal_actions
        # a certain hit costs nothing and keeps the turn going: take it (unless it ends the
        # game with us behind)
        sure = np.flatnonzero((p > 1.0 - 1e-9) & ~bad_end)
        if len(sure):
            ending = [i for i in sure if hand_left[guesses[i].target] == 1]
            rest = [i for i in sure if i not in ending]
            return guesses[int((rest or ending)[0])]
        # rank by hit probability, then value the best few with a one-step lookahead
        order = np.lexsort((self.rng.random(len(p)), -p))
        top = [int(i) for i in order if not bad_end[i]][: max(1, self.lookahead)]
        if not top:  # every guess ends the game badly: stop if allowed, else the least bad
            if can_stop:
                return Stop()
            return guesses[int(order[0])]
        remaining = sum(hand_left[q] for q in range(obs.num_players) if q != obs.player)
        # under the expert rule a miss costs the turn's points so far: value = expected change
        at_risk = obs.turn_gain if (can_stop and obs.expert) else 0
        if self.lookahead <= 0:  # plain greedy: the most likely card, valued as P alone
            top = top[:1]
            values = [float(p[top[0]]) - (1.0 - float(p[top[0]])) * at_risk]
        else:
            values = [
                self._value(kb, obs, guesses[i], float(p[i]), hand_left, remaining, at_risk, can_stop)
                for i in top
            ]
        best = int(np.argmax(values))
        if can_stop and obs.expert and values[best] <= 0.0:
            return Stop()
        return guesses[top[best]]

    def _value(
        self,
        kb: KnowledgeBase,
        obs: MafiaCodeObservation,
        g: Guess,
        p: float,
        hand_left: list[int],
        remaining: int,
        at_risk: int = 0,
        can_stop: bool = False,
    ) -> float:
        """Expected points of the guess: P(hit) x (1 + value of going on) - P(miss) x points at
        risk, minus the optional leak charge.

        Going on is valued from the best hit probability after this hit. With nothing at risk
        it is a geometric chain of further hits; under the expert rule (with stopping allowed)
        it is the option of one more guess that risks ``at_risk + 1`` points, worth taking only
        when positive, since a long chain would put ever more points at stake.
        """
        if p <= 0.0:
            return -(1.0 - p) * at_risk
        after = kb.copy()
        after.extend([At(g.card, g.target)], check=False)
        left = list(hand_left)
        left[g.target] -= 1
        miss_cost = (1.0 - p) * at_risk
        if left[g.target] == 0:  # this hit ends the game: nothing to go on with
            return p - miss_cost
        m2 = self.marginals(after, left)
        revealed = {c for r in obs.revealed for c in r} | {g.card}
        best_next = 0.0
        for q in range(obs.num_players):
            if q == obs.player or left[q] == 0:
                continue
            for c in range(m2.shape[0]):
                if c not in revealed and m2[c, q] > best_next:
                    best_next = float(m2[c, q])
        if at_risk > 0 or (can_stop and obs.expert):
            going_on = max(0.0, best_next - (1.0 - best_next) * (at_risk + 1))
        else:
            going_on = chain_value(best_next, remaining - 1)
        value = p * (1.0 + going_on) - miss_cost
        if self.leak_weight > 0.0:
            value -= self.leak_weight * p * self._leak(obs, g)
        return value

    def _leak(self, obs: MafiaCodeObservation, g: Guess) -> float:
        """How much the reveal raises the best hit probability on public knowledge alone (what
        an opponent knows at least), 0 when that knowledge base is too large to count."""
        game = self.game
        assert isinstance(game, MafiaCodeGame)
        public = game.knowledge(_public_view(obs))
        try:
            before = np.asarray(self._backend().marginals(public), dtype=float)
            public.extend([At(g.card, g.target)], check=False)
            after = np.asarray(self._backend().marginals(public), dtype=float)
        except NotSupported:
            return 0.0
        seats = game.num_players
        mask = np.ones_like(before[:, :seats], dtype=bool)
        mask[g.card, :] = False
        return max(0.0, float(after[:, :seats][mask].max() - before[:, :seats][mask].max()))


class GreedyAgent(GuessChainAgent):
    """Ablation of ``guess-chain``: the same exact marginals, but always the single most likely card
    (no value of going on), to measure what the chain lookahead is worth."""

    name = "greedy"

    def __init__(self, lookahead: int = 0, **params: Any) -> None:
        super().__init__(lookahead=lookahead, **params)


def _public_view(obs: MafiaCodeObservation) -> MafiaCodeObservation:
    """The same observation without the private hand (what every player sees)."""
    from dataclasses import replace

    from deduce.games.mafia_code.rules import Dealt

    return replace(obs, player=None, hand=(), events=tuple(e for e in obs.events if not isinstance(e, Dealt)))
