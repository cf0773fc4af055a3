"""Time-indexed knowledge bases (cards that move between epochs): an exact ``possible`` and an
approximate sampler.

``EpochSolver`` (exact): a CP-SAT model pruned by :func:`~deduce.knowledge.propagate` (only
cells propagation keeps get a variable; a transfer becomes one frame clause per card and
possible location instead of one per pair of locations). ``possible`` witnesses cells with real
worlds (one CP-SAT solution, then cheap Markov-chain moves that only visit consistent worlds)
and proves the remaining candidates by one CP-SAT solve each, so its answer is exact; the
last, hardest refutations go to a second formulation over whole card histories
(:mod:`solvers.history_model`).

``EpochSampler`` (approximate, ``exact = False``): Metropolis sampling of worlds uniform over
the consistent ones. A move swaps the locations of two cards over a segment of epochs
``[lo, hi]`` whose ends are epochs where the two cards share a location (or the first / last
epoch): every per-epoch location count and every transfer's ``(src, dst)`` tally is unchanged,
so only the constraints naming one of the two cards are rechecked. The proposal is symmetric
(the set of valid segments of a pair does not change under the swap), so accepting every
consistent proposal targets the uniform distribution. The moves are compiled
(:mod:`solvers._epoch_kernels`). Several chains start from different CP-SAT solutions and run
until the largest split R-hat over the cells is at most 1.01 and a stated 95% bound on the
largest cell error is at most 0.02, or a sample budget runs out (:class:`Diagnostics` says
which). Irreducibility is not guaranteed under hard answer constraints, which is why the
answer is labelled approximate and its error is measured against exact enumeration
(``benchmarks/alibi.py``, ``tests/solvers/test_epoch_sampler.py``). Measured against the
exact ``frontier`` counter (``benchmarks/alibi_exact.py``): on reduced Alibi decks through round
4 the largest cell error reaches 0.48 and passes the stated bound at 5 of 15 positions, twice
with chains agreeing (R-hat <= 1.002), so a small R-hat does not certify the grid; use
``frontier`` wherever it accepts the knowledge base.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from types import EllipsisType
from typing import TYPE_CHECKING

import numpy as np

from deduce.constraints import (
    At,
    AtLeastOne,
    Constraint,
    Count,
    CountEver,
    NotAll,
    NotAt,
    Op,
    Transfer,
)
from deduce.errors import InvalidConfig, NotSupported, TooLarge
from deduce.knowledge import KnowledgeBase, Propagation, propagate
from solvers.base import EPOCH_KINDS, Solver
from solvers.budget import Work

if TYPE_CHECKING:  # CP-SAT is imported where a model is built: it costs ~0.7 s of start-up
    from ortools.sat.python import cp_model

    from solvers.history_model import HistoryModel

__all__ = ["EpochSolver", "EpochSampler", "Estimate", "Diagnostics", "Chains", "pruned_model", "propagated"]

KINDS = EPOCH_KINDS + (CountEver,)


class _Pruned:
    """CP-SAT model with a variable only for the cells ``possible[e, card, loc]`` allows."""

    def __init__(self, kb: KnowledgeBase, possible: np.ndarray) -> None:
        from ortools.sat.python import cp_model

        self.kb = kb
        self.possible = possible
        m = cp_model.CpModel()
        self.model = m
        E, C, L = possible.shape
        self.x: list[list[dict[int, cp_model.IntVar]]] = []
        for e in range(E):
            rows = []
            for c in range(C):
                cells = {int(z): m.NewBoolVar(f"x{e}_{c}_{z}") for z in np.flatnonzero(possible[e, c])}
                m.AddExactlyOne(list(cells.values()))
                rows.append(cells)
            self.x.append(rows)
        for con in kb.constraints:
            self._post(con)

    def lit(self, e: int, c: int, z: int) -> cp_model.IntVar | None:
        return self.x[e][c].get(z)

    def _sum(self, lits: list, op: Op, n: int) -> None:
        m = self.model
        total = sum(lits) if lits else 0
        if op is Op.EQ:
            m.Add(total == n)
        elif op is Op.LE:
            m.Add(total <= n)
        else:
            m.Add(total >= n)

    def _post(self, c: Constraint) -> None:
        m = self.model
        if isinstance(c, (At, NotAt)):
            v = self.lit(c.epoch, c.card, c.loc)
            if v is not None:
                m.Add(v == (1 if isinstance(c, At) else 0))
            elif isinstance(c, At):
                m.AddBoolOr([])  # impossible cell: the model is infeasible
        elif isinstance(c, Count):
            lits = [v for k in c.cards if (v := self.lit(c.epoch, k, c.loc)) is not None]
            self._sum(lits, c.op, c.n)
        elif isinstance(c, CountEver):
            hs = []
            for k in c.cards:
                cells = [v for e in c.epochs for z in c.locs if (v := self.lit(e, k, z)) is not None]
                if not cells:
                    continue
                if len(cells) == 1:
                    hs.append(cells[0])
                    continue
                h = m.NewBoolVar("")
                m.AddBoolOr(cells).OnlyEnforceIf(h)
                for v in cells:
                    m.AddImplication(v, h)
                hs.append(h)
            self._sum(hs, c.op, c.n)
        elif isinstance(c, AtLeastOne):
            m.AddBoolOr([v for k in c.cards if (v := self.lit(c.epoch, k, c.loc)) is not None])
        elif isinstance(c, NotAll):
            lits = []
            for k, z in c.pairs:
                v = self.lit(c.epoch, k, z)
                if v is None:
                    return  # one pair cannot hold: satisfied
                lits.append(v.Not())
            m.AddBoolOr(lits)
        elif isinstance(c, Transfer):
            self._transfer(c)
        else:  # pragma: no cover - check_supported prevents this
            raise NotSupported(f"epoch: cannot model {c!r}")

    def _transfer(self, c: Transfer) -> None:
        m = self.model
        e = c.epoch
        dests: dict[int, list[int]] = {}
        for s, d, _ in c.moves:
            dests.setdefault(s, []).append(d)
        moved: dict[tuple[int, int], list] = {(s, d): [] for s, d, _ in c.moves}
        for card in range(self.kb.num_cards):
            before, after = self.x[e][card], self.x[e + 1][card]
            for z, v in before.items():
                nxt = [after[z]] if z in after else []
                for d in dests.get(z, ()):
                    if d in after:
                        y = m.NewBoolVar("")
                        m.AddBoolOr([v.Not(), after[d].Not(), y])
                        m.AddImplication(y, v)
                        m.AddImplication(y, after[d])
                        moved[(z, d)].append(y)
                        nxt.append(after[d])
                m.AddBoolOr(nxt).OnlyEnforceIf(v)
        for s, d, k in c.moves:
            if moved[(s, d)]:
                m.Add(sum(moved[(s, d)]) == k)
            elif k:
                m.AddBoolOr([])  # k cards must move but none can: infeasible

    def solve(self, assumptions: Sequence = (), seed: int = 0, objective: dict | None = None,
              work_limit: float | None = None, work: Work | None = None,
              order: Sequence | None = None, undecided_ok: bool = False) -> np.ndarray | EllipsisType | None:
        """A world ``[epoch, card]`` or None when there is none (under ``assumptions``).
        ``work_limit`` bounds an optimisation in CP-SAT's deterministic time units (about
        seconds), never in wall time: a wall-clock limit would let machine load decide which
        world comes back, and with it every answer built on it. ``work`` counts the query's
        deterministic time against its budget (:mod:`solvers.budget`). ``order``: literals to
        branch on first, in this order, each tried true first (CP-SAT's fixed search): the
        first world found then follows the order, a cheap way to get different worlds.
        ``undecided_ok``: a solve stopped undecided (by ``work_limit``) returns ``...`` instead
        of being refused; its time is still counted."""
        from ortools.sat.python import cp_model

        m = self.model
        m.ClearAssumptions()
        if assumptions:
            m.AddAssumptions(list(assumptions))
        if objective:
            m.Maximize(sum(w * v for v, w in objective.items()))
        else:
            m.ClearObjective()
        strategies = m.Proto().search_strategy
        if len(strategies):
            try:
                strategies.clear()
            except AttributeError:  # pragma: no cover - a protobuf message (older ortools)
                del strategies[:]
        solver = cp_model.CpSolver()
        if order:
            m.AddDecisionStrategy(list(order), cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE)
            solver.parameters.search_branching = cp_model.FIXED_SEARCH
        solver.parameters.num_workers = 1
        solver.parameters.random_seed = int(seed)
        # small pruned models: CP-SAT's presolve, probing, symmetry and LP layers cost far more
        # than the search (measured 10-20x on Alibi round-6 models)
        solver.parameters.cp_model_presolve = False
        solver.parameters.cp_model_probing_level = 0
        solver.parameters.symmetry_level = 0
        solver.parameters.linearization_level = 0
        if work is not None:
            work.cap(solver)
        if work_limit is not None:
            solver.parameters.max_deterministic_time = min(float(work_limit), solver.parameters.max_deterministic_time)
        status = solver.Solve(m)
        if work is not None:
            work.spend(solver, status, None if not undecided_ok else
                       (cp_model.OPTIMAL, cp_model.FEASIBLE, cp_model.INFEASIBLE, cp_model.UNKNOWN))
        if undecided_ok and status == cp_model.UNKNOWN:
            return Ellipsis
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return None
        E, C = len(self.x), len(self.x[0])
        w = np.empty((E, C), dtype=np.int64)
        for e in range(E):
            for card in range(C):
                w[e, card] = next(z for z, v in self.x[e][card].items() if solver.BooleanValue(v))
        return w


#: knowledge bases whose propagation :func:`propagated` remembers
_PROPAGATED_KEPT = 8
_propagated: dict[tuple, Propagation] = {}


def propagated(kb: KnowledgeBase) -> Propagation:
    """``propagate(kb)``, remembered by the knowledge base's content (its fingerprint, the
    constraints in order) for the last :data:`_PROPAGATED_KEPT` bases: the audit's bound,
    ``epoch``'s possible locations and the sampler's chains ask it of one base in turn. Each
    caller gets its own copy of ``possible``."""
    if not hasattr(kb, "fingerprint"):
        return propagate(kb)
    key = kb.fingerprint()
    prop = _propagated.pop(key, None)
    if prop is None:
        prop = propagate(kb)
    _propagated[key] = prop  # newest last
    while len(_propagated) > _PROPAGATED_KEPT:
        del _propagated[next(iter(_propagated))]
    return Propagation(prop.possible.copy(), prop.contradiction)


def pruned_model(kb: KnowledgeBase) -> tuple[_Pruned | None, np.ndarray]:
    """The pruned CP-SAT model and propagation's ``possible[epoch, card, loc]`` (None if
    propagation already finds a contradiction)."""
    prop = propagated(kb)
    if prop.contradiction is not None:
        return None, prop.possible
    return _Pruned(kb, prop.possible), prop.possible


class Chains:
    """Metropolis chains over consistent worlds of one knowledge base (see module docstring)."""

    def __init__(self, kb: KnowledgeBase, possible: np.ndarray, start: np.ndarray, rng: np.random.Generator) -> None:
        self.kb = kb
        self.possible = possible
        self.rng = rng
        self.world = start.copy()
        E, C, _ = possible.shape
        self.E = E
        self.mobile = np.flatnonzero((possible.sum(axis=2) > 1).any(axis=0))
        # constraints that a swap can change, by card
        self.checks: list[Constraint] = [
            c for c in kb.constraints if isinstance(c, (Count, CountEver, AtLeastOne, NotAll))
        ]
        self.members: list[frozenset[int]] = [frozenset(c.cards_involved()) for c in self.checks]
        self.by_card: list[list[int]] = [[] for _ in range(C)]
        for i, mem in enumerate(self.members):
            for card in mem:
                self.by_card[card].append(i)
        self.value = [self._value(i, self.world) for i in range(len(self.checks))]
        self.accepted = 0
        self.proposed = 0

    def _value(self, i: int, w: np.ndarray) -> int:
        c = self.checks[i]
        if isinstance(c, Count):
            return int(sum(1 for k in c.cards if w[c.epoch, k] == c.loc))
        if isinstance(c, CountEver):
            return int(sum(1 for k in c.cards if c.ever(w, k)))
        return int(c.holds(w))

    def _card_term(self, i: int, w: np.ndarray, card: int) -> int:
        c = self.checks[i]
        if isinstance(c, Count):
            return int(w[c.epoch, card] == c.loc)
        return int(c.ever(w, card))

    def step(self, moves: int) -> None:
        """``moves`` proposals (accepted when the new world is consistent): two thirds are
        segment swaps of two cards, one third full-history 3-cycles of three cards (which
        keep counts that a single swap breaks, e.g. two cards of one set for one of another)."""
        mobile, rng, E = self.mobile, self.rng, self.E
        if len(mobile) < 2:
            return
        w = self.world
        picks = rng.integers(0, len(mobile), size=(moves, 3))
        us = rng.random((moves, 3))
        full = slice(0, E)
        for (ia, ib, ic), (u1, u2, u3) in zip(picks, us, strict=True):
            self.proposed += 1
            if ia == ib:
                continue
            a, b = int(mobile[ia]), int(mobile[ib])
            if u3 < 1 / 3 and len(mobile) > 2:
                if ic == ia or ic == ib:
                    continue
                c = int(mobile[ic])
                cards = (a, b, c)
                cols = (w[:, b].copy(), w[:, c].copy(), w[:, a].copy())
                if self._try(cards, cols, full):
                    self.accepted += 1
                continue
            col_a, col_b = w[:, a], w[:, b]
            coloc = np.flatnonzero(col_a == col_b)
            los = [0] + [int(t) + 1 for t in coloc if t + 1 < E]
            lo = los[int(u1 * len(los))]
            his = [E - 1] + [int(t) - 1 for t in coloc if t > 0]
            his = [h for h in his if h >= lo]
            hi = his[int(u2 * len(his))]
            seg = slice(lo, hi + 1)
            if self._try((a, b), (col_b[seg].copy(), col_a[seg].copy()), seg):
                self.accepted += 1

    def _try(self, cards: tuple[int, ...], cols: tuple[np.ndarray, ...], seg: slice) -> bool:
        """Give ``cards[i]`` the locations ``cols[i]`` over ``seg`` if the world stays consistent."""
        w, possible = self.world, self.possible
        olds = [w[seg, k].copy() for k in cards]
        if all(np.array_equal(o, n) for o, n in zip(olds, cols, strict=True)):
            return False
        ep = np.arange(seg.start, seg.stop)
        for k, col in zip(cards, cols, strict=True):
            if not possible[ep, k, col].all():
                return False
        touched: set[int] = set()
        for k in cards:
            touched.update(self.by_card[k])
        old_terms = {}
        for i in touched:
            if isinstance(self.checks[i], (Count, CountEver)):
                mem = self.members[i]
                if isinstance(self.checks[i], Count) and all(k in mem for k in cards):
                    continue  # a permutation inside the set keeps a one-epoch count
                old_terms[i] = sum(self._card_term(i, w, k) for k in cards if k in mem)
        for k, col in zip(cards, cols, strict=True):
            w[seg, k] = col
        new_values = {}
        ok = True
        for i in touched:
            c = self.checks[i]
            if i in old_terms:
                mem = self.members[i]
                v = self.value[i] + sum(self._card_term(i, w, k) for k in cards if k in mem) - old_terms[i]
                if not c.op.compare(v, c.n):
                    ok = False
                    break
                new_values[i] = v
            elif not isinstance(c, (Count, CountEver)) and not c.holds(w):
                ok = False
                break
        if not ok:
            for k, col in zip(cards, olds, strict=True):
                w[seg, k] = col
            return False
        for i, v in new_values.items():
            self.value[i] = v
        return True


@dataclass(frozen=True)
class Diagnostics:
    """Mixing check of the last estimate: ``spread`` = largest difference between two chains'
    estimates of one cell marginal; ``acceptance`` = accepted / proposed moves; ``rhat`` = the
    largest split R-hat over the cells (:func:`solvers.convergence.split_rhat`); ``error`` = the
    stated bound on the largest cell error (95%, :func:`solvers.convergence.error_bound`);
    ``converged``: both targets met before the sample budget ran out."""

    chains: int
    samples: int
    spread: float
    acceptance: float
    rhat: float = float("nan")
    error: float = float("nan")
    converged: bool = False


class EpochSolver(Solver):
    """Exact ``consistent`` and ``possible`` for time-indexed knowledge bases (see module doc)."""

    name = "epoch"
    can_count = False
    exact = True
    kinds = KINDS
    max_epochs = None

    def __init__(self, witness_moves: int = 20_000, seed: int = 0, work_limit: float | None = None,
                 history_after: float | None = 0.4, history_limit: int = 20_000) -> None:
        self.witness_moves = int(witness_moves)
        self.seed = int(seed)
        #: histories per card the history model lists at most; past it the cell model keeps
        #: the queries (spectator views late in a game: more than 20,000 a card at round 20)
        self.history_limit = int(history_limit)
        if self.history_limit < 1:
            raise InvalidConfig("history_limit", history_limit, "must be a positive number of histories")
        #: CP-SAT deterministic time one "one of these" query on the cell model may spend before
        #: the cells left go to the history model (:mod:`solvers.history_model`, which refutes
        #: where this model cannot); None: never
        self.history_after = None if history_after is None else float(history_after)
        #: CP-SAT deterministic time one query may spend (None: no cap), see :mod:`solvers.budget`
        self.work_limit = work_limit
        self._memos: list[_Memo] = []  # newest first, see possible
        self._model: tuple[tuple, _Pruned] | None = None  # the last knowledge base's model

    def _work(self) -> Work | None:
        return Work.needed("epoch", self.work_limit)

    def _pruned(self, kb: KnowledgeBase, possible: np.ndarray) -> _Pruned:
        """The CP-SAT model of ``kb``, kept for the next query on the same content: the
        assistant asks ``consistent`` and then ``possible`` of each view, which built the
        model twice. (``possible``'s "one of these"
        literals stay in it, each enforced only when it is assumed.)"""
        key = kb.fingerprint()
        if self._model is not None and self._model[0] == key:
            return self._model[1]
        model = _Pruned(kb, possible)
        self._model = (key, model)
        return model

    def consistent(self, kb: KnowledgeBase) -> bool:
        """Whether ``kb`` has a world; the world found is kept (as :meth:`possible` keeps its
        worlds) for a later query to start its chains from."""
        self.check_supported(kb)
        prop = propagated(kb)
        if prop.contradiction is not None:
            return False
        world = self._pruned(kb, prop.possible).solve(seed=self.seed, work=self._work())
        if world is None:
            return False
        self._remember(_Memo(_memo_key(kb), frozenset(kb.constraints), {}, [world]))
        return True

    def possible(self, kb: KnowledgeBase, epoch: int | None = None,
                 starts: Sequence[np.ndarray] | None = None) -> np.ndarray:
        """bool[card, loc] of the last epoch (or ``epoch``): every cell is witnessed by a
        consistent world or refuted (by propagation, by CP-SAT, or by an earlier answer of this
        solver on a knowledge base whose constraints are a subset of these), so the answer is
        exact.

        Why it is fast: witnesses come from the compiled chains (thousands of consistent
        worlds in milliseconds) started from every consistent world at hand; the cells no world
        has shown yet are asked together ("some of them"), so one solve witnesses at least one
        of them and one infeasible solve refutes all that are left, where one solve per cell
        cost 2-5 s per query on 4-player Mayfair Alibi. A "one of these" query this cell model
        cannot decide within ``history_after`` goes, with every one after it, to the history
        model (:mod:`solvers.history_model`), whose linear relaxation refutes the last cells of
        late 5- and 6-player views that this model could not within the audit's budget; where
        that model would not fit in the budget left, this one keeps the query, uncapped.

        A knowledge base that grows (a player's view a few actions later: the same deck,
        locations and epochs, every earlier constraint kept) reuses what :class:`_Memo` kept of
        an earlier answer on a subset of its constraints, each fact in the direction it holds:
        a cell no world of the subset has is in no world of the superset (more constraints, fewer
        worlds), so it needs no refuting again; a world of the subset is a world of the superset
        only if it satisfies the constraints added since, which is checked before it starts a
        chain. The CP-SAT model is built only when no such world is left or a cell is left to
        refute. ``starts``: worlds of ``kb`` the caller has (the audit's true world), chain
        starts too; one that is not a world of ``kb`` is an InvalidConfig."""
        self.check_supported(kb)
        given = []
        for i, w in enumerate(starts or ()):
            if np.shape(w) != (kb.epochs, kb.num_cards) or not kb.consistent_with(w):
                raise InvalidConfig(f"starts[{i}]", "a world", "not a world of the knowledge base")
            given.append(np.array(w, dtype=np.int64))  # a copy: the caller's world is not moved
        e = kb.epochs - 1 if epoch is None else int(epoch)
        out = np.zeros((kb.num_cards, kb.num_locations), dtype=bool)
        prop = propagated(kb)
        if prop.contradiction is not None:
            return out
        possible = prop.possible
        key = _memo_key(kb)
        cons = frozenset(kb.constraints)
        earlier = [m for m in self._memos if m.key == key and m.constraints <= cons]
        todo = possible[e].copy()  # the cells to witness or refute
        for m in earlier:
            if e in m.refuted:
                todo &= ~m.refuted[e]
        if not todo.any():  # every cell ruled out by propagation or by an earlier answer
            return out
        starts = _still_consistent(earlier, cons) + given
        work = self._work()
        model: _Pruned | None = None
        found: list[np.ndarray] = []
        if not starts:
            model = self._pruned(kb, possible)
            world = model.solve(seed=self.seed, work=work)
            if world is None:  # no world at all: every cell is refuted
                self._remember(_Memo(key, cons, {e: np.ones_like(out)}, []))
                return out
            starts = [world]
        comp = _compile(kb)
        mobile = np.flatnonzero((possible.sum(axis=2) > 1).any(axis=0)).astype(np.int64)
        rng = np.random.default_rng(self.seed)
        for world in starts:
            found.append(world)
            found.append(_witness(kb, possible, mobile, comp, world, e, self.witness_moves,
                                  int(rng.integers(2**31)), out))
            if not (todo & ~out).any():
                break
        history: HistoryModel | None = None
        cap = self.history_after
        while True:
            cells = np.argwhere(todo & ~out)
            if not len(cells):
                break
            if history is None:
                if model is None:
                    model = self._pruned(kb, possible)
                some = model.model.NewBoolVar("")
                model.model.AddBoolOr([model.x[e][int(card)][int(z)] for card, z in cells]).OnlyEnforceIf(some)
                world = model.solve([some], work=work, work_limit=cap, undecided_ok=cap is not None)
                if world is Ellipsis:  # undecided: the history model takes the cells left
                    from solvers.history_model import HistoryModel  # it imports this module

                    try:
                        candidate = HistoryModel(kb, self.history_limit)
                    except TooLarge:
                        # a card has more histories than it lists (spectator views late in the
                        # game): this model keeps the queries, uncapped (if the budget ran out
                        # instead, its next solve is refused by the same meter)
                        cap = None
                        continue
                    if candidate.contradiction is not None:  # pragma: no cover - kb has a world
                        raise AssertionError(f"epoch: {candidate.contradiction}, yet a world was found")
                    if not candidate.affordable():
                        # its model would not fit in the budget left (measured: 7+ players late
                        # in the game): this model keeps the queries, uncapped
                        cap = None
                        continue
                    history = candidate
                    todo &= history.possible_cells(e)  # what its propagation refuted
                    continue
            else:
                world = history.world_with_one_of([(int(c), int(z)) for c, z in cells], e, work,
                                                  seed=int(rng.integers(2**31)))
                if world is not None and not kb.consistent_with(world):  # pragma: no cover
                    raise AssertionError("epoch: the history model's world breaks the knowledge base")
            if world is None:  # none of the cells left is in a world: all refuted together
                break
            found.append(world)
            found.append(_witness(kb, possible, mobile, comp, world, e, self.witness_moves,
                                  int(rng.integers(2**31)), out))
        self._remember(_Memo(key, cons, {e: ~out}, _distinct(found)[-_MEMO_WORLDS:]))
        return out

    def _remember(self, memo: _Memo) -> None:
        """Keep ``memo`` (newest first, at most :data:`_MEMOS`); a memo on the same
        constraints takes over the refuted cells of the other epochs it had."""
        for i, m in enumerate(self._memos):
            if m.key == memo.key and m.constraints == memo.constraints:
                memo.refuted = {**m.refuted, **memo.refuted}
                memo.worlds = _distinct(m.worlds + memo.worlds)[-_MEMO_WORLDS:]
                del self._memos[i]
                break
        self._memos.insert(0, memo)
        del self._memos[_MEMOS:]


#: knowledge bases :class:`EpochSolver` remembers (each player's view in a 5-player audit, with
#: room), and the worlds it keeps of each (CP-SAT's and the chains' last)
_MEMOS = 12
_MEMO_WORLDS = 8


def _memo_key(kb: KnowledgeBase) -> tuple:
    """What knowledge bases share for one's memo to serve another: deck, locations, epochs."""
    return (kb.deck.cards, kb.locations, kb.epochs)


@dataclass
class _Memo:
    """What one ``possible`` answer leaves for a later knowledge base with more constraints:
    by epoch, the cells no world of ``constraints`` has there (so no world of a superset has
    them either), and some worlds of ``constraints`` (a superset's own constraints must be
    checked on them before they are used)."""

    key: tuple
    constraints: frozenset[Constraint]
    refuted: dict[int, np.ndarray]
    worlds: list[np.ndarray]


def _distinct(worlds: Sequence[np.ndarray]) -> list[np.ndarray]:
    """``worlds`` without repeats, in order (the last of equal ones kept)."""
    last = {w.tobytes(): i for i, w in enumerate(worlds)}
    return [w for i, w in enumerate(worlds) if last[w.tobytes()] == i]


def _still_consistent(earlier: Sequence[_Memo], cons: frozenset[Constraint]) -> list[np.ndarray]:
    """The worlds of ``earlier`` memos (each a subset of ``cons``) that satisfy ``cons``:
    each already satisfies its memo's constraints, so only the ones added since are checked.
    Copies (the chains move their start in place), newest first, without repeats."""
    out: list[np.ndarray] = []
    seen: set[bytes] = set()
    for m in earlier:
        added = cons - m.constraints
        for w in reversed(m.worlds):
            b = w.tobytes()
            if b in seen:
                continue
            seen.add(b)
            if all(c.holds(w) for c in added):
                out.append(w.copy())
    return out


def _witness(kb: KnowledgeBase, possible: np.ndarray, mobile: np.ndarray, comp: _Compiled, world: np.ndarray,
             epoch: int, moves: int, seed: int, out: np.ndarray) -> np.ndarray:
    """Mark in ``out[card, loc]`` where the cards are at ``epoch`` in ``world`` and in the
    worlds a compiled chain visits from it in ``moves`` moves (every one consistent: the
    chain accepts only consistent moves). Returns the chain's last world; ``world`` itself is
    not changed."""
    from solvers import _epoch_kernels as kern

    idx = np.arange(kb.num_cards)
    out[idx, world[epoch]] = True
    if moves <= 0:
        return world
    w = np.array(world, dtype=np.int64)  # a copy: the kernel moves it in place
    values = comp.values(w)
    per = 64
    if epoch == kb.epochs - 1:  # the kernel records the last epoch after every move
        rec = np.zeros((moves, kb.num_cards), dtype=np.int64)
        kern.run_chain(w, possible, mobile, *comp.args(), values, seed, 0, 1, moves, rec)
        if kern.COMPILED:
            kern.mark_cells(rec, out)
        else:  # pragma: no cover - without the fast extra
            out[np.broadcast_to(idx, rec.shape), rec] = True
        return w
    scratch = np.zeros((1, kb.num_cards), dtype=np.int64)
    for i in range(max(1, moves // per)):
        kern.run_chain(w, possible, mobile, *comp.args(), values, seed + i, per, 1, 0, scratch)
        out[idx, w[epoch]] = True
    return w


@dataclass
class _Compiled:
    """A knowledge base's checkable constraints as the arrays the compiled moves read."""

    member: np.ndarray
    card_ptr: np.ndarray
    card_cons: np.ndarray
    ctype: np.ndarray
    op: np.ndarray
    n: np.ndarray
    cepoch: np.ndarray
    cloc: np.ndarray
    emask: np.ndarray
    lmask: np.ndarray
    pair_ptr: np.ndarray
    pair_card: np.ndarray
    pair_loc: np.ndarray

    def args(self) -> tuple[np.ndarray, ...]:
        return (self.member, self.card_ptr, self.card_cons, self.ctype, self.op, self.n, self.cepoch, self.cloc,
                self.emask, self.lmask, self.pair_ptr, self.pair_card, self.pair_loc)

    def values(self, w: np.ndarray) -> np.ndarray:
        """Each constraint's value in world ``w`` (what the moves update incrementally)."""
        out = np.zeros(len(self.ctype), dtype=np.int64)
        E = w.shape[0]
        for k in range(len(self.ctype)):
            cards = np.flatnonzero(self.member[k])
            if self.ctype[k] == 0:
                out[k] = int((w[self.cepoch[k], cards] == self.cloc[k]).sum())
            elif self.ctype[k] == 1:
                ever = self.lmask[k][w[:, cards]] & self.emask[k][:E, None]
                out[k] = int(ever.any(axis=0).sum())
            else:
                lo, hi = self.pair_ptr[k], self.pair_ptr[k + 1]
                out[k] = int(sum(w[self.cepoch[k], self.pair_card[j]] == self.pair_loc[j] for j in range(lo, hi)))
        return out


_OPS = {Op.EQ: 0, Op.LE: 1, Op.GE: 2}


def _compile(kb: KnowledgeBase) -> _Compiled:
    checks = [c for c in kb.constraints if isinstance(c, (Count, CountEver, AtLeastOne, NotAll))]
    K, C, E, L = len(checks), kb.num_cards, kb.epochs, kb.num_locations
    member = np.zeros((K, C), dtype=np.bool_)
    ctype = np.zeros(K, dtype=np.int64)
    op = np.zeros(K, dtype=np.int64)
    n = np.zeros(K, dtype=np.int64)
    cepoch = np.zeros(K, dtype=np.int64)
    cloc = np.zeros(K, dtype=np.int64)
    emask = np.zeros((K, E), dtype=np.bool_)
    lmask = np.zeros((K, L), dtype=np.bool_)
    pair_ptr = [0]
    pair_card: list[int] = []
    pair_loc: list[int] = []
    for k, c in enumerate(checks):
        if isinstance(c, NotAll):
            ctype[k] = 2
            cepoch[k] = c.epoch
            for card, z in c.pairs:
                member[k, card] = True
                pair_card.append(card)
                pair_loc.append(z)
        else:
            member[k, list(c.cards)] = True
            if isinstance(c, CountEver):
                ctype[k] = 1
                emask[k, list(c.epochs)] = True
                lmask[k, list(c.locs)] = True
            else:
                cepoch[k], cloc[k] = c.epoch, c.loc
            if isinstance(c, AtLeastOne):
                op[k], n[k] = 2, 1
            else:
                op[k], n[k] = _OPS[c.op], c.n
        pair_ptr.append(len(pair_card))
    by_card: list[list[int]] = [[] for _ in range(C)]
    for k in range(K):
        for card in np.flatnonzero(member[k]):
            by_card[int(card)].append(k)
    card_ptr = np.cumsum([0] + [len(b) for b in by_card]).astype(np.int64)
    card_cons = np.array([k for b in by_card for k in b], dtype=np.int64)
    return _Compiled(member, card_ptr, card_cons, ctype, op, n, cepoch, cloc, emask, lmask,
                     np.array(pair_ptr, dtype=np.int64), np.array(pair_card, dtype=np.int64),
                     np.array(pair_loc, dtype=np.int64))


@dataclass
class Estimate:
    """Cell marginals of the last epoch with their stated error (see :class:`Diagnostics`)."""

    marginals: np.ndarray
    diagnostics: Diagnostics


class EpochSampler(Solver):
    """Approximately uniform samples of consistent worlds ``[epoch, card]`` (labelled
    approximate: ``exact = False``) and cell marginals of the last epoch with a stated error.

    :meth:`estimate` runs ``chains`` compiled chains (:mod:`solvers._epoch_kernels`) from
    different CP-SAT solutions, ``burn_in`` moves each, then records every ``thin`` moves, and
    keeps doubling the draws (from ``samples`` per chain up to ``max_samples``) until the
    largest split R-hat is at most ``rhat_target`` and the stated 95% bound on the largest cell
    error at most ``error_target``; :meth:`diagnostics` says whether they were met. Every
    random choice comes from ``seed`` (a sample budget in moves, never a clock).
    """

    name = "epoch-sample"
    can_count = False
    can_sample = True
    exact = False
    kinds = KINDS
    max_epochs = None

    def __init__(self, chains: int = 4, burn_in: int = 20_000, thin: int = 25, samples: int = 1000,
                 max_samples: int = 16_000, rhat_target: float = 1.01, error_target: float = 0.02,
                 seed: int = 0) -> None:
        self.chains = int(chains)
        self.burn_in = int(burn_in)
        self.thin = int(thin)
        self.samples = int(samples)
        self.max_samples = int(max_samples)
        self.rhat_target = float(rhat_target)
        self.error_target = float(error_target)
        self.seed = int(seed)
        self.last: Diagnostics | None = None

    def check_supported(self, kb: KnowledgeBase) -> None:
        """The moves permute cards, so they keep how many cards each location holds at each
        epoch: the sampler is only uniform over the consistent worlds when those numbers are
        fixed, by a ``==`` count over every card for all locations but at most one per epoch
        (Mayfair Alibi's public hand sizes, box and meld pile)."""
        super().check_supported(kb)
        every = tuple(range(kb.num_cards))
        fixed: set[tuple[int, int]] = {
            (c.epoch, c.loc) for c in kb.constraints if isinstance(c, Count) and c.op is Op.EQ and c.cards == every
        }
        for e in range(kb.epochs):
            open_locs = [z for z in range(kb.num_locations) if (e, z) not in fixed]
            if len(open_locs) > 1:
                raise NotSupported(
                    f"{self.name}: the number of cards at {kb.locations[open_locs[0]]} in epoch {e} is not fixed by a "
                    "count over every card (the sampler's moves keep those numbers)"
                )

    def starts(self, kb: KnowledgeBase, possible: np.ndarray, model: _Pruned, rng: np.random.Generator) -> list[np.ndarray]:
        """Different CP-SAT solutions to start the chains from (random objectives over the
        last epoch's open cells, short deterministic work limit)."""
        out = []
        e = kb.epochs - 1
        open_cells = [(c, z) for c in range(kb.num_cards) if possible[e, c].sum() > 1 for z in np.flatnonzero(possible[e, c])]
        for i in range(self.chains):
            objective = None
            if i > 0 and open_cells:
                weights = rng.integers(0, 100, size=len(open_cells))
                objective = {model.x[e][c][int(z)]: int(wt) for (c, z), wt in zip(open_cells, weights, strict=True)}
            w = model.solve(seed=int(rng.integers(2**31)), objective=objective, work_limit=0.2)
            if w is None:
                w = model.solve(seed=i)
            if w is None:
                return []
            out.append(w)
        return out

    def ordered_starts(self, kb: KnowledgeBase, model: _Pruned, rng: np.random.Generator) -> list[np.ndarray]:
        """Different CP-SAT solutions to start the chains from, each the first world found
        when branching on the last epoch's cells in a random order, each cell tried true first
        (:meth:`_Pruned.solve`'s ``order``). About as far apart as :meth:`starts`' optimised
        worlds (on three 4-player Mayfair Alibi views of 4, 9 and 11 epochs, two starts placed
        39, 30 and 28 of the 78 cards apart in the last epoch on average, against 38, 30 and
        29) for one feasibility solve each: 0.02-0.04 s where an optimisation within its 0.2
        work units took 0.5-0.6 s (load 4-5)."""
        out = []
        e = kb.epochs - 1
        cells = [v for c in range(kb.num_cards) for v in model.x[e][c].values()]
        for i in range(self.chains):
            order = [cells[int(j)] for j in rng.permutation(len(cells))]
            w = model.solve(seed=int(rng.integers(2**31)), order=order, work_limit=0.2)
            if w is None:
                w = model.solve(seed=i)
            if w is None:
                return []
            out.append(w)
        return out

    def _chains(self, kb: KnowledgeBase, rng: np.random.Generator, full: bool, per_chain: int,
                adaptive: bool, given: Sequence[np.ndarray] | None = None) -> tuple[np.ndarray, Diagnostics] | None:
        """Draws ``[chain, draw, epoch or 1, card]`` and their diagnostics (None: inconsistent);
        the chains start from the ``given`` worlds where there are some (checked against
        ``kb``; no CP-SAT model is built), else from CP-SAT solutions (:meth:`starts` for an
        estimate, whose split R-hat they underwrite, :meth:`ordered_starts` for samples)."""
        from solvers import _epoch_kernels as kern
        from solvers.convergence import batch_se, cell_series, error_bound, split_rhat

        self.check_supported(kb)
        if given:
            for i, w in enumerate(given):
                if np.shape(w) != (kb.epochs, kb.num_cards) or not kb.consistent_with(w):
                    raise InvalidConfig(f"starts[{i}]", "a world", "not a world of the knowledge base")
            prop = propagated(kb)
            possible = prop.possible  # no contradiction: a world satisfies every constraint
            starts = [np.array(w, dtype=np.int64) for w in given]  # copies: the chains move them in place
        else:
            model, possible = pruned_model(kb)
            if model is None:
                return None
            starts = self.starts(kb, possible, model, rng) if adaptive else self.ordered_starts(kb, model, rng)
            if not starts:
                return None
        comp = _compile(kb)
        mobile = np.flatnonzero((possible.sum(axis=2) > 1).any(axis=0)).astype(np.int64)
        worlds = [np.ascontiguousarray(w, dtype=np.int64) for w in starts]
        values = [comp.values(w) for w in worlds]
        E, C, L = kb.epochs, kb.num_cards, kb.num_locations
        rows = E if full else 1
        draws: list[list[np.ndarray]] = [[] for _ in worlds]
        accepted = proposed = 0
        burn = self.burn_in
        want = max(4, per_chain)
        have = 0
        while True:
            for i, w in enumerate(worlds):
                count = want - have
                out = np.zeros((count, rows, C), dtype=np.int64)
                seed = int(rng.integers(2**31))
                if full:
                    acc = _run_full(kern, w, possible, mobile, comp, values[i], seed, burn, self.thin, count, out)
                else:
                    rec = np.zeros((count, C), dtype=np.int64)
                    acc = kern.run_chain(w, possible, mobile, *comp.args(), values[i], seed, burn, self.thin, count, rec)
                    out[:, 0, :] = rec
                accepted += acc
                proposed += burn + self.thin * (want - have)
                draws[i].append(out)
            burn, have = 0, want
            arr = np.stack([np.concatenate(d) for d in draws])
            x = cell_series(arr[:, :, -1, :], L)
            p = x.mean(axis=(0, 1))
            rhat = float(np.nanmax(split_rhat(x)))
            err = error_bound(batch_se(x), p)
            ok = rhat <= self.rhat_target and err <= self.error_target
            if ok or not adaptive or want * 2 > self.max_samples:
                break
            want *= 2
        est = x.mean(axis=1)
        spread = float(max((np.abs(a - b).max() for j, a in enumerate(est) for b in est[j + 1:]), default=0.0))
        diag = Diagnostics(len(worlds), int(arr.shape[0] * arr.shape[1]), spread, accepted / max(1, proposed),
                           rhat, err, ok)
        return arr, diag

    def estimate(self, kb: KnowledgeBase) -> Estimate:
        """Marginals of the last epoch with their diagnostics (all zero when inconsistent)."""
        got = self._chains(kb, np.random.default_rng(self.seed), False, self.samples, True)
        if got is None:
            self.last = None
            return Estimate(np.zeros((kb.num_cards, kb.num_locations)), Diagnostics(0, 0, 0.0, 0.0))
        arr, diag = got
        self.last = diag
        from solvers.convergence import cell_series

        return Estimate(cell_series(arr[:, :, -1, :], kb.num_locations).mean(axis=(0, 1)), diag)

    def sample(self, kb: KnowledgeBase, n: int, rng: np.random.Generator,
               starts: Sequence[np.ndarray] | None = None) -> list[np.ndarray]:
        """``n`` worlds ``[epoch, card]``, spread over the chains (empty when inconsistent);
        no adaptive doubling: the caller chose ``n``. ``starts``: worlds of ``kb`` the caller
        already has (one chain each instead of ``chains`` CP-SAT solutions, and no model to
        build); they are not changed, and one that is not a world of ``kb`` is an
        InvalidConfig."""
        per = -(-n // max(1, len(starts) if starts else self.chains))
        got = self._chains(kb, rng, True, per, False, starts)
        if got is None:
            self.last = None
            return []
        arr, self.last = got
        out = [w for chain in arr for w in chain]
        order = rng.permutation(len(out))[:n]
        return [out[i].copy() for i in order]

    def marginals(self, kb: KnowledgeBase) -> np.ndarray:
        return self.estimate(kb).marginals

    def diagnostics(self) -> Diagnostics | None:
        """The mixing check of the last :meth:`estimate` or :meth:`sample` call."""
        return self.last


def _run_full(kern, w: np.ndarray, possible: np.ndarray, mobile: np.ndarray, comp: _Compiled, values: np.ndarray,
              seed: int, burn: int, thin: int, count: int, out: np.ndarray) -> int:
    """Record whole worlds: one kernel call per draw (``thin`` moves, none recorded), then copy."""
    scratch = np.zeros((1, w.shape[1]), dtype=np.int64)
    acc = kern.run_chain(w, possible, mobile, *comp.args(), values, seed, burn, 1, 0, scratch) if burn else 0
    for i in range(count):
        acc += kern.run_chain(w, possible, mobile, *comp.args(), values, seed + 1 + i, thin, 1, 0, scratch)
        out[i] = w
    return acc
