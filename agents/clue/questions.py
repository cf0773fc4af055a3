"""Exact expected information gain of a Clue-style question about the cards at one location.

A *question* names some cards; the responders, in order, answer: the first one holding any
named card shows one of them to the asker (preferring a card it has already shown the
asker, else uniformly - RULES.md §5C's default refutation policy), and the rest stay
silent; if nobody holds one, everyone passes. The asker sees who showed and which card.
The gain is ``H(X) - E_answer[H(X | answer)]`` where ``X`` is the set of cards at ``loc``
(the Clue envelope) and worlds are uniform over the knowledge base's consistent worlds.

Everything comes from one pass of the exact counter per question: the DP records, in its
final states, where each unknown named card went and how many cards of each class of
interchangeable cards went to ``loc`` (:meth:`solvers.exact_dp.Plan.tracked`); subsets of
a class are equally likely by symmetry, so the entropies need no enumeration of ``X``.
Questions whose named cards are pairwise interchangeable with another question's (same
symmetry class per slot) have the same score and are counted once.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, product
from math import comb, log2

import numpy as np

from deduce.knowledge import KnowledgeBase
from solvers.exact_dp import DEFAULT_LIMIT, Plan, Problem, problem_from_kb, simplify
from solvers.question_lattice import MEASURES, question_gains

__all__ = [
    "MEASURES",
    "Answer",
    "Outcomes",
    "card_classes",
    "outcomes",
    "expected_information",
    "certainty_chance",
    "score_questions",
    "score_questions_by_blocks",
    "score_questions_per_class",
    "entropy_bits",
    "location_entropy",
    "joint_sets",
]

#: lcm of the numbers of cards a responder may choose among (1, 2, 3): keeps weights integral.
_SCALE = 6

Answer = tuple[int, int] | None  # (responder, card shown) or None when everybody passed


@dataclass(frozen=True)
class Outcomes:
    """Joint weights of (answer, class pattern of the cards at ``loc``).

    ``weights[answer][pattern]`` is an integer proportional to the probability of that answer
    together with every one of ``multiplicity[pattern]`` equally likely card sets at ``loc``
    of that pattern (summed over them). ``total`` is the sum of every weight.
    """

    weights: dict[Answer, dict[tuple, int]]
    multiplicity: dict[tuple, int]
    total: int

    def probabilities(self) -> dict[Answer, Fraction]:
        """Exact probability of each answer."""
        return {a: Fraction(sum(w.values()), self.total) for a, w in self.weights.items()}

    def certainty(self) -> Fraction:
        """Exact probability that the answer leaves exactly one card set possible at ``loc``."""
        if not self.total:
            return Fraction(0)
        sure = 0
        for w in self.weights.values():
            live = [g for g, v in w.items() if v]
            if len(live) == 1 and self.multiplicity[live[0]] == 1:
                sure += w[live[0]]
        return Fraction(sure, self.total)

    def gain(self, leak_weight: float = 0.0, measure: str = "shannon") -> float:
        """Expected information gain in bits (exact counts, one float log per term); with
        ``leak_weight`` w, minus w times the gain from who refuted alone (public).
        ``measure="hartley"``: the expected fall of log2(number of possible card sets);
        ``measure="accuracy"``: the expected rise in the chance that the most likely card set is
        right (a probability, not bits)."""
        uncertainty = {"shannon": _grouped_entropy, "hartley": _grouped_hartley, "accuracy": _grouped_error}[measure]
        prior: dict[tuple, int] = {}
        public: dict[int | None, dict[tuple, int]] = {}
        for a, w in self.weights.items():
            row = public.setdefault(None if a is None else a[0], {})
            for g, v in w.items():
                prior[g] = prior.get(g, 0) + v
                row[g] = row.get(g, 0) + v
        h0 = uncertainty(prior, self.multiplicity)

        def expected(rows: Iterable[dict[tuple, int]]) -> float:
            after = 0.0
            for w in rows:
                mass = sum(w.values())
                if mass:
                    after += mass / self.total * uncertainty(w, self.multiplicity)
            return after

        gain = max(h0 - expected(self.weights.values()), 0.0)
        if leak_weight:
            gain -= leak_weight * max(h0 - expected(public.values()), 0.0)
        return gain


def _grouped_entropy(weights: Mapping[tuple, int], mult: Mapping[tuple, int]) -> float:
    """Entropy of a distribution given as groups of ``mult[g]`` equally likely outcomes."""
    total = sum(weights.values())
    if not total:
        return 0.0
    h = 0.0
    lt = log2(total)
    for g, w in weights.items():
        if w:
            h -= w / total * (log2(w) - lt - log2(mult[g]))
    return h


def _grouped_hartley(weights: Mapping[tuple, int], mult: Mapping[tuple, int]) -> float:
    """log2 of the number of outcomes with positive weight (the Hartley entropy)."""
    n = sum(mult[g] for g, w in weights.items() if w)
    return log2(n) if n else 0.0


def _grouped_error(weights: Mapping[tuple, int], mult: Mapping[tuple, int]) -> float:
    """The chance that the single most likely outcome is wrong (its gain is the rise in the
    chance that an accusation right after the answer is right)."""
    total = sum(weights.values())
    if not total:
        return 0.0
    return 1.0 - max(w / mult[g] for g, w in weights.items()) / total


def entropy_bits(counts: Iterable[int]) -> float:
    """Entropy in bits of the distribution proportional to ``counts`` (exact ints)."""
    counts = [c for c in counts if c]
    total = sum(counts)
    if not total:
        return 0.0
    lt = log2(total)
    return -sum(c / total * (log2(c) - lt) for c in counts)


def card_classes(p: Problem, preferred: Mapping[int, Iterable[int]] | None = None) -> list[tuple] | None:
    """A symmetry signature per card: swapping two cards with the same signature maps the
    simplified problem to itself (and the responders' preferences too). ``None`` when the
    problem is inconsistent."""
    q = simplify(p)
    return None if q is None else _signatures(q, preferred)


def _signatures(q: Problem, preferred: Mapping[int, Iterable[int]] | None) -> list[tuple]:
    """:func:`card_classes` of the simplified problem ``q``."""
    pref = {z: set(cs) for z, cs in (preferred or {}).items()}
    member: list[list[tuple]] = [[] for _ in range(q.num_cards)]
    for j, (cards, _, _, _) in enumerate(q.counts):
        for k in cards:
            member[k].append(("c", j))
    for j, (cards, _) in enumerate(q.clauses):
        for k in cards:
            member[k].append(("a", j))
    for j, pairs in enumerate(q.notalls):
        for k, z in pairs:
            member[k].append(("n", j, z))
    out: list[tuple] = []
    for k, d in enumerate(q.dom):
        if d & (d - 1) == 0:
            z = d.bit_length() - 1
            out.append(("fixed", z, k in pref.get(z, ())))
        else:
            out.append(("free", d, tuple(member[k])))
    return out


def outcomes(
    kb: KnowledgeBase | Problem,
    loc: int,
    cards: Sequence[int],
    responders: Sequence[int],
    preferred: Mapping[int, Iterable[int]] | None = None,
    limit: int = DEFAULT_LIMIT,
    use_kernels: bool = True,
) -> Outcomes:
    """The exact joint distribution of the answer to a question naming ``cards`` and the
    card set at ``loc`` (one DP pass). ``preferred[r]``: cards ``r`` shows first if it holds
    any (those it has already shown the asker)."""
    p = problem_from_kb(kb) if isinstance(kb, KnowledgeBase) else kb
    q = simplify(p)
    if q is None:
        return Outcomes({}, {}, 0)
    pref = {z: set(cs) for z, cs in (preferred or {}).items()}
    named = list(dict.fromkeys(cards))
    fixed = {k: q.dom[k].bit_length() - 1 for k in named if q.dom[k] & (q.dom[k] - 1) == 0}
    unknown = tuple(k for k in named if k not in fixed)
    plan = Plan(q, limit, use_kernels, track_locs=(loc,), track_cards=unknown)
    tr = plan.tracked()
    sizes = [len(c) for _, c in tr.locs]
    weights: dict[Answer, dict[tuple, int]] = {}
    mult: dict[tuple, int] = {}
    total = 0
    for (placed, where), count in tr.counts.items():
        at = dict(fixed)
        at.update(zip(tr.cards, where, strict=True))
        g = (placed, tuple(k for k in tr.cards if at[k] == loc))
        if g not in mult:
            m = 1
            for size, k in zip(sizes, placed, strict=True):
                m *= comb(size, k)
            mult[g] = m
        w = count * _SCALE
        total += w
        for r in responders:
            held = [k for k in named if at[k] == r]
            if held:
                pool = [k for k in held if k in pref.get(r, ())] or held
                share = w // len(pool)
                for k in pool:
                    row = weights.setdefault((r, k), {})
                    row[g] = row.get(g, 0) + share
                break
        else:
            row = weights.setdefault(None, {})
            row[g] = row.get(g, 0) + w
    return Outcomes(weights, mult, total)


def _fast_gain(
    q: Problem,
    loc: int,
    cards: Sequence[int],
    responders: Sequence[int],
    pref: Mapping[int, set[int]],
    limit: int,
) -> float:
    """:meth:`Outcomes.gain` vectorised over the DP's final tracking keys (float sums of exact
    counts; the same answer to ~1e-12). ``q`` must already be simplified."""
    named = list(dict.fromkeys(cards))
    unknown = tuple(k for k in named if q.dom[k] & (q.dom[k] - 1))
    return _gain_from_plan(Plan(q, limit, True, track_locs=(loc,), track_cards=unknown), q, loc, cards, responders, pref)


def _gain_from_plan(
    plan: Plan,
    q: Problem,
    loc: int,
    cards: Sequence[int],
    responders: Sequence[int],
    pref: Mapping[int, set[int]],
    leak_weight: float = 0.0,
    measure: str = "shannon",
) -> float:
    """The gain of the question ``cards`` from a plan tracking ``loc`` and at least every
    unknown named card (tracking more only refines the envelope patterns: still exact).
    ``measure``: ``"shannon"`` entropy or ``"hartley"`` (log2 of the number of possible sets).

    With ``leak_weight`` w, minus w times the gain from the public part of the answer (who
    refuted), which every other player learns too: I(X; answer) - w I(X; refuter)."""
    named = list(dict.fromkeys(cards))
    fixed = {k: q.dom[k].bit_length() - 1 for k in named if q.dom[k] & (q.dom[k] - 1) == 0}
    unknown = plan.track_cards
    if plan.total == 0:
        return 0.0
    if not plan.kernels:
        return outcomes(q, loc, cards, responders, pref, plan.limit).gain(leak_weight, measure)
    keys, counts = plan.tracked_arrays()
    keys = np.asarray(keys, dtype=np.int64)
    cnt = np.asarray(counts, dtype=np.float64)
    layout = plan.track_layout
    # the envelope pattern: class counts at loc, plus which tracked cards went there
    lgm = np.zeros(len(keys))
    gcode = np.zeros(len(keys), dtype=np.int64)
    top = 0
    where: dict[int, np.ndarray] = {}
    for kind, what, members, sh, w in layout:
        field = (keys >> sh) & ((1 << w) - 1)
        if kind == "loc":
            table = np.array([log2(comb(len(members), k)) for k in range(len(members) + 1)] + [0.0] * (1 << w))
            lgm += table[field]
            top = max(top, sh + w)
        else:
            where[what] = field
    for j, k in enumerate(unknown):
        gcode |= (where[k] == loc).astype(np.int64) << (top + j)
    gcode |= keys & ((1 << top) - 1)
    groups, inv = np.unique(gcode, return_inverse=True)
    ng = len(groups)
    lgm_g = np.zeros(ng)
    lgm_g[inv] = lgm
    at = {k: np.full(len(keys), z, dtype=np.int64) for k, z in fixed.items()}
    at.update(where)
    open_ = np.ones(len(keys), dtype=bool)
    answers: list[np.ndarray] = []  # per answer: weights per envelope group
    public: list[np.ndarray] = []  # per responder (and nobody): what every other player sees
    for r in responders:
        held = {k: (at[k] == r) & open_ for k in named}
        anyheld = np.zeros(len(keys), dtype=bool)
        for h in held.values():
            anyheld |= h
        if not anyheld.any():
            continue
        pr = [k for k in named if k in pref.get(r, ())]
        prefheld = np.zeros(len(keys), dtype=bool)
        for k in pr:
            prefheld |= held[k]
        pool = {k: held[k] & (prefheld if k in pr else ~prefheld) for k in named}
        size = sum(p.astype(np.float64) for p in pool.values())
        size[size == 0] = 1.0
        for k in named:
            if pool[k].any():
                answers.append(np.bincount(inv, weights=np.where(pool[k], cnt / size, 0.0), minlength=ng))
        if leak_weight:
            public.append(np.bincount(inv, weights=np.where(anyheld, cnt, 0.0), minlength=ng))
        open_ &= ~anyheld
    if open_.any():
        answers.append(np.bincount(inv, weights=np.where(open_, cnt, 0.0), minlength=ng))
        public.append(answers[-1])
    total = cnt.sum()

    def h(wg: np.ndarray) -> tuple[float, float]:
        mass = wg.sum()
        nz = wg > 0
        if measure == "accuracy":
            return mass, float(1.0 - (wg[nz] / np.exp2(lgm_g[nz])).max() / mass)
        if measure == "hartley":
            top = lgm_g[nz].max()
            return mass, float(top + np.log2(np.exp2(lgm_g[nz] - top).sum()))
        p = wg[nz] / mass
        return mass, float(-(p * (np.log2(p) - lgm_g[nz])).sum())

    _, h0 = h(np.bincount(inv, weights=cnt, minlength=ng))
    after = 0.0
    for wg in answers:
        mass, ha = h(wg)
        after += mass / total * ha
    gain = max(h0 - after, 0.0)
    if not leak_weight:
        return gain
    seen = 0.0
    for wg in public:
        mass, ha = h(wg)
        seen += mass / total * ha
    return gain - leak_weight * max(h0 - seen, 0.0)


def expected_information(
    kb: KnowledgeBase | Problem,
    loc: int,
    cards: Sequence[int],
    responders: Sequence[int],
    preferred: Mapping[int, Iterable[int]] | None = None,
    limit: int = DEFAULT_LIMIT,
) -> float:
    """Expected information gain (bits) about the cards at ``loc`` of one question."""
    return outcomes(kb, loc, cards, responders, preferred, limit).gain()


def certainty_chance(
    kb: KnowledgeBase | Problem,
    loc: int,
    cards: Sequence[int],
    responders: Sequence[int],
    preferred: Mapping[int, Iterable[int]] | None = None,
    limit: int = DEFAULT_LIMIT,
) -> float:
    """Probability that the answer to the question ``cards`` settles the cards at ``loc``."""
    return float(outcomes(kb, loc, cards, responders, preferred, limit).certainty())


def location_entropy(kb: KnowledgeBase | Problem, loc: int, limit: int = DEFAULT_LIMIT) -> float:
    """Entropy (bits) of the card set at ``loc`` (one tracked DP pass, no enumeration)."""
    o = outcomes(kb, loc, (), (), None, limit)
    return _grouped_entropy(o.weights.get(None, {}), o.multiplicity)


def score_questions(
    kb: KnowledgeBase | Problem,
    loc: int,
    questions: Iterable[Sequence[int]],
    responders: Sequence[int],
    preferred: Mapping[int, Iterable[int]] | None = None,
    limit: int = DEFAULT_LIMIT,
    leak_weight: float = 0.0,
    measure: str = "shannon",
) -> dict[tuple[int, ...], float]:
    """Expected information gain of every question, scoring one per symmetry class.

    Questions whose cards have, slot by slot, the same :func:`card_classes` signature get the
    same score. ``leak_weight`` w scores I(X; answer) - w I(X; who refuted); ``measure`` is one
    of :data:`MEASURES` (see :func:`score_questions_by_blocks`).

    Why it is fast: every question at once from one DP over the locations in refutation order
    (:mod:`solvers.question_lattice`: forward and backward passes over the multisets of card
    classes placed, then one table look-up per question); where that does not apply (numba
    missing, a constraint across locations, a lattice too big) it is
    :func:`score_questions_by_blocks`. Same numbers either way (to float rounding)."""
    prep = _prepare(kb, questions, preferred, measure)
    if prep.cls is None:
        return {q: 0.0 for q in prep.qs}
    reps = prep.reps
    keys = [key for key in reps if any(prep.free[c] for c in key)]  # the rest: answers known
    done: dict[tuple, float] = {key: 0.0 for key in reps}
    if keys:
        gains = question_gains(prep.simple, loc, [reps[k] for k in keys], list(responders), prep.pref,
                               dict(enumerate(prep.cls)), leak_weight, measure)
        if gains is None:
            return _score_by_blocks(prep, loc, responders, limit, leak_weight, measure)
        done.update(zip(keys, gains.tolist(), strict=True))
    return prep.scores(done)


def score_questions_by_blocks(
    kb: KnowledgeBase | Problem,
    loc: int,
    questions: Iterable[Sequence[int]],
    responders: Sequence[int],
    preferred: Mapping[int, Iterable[int]] | None = None,
    limit: int = DEFAULT_LIMIT,
    leak_weight: float = 0.0,
    measure: str = "shannon",
) -> dict[tuple[int, ...], float]:
    """Expected information gain of every question by shared tracked DP passes (what
    :func:`score_questions` did before the refutation-order lattice; its fallback, and the
    comparison in ``benchmarks.clue_questions``), scoring one per symmetry class.

    Questions whose cards have, slot by slot, the same :func:`card_classes` signature get the
    same score (a symmetry of the problem maps one to the other). ``leak_weight`` w scores
    I(X; answer) - w I(X; who refuted): the second term is what every other player learns.
    ``measure="hartley"`` scores the expected fall of log2(number of possible card sets at
    ``loc``): only eliminations count, not a probability shifting between candidates.
    ``measure="accuracy"`` scores the expected rise in the chance that the most likely card set
    is the true one (what an accusation right after the answer wins), in probability, not bits.

    Why it is fast: one DP pass tracks a *block* of cards (two per slot, one in the last
    slot) and serves every class of questions inside the block, and the gains of all those
    questions come from one vectorised pass over the pass's final states. Same numbers as
    :func:`score_questions_per_class` (to float rounding)."""
    prep = _prepare(kb, questions, preferred, measure)
    if prep.cls is None:
        return {q: 0.0 for q in prep.qs}
    return _score_by_blocks(prep, loc, responders, limit, leak_weight, measure)


@dataclass(frozen=True)
class _Prepared:
    """What both scorers start from: the questions, each card's class as a small number (its
    :func:`card_classes` signature numbered: hashing the signatures themselves for every
    question cost more than the DP; ``None``: nothing to learn), whether each class is free,
    the simplified problem, the preferred cards and one question per class."""

    qs: list[tuple[int, ...]]
    cls: list[int] | None
    free: list[bool]
    simple: Problem | None
    pref: dict[int, set[int]]
    reps: dict[tuple, tuple[int, ...]]

    def scores(self, done: Mapping[tuple, float]) -> dict[tuple[int, ...], float]:
        """Every question's score from its class's."""
        cls = self.cls
        assert cls is not None
        return {q: done[tuple([cls[k] for k in q])] for q in self.qs}


def _prepare(kb: KnowledgeBase | Problem, questions: Iterable[Sequence[int]],
             preferred: Mapping[int, Iterable[int]] | None, measure: str) -> _Prepared:
    if measure not in MEASURES:
        raise ValueError(f"unknown measure {measure!r}: one of {', '.join(MEASURES)}")
    p = problem_from_kb(kb) if isinstance(kb, KnowledgeBase) else kb
    qs = [tuple(q) for q in questions]
    simple = simplify(p)
    if simple is None:
        return _Prepared(qs, None, [], None, {}, {})
    number: dict[tuple, int] = {}
    cls = [number.setdefault(s, len(number)) for s in _signatures(simple, preferred)]
    free = [s[0] == "free" for s in number]
    pref = {z: set(cs) for z, cs in (preferred or {}).items()}
    return _Prepared(qs, cls, free, simple, pref, _class_representatives(qs, cls))


def _score_by_blocks(prep: _Prepared, loc: int, responders: Sequence[int], limit: int, leak_weight: float,
                     measure: str) -> dict[tuple[int, ...], float]:
    """:func:`score_questions_by_blocks` from prepared questions (also the lattice's fallback,
    which has prepared them already)."""
    q_simple, pref, reps = prep.simple, prep.pref, prep.reps
    assert q_simple is not None
    free_of = {key: tuple(k for k, c in zip(rep, key, strict=True) if prep.free[c]) for key, rep in reps.items()}
    done: dict[tuple, float] = {key: 0.0 for key, free in free_of.items() if not free}  # answers known
    todo = [key for key in reps if key not in done]
    tables: list[tuple[frozenset[int], _Table | Plan]] = []
    served: dict[int, list[tuple]] = {}

    def table_for(cards: Sequence[int]) -> int:
        plan = Plan(q_simple, limit, True, track_locs=(loc,), track_cards=tuple(cards))
        tables.append((frozenset(cards), _Table.of(plan, loc) if plan.kernels and plan.total else plan))
        return len(tables) - 1

    for block in _blocks([free_of[k] for k in todo]):
        plan_index = table_for(block)
        if not isinstance(tables[plan_index][1], _Table) and len(block) > 3:
            tables.pop()  # too wide for the kernels: the keys get plans of their own below
    for key in sorted(todo, key=lambda k: -len(free_of[k])):
        need = set(free_of[key])
        j = next((i for i, (ks, _) in enumerate(tables) if ks >= need), None)
        if j is None:
            j = table_for(free_of[key])
        served.setdefault(j, []).append(key)
    for j, keys in served.items():
        t = tables[j][1]
        if isinstance(t, _Table):
            gains = t.gains([reps[k] for k in keys], q_simple, responders, pref, leak_weight, measure)
            done.update(zip(keys, gains, strict=True))
        else:
            for k in keys:
                done[k] = _gain_from_plan(t, q_simple, loc, reps[k], responders, pref, leak_weight, measure)
    return prep.scores(done)


def _class_representatives(qs: Sequence[tuple[int, ...]], sig: Sequence[Hashable]) -> dict[tuple, tuple[int, ...]]:
    """One question per slot-wise signature: per slot, the first card with each signature (so
    questions sharing a slot's class share its card, and a pass tracking it serves them all)."""
    canon: list[dict[Hashable, int]] = [{} for _ in range(max((len(q) for q in qs), default=0))]
    for q in qs:
        for slot, k in enumerate(q):
            canon[slot].setdefault(sig[k], k)
    reps: dict[tuple, tuple[int, ...]] = {}
    for q in qs:
        key = tuple([sig[k] for k in q])
        if key not in reps:
            reps[key] = tuple([canon[i][s] for i, s in enumerate(key)])
    return reps


#: cards per slot that one shared DP pass tracks (the last slot one: its pass grows fastest).
_BLOCK = (2, 2, 1)


def _blocks(frees: Sequence[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """Groups of cards to track together, covering every full-width question: the cards of
    each slot cut into chunks of ``_BLOCK`` and every chunk combination that some question
    needs. Narrower questions are served by any block holding their cards."""
    width = max((len(f) for f in frees), default=0)
    full = [f for f in frees if len(f) == width]
    if width < 2 or len(full) < 2:
        return []
    size = [_BLOCK[min(i, len(_BLOCK) - 1)] if i < width - 1 else 1 for i in range(width)]
    chunk: list[dict[int, int]] = []
    for i in range(width):
        cards = list(dict.fromkeys(f[i] for f in full))
        chunk.append({k: n // size[i] for n, k in enumerate(cards)})
    out: dict[tuple[int, ...], set[int]] = {}
    for f in full:
        out.setdefault(tuple(chunk[i][k] for i, k in enumerate(f)), set()).update(f)
    return [tuple(sorted(cards)) for cards in out.values()]


@dataclass
class _Table:
    """A pass's final states, summed by what the gains need: the envelope group of each key
    (class counts at ``loc`` and which tracked cards went there) and each tracked card's
    location. Built once per pass, then every question it serves is scored in one go."""

    cnt: np.ndarray  # worlds per key (float)
    inv: np.ndarray  # envelope group per key
    lgm: np.ndarray  # log2 of the number of card sets per group
    at: dict[int, np.ndarray]  # tracked card -> its location per key
    loc: int

    @classmethod
    def of(cls, plan: Plan, loc: int) -> _Table:
        keys, counts = plan.tracked_arrays()
        keys = np.asarray(keys, dtype=np.int64)
        lgm = np.zeros(len(keys))
        top = 0
        where: dict[int, np.ndarray] = {}
        for kind, what, members, sh, w in plan.track_layout:
            field = (keys >> sh) & ((1 << w) - 1)
            if kind == "loc":
                table = np.array([log2(comb(len(members), k)) for k in range(len(members) + 1)] + [0.0] * (1 << w))
                lgm += table[field]
                top = max(top, sh + w)
            else:
                where[what] = field
        gcode = keys & ((1 << top) - 1)
        for j, k in enumerate(plan.track_cards):
            gcode |= (where[k] == loc).astype(np.int64) << (top + j)
        groups, inv = np.unique(gcode, return_inverse=True)
        lgm_g = np.zeros(len(groups))
        lgm_g[inv] = lgm
        return cls(np.asarray(counts, dtype=np.float64), inv.astype(np.int64), lgm_g, where, loc)

    def gains(
        self,
        questions: Sequence[tuple[int, ...]],
        q: Problem,
        responders: Sequence[int],
        pref: Mapping[int, set[int]],
        leak_weight: float,
        measure: str,
    ) -> list[float]:
        """The gain of each question (its unknown cards all tracked here), vectorised: per key,
        the first responder holding a named card and the pool it shows from give one answer
        index per (key, named card), and one weighted bincount per question fills the
        answers-by-groups matrix."""
        n = len(self.cnt)
        ng = len(self.lgm)
        nr = len(responders)
        order = np.full(max(q.num_locations, 1), nr, dtype=np.int64)
        for j, r in enumerate(responders):
            if order[r] == nr:
                order[r] = j
        width = max(len(dict.fromkeys(c)) for c in questions)
        nans = nr * width + 1
        out = []
        for cards in questions:
            named = list(dict.fromkeys(cards))
            ridx = []
            for k in named:
                d = q.dom[k]
                if d & (d - 1) == 0:
                    ridx.append(np.full(n, order[d.bit_length() - 1], dtype=np.int64))
                else:
                    ridx.append(order[self.at[k]])
            ri = np.stack(ridx)  # (named, keys): responder position of each named card's holder
            first = ri.min(axis=0)
            held = ri == first
            prefers = np.array([[k in pref.get(r, ()) for r in responders] + [False] for k in named])
            preferred = held & prefers[np.arange(len(named))[:, None], first[None, :]]
            pool = np.where(preferred.any(axis=0), preferred, held)
            pool[:, first == nr] = False
            size = pool.sum(axis=0)
            nobody = size == 0
            share = self.cnt / np.maximum(size, 1)
            slot = np.arange(len(named))[:, None]
            aid = np.where(pool, first[None, :] * width + slot, -1)
            sel = aid >= 0
            idx = np.concatenate([(aid[sel] * ng + np.broadcast_to(self.inv, aid.shape)[sel]), nr * width * ng + self.inv[nobody]])
            wts = np.concatenate([np.broadcast_to(share, aid.shape)[sel], self.cnt[nobody]])
            mat = np.bincount(idx, weights=wts, minlength=nans * ng).reshape(nans, ng)
            public = None
            if leak_weight:
                public = np.concatenate([mat[:-1].reshape(nr, width, ng).sum(axis=1), mat[-1:]])
            out.append(_matrix_gain(mat, public, self.lgm, leak_weight, measure))
        return out


def _uncertainty(w: np.ndarray, lgm: np.ndarray, measure: str) -> tuple[np.ndarray, np.ndarray]:
    """(mass, uncertainty) of every row along the last axis (columns: envelope groups with
    log2 multiplicities ``lgm``, broadcast); rows without mass get uncertainty 0."""
    mass = w.sum(axis=-1)
    live = mass > 0
    safe = np.where(live, mass, 1.0)
    nz = w > 0
    lgm = np.broadcast_to(lgm, w.shape)
    if measure == "accuracy":
        best = np.where(nz, w / np.exp2(lgm), 0.0).max(axis=-1)
        return mass, np.where(live, 1.0 - best / safe, 0.0)
    if measure == "hartley":
        top = np.where(nz, lgm, -np.inf).max(axis=-1)
        top = np.where(live, top, 0.0)
        spread = np.where(nz, np.exp2(lgm - top[..., None]), 0.0).sum(axis=-1)
        return mass, np.where(live, top + np.log2(np.where(live, spread, 1.0)), 0.0)
    pr = w / safe[..., None]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(nz, pr * (np.log2(np.where(nz, pr, 1.0)) - lgm), 0.0)
    return mass, -terms.sum(axis=-1)


def _batched_gain(mats: np.ndarray, public: np.ndarray | None, lgm: np.ndarray, leak_weight: float, measure: str) -> np.ndarray:
    """:meth:`Outcomes.gain` of each answers-by-groups matrix ``mats[i]`` (and its who-refuted
    rows ``public[i]``), with ``lgm[i]`` the groups' log2 multiplicities."""
    total = mats.sum(axis=(-2, -1))
    safe = np.where(total > 0, total, 1.0)
    lg = lgm[..., None, :]
    _, h0 = _uncertainty(mats.sum(axis=-2), lgm, measure)
    m, h = _uncertainty(mats, lg, measure)
    gain = np.maximum(h0 - (m / safe[..., None] * h).sum(axis=-1), 0.0)
    if leak_weight and public is not None:
        m, h = _uncertainty(public, lg, measure)
        gain = gain - leak_weight * np.maximum(h0 - (m / safe[..., None] * h).sum(axis=-1), 0.0)
    return np.where(total > 0, gain, 0.0)


def _matrix_gain(mat: np.ndarray, public: np.ndarray | None, lgm: np.ndarray, leak_weight: float, measure: str) -> float:
    """:meth:`Outcomes.gain` from the answers-by-groups matrix (and who-refuted rows)."""
    return float(_batched_gain(mat[None], None if public is None else public[None], lgm[None], leak_weight, measure)[0])


def score_questions_per_class(
    kb: KnowledgeBase | Problem,
    loc: int,
    questions: Iterable[Sequence[int]],
    responders: Sequence[int],
    preferred: Mapping[int, Iterable[int]] | None = None,
    limit: int = DEFAULT_LIMIT,
    leak_weight: float = 0.0,
    measure: str = "shannon",
) -> dict[tuple[int, ...], float]:
    """The reference scorer: one DP pass per symmetry class of questions (what
    :func:`score_questions` did before it shared passes); kept to test and benchmark against.

    Questions whose cards have, slot by slot, the same :func:`card_classes` signature get the
    same score (a symmetry of the problem maps one to the other). ``leak_weight`` w scores
    I(X; answer) - w I(X; who refuted): the second term is what every other player learns.
    ``measure="hartley"`` scores the expected fall of log2(number of possible card sets at
    ``loc``): only eliminations count, not a probability shifting between candidates.
    ``measure="accuracy"`` scores the expected rise in the chance that the most likely card set
    is the true one (what an accusation right after the answer wins), in probability, not bits."""
    if measure not in MEASURES:
        raise ValueError(f"unknown measure {measure!r}: one of {', '.join(MEASURES)}")
    p = problem_from_kb(kb) if isinstance(kb, KnowledgeBase) else kb
    qs = [tuple(q) for q in questions]
    sig = card_classes(p, preferred)
    if sig is None:
        return {q: 0.0 for q in qs}
    q_simple = simplify(p)
    assert q_simple is not None
    pref = {z: set(cs) for z, cs in (preferred or {}).items()}
    # one representative per class; a plan that tracks a superset of a question's unknown cards
    # serves it too
    reps = _class_representatives(qs, sig)
    free_of = {key: tuple(k for k, s in zip(rep, key, strict=True) if s[0] == "free") for key, rep in reps.items()}
    plans: dict[frozenset[int], Plan] = {}
    done: dict[tuple, float] = {}
    for key in sorted(reps, key=lambda k: -len(free_of[k])):
        unknown = free_of[key]
        if not unknown:
            done[key] = 0.0  # every answer is already known
            continue
        plan = next((pl for ks, pl in plans.items() if ks >= set(unknown)), None)
        if plan is None:
            plan = plans[frozenset(unknown)] = Plan(q_simple, limit, True, track_locs=(loc,), track_cards=unknown)
        done[key] = _gain_from_plan(plan, q_simple, loc, reps[key], responders, pref, leak_weight, measure)
    return {q: done[tuple(sig[k] for k in q)] for q in qs}


def joint_sets(
    kb: KnowledgeBase | Problem,
    locs: Sequence[int],
    limit: int = DEFAULT_LIMIT,
    max_items: int = 200_000,
) -> dict[tuple[tuple[int, ...], ...], int] | None:
    """Exact number of worlds for each combination of card sets at ``locs`` (one tracked DP
    pass, then the class patterns expanded into sets); ``None`` when more than ``max_items``
    combinations would be listed."""
    p = problem_from_kb(kb) if isinstance(kb, KnowledgeBase) else kb
    q = simplify(p)
    if q is None:
        return {}
    tr = Plan(q, limit, True, track_locs=tuple(locs)).tracked()
    by_class: dict[tuple[int, ...], list[tuple[int, int]]] = {}  # class -> [(field index, loc)]
    for i, (z, cards) in enumerate(tr.locs):
        by_class.setdefault(cards, []).append((i, z))
    out: dict[tuple[tuple[int, ...], ...], int] = {}
    listed = 0
    for (placed, _), count in tr.counts.items():
        options: list[list[dict[int, tuple[int, ...]]]] = []
        mult = 1
        for cards, fields in by_class.items():
            choices: list[dict[int, tuple[int, ...]]] = [{}]
            for i, z in fields:
                k = placed[i]
                nxt = []
                for ch in choices:
                    used = {c for v in ch.values() for c in v}
                    rest = [c for c in cards if c not in used]
                    nxt.extend({**ch, z: sub} for sub in combinations(rest, k))
                choices = nxt
            mult *= len(choices)
            options.append(choices)
        listed += mult
        if listed > max_items:
            return None
        share = count // mult
        for combo in product(*options):
            key = tuple(
                tuple(sorted(tr.fixed_at.get(z, ()) + tuple(c for ch in combo for c in ch.get(z, ()))))
                for z in locs
            )
            out[key] = out.get(key, 0) + share
    return out
