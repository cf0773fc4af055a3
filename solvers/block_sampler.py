"""``epoch-gibbs``: block Gibbs sampling of time-indexed knowledge bases (Mayfair Alibi) with
exact conditionals, and cell marginals with a stated error.

Why: ``frontier`` counts exactly only while its DP's open sums stay few (a full 4-player Alibi
through its first pass), and ``epoch-sample``'s swap moves do not reach every world under the
count answers, so its chains can agree while its grid is wrong. Here a chain's state is one
consistent world (a history per card). A step picks a block of ``block`` cards at random
(independently of the world), fixes every other card's history, takes their share off every
sum and draws the block's histories exactly uniformly among the completions with the
``frontier`` DP over the block alone, compiled (:mod:`solvers._block_kernels`). Each step is an
exact conditional draw, so it leaves the uniform distribution over the consistent worlds
invariant; a block moves any number of its cards at once, along any history the others allow.

* **Too large a block.** When a block's DP is refused (``max_states``, ``max_work``), a random
  half of it is drawn instead, down to two cards. Whether the DP is refused depends only on
  the block and on the cards outside it, never on the block's own histories, so the step stays
  invariant (a mixture of exact conditionals chosen from what they do not resample).
* **Sweeps and estimator.** A sweep cuts the mobile cards into blocks at random (cards sharing a
  small answer kept together, :meth:`Chain.units`), each padded with random other cards to the
  block size, and before each block makes Metropolis swaps of two cards' whole histories
  (:meth:`Chain.swap`). The grid is Rao-Blackwellised: each mobile card's row in a sweep is its
  exact conditional marginal (the DP's cells) at the step of the block whose core holds it; one
  sweep is one recorded draw.
* **Convergence.** Several chains from different CP-SAT worlds (the first world found under random
  branching orders, ``EpochSampler.ordered_starts``); the sweeps double until the largest
  split R-hat is at most ``rhat_target`` and the stated 95% bound on the largest cell error
  (batch means, Bonferroni over the open cells: :mod:`solvers.convergence`) at most
  ``error_target``, or ``max_samples`` sweeps per chain are spent; :class:`~solvers.epoch.Diagnostics` says which.

Irreducibility is still not proved (a world differing from the current one in more cards than
a block holds is reached only through consistent intermediate worlds), so the answer is labelled
approximate and measured against exact counts (``benchmarks/alibi_exact.py``,
``tests/solvers/test_block_sampler.py``). Every random choice comes from ``seed``; every budget
is counted (sweeps, DP transitions), never timed.
"""

from __future__ import annotations

import numpy as np

from deduce.constraints import CountEver, Op
from deduce.errors import TooLarge
from deduce.knowledge import KnowledgeBase
from solvers.base import EPOCH_KINDS, Solver
from solvers.budget import charge
from solvers.convergence import batch_se, error_bound, split_rhat
from solvers.epoch import Diagnostics, EpochSampler, Estimate, pruned_model
from solvers.frontier import _Problem

__all__ = ["BlockGibbs", "Chain"]


_OPS = {Op.EQ: 0, Op.LE: 1, Op.GE: 2}


