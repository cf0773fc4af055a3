"""Checkpoint Charlie agents: ``bayesian`` (arrests by expected score) and ``patient``
(arrests only when certain), both on exact posteriors from the ``checkpoint`` solver.

The posterior is uniform over the clue assignments (token per seat, up side per token) that
the player's knowledge base allows: draws and coin tosses are uniform, and other players' side
choices are taken as uniform too (a side choice is worth nothing to anyone before the first
flip, so a rational player picks it at random).

Arrests are evidence: the chief matches every clue, so an investigator who knows its own clue
arrests cats that fit it. Each arrest this round by another seat multiplies the weight of the
worlds where the cat does not fit that seat's clue by ``arrest_noise`` (1: arrests ignored, the
uniform model; 0: arresters never err). ``benchmarks/checkpoint_charlie.py``-style tables in
docs/benchmarks.md compare the settings.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import Agent
from deduce.errors import InvalidConfig
from deduce.games.base import Action, Observation
from deduce.games.checkpoint_charlie.rules import (
    DOWN,
    NUM_CATS,
    NUM_FEATURES,
    Arrest,
    Arrested,
    CatFlipped,
    CheckpointCharlieGame,
    CheckpointCharlieObservation,
    ChooseSide,
    Colour,
    HoundFlipped,
    Pass,
    RoundStarted,
    face,
)
from solvers.tokens import TokenSolver

__all__ = [
    "Posterior",
    "posterior",
    "expected_token_values",
    "opponent_arrest_rate",
    "arrest_weights",
    "CheckpointAgent",
    "BayesianAgent",
    "PatientAgent",
]

_CATS = np.arange(NUM_CATS)
#: _DIST[a, b]: number of features in which cats a and b differ.
_DIST = np.array([[bin(a ^ b).count("1") for b in range(NUM_CATS)] for a in range(NUM_CATS)])


@dataclass(frozen=True)
class Posterior:
    """Exact posterior of one player over the current round's clue assignments.

    ``chief[w]`` is the chief of world ``w``; ``feature[w, p]`` / ``side[w, p]`` the token and up
    side of seat ``p``; ``weight[w]`` the probability of world ``w`` (uniform unless arrests are
    evidence). ``p_chief[c]`` and ``p_minion[c]`` are the probabilities that cat ``c`` is the
    chief / a minion (4 of 5 features).
    """

    chief: np.ndarray
    feature: np.ndarray
    side: np.ndarray
    p_chief: np.ndarray
    p_minion: np.ndarray
    weight: np.ndarray

    @property
    def size(self) -> int:
        return len(self.chief)


def posterior(game: CheckpointCharlieGame, obs: CheckpointCharlieObservation,
              solver: TokenSolver | None = None, arrest_noise: float = 1.0) -> Posterior:
    """The observing player's exact posterior for the current round; ``arrest_noise`` < 1
    weighs the worlds by the arrests made so far (see the module docstring)."""
    solver = solver or TokenSolver()
    kb = game.knowledge(obs)
    worlds = solver.world_array(kb)
    down = kb.loc(DOWN)
    n = obs.num_players
    chief = np.zeros(len(worlds), dtype=np.int64)
    for f in range(NUM_FEATURES):
        chief |= (worlds[:, face(f, 1)] != down).astype(np.int64) << f
    feature = np.zeros((len(worlds), n), dtype=np.int64)
    side = np.zeros((len(worlds), n), dtype=np.int64)
    for card in range(2 * NUM_FEATURES):
        for p in range(n):
            at = worlds[:, card] == p
            feature[at, p] = card // 2
            side[at, p] = card % 2
    weight = arrest_weights(obs, feature, side, arrest_noise)
    p_chief = np.bincount(chief, weights=weight, minlength=NUM_CATS).astype(float)
    p_minion = (_DIST == 1).astype(float) @ p_chief
    return Posterior(chief, feature, side, p_chief, p_minion, weight)


def arrest_weights(obs: CheckpointCharlieObservation, feature: np.ndarray, side: np.ndarray,
                   arrest_noise: float) -> np.ndarray:
    """World probabilities given this round's arrests by other seats: each arrest of a cat
    that does not fit the arrester's clue in a world scales that world by ``arrest_noise``.
    Falls back to uniform if the arrests rule out every world (``arrest_noise`` 0 and an
    arrester that erred)."""
    size = len(feature)
    weight = np.ones(size)
    if arrest_noise < 1.0 and size:
        for e in CheckpointCharlieGame.round_events(obs.events):
            if isinstance(e, Arrested) and e.player != obs.player:
                fits = ((e.cat >> feature[:, e.player]) & 1) == side[:, e.player]
                weight = np.where(fits, weight, weight * arrest_noise)
    total = weight.sum()
    return weight / total if total > 0 else np.full(size, 1.0 / max(size, 1))


def expected_token_values(game: CheckpointCharlieGame, obs: CheckpointCharlieObservation) -> dict[Colour, float]:
    """Expected value of the next token of each colour: the mean of the values this player has
    not drawn itself (others' draws are unseen, hence exchangeable); 0 for a colour run out."""
    out: dict[Colour, float] = {}
    left = dict(obs.pool_left)
    for colour in Colour:
        pool = game.config.pool(colour)
        mine = [v for c, v in obs.my_tokens if c is colour]
        rest = len(pool) - len(mine)
        out[colour] = (sum(pool) - sum(mine)) / rest if rest > 0 and left[colour] > 0 else 0.0
    return out


def opponent_arrest_rate(obs: CheckpointCharlieObservation, prior: tuple[float, float] = (1.0, 4.0)) -> np.ndarray:
    """Per seat: the probability that it arrests after a flip, while it has no arrest and a
    cat is free (Beta-smoothed count over the whole game: arrests / flips when it could)."""
    n = obs.num_players
    arrests = np.zeros(n)
    chances = np.zeros(n)
    kept: set[int] = set()
    taken: set[int] = set()
    arrested: set[int] = set()
    for e in obs.events:
        if isinstance(e, RoundStarted):
            kept, taken, arrested = set(), set(), set()
        elif isinstance(e, (CatFlipped, HoundFlipped)):
            if isinstance(e, CatFlipped) and e.kept and e.cat is not None:
                kept.add(e.cat)
            if kept - taken:
                for p in range(n):
                    if p not in arrested:
                        chances[p] += 1
        elif isinstance(e, Arrested):
            taken.add(e.cat)
            arrested.add(e.player)
            arrests[e.player] += 1
    a, b = prior
    return (arrests + a) / (chances + a + b)


class CheckpointAgent(Agent):
    """Shared plumbing: a cached exact posterior and a random side choice."""

    name = "checkpoint"

    def __init__(self, arrest_noise: float = 1.0, **params: Any) -> None:
        if not 0.0 <= float(arrest_noise) <= 1.0:
            raise InvalidConfig("arrest_noise", arrest_noise, "a weight from 0 to 1 (1: arrests ignored)")
        super().__init__(arrest_noise=float(arrest_noise), **params)
        #: weight of a world in which another seat's arrest does not fit its clue (1: ignore arrests)
        self.arrest_noise = float(arrest_noise)
        self._solver = TokenSolver()
        self._cache: tuple[tuple[int, int], Posterior] | None = None

    def posterior(self, obs: CheckpointCharlieObservation) -> Posterior:
        key = (obs.round, len(obs.events))
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        assert isinstance(self.game, CheckpointCharlieGame)
        post = posterior(self.game, obs, self._solver, self.arrest_noise)
        self._cache = (key, post)
        return post

    def act(self, observation: Observation) -> Action:
        obs = observation
        assert isinstance(obs, CheckpointCharlieObservation)
        if isinstance(obs.legal_actions[0], ChooseSide):
            # both sides are worth the same before any flip; a random side is unexploitable
            return ChooseSide(int(self.rng.integers(2)))
        cats = [a.cat for a in obs.legal_actions if isinstance(a, Arrest)]
        cat = self.choose_arrest(obs, cats)
        return Pass() if cat is None else Arrest(cat)

    def choose_arrest(self, obs: CheckpointCharlieObservation, cats: list[int]) -> int | None:
        raise NotImplementedError


class PatientAgent(CheckpointAgent):
    """Arrests only a cat certain to be the chief, or, once the chief is certainly taken, a
    cat certain to be a minion. With ``last_chance`` it arrests its best guess when the deck
    is empty (nothing more can be learnt)."""

    name = "patient"

    def __init__(self, last_chance: bool = True, **params: Any) -> None:
        super().__init__(last_chance=last_chance, **params)
        self.last_chance = last_chance

    def choose_arrest(self, obs: CheckpointCharlieObservation, cats: list[int]) -> int | None:
        post = self.posterior(obs)
        eps = 1e-12
        sure = [c for c in cats if post.p_chief[c] >= 1 - eps]
        if sure:
            return sure[0]
        taken = [c for c in obs.arrests if c is not None]
        if taken and post.p_chief[taken].sum() >= 1 - eps:
            minions = [c for c in cats if post.p_minion[c] >= 1 - eps]
            if minions:
                return minions[0]
        if self.last_chance and obs.deck_size == 0:
            return max(cats, key=lambda c: (post.p_chief[c], post.p_minion[c]))
        return None


class BayesianAgent(CheckpointAgent):
    """Arrests the cat of highest expected score when that beats the expected score of waiting.

    Arresting cat c now is worth ``P(chief) E[gold] + P(minion) E[white] + P(innocent) E[black]``
    under the exact posterior. Waiting is valued by a one-step lookahead: the next flip (any
    unseen cat, or a hound) is kept or discarded by the next investigator according to its
    clue in each world, and the best arrest after that outcome is averaged over outcomes. Other
    investigators without an arrest may act first, each with its own arrest rate measured so
    far: with one of them left, an arrest by it makes this agent the slowest (white if the
    chief is still in the deck, else black); with more, an arrest takes this agent's best cat
    with probability ``steal``. It arrests as soon as waiting is worth no more than arresting,
    in particular when no next flip could change its choice. Once the chief is probably
    taken, minions score best, so it goes for one.
    """

    name = "bayesian"

    def __init__(self, prior_rate: tuple[float, float] = (1.0, 4.0), steal: float | None = 0.0,
                 **params: Any) -> None:
        super().__init__(prior_rate=tuple(prior_rate), steal=steal, **params)
        self.prior_rate = (float(prior_rate[0]), float(prior_rate[1]))
        #: chance that an arresting opponent takes this agent's best cat while two or more
        #: opponents have no arrest (None: the chance that cat is the chief). 0 scored best
        #: against ``patient`` and ``random`` (benchmarks/checkpoint_charlie.py).
        self.steal = steal

    def values(self, obs: CheckpointCharlieObservation) -> tuple[np.ndarray, dict[Colour, float]]:
        """``table[chief, cat]``: expected score of arresting ``cat`` if ``chief`` is the chief."""
        assert isinstance(self.game, CheckpointCharlieGame)
        ev = expected_token_values(self.game, obs)
        table = np.where(_DIST == 0, ev[Colour.GOLD], np.where(_DIST == 1, ev[Colour.WHITE], ev[Colour.BLACK]))
        return table, ev

    def slowest_value(self, obs: CheckpointCharlieObservation, post: Posterior, ev: dict[Colour, float]) -> float:
        """Expected score of ending the round without an arrest, judged now."""
        assert isinstance(self.game, CheckpointCharlieGame)
        in_deck = float(post.p_chief[list(obs.unseen_cats)].sum()) if obs.deck_size else 0.0
        if not self.game.config.unrevealed_chief_white:
            in_deck = 0.0
        return in_deck * ev[Colour.WHITE] + (1 - in_deck) * ev[Colour.BLACK]

    def lookahead(self, obs: CheckpointCharlieObservation, post: Posterior, worth: np.ndarray,
                  cats: list[int], fallback: float) -> tuple[float, float]:
        """Expected best arrest after the next flip: with ``cats`` still available, and with
        the currently best of them gone (someone else took it). ``fallback`` is the value of
        an outcome that leaves nothing to arrest."""
        n = obs.num_players
        flips = [e for e in CheckpointCharlieGame.round_events(obs.events)
                 if isinstance(e, (CatFlipped, HoundFlipped))]
        nxt = (flips[-1].player + 1) % n if flips else obs.starter
        unseen = np.array(obs.unseen_cats, dtype=np.int64)
        p_hound = obs.hounds_left / obs.deck_size
        p_cat = (1 - p_hound) / max(len(unseen), 1)
        f = post.feature[:, nxt]
        s = post.side[:, nxt]
        keep = (((unseen[None, :] >> f[:, None]) & 1) == s[:, None]).astype(float)  # [world, x]
        w = post.weight
        # joint values: kept[x, c] = E[worth of c ; x is kept] (not normalised by P(kept))
        weighted = worth * w[:, None]
        kept = keep.T @ weighted
        disc = (1.0 - keep).T @ weighted
        p_disc = (1.0 - keep).T @ w
        now = w @ worth
        best_now = max(cats, key=lambda c: now[c])
        own = kept[np.arange(len(unseen)), unseen]  # arresting the newly kept cat itself
        out = []
        for avail in (cats, [c for c in cats if c != best_now]):
            idx = np.array(avail, dtype=np.int64)
            if len(idx):
                k_best = np.maximum(kept[:, idx].max(axis=1), own)
                d_best = disc[:, idx].max(axis=1)
                h_best = float(now[idx].max())
            else:
                k_best, d_best, h_best = own, p_disc * fallback, fallback
            out.append(float(p_cat * (k_best + d_best).sum() + p_hound * h_best))
        return out[0], out[1]

    def choose_arrest(self, obs: CheckpointCharlieObservation, cats: list[int]) -> int | None:
        post = self.posterior(obs)
        table, ev = self.values(obs)
        worth = table[post.chief]  # [world, cat]: score of arresting cat in that world
        now = post.weight @ worth
        best = max(cats, key=lambda c: now[c])
        slowest = self.slowest_value(obs, post, ev)
        if obs.deck_size == 0:
            wait = slowest
        else:
            others = [p for p, c in enumerate(obs.arrests) if c is None and p != obs.player]
            rate = opponent_arrest_rate(obs, self.prior_rate)
            first = 1 - float(np.prod([1 - rate[p] for p in others]))
            e_next, e_next_stolen = self.lookahead(obs, post, worth, cats, slowest)
            if len(others) <= 1:
                wait = (1 - first) * e_next + first * slowest
            else:
                # an arresting opponent takes this agent's best cat when that cat is the chief
                steal = float(post.p_chief[best]) if self.steal is None else self.steal
                wait = (1 - first) * e_next + first * (steal * e_next_stolen + (1 - steal) * e_next)
        return best if now[best] >= wait - 1e-9 else None
