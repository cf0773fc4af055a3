"""Exact expected information gain of a Clue-style question about the cards at one location.

A *question* names some cards; the responders, in order, answer: the first one holding any
named card shows one of them to the asker (preferring a card it has already shown the
asker, else uniformly - RULES.md §5C's default refutation policy), and the rest stay
silent; if nobody holds one, everyone passes. The asker sees who showed and which card.
The gain is ``H(X) - E_answer[H(X | answer)]`` where ``X`` is the set of cards at ``loc``
(the Clue envelope) and worlds are uniform over the knowledge base's consistent worlds.

Everything comes from one pass of the exact counter per question: the DP records, in its
final states, where each unknown named card went and how many cards of each class of
interchangeable cards went to ``loc`` (:meth:`solvers._exact_core.Plan.tracked`); subsets of
a class are equally likely by symmetry, so the entropies need no enumeration of ``X``.
Questions whose named cards are pairwise interchangeable with another question's (same
symmetry class per slot) have the same score and are counted once.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations, product
from math import comb, log2

from deduce.knowledge import KnowledgeBase
from solvers._exact_core import DEFAULT_LIMIT, Plan, Problem, problem_from_kb, simplify

__all__ = [
    "Answer",
    "Outcomes",
    "card_classes",
    "outcomes",
    "expected_information",
    "score_questions",
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

    def gain(self) -> float:
        """Expected information gain in bits (exact counts, one float log per term)."""
        prior: dict[tuple, int] = {}
        for w in self.weights.values():
            for g, v in w.items():
                prior[g] = prior.get(g, 0) + v
        h0 = _grouped_entropy(prior, self.multiplicity)
        after = 0.0
        for w in self.weights.values():
            mass = sum(w.values())
            if mass:
                after += mass / self.total * _grouped_entropy(w, self.multiplicity)
        return max(h0 - after, 0.0)


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
    if q is None:
        return None
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
) -> dict[tuple[int, ...], float]:
    """Expected information gain of every question, scoring one per symmetry class.

    Questions whose cards have, slot by slot, the same :func:`card_classes` signature get the
    same score (a symmetry of the problem maps one to the other)."""
    p = problem_from_kb(kb) if isinstance(kb, KnowledgeBase) else kb
    qs = [tuple(q) for q in questions]
    sig = card_classes(p, preferred)
    if sig is None:
        return {q: 0.0 for q in qs}
    q_simple = simplify(p)
    assert q_simple is not None
    done: dict[tuple, float] = {}
    out: dict[tuple[int, ...], float] = {}
    for q in qs:
        key = tuple(sig[k] for k in q)
        if key not in done:
            if all(s[0] == "fixed" for s in key):
                done[key] = 0.0  # every answer is already known
            else:
                done[key] = outcomes(q_simple, loc, q, responders, preferred, limit).gain()
        out[q] = done[key]
    return out


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