class _Flat:
    """A knowledge base's histories and sums as the arrays the compiled block step reads
    (:mod:`solvers._block_kernels`): each card's histories grouped into options by their
    feature row over every sum."""

    def __init__(self, prob: _Problem) -> None:
        self.prob = prob
        kb = prob.kb
        C, L, J = kb.num_cards, kb.num_locations, len(prob.sums)
        self.op = np.array([_OPS[s.op] for s in prob.sums], dtype=np.int64)
        self.n = np.array([s.n for s in prob.sums], dtype=np.int64)
        feats, mult, ends, opt_hist, hist_opt, opt_hist_ptr = [], [], [], [], [], [np.zeros(1, dtype=np.int64)]
        opt_ptr, hist_opt_ptr = [0], [0]
        cols_of: list[list[int]] = [[] for _ in range(C)]  # the sums each card is in
        for j, fj in enumerate(prob.feature):
            for c in fj:
                cols_of[c].append(j)
        for c in range(C):
            hs = prob.hist[c]
            cols = cols_of[c]
            f = np.zeros((len(hs), len(cols)), dtype=np.int64)
            for i, j in enumerate(cols):
                f[:, i] = prob.feature[j][c]
            # the distinct rows over the card's own sums sort as the whole rows do (the other
            # columns are 0 for every history of the card)
            sub, inverse = np.unique(f, axis=0, return_inverse=True)
            inverse = inverse.ravel()
            k = len(sub)
            rows = np.zeros((k, J), dtype=np.int64)
            rows[:, cols] = sub
            counts = np.bincount(inverse, minlength=k)
            e = np.zeros((k, L), dtype=np.int64)
            np.add.at(e, (inverse, np.array([h[-1] for h in hs], dtype=np.int64)), 1)
            first = opt_ptr[-1]
            feats.append(rows)
            mult.append(counts)
            ends.append(e)
            opt_hist.append(np.argsort(inverse, kind="stable"))  # each option's histories, in order
            opt_hist_ptr.append(len(hist_opt) + np.cumsum(counts))
            hist_opt.extend((first + inverse).tolist())
            hist_opt_ptr.append(len(hist_opt))
            opt_ptr.append(first + k)
        self.feat = np.concatenate(feats).reshape(opt_ptr[-1], J) if feats else np.zeros((0, J), dtype=np.int64)
        self.mult = np.concatenate(mult).astype(np.float64) if mult else np.zeros(0)
        self.ends = np.concatenate(ends).reshape(opt_ptr[-1], L) if ends else np.zeros((0, L), dtype=np.int64)
        self.opt_ptr = np.array(opt_ptr, dtype=np.int64)
        self.opt_hist_ptr = np.concatenate(opt_hist_ptr).astype(np.int64)
        self.opt_hist = np.concatenate(opt_hist).astype(np.int64) if opt_hist else np.zeros(0, dtype=np.int64)
        self.hist_opt_ptr = np.array(hist_opt_ptr, dtype=np.int64)
        self.hist_opt = np.array(hist_opt, dtype=np.int64)
        # each distinct history as one integer (shared by every card), per card sorted, for the swaps
        ids: dict[tuple[int, ...], int] = {}
        code, code_sorted, code_index = [], [], []
        for c in range(C):
            cs = [ids.setdefault(h, len(ids)) for h in prob.hist[c]]  # histories are tuples of ints
            order = np.argsort(cs, kind="stable")
            code.extend(cs)
            code_sorted.extend(cs[i] for i in order)
            code_index.extend(int(i) for i in order)
        self.code = np.array(code, dtype=np.int64)
        self.code_sorted = np.array(code_sorted, dtype=np.int64)
        self.code_index = np.array(code_index, dtype=np.int64)

    def totals(self, chosen: np.ndarray) -> np.ndarray:
        """Every sum's value in the world of histories ``chosen``."""
        opts = self.hist_opt[self.hist_opt_ptr[:-1] + chosen]
        return self.feat[opts].sum(axis=0)


