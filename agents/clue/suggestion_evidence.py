"""``racer-reader``: racer that reads its opponents' own suggestions as soft evidence about
their hands (issue 26).

Every deduce Clue agent reasons from hard evidence only: who refuted, what was shown. An
opponent's suggestion says more. It knows its own hand, so it seldom names its own cards when
it hunts for the envelope (``racer`` names a card it holds about a tenth as often as one it does
not), or, if it plays its own cards as blockers (``infogain:gamble=false``), it names them more
often. Measured at three players (racer, racer, certain; 60 games, docs/benchmarks.md): the
likelihood ratio P(named | held) / P(named | not held) is 0.12 for ``racer`` and 1.96 for
``certain``.

The model: a world's weight is the product over opponents' suggestions of ``r_p`` for each
named card in the suggester ``p``'s hand (1 otherwise). ``r_p`` is estimated per opponent
online from the cells this agent knows exactly (its own cards, cards shown to it, cells its
deduction has settled): the rate at which ``p`` named cards known to be in its hand over the
rate for cards known to be elsewhere, shrunk towards ``prior_r`` by ``prior_pairs`` pseudo
observations of each kind (:func:`estimate_ratio`). ``r`` fixes one ratio for every opponent
instead.

The weighted posterior comes from ``samples`` exactly uniform worlds (the exact DP's sampler,
drawn from an own generator, so the agent's random stream is racer's), importance weighted:

- **questions**: racer's exact score (expected rise of the best guess's chance, minus half what
  who refuted tells everyone) plus the difference between that score computed on the weighted
  samples and on the same samples unweighted (a control variate: the sampling noise common to
  both cancels, and with every weight 1 the score is racer's exactly);
- **gambles**: each envelope's exact chance times the mean weight of the samples with that
  envelope over the mean weight of all (a ratio estimate, shrunk towards 1 by ``shrink`` pseudo
  samples of mean weight), renormalised; the best weighted envelope and its chance go into
  racer's accuse-or-wait rule.

Accusations on certainty (hard evidence) are racer's. With no opponent suggestion yet, or every
ratio 1, it plays racer's game exactly (tested).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import log
from typing import Any

import numpy as np

from agents.clue.deduction import RacerAgent
from deduce.games.base import Action, Observation
from deduce.games.clue.rules import (
    ENVELOPE,
    Accuse,
    ClueObservation,
    EndTurn,
    Suggest,
    Suggestion,
    ViewExtra,
    refute_order,
    shown_to,
)

__all__ = [
    "opponent_suggestions",
    "estimate_ratio",
    "cell_exponents",
    "log_weights",
    "sampled_accuracy_scores",
    "weighted_envelope",
    "ReaderRacerAgent",
]


def opponent_suggestions(obs: ClueObservation, me: int) -> list[tuple[int, tuple[int, ...]]]:
    """(suggester, named cards) of every suggestion made by another seat, in order."""
    return [(e.by, tuple(e.cards)) for e in obs.events if isinstance(e, Suggestion) and e.by != me]


def estimate_ratio(
    suggestions: Sequence[tuple[int, ...]],
    categories: Sequence[Sequence[int]],
    held: np.ndarray,
    not_held: np.ndarray,
    prior_r: float,
    prior_pairs: float,
) -> float:
    """One suggester's P(named | held) / P(named | not held), from the cells known exactly:
    ``held[c]`` (``c`` is known to be in its hand) and ``not_held[c]`` (known elsewhere). Over
    each suggestion and each category, a known card counts a pair, named or not. Each rate is
    shrunk by ``prior_pairs`` pseudo pairs at the base rate ``1 / len(category)`` (times
    ``prior_r`` for held cards), so with no known cell the estimate is ``prior_r``."""
    h = hp = n = np_ = 0.0
    base_h = base_n = 0.0
    for cards in suggestions:
        for named, cat in zip(cards, categories, strict=False):
            for c in cat:
                if held[c]:
                    hp += 1
                    h += c == named
                elif not_held[c]:
                    np_ += 1
                    n += c == named
            base_h += 1.0 / len(cat)
            base_n += 1.0 / len(cat)
    k = max(len(suggestions) * len(categories), 1)
    pi = base_n / k if base_n else 1.0 / 7.0
    rate_h = (h + prior_pairs * prior_r * pi) / (hp + prior_pairs)
    rate_n = (n + prior_pairs * pi) / (np_ + prior_pairs)
    if rate_n <= 0:
        return float(prior_r)
    return float(rate_h / rate_n)


def cell_exponents(suggestions: Sequence[tuple[int, tuple[int, ...]]]) -> dict[tuple[int, int], int]:
    """(card, suggester) -> how many times that suggester named that card."""
    out: dict[tuple[int, int], int] = {}
    for p, cards in suggestions:
        for c in dict.fromkeys(cards):
            out[(c, p)] = out.get((c, p), 0) + 1
    return out


def log_weights(worlds: np.ndarray, exponents: Mapping[tuple[int, int], int], ratios: Mapping[int, float]) -> np.ndarray:
    """Natural log of each world's weight (``worlds[i, card]`` = location): the sum over cells
    (card, suggester) of times named x log r_suggester where the world puts the card there."""
    out = np.zeros(len(worlds))
    for (c, p), k in exponents.items():
        r = ratios.get(p, 1.0)
        if r != 1.0:
            out += (worlds[:, c] == p) * (k * log(r))
    return out


def _envelope_ids(worlds: np.ndarray, env: int) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """The distinct envelope card sets among ``worlds`` (sorted card tuples) and each world's
    index into them."""
    at = worlds == env
    codes = at.astype(np.int64) @ (np.int64(1) << np.arange(worlds.shape[1], dtype=np.int64))
    uniq, inv = np.unique(codes, return_inverse=True)
    sets = [tuple(int(c) for c in np.flatnonzero((int(u) >> np.arange(worlds.shape[1])) & 1)) for u in uniq]
    return sets, inv.astype(np.int64)


def sampled_accuracy_scores(
    worlds: np.ndarray,
    weights: np.ndarray,
    env: int,
    questions: Sequence[tuple[int, ...]],
    responders: Sequence[int],
    preferred: Mapping[int, set[int]],
    leak_weight: float,
) -> dict[tuple[int, ...], float]:
    """Racer's ``accuracy`` score of each question on weighted sample worlds: the expected rise,
    once answered, of the weighted chance that the most likely envelope is right, minus
    ``leak_weight`` times that rise from who refuted alone. Refuters answer as racer models them
    (RULES.md §5C: a card already shown to the asker first, else uniformly)."""
    _, inv = _envelope_ids(worlds, env)
    ne = int(inv.max()) + 1 if len(inv) else 1
    total = float(weights.sum())
    nr = len(responders)
    num_locs = int(worlds.max()) + 1 if worlds.size else 1
    posmap = np.full(max(num_locs, max(responders, default=0) + 1), nr, dtype=np.int64)
    for j, r in enumerate(responders):
        posmap[r] = j
    prior = np.bincount(inv, weights=weights, minlength=ne).max()
    out: dict[tuple[int, ...], float] = {}
    for q in questions:
        named = list(dict.fromkeys(q))
        width = len(named)
        ri = posmap[worlds[:, named]]  # (N, width): responder position of each named card's holder
        first = ri.min(axis=1)
        held = (ri == first[:, None]) & (first[:, None] < nr)
        prefers = np.array([[c in preferred.get(r, ()) for r in responders] + [False] for c in named])  # (width, nr+1)
        pref_held = held & prefers[np.arange(width)[None, :], first[:, None]]
        pool = np.where(pref_held.any(axis=1)[:, None], pref_held, held)
        size = pool.sum(axis=1)
        share = weights / np.maximum(size, 1)
        aid = first[:, None] * width + np.arange(width)[None, :]
        nans = nr * width + 1
        idx = np.concatenate([(aid * ne + inv[:, None])[pool], (nr * width) * ne + inv[size == 0]])
        wts = np.concatenate([np.broadcast_to(share[:, None], pool.shape)[pool], weights[size == 0]])
        mat = np.bincount(idx, weights=wts, minlength=nans * ne).reshape(nans, ne)
        gain = max(mat.max(axis=1).sum() - prior, 0.0) / total
        if leak_weight:
            public = mat[:-1].reshape(nr, width, ne).sum(axis=1)
            seen = public.max(axis=1).sum() + mat[-1].max()
            gain -= leak_weight * max(seen - prior, 0.0) / total
        out[tuple(q)] = float(gain)
    return out


def weighted_envelope(
    exact: Mapping[tuple[int, ...], int],
    worlds: np.ndarray,
    weights: np.ndarray,
    env: int,
    shrink: float,
) -> dict[tuple[int, ...], float]:
    """Each envelope's weighted chance: its exact uniform count times (the sampled worlds'
    weight with that envelope + ``shrink`` x the mean weight) / (their number + ``shrink``),
    over the mean weight, renormalised. Every weight 1 gives the exact distribution."""
    sets, inv = _envelope_ids(worlds, env)
    wsum = np.bincount(inv, weights=weights, minlength=len(sets))
    nsum = np.bincount(inv, minlength=len(sets)).astype(np.float64)
    mean = float(weights.mean()) if len(weights) else 1.0
    ratio = {s: (wsum[i] + shrink * mean) / (nsum[i] + shrink) / mean for i, s in enumerate(sets)}
    raw = {e: v * ratio.get(tuple(sorted(e)), 1.0) for e, v in exact.items()}
    z = sum(raw.values())
    return {e: v / z for e, v in raw.items()} if z > 0 else {e: 0.0 for e in exact}


class ReaderRacerAgent(RacerAgent):
    """``racer`` weighing worlds by how likely each opponent's suggestions are in them (see
    the module docstring). ``r``: one fixed ratio for every opponent (None: estimated online per
    opponent from ``prior_r`` and ``prior_pairs``); ``samples``: uniform worlds drawn per
    decision; ``shrink``: pseudo samples of the envelope ratio estimate; ``weigh_questions`` /
    ``weigh_gambles``: which decisions the weights drive. ``readings`` records per decision
    (turn, {opponent: ratio}, effective sample size)."""

    name = "racer-reader"

    def __init__(
        self,
        r: float | None = None,
        prior_r: float = 0.5,
        prior_pairs: float = 10.0,
        samples: int = 2000,
        shrink: float = 2.0,
        weigh_questions: bool = True,
        weigh_gambles: bool = True,
        **params: Any,
    ) -> None:
        super().__init__(**params)
        self.params.update(r=r, prior_r=prior_r, prior_pairs=prior_pairs, samples=samples, shrink=shrink,
                           weigh_questions=weigh_questions, weigh_gambles=weigh_gambles)
        if r is not None and not float(r) > 0:
            raise ValueError(f"r must be a positive ratio or None, not {r!r}")
        if not float(prior_r) > 0:
            raise ValueError(f"prior_r must be positive, not {prior_r!r}")
        if self.measure != "accuracy":
            raise ValueError("racer-reader weighs racer's accuracy score only: measure must be 'accuracy'")
        self.r = None if r is None else float(r)
        self.prior_r = float(prior_r)
        self.prior_pairs = float(prior_pairs)
        self.samples = int(samples)
        self.shrink = float(shrink)
        self.weigh_questions = bool(weigh_questions)
        self.weigh_gambles = bool(weigh_gambles)
        self.readings: list[tuple[int, dict[int, float], float]] = []
        self._sample_rng = np.random.default_rng(0)
        self._solver: Any = None

    def reset(self, game: Any, player: int, seed: Any = None) -> None:
        super().reset(game, player, seed)
        self.readings = []
        # an own stream for the sampler, so the agent's rng draws exactly racer's
        ss = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
        self._sample_rng = np.random.default_rng(np.random.SeedSequence(ss.entropy, spawn_key=(*ss.spawn_key, 26)))

    def _exact(self) -> Any:
        if self._solver is None:
            from solvers.exact import ExactSolver

            self._solver = ExactSolver(limit=self.limit)
        return self._solver

    def ratios(self, obs: ClueObservation) -> dict[int, float]:
        """Per opponent that has suggested, its ratio P(named | held) / P(named | not held)."""
        me = obs.player
        assert me is not None
        sugs = opponent_suggestions(obs, me)
        by: dict[int, list[tuple[int, ...]]] = {}
        for p, cards in sugs:
            by.setdefault(p, []).append(cards)
        if self.r is not None:
            return {p: self.r for p in by}
        if not by:
            return {}
        kb = self.game.knowledge(obs)  # type: ignore[union-attr]
        possible = self._exact().possible(kb)
        known = possible.sum(axis=1) == 1
        cats = self.game.categories  # type: ignore[union-attr]
        return {p: estimate_ratio(s, cats, known & possible[:, p], ~possible[:, p], self.prior_r, self.prior_pairs)
                for p, s in by.items()}

    def _weighted_worlds(self, obs: ClueObservation) -> tuple[np.ndarray, np.ndarray] | None:
        """Sampled worlds and their (max-normalised) weights, or None when every weight is 1."""
        me = obs.player
        assert me is not None
        ratios = self.ratios(obs)
        if not ratios or all(v == 1.0 for v in ratios.values()) or self.samples <= 0:
            return None
        kb = self.game.knowledge(obs)  # type: ignore[union-attr]
        worlds = np.asarray(self._exact().sample(kb, self.samples, self._sample_rng), dtype=np.int64)
        if len(worlds) == 0:
            return None
        lw = log_weights(worlds, cell_exponents(opponent_suggestions(obs, me)), ratios)
        w = np.exp(lw - lw.max())
        self.readings.append((obs.turn, ratios, float(w.sum() ** 2 / (w ** 2).sum())))
        return worlds, w

    def act(self, observation: Observation) -> Action:
        obs = observation
        assert isinstance(obs, ClueObservation)
        if obs.to_refute is not None or not self.weigh_gambles or EndTurn() not in obs.legal_actions:
            return super().act(obs)
        dist = self.envelope_distribution(obs)
        total = sum(dist.values())
        best, top = max(dist.items(), key=lambda kv: (kv[1], kv[0]))
        legal = obs.legal_actions
        if top >= self.accuse_threshold * total or not any(isinstance(a, (Suggest, EndTurn, ViewExtra)) for a in legal):
            return super().act(obs)
        got = self._weighted_worlds(obs)
        if got is None:
            return super().act(obs)
        view = self.win_chance_after_viewing_extra(obs)
        if view >= self.view_extra_threshold:
            return ViewExtra()
        wdist = weighted_envelope(dist, got[0], got[1], self.game.locations.index(ENVELOPE), self.shrink)  # type: ignore[union-attr]
        wbest, p = max(wdist.items(), key=lambda kv: (kv[1], kv[0]))
        floor = 1.0 / (obs.num_players - 1) if self.min_gamble is None else self.min_gamble
        if self.gamble and max(p, view) >= floor:
            wait = self.waiting_value(obs, p)
            if p > wait and p >= view:
                self.gambles.append((obs.turn, p))
                return Accuse(wbest)  # type: ignore[arg-type]
            if view > wait:
                return ViewExtra()
        return EndTurn()

    def suggest(self, obs: ClueObservation) -> Action:
        """racer's question scores corrected by the weighted samples. With a ``deadline`` (Speed
        Clue's client sets one), racer's anytime scoring gets what the sampling left of it and
        only the questions it scored are corrected, so the weighting stays on under a clock."""
        if not self.weigh_questions or self.bluff:
            return super().suggest(obs)
        start = self.clock()
        got = self._weighted_worlds(obs)
        if got is None:
            return super().suggest(obs)
        worlds, w = got
        kb = self.game.knowledge(obs)  # type: ignore[union-attr]
        me = obs.player
        assert me is not None
        responders = refute_order(me, obs.num_players)
        options = [a.cards for a in obs.legal_actions if isinstance(a, Suggest)]
        shown = shown_to(obs, me)
        scores = self._scores(kb, options, responders, shown, self.leak_weight, started=start)
        scored = [q for q in options if q in scores]
        env = kb.loc(ENVELOPE)
        weighted = sampled_accuracy_scores(worlds, w, env, scored, responders, shown, self.leak_weight)
        plain = sampled_accuracy_scores(worlds, np.ones(len(w)), env, scored, responders, shown, self.leak_weight)
        scores = {q: s + weighted[q] - plain[q] for q, s in scores.items()}
        top = max(scores.values())
        self.scoring_log.append((obs.turn, self.clock() - start, top))
        ties = [q for q in options if q in scores and scores[q] >= top - 1e-9]
        return Suggest(ties[int(self.rng.integers(len(ties)))])  # type: ignore[arg-type]