class Chain:
    """One block Gibbs chain over the consistent worlds of a knowledge base (module doc)."""

    def __init__(self, flat: _Flat, start: np.ndarray, rng: np.random.Generator, block: int,
                 max_states: int, max_work: int) -> None:
        prob = flat.prob
        self.flat = flat
        self.rng = rng
        self.block = int(block)
        self.max_states = int(max_states)
        self.max_work = int(max_work)
        index = [{h: i for i, h in enumerate(hs)} for hs in prob.hist]
        try:
            chosen = [index[c][tuple(int(z) for z in start[:, c])] for c in range(len(prob.hist))]
        except KeyError:
            raise ValueError("epoch-gibbs: the start world is not one of the cards' possible histories") from None
        self.chosen = np.array(chosen, dtype=np.int64)
        self.tot = flat.totals(self.chosen)
        if not all(_OP_HOLDS[int(o)](int(v), int(t)) for o, v, t in zip(flat.op, self.tot, flat.n, strict=True)):
            raise ValueError("epoch-gibbs: the start world breaks a constraint")
        #: cards with more than one possible history (the others never move)
        self.mobile = np.array([c for c, hs in enumerate(prob.hist) if len(hs) > 1], dtype=np.int64)
        #: the cards of each answer (a sum over fewer than half the cards: not a hand size or a
        #: pass), which a block often starts from: moving one of them needs another to move too
        self.groups = [np.array(sorted(f), dtype=np.int64) for f in prob.feature if 1 < len(f) < len(prob.hist) / 2]
        #: the share of blocks started from answers' cards
        self.group_share = 0.5
        self._units: tuple[int, list[np.ndarray]] | None = None
        #: the largest unit as a share of the block
        self.unit_share = 0.5
        self.E = prob.kb.epochs
        self.L = prob.kb.num_locations
        #: swaps proposed per sweep, per mobile card (:meth:`swap`)
        self.swaps = 0
        self.swapped = 0
        #: block steps taken, those that fell back to a smaller block, DP transitions examined
        self.steps = 0
        self.halved = 0
        self.work = 0

    def world(self) -> np.ndarray:
        """The current world ``[epoch, card]``."""
        hist = self.flat.prob.hist
        out = np.empty((self.E, len(self.chosen)), dtype=np.int64)
        for c, h in enumerate(self.chosen):
            out[:, c] = hist[c][h]
        return out

    def last(self) -> np.ndarray:
        """Each card's location in the last epoch."""
        hist = self.flat.prob.hist
        return np.array([hist[c][h][-1] for c, h in enumerate(self.chosen)], dtype=np.int64)

    def choose(self, left: np.ndarray | None = None) -> np.ndarray:
        """A random block, drawn without looking at the world (so each step stays invariant):
        half the time it starts from up to ``block - 2`` cards of one random answer, the rest
        are random mobile cards; with ``left`` (a mask over the cards), only cards still in it."""
        rng = self.rng
        pool = self.mobile if left is None else self.mobile[left[self.mobile]]
        k = min(self.block, len(pool))
        if not k:
            return pool[:0]
        first = pool[:0]
        if self.groups and rng.random() < self.group_share:
            taken: list[np.ndarray] = []
            room = max(1, k - 2)
            for gi in rng.permutation(len(self.groups)):  # whole answers while they fit
                g = self.groups[int(gi)]
                if left is not None:
                    g = g[left[g]]
                g = np.setdiff1d(g, np.concatenate(taken)) if taken else g
                if not len(g):
                    continue
                if len(g) > room:
                    if not taken:
                        taken.append(rng.choice(g, size=room, replace=False))
                    break
                taken.append(g)
                room -= len(g)
            if taken:
                first = np.concatenate(taken)
        rest = np.setdiff1d(pool, first)
        more = rng.choice(rest, size=min(len(rest), k - len(first)), replace=False)
        return np.sort(np.concatenate([first, more]).astype(np.int64))

    def units(self) -> list[np.ndarray]:
        """The cards a sweep keeps together: answers' cards merged (smallest answers first) while
        a unit stays within ``unit_share`` of a block, the other mobile cards alone (cached per block size)."""
        if self._units is not None and self._units[0] == self.block:
            return self._units[1]
        cap = max(2, int(self.block * self.unit_share))
        unit_of = {int(c): i for i, c in enumerate(self.mobile)}
        members = {i: {int(c)} for i, c in enumerate(self.mobile)}
        for g in sorted(self.groups, key=len):
            ids = {unit_of[int(c)] for c in g if int(c) in unit_of}
            if len(ids) < 2 or sum(len(members[i]) for i in ids) > cap:
                continue
            keep = min(ids)
            for i in ids - {keep}:
                for c in members.pop(i):
                    unit_of[c] = keep
                    members[keep].add(c)
        out = [np.array(sorted(m), dtype=np.int64) for _, m in sorted(members.items())]
        self._units = (self.block, out)
        return out

    def partition(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """One sweep's blocks, drawn independently of the world: the :meth:`units` in a random
        order packed into blocks of at most ``block`` cards (every mobile card in exactly one
        block's *core*), each block padded to ``block`` cards with random other mobile cards
        (resampled too, so the block moves more; their cells are not recorded)."""
        units = self.units()
        blocks: list[list[np.ndarray]] = [[]]
        size = 0
        for i in self.rng.permutation(len(units)):
            u = units[int(i)]
            if size and size + len(u) > self.block:
                blocks.append([])
                size = 0
            blocks[-1].append(u)
            size += len(u)
        out = []
        for b in blocks:
            core = np.sort(np.concatenate(b)) if b else self.mobile[:0]
            room = self.block - len(core)
            pad = self.mobile[:0]
            if room > 0:
                rest = np.setdiff1d(self.mobile, core)
                pad = self.rng.choice(rest, size=min(room, len(rest)), replace=False)
            out.append((core, np.sort(np.concatenate([core, pad]).astype(np.int64))))
        return out

    def swap(self, proposals: int) -> int:
        """``proposals`` Metropolis swaps of two random mobile cards' whole histories (each
        accepted when the world stays consistent; the pairs drawn without looking at the world)."""
        from solvers import _block_kernels as kern

        m = len(self.mobile)
        if m < 2 or proposals <= 0:
            return 0
        i = self.rng.integers(m, size=proposals)
        j = (i + self.rng.integers(1, m, size=proposals)) % m
        f = self.flat
        made = kern.swap_moves(self.chosen, f.hist_opt_ptr, f.hist_opt, f.feat, f.code_sorted, f.code_index, f.code,
                               f.op, f.n, self.tot, self.mobile[i], self.mobile[j])
        self.swapped += made
        charge(proposals)
        return made

    def step(self, cards: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """Resample one block (``cards``, else a random one) exactly given the other cards
        (halving it while its DP is refused); the cards resampled and their conditional cells
        ``[card, loc]`` of the last epoch."""
        from solvers import _block_kernels as kern

        self.steps += 1
        cards = self.choose() if cards is None else np.asarray(cards, dtype=np.int64)
        f = self.flat
        while True:
            u = self.rng.random(2 * len(cards))
            cells = np.zeros((len(cards), self.L))
            picks = np.zeros(len(cards), dtype=np.int64)
            status, work = kern.block_step(cards, self.chosen, f.hist_opt_ptr, f.hist_opt, f.opt_ptr, f.feat, f.mult,
                                           f.ends, f.opt_hist_ptr, f.opt_hist, f.op, f.n, self.tot, u,
                                           self.max_states, self.max_work, cells, picks)
            self.work += work
            charge(work)
            if status == kern.OK:
                return cards, cells
            if status == kern.NO_COMPLETION:
                raise AssertionError("epoch-gibbs: the current world stopped being consistent")
            if len(cards) <= 2:
                raise TooLarge(f"epoch-gibbs: a block of {len(cards)} cards is past max_states/max_work")
            self.halved += 1
            cards = np.sort(self.rng.choice(cards, size=len(cards) // 2, replace=False))


_OP_HOLDS = {0: lambda v, n: v == n, 1: lambda v, n: v <= n, 2: lambda v, n: v >= n}


class BlockGibbs(Solver):
    """Approximately uniform worlds ``[epoch, card]`` and last-epoch cell marginals with a
    stated error, by block Gibbs with exact conditionals (module doc; ``exact = False``).

    ``block``: cards resampled per step (the DP's width grows with it; 12-16 keeps a full
    4-player Alibi's block DP in milliseconds); ``burn_in``: sweeps dropped per chain;
    ``samples`` .. ``max_samples``: recorded sweeps per chain (doubling)."""

    name = "epoch-gibbs"
    can_count = False
    can_sample = True
    exact = False
    kinds = EPOCH_KINDS + (CountEver,)
    max_epochs = None

    def __init__(self, chains: int = 4, block: int = 14, burn_in: int = 20, samples: int = 50,
                 max_samples: int = 800, rhat_target: float = 1.01, error_target: float = 0.02, seed: int = 0,
                 max_states: int = 20_000, max_work: int = 400_000, history_limit: int = 20_000,
                 work_target: int | None = 20_000, swaps: int = 50, give_up: float | None = None) -> None:
        self.chains = int(chains)
        self.block = int(block)
        self.burn_in = int(burn_in)
        self.samples = int(samples)
        self.max_samples = int(max_samples)
        self.rhat_target = float(rhat_target)
        self.error_target = float(error_target)
        self.seed = int(seed)
        self.max_states = int(max_states)
        self.max_work = int(max_work)
        self.history_limit = int(history_limit)
        #: DP transitions a step should examine, to tune the block size in burn-in (None: keep ``block``)
        self.work_target = None if work_target is None else int(work_target)
        #: Metropolis swaps of two cards' histories before each block, per card of the block
        self.swaps = int(swaps)
        #: stop doubling once the stated bound, shrunk as 1/sqrt(sweeps) to ``max_samples``, would
        #: still be over ``give_up`` times ``error_target`` (None: always spend the sweeps)
        self.give_up = None if give_up is None else float(give_up)
        #: the block size the last run recorded with
        self.block_used = self.block
        self.last: Diagnostics | None = None

    def _start(self, kb: KnowledgeBase, rng: np.random.Generator) -> list[Chain]:
        """Chains from different CP-SAT worlds (none: the knowledge base is inconsistent)."""
        self.check_supported(kb)
        model, possible = pruned_model(kb)
        if model is None:
            return []
        prob = _Problem(kb, self.history_limit)
        if prob.contradiction is not None:
            return []
        # the first worlds CP-SAT finds branching on the cells in random orders: about as far
        # apart as optimised starts for a feasibility solve each (0.02-0.04 s against 0.5-0.6 s)
        starts = EpochSampler(chains=self.chains).ordered_starts(kb, model, rng)
        flat = _Flat(prob)
        chains = [Chain(flat, w, np.random.default_rng(int(rng.integers(2**63))), self.block, self.max_states,
                        self.max_work) for w in starts]
        for ch in chains:
            ch.swaps = self.swaps
        return chains

    def _burn(self, chains: list[Chain]) -> None:
        """``burn_in`` sweeps per chain; with a ``work_target``, the block size is tuned on the
        first chain during them (grown by 2 while a step examines under a quarter of the target
        transitions, shrunk while over it or halved) and then fixed for every chain, so the
        recorded sweeps are a fixed, invariant kernel."""
        if self.work_target is not None and chains:
            ch = chains[0]
            for _ in range(self.burn_in):
                steps, work, halved = ch.steps, ch.work, ch.halved
                self._sweep(ch)
                per = (ch.work - work) / max(1, ch.steps - steps)
                if ch.halved > halved or per > self.work_target:
                    ch.block = max(2, ch.block - 2)
                elif per < self.work_target / 4 and ch.block < len(ch.mobile):
                    ch.block += 2
            for other in chains[1:]:
                other.block = ch.block
        for ch in chains[1 if self.work_target is not None else 0:]:
            for _ in range(self.burn_in):
                self._sweep(ch)
        self.block_used = chains[0].block if chains else self.block

    def _sweep(self, chain: Chain) -> np.ndarray:
        """One sweep's Rao-Blackwellised grid ``[card, loc]``: the blocks of :meth:`Chain.partition`
        resampled in turn, each mobile card's row its exact conditional cells at the step of the
        block whose core holds it (with the answers' cards it shares a unit with, so the
        conditional is not pinned by a partner held fixed); the other cards' rows their one
        location."""
        C, L = len(chain.chosen), chain.L
        grid = np.zeros((C, L))
        grid[np.arange(C), chain.last()] = 1.0
        for core, block in chain.partition():
            chain.swap(chain.swaps * len(block))
            todo = [block]
            while todo:  # a refused block's DP is drawn on a random half, then on the rest
                want = todo.pop()
                cards, cells = chain.step(want)
                keep = np.isin(cards, core)
                grid[cards[keep]] = cells[keep]
                if len(cards) < len(want):
                    todo.append(np.setdiff1d(want, cards))
        return grid

    def estimate(self, kb: KnowledgeBase) -> Estimate:
        """Marginals of the last epoch with their diagnostics (all zero when inconsistent)."""
        rng = np.random.default_rng(self.seed)
        chains = self._start(kb, rng)
        C, L = kb.num_cards, kb.num_locations
        if not chains:
            self.last = None
            return Estimate(np.zeros((C, L)), Diagnostics(0, 0, 0.0, 0.0))
        self._burn(chains)
        draws: list[list[np.ndarray]] = [[] for _ in chains]
        want = max(4, self.samples)
        while True:
            for ch, d in zip(chains, draws, strict=True):
                while len(d) < want:
                    d.append(self._sweep(ch))
            x = np.array(draws)  # [chain, sweep, card, loc]
            p = x.mean(axis=(0, 1))
            r = split_rhat(x)
            r[np.ptp(x, axis=(0, 1)) < 1e-9] = 1.0  # the same in every sweep up to rounding (a block of every card)
            rhat = float(np.nanmax(r))
            err = error_bound(batch_se(x), p)
            ok = rhat <= self.rhat_target and err <= self.error_target
            if ok or want * 2 > self.max_samples:
                break
            if self.give_up is not None and err * np.sqrt(want / self.max_samples) > self.give_up * self.error_target:
                break  # out of reach within the sweeps left
            want *= 2
        est = x.mean(axis=1)
        spread = float(max((np.abs(a - b).max() for j, a in enumerate(est) for b in est[j + 1:]), default=0.0))
        steps = sum(ch.steps for ch in chains)
        full = 1.0 - sum(ch.halved for ch in chains) / max(1, steps)
        self.last = Diagnostics(len(chains), int(x.shape[0] * x.shape[1]), spread, full, rhat, err, ok)
        return Estimate(p, self.last)

    def marginals(self, kb: KnowledgeBase) -> np.ndarray:
        return self.estimate(kb).marginals

    def sample(self, kb: KnowledgeBase, n: int, rng: np.random.Generator) -> list[np.ndarray]:
        """``n`` worlds ``[epoch, card]``, one after each sweep, spread over the chains after
        their burn-in (empty when inconsistent); no convergence check: the caller chose ``n``."""
        chains = self._start(kb, rng)
        if not chains:
            self.last = None
            return []
        self._burn(chains)
        out: list[np.ndarray] = []
        while len(out) < n:
            for ch in chains:
                if len(out) < n:
                    self._sweep(ch)
                    out.append(ch.world())
        return out

    def diagnostics(self) -> Diagnostics | None:
        """The mixing check of the last :meth:`estimate` (``acceptance``: the share of steps
        whose block was not halved)."""
        return self.last
