"""The audit: play games and check, after every event and for every player, that nothing a
researcher relies on is silently wrong.

Checks (each failure carries a reproducer: game and configuration, game seed, number of
actions, player):

* ``play``: every seated agent plays the whole game legally: an illegal action or an agent's
  exception is a failure naming the agent, the seat and the action, never a crash;
* ``soundness``: the true world is consistent with the player's knowledge base;
* ``agreement``: every backend that supports the knowledge base (and can finish on it) finds
  the same possible locations, and the same count where counting is feasible (a one-epoch
  base's ``CountEver`` is given to the static methods as the ``Count`` it equals, labelled
  ``:counts``, see :func:`_as_counts`);
* ``leak``: the player's observation is unchanged in a state that differs only in cards the
  player has not seen (games that offer ``State.hidden_variant``);
* ``determinism``: replaying the game's actions from its seed reproduces the same events, and
  rerunning the agents from their seeds reproduces the same actions. An agent that plays to a
  wall-clock ``deadline`` (an opt-in of the search agents) cannot be held to that: its seat
  replays its own actions, and the report says which agents were not checked and why.

Only agents that can play the configuration are seated: an agent may declare what it cannot
play (``cannot_play(game)``, a reason or ``None``) and may refuse the game in ``reset``; under
a configuration other than the game's default, an agent that declares nothing is first tried in
a short game of its own, and one that breaks a rule there is not seated. The report lists the
agents left out, with the reason.

Agents and solvers are looked up by name in their registries.
"""

from __future__ import annotations

import math
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import agents as agent_registry
import solvers as solver_registry
from deduce.constraints import At, Count, CountEver, NotAt, Op
from deduce.errors import IllegalAction, InvalidConfig, NotSupported, TooLarge
from deduce.games.base import Action, Game
from deduce.games.registry import game_class, make
from deduce.knowledge import KnowledgeBase
from deduce.play import GameRun, ScriptedPlayer, Step
from solvers.auto import chain_too_wide
from solvers.budget import metered
from solvers.epoch import propagated

__all__ = ["audit", "AuditReport", "AuditFailure", "AgentEntry", "Agreement", "CHECKS", "DEFAULT_SOLVERS", "FAMILY", "AGREEMENT_BUDGET"]

CHECKS = ("play", "soundness", "agreement", "leak", "determinism")
_BRUTE_MAX_WORLDS = 200_000  # domain product under which brute force is asked to agree
_CSP_MAX_WORLDS = 10**6
_TRIAL_MOVES = 60  # length of the trial game of an agent that declares nothing

#: an agent to seat: its registered name, or (name, parameters)
AgentEntry = str | tuple[str, Mapping[str, Any]]


@dataclass(frozen=True)
class AuditFailure:
    """One failed check, with what is needed to reproduce it."""

    check: str
    game_seed: int
    num_players: int
    step: int
    player: int | None
    message: str
    #: the game configuration beyond the player count (empty: the game's default)
    config: tuple[tuple[str, Any], ...] = ()

    def reproducer(self, game: str) -> str:
        who = "" if self.player is None else f", player {self.player}"
        setting = f" ({', '.join(f'{k}={v}' for k, v in self.config)})" if self.config else ""
        return (f"{game}{setting} with {self.num_players} players, game seed {self.game_seed}, "
                f"after action {self.step}{who}")


@dataclass
class AuditReport:
    """Counts of checks passed and failed, every failure, and which agents were left out of
    the games or out of the determinism check, with the reason."""

    game: str
    games: int = 0
    events: int = 0
    actions: int = 0
    passed: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)
    failures: list[AuditFailure] = field(default_factory=list)
    config: dict[str, Any] = field(default_factory=dict)
    #: agent -> why it was not seated (it cannot play this configuration)
    unseated: dict[str, str] = field(default_factory=dict)
    #: agent -> why its own choices were not checked for determinism
    unchecked: dict[str, str] = field(default_factory=dict)
    #: seconds spent playing ("games", checks included), checking ("checks", and each check by
    #: its name) and on determinism
    seconds: Counter = field(default_factory=Counter)
    #: agreement checks by the methods compared (``"exact+frontier"``, ``"epoch+sampler"``)
    methods: Counter = field(default_factory=Counter)
    #: agreement checks skipped, by the reason
    why_skipped: Counter = field(default_factory=Counter)
    #: agreement checks of a knowledge base equal to an earlier one of the same game (another
    #: seat's, or one no event changed): its verdict is reused, not solved again
    reused: int = 0

    @property
    def ok(self) -> bool:
        return not self.failures

    def failed(self) -> Counter:
        return Counter(f.check for f in self.failures)


@dataclass(frozen=True)
class _Seat:
    """An agent to seat: registered name, parameters, and the label it is reported by."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()

    @property
    def label(self) -> str:
        return self.name + (":" + ",".join(f"{k}={v}" for k, v in self.params) if self.params else "")

    def build(self, game: str) -> Any:
        try:
            return agent_registry.get(self.name, game=game, **dict(self.params))
        except (TypeError, ValueError) as exc:
            if isinstance(exc, InvalidConfig):
                raise
            raise InvalidConfig(f"agent {self.label}", dict(self.params), str(exc)) from None


def _seat(entry: AgentEntry) -> _Seat:
    if isinstance(entry, str):
        return _Seat(entry)
    name, params = entry
    return _Seat(name, tuple(params.items()))


def _worlds_bound(kb: Any, facts_only: bool = False) -> float:
    """The number of assignments a backend would search: the product of domain sizes, the
    domains narrowed by propagation or (``facts_only``, as brute force does) by unit facts."""
    if facts_only:
        possible = np.ones((kb.epochs, kb.num_cards, kb.num_locations), dtype=bool)
        for c in kb.constraints:
            if isinstance(c, At):
                keep = possible[c.epoch, c.card, c.loc]
                possible[c.epoch, c.card] = False
                possible[c.epoch, c.card, c.loc] = keep
            elif isinstance(c, NotAt):
                possible[c.epoch, c.card, c.loc] = False
    else:
        try:
            possible = propagated(kb).possible  # remembered: epoch and the sampler propagate the same base
        except Exception:
            return math.inf
    sizes = possible.sum(axis=2).astype(float)
    if (sizes == 0).any():
        return 0.0
    log_total = float(np.log(sizes).sum())  # in logs: the product overflows on big decks
    return math.inf if log_total > 700 else math.exp(log_total)


#: exact methods grouped by the algorithm they share: the agreement check takes its two answers
#: from two different families, so that one shared bug cannot make both answers wrong alike
FAMILY: dict[str, str] = {
    "exact": "class DP", "split": "class DP", "cpsat": "CP-SAT", "epoch": "CP-SAT", "chain": "chain",
    "frontier": "frontier", "tokens": "tokens", "brute": "enumeration", "csp": "constraint search",
}
#: the exact methods asked, cheapest first on the games' knowledge bases (measured per game in
#: docs/benchmarks.md, "Audit"): the first that answers within :data:`AGREEMENT_BUDGET`, then the
#: first of another family
DEFAULT_SOLVERS = ("tokens", "exact", "chain", "frontier", "split", "epoch", "cpsat", "brute", "csp")
#: work steps (:mod:`solvers.budget`) each method may spend on one knowledge base: counted work,
#: never wall time, so which methods answer is the same on an idle or a loaded machine
AGREEMENT_BUDGET = 2_000_000
#: ``frontier``'s cards times epochs in the audit: Crime Hotel's whole games (27 cards, up to
#: 11 epochs) and Mayfair Alibi through its first pass; past it, it refuses before any work
_FRONTIER_MAX_CELLS = 300
#: worlds the sampler draws when only one exact method answers (Mayfair Alibi after its first
#: pass): each must be consistent and inside the exact answer's possible locations
_SAMPLED_WORLDS = 40


@dataclass(frozen=True)
class Agreement:
    """One agreement check: the methods compared (``"a+b"``; ``"a+sampler"`` when the second
    opinion is the sampler's worlds), a mismatch, or why it was skipped."""

    methods: str = ""
    mismatch: str | None = None
    skipped: str | None = None


def _backend(name: str) -> Any:
    """A backend by name, as the audit runs it (``frontier`` takes the audit's bigger bases)."""
    if name == "frontier":
        return solver_registry.get("frontier", max_cells=_FRONTIER_MAX_CELLS)
    return solver_registry.get(name)


#: the label of a static method's answer on :func:`_as_counts`' form of a one-epoch base
AS_COUNTS = ":counts"


def _as_counts(kb: Any) -> Any | None:
    """A one-epoch base with every ``CountEver`` written as the ``Count`` it equals, for the
    static methods (``exact``, ``split``, ``tokens``, ``csp``), which take no ``CountEver``;
    None when there is none or one cannot be written so.

    In one epoch, "ever at one of ``locs``" is "at one of ``locs``" in epoch 0. A location is
    dropped from ``locs`` only where the base itself says none of the constraint's cards is
    there in epoch 0: a ``Count`` of at most 0 (Mayfair Alibi's empty melds before the first
    pass) or ``NotAt`` facts. One location left: that ``Count``; none left: the count is 0, a
    constraint that always holds (dropped) or never (None: no rewrite). The rewritten base
    has exactly the same worlds; nothing is taken from propagation or from another solver."""
    if getattr(kb, "epochs", 0) != 1 or not any(isinstance(c, CountEver) for c in kb.constraints):
        return None
    empty: list[set[int]] = [set() for _ in range(kb.num_locations)]  # cards the base keeps out of each location
    for c in kb.constraints:
        if isinstance(c, Count) and c.epoch == 0 and c.n == 0 and c.op in (Op.EQ, Op.LE):
            empty[c.loc].update(c.cards)
        elif isinstance(c, NotAt) and c.epoch == 0:
            empty[c.loc].add(c.card)
        elif isinstance(c, At) and c.epoch == 0:  # a card is at one location: at none of the others
            for z in range(kb.num_locations):
                if z != c.loc:
                    empty[z].add(c.card)
    out = KnowledgeBase(kb.deck, kb.locations, 1)
    rewritten = []
    for c in kb.constraints:
        if not isinstance(c, CountEver):
            rewritten.append(c)
            continue
        cards = set(c.cards)
        live = [z for z in c.locs if not cards <= empty[z]] if 0 in c.epochs else []
        if len(live) == 1:
            rewritten.append(Count(c.cards, live[0], c.n, c.op, 0))
        elif live or not c.op.compare(0, c.n):
            return None
    out.extend(rewritten, check=False)
    return out


def _refusal(kb: Any, backend: Any, bound: float, brute_bound: float) -> str | None:
    """Why ``backend`` is not asked about ``kb`` at all (before any work), or None."""
    if not backend.supports(kb):
        return "does not support it"
    if backend.name == "brute" and brute_bound > _BRUTE_MAX_WORLDS:
        return f"more than {_BRUTE_MAX_WORLDS:,} assignments"
    if backend.name == "csp" and bound > _CSP_MAX_WORLDS:
        return f"more than {_CSP_MAX_WORLDS:,} assignments"
    if backend.name == "chain" and (kb.epochs == 1 or chain_too_wide(kb)):
        # chain charges its steps coarsely: a static base (the class DP's ground) or one with
        # too many opening states would take a minute to spend its budget
        return "static" if kb.epochs == 1 else "too many opening states"
    return None


def _answer(kb: Any, backend: Any, bound: float, truth: np.ndarray | None = None) -> tuple[np.ndarray, int | None]:
    """``backend``'s possible locations of ``kb`` and its count (None where counting would
    mean enumerating a big set), within :data:`AGREEMENT_BUDGET` work steps. ``epoch`` is
    given ``truth`` (a world of ``kb``) as a witness to start its chains from, instead of a
    first CP-SAT solve: a witness only shows a cell possible, every cell it calls impossible
    is still refuted by CP-SAT, which is what the sampler's second opinion tests."""
    with metered(AGREEMENT_BUDGET):
        counts = getattr(backend, "can_count", False) and backend.name not in ("cpsat", "epoch", "csp")
        if counts:
            t = backend.tallies(kb)
            return np.array([[v > 0 for v in row] for row in t.cells], dtype=bool).reshape(kb.num_cards, kb.num_locations), int(t.total)
        given = {"starts": [truth]} if truth is not None and backend.name == "epoch" else {}
        possible = np.asarray(backend.possible(kb, **given))
        return possible, (int(backend.count(kb)) if bound <= 20_000 and getattr(backend, "can_count", True) else None)


def _consistent(kb: Any, worlds: Sequence[np.ndarray]) -> np.ndarray:
    """``kb.consistent_with(w)`` for each world ``[epoch, card]`` of ``worlds``, the facts and
    counts of one epoch (Mayfair Alibi's hand sizes: most of a base's constraints and of the
    time to check them) tested over all the worlds at once, every other constraint by its own
    ``holds``."""
    if not worlds:
        return np.zeros(0, dtype=bool)
    arr = np.stack([np.asarray(w) for w in worlds])
    if arr.shape[1:] != (kb.epochs, kb.num_cards):
        return np.array([kb.consistent_with(w) for w in worlds], dtype=bool)
    ok = np.ones(len(worlds), dtype=bool)
    for c in kb.constraints:
        if isinstance(c, At):
            ok &= arr[:, c.epoch, c.card] == c.loc
        elif isinstance(c, NotAt):
            ok &= arr[:, c.epoch, c.card] != c.loc
        elif isinstance(c, Count):
            n = (arr[:, c.epoch, list(c.cards)] == c.loc).sum(axis=1) if c.cards else np.zeros(len(worlds), dtype=int)
            ok &= n == c.n if c.op is Op.EQ else (n <= c.n if c.op is Op.LE else n >= c.n)
        else:
            ok &= np.array([c.holds(w) for w in arr], dtype=bool)
    return ok


def _sampled(kb: Any, possible: np.ndarray, seed: int, truth: np.ndarray | None = None) -> str | None:
    """The sampler's second opinion on one exact answer: every world it draws must be
    consistent with ``kb`` and put each card where ``possible`` allows (a mismatch), else None.
    One-sided by nature: it can find a world the exact answer missed, never prove a cell empty.
    ``truth``, the game's true world (a world of ``kb``: the soundness check passed), is held
    to the same test and is where the chain starts: a start that owes nothing to CP-SAT, whose
    model the exact answer (``epoch``) also builds, and no model to build or solve. The
    sampler copies it (its chain moves its start in place)."""
    if truth is not None:
        outside = [(int(c), int(z)) for c, z in enumerate(truth[-1]) if not possible[c, z]]
        if outside:
            return f"the true world has (card, loc) {outside[:3]}, which the exact answer calls impossible"
    # one chain: a second one starts from a CP-SAT optimisation that cost more than the rest of a check
    sampler = solver_registry.get("epoch-sample", chains=1, burn_in=2_000, thin=10, seed=seed)
    worlds = sampler.sample(kb, _SAMPLED_WORLDS, np.random.default_rng(seed),
                            starts=None if truth is None else [truth])
    if not worlds and possible.any():
        return "the sampler found no world where the exact answer has some"
    distinct = list({np.asarray(w).tobytes(): np.asarray(w) for w in worlds}.values())  # each distinct world once
    if not _consistent(kb, distinct).all():
        return "the sampler drew a world that breaks the knowledge base"
    for w in distinct:
        last = w if w.ndim == 1 else w[-1]
        outside = [(int(c), int(z)) for c, z in enumerate(last) if not possible[c, z]]
        if outside:
            return f"the sampler drew a world with (card, loc) {outside[:3]}, which the exact answer calls impossible"
    return None


def _agreement(kb: Any, backends: Sequence[Any], seed: int = 0, truth: np.ndarray | None = None) -> Agreement:
    """Ask ``backends`` in order until two of different :data:`FAMILY` answer within the work
    budget, and compare their possible locations (and counts, where both count). Where only
    one answers on a time-indexed base (or only epoch on a one-epoch base), the sampler
    (``epoch-sample``, where it applies; its chain starts from
    ``truth``, a world of ``kb``, where given) is the second opinion, labelled as such; where
    none can, the check is skipped with the reasons."""
    bound = _worlds_bound(kb)
    brute_bound = _worlds_bound(kb, facts_only=True)
    answers: list[tuple[str, np.ndarray, int | None]] = []
    why: dict[str, str] = {}
    counts_form: Any = None  # _as_counts(kb), made when a static method first needs it (False: none)
    spent: dict[str, str] = {}  # family -> its method that needed more than the budget
    for backend in backends:
        if len(answers) == 2:
            break
        family = FAMILY.get(backend.name, backend.name)
        if any(FAMILY.get(a.removesuffix(AS_COUNTS), a) == family for a, _, _ in answers):
            continue
        if kb.epochs > 1 and family in spent:
            # on a time-indexed base (Mayfair Alibi late in a game) the cells one CP-SAT method
            # could not refute within the budget are the ones the other cannot either
            why[backend.name] = f"{spent[family]} ({family}, the same algorithm) needed more than the work budget"
            continue
        asked, label = kb, backend.name
        reason = _refusal(kb, backend, bound, brute_bound)
        if reason == "does not support it":
            if counts_form is None:
                counts_form = _as_counts(kb) or False
            if counts_form is not False and _refusal(counts_form, backend, bound, brute_bound) is None:
                asked, label, reason = counts_form, backend.name + AS_COUNTS, None
        if reason:
            why[backend.name] = reason
            continue
        try:
            possible, count = _answer(asked, backend, bound, truth)
        except TooLarge:
            why[backend.name] = f"more than {AGREEMENT_BUDGET:,} work steps"
            spent.setdefault(family, backend.name)
            continue
        except NotSupported as exc:
            why[backend.name] = str(exc)
            continue
        answers.append((label, possible, count))
    if len(answers) == 2:
        (a, pa, ca), (b, pb, cb) = answers
        methods = f"{a}+{b}"
        if pa.shape != pb.shape or not np.array_equal(pa, pb):
            diff = np.argwhere(pa != pb)[:3].tolist() if pa.shape == pb.shape else f"shapes {pa.shape}, {pb.shape}"
            return Agreement(methods, f"{a} and {b} disagree on possible locations at (card, loc) {diff}")
        if ca is not None and cb is not None and ca != cb:
            return Agreement(methods, f"{a} and {b} disagree on the count: {ca} and {cb}")
        return Agreement(methods)
    # epoch alone on a one-epoch base: Mayfair Alibi before the first pass with 9-10 players
    if len(answers) == 1 and (kb.epochs > 1 or answers[0][0] == "epoch"):
        name, possible, _ = answers[0]
        sampler = solver_registry.get("epoch-sample")
        if sampler.supports(kb):
            return Agreement(f"{name}+sampler", _sampled(kb, possible, seed, truth))
        why["epoch-sample"] = "does not support it"
    found = f"only {answers[0][0]} answered" if answers else "no exact method answered"
    return Agreement(skipped=f"{found} ({'; '.join(f'{k}: {v}' for k, v in why.items())})")


def audit(
    game_name: str,
    games: int = 10,
    seed: int = 0,
    agents: Sequence[AgentEntry] | None = None,
    solvers: Sequence[str] = DEFAULT_SOLVERS,
    check_every: int = 5,
    max_actions: int = 3000,
    config: Mapping[str, Any] | None = None,
    progress: Callable[[str], None] | None = None,
) -> AuditReport:
    """Play ``games`` games of ``game_name`` and run every check; see the module docstring.

    Player counts cycle through the game's range (unless ``config`` sets ``num_players``); seats are filled from ``agents`` (names, or
    ``(name, parameters)``; default: every agent registered for the game) in rotation, leaving
    out those that cannot play ``config``. Backend agreement is checked every ``check_every``
    actions (it is the expensive check); the rest after every action. ``progress`` is given a
    line of text per game and per check as the audit goes.
    """
    say = progress or (lambda line: None)
    cls = game_class(game_name)
    settings = dict(config or {})
    report = AuditReport(game=game_name, config=dict(settings))
    counts = [settings.pop("num_players")] if "num_players" in settings else list(range(cls.min_players, cls.max_players + 1))
    candidates = [_seat(a) for a in agents] if agents else [_Seat(n) for n in agent_registry.available(game_name)]
    seats = _seats_that_play(game_name, counts[0], settings, candidates, seed, report)
    if not seats:
        why = "; ".join(f"{a}: {r}" for a, r in report.unseated.items())
        raise InvalidConfig("agents", [c.label for c in candidates], f"none of them plays {game_name} {settings}: {why}")
    backends = []
    for s in solvers:
        try:
            backends.append(_backend(s))
        except Exception:
            continue
    for seat in seats:
        reason = _time_bound(seat.build(game_name))
        if reason:
            report.unchecked[seat.label] = reason
    setting = f" ({', '.join(f'{k}={v}' for k, v in settings.items())})" if settings else ""
    say(f"{game_name}{setting}: {games} games from seed {seed}, agents {', '.join(s.label for s in seats)}")
    for label, why in report.unseated.items():
        say(f"{game_name}: {label} not seated: {why}")
    for label, why in report.unchecked.items():
        say(f"{game_name}: determinism of {label}'s own choices not checked: {why}")
    root = np.random.SeedSequence(seed)
    for g, child in enumerate(root.spawn(games)):
        game_seed = int(child.generate_state(1, dtype=np.uint64)[0] >> 1)
        n = counts[g % len(counts)]
        game = make(game_name, num_players=n, **settings)
        seated = [seats[(g + i) % len(seats)] for i in range(n)]
        where = f"{game_name} game {g + 1}/{games}"
        before = (report.passed.copy(), report.failed(), report.skipped.copy(), report.seconds.copy())
        start = time.perf_counter()
        actions, by, events = _play(game, seated, game_seed, max_actions, report, backends, check_every)
        played = time.perf_counter() - start
        report.seconds["games"] += played
        report.games += 1
        report.actions += len(actions)
        report.events += len(events)
        say(f"{where}: {n} players ({', '.join(s.label for s in seated)}), game seed {game_seed}: "
            f"{len(actions)} actions in {played:.1f} s (checks {report.seconds['checks'] - before[3]['checks']:.1f} s)")
        for check in CHECKS[:-1]:
            say(f"{where}: {check} " + _tally(report, before, check))
        start = time.perf_counter()
        _check_determinism(game, seated, game_seed, actions, by, events, report)
        report.seconds["determinism"] += time.perf_counter() - start
        say(f"{where}: determinism " + _tally(report, before, "determinism"))
    return report


def _tally(report: AuditReport, before: tuple[Counter, Counter, Counter, Counter], check: str) -> str:
    """One check's results in the last game, and its time."""
    passed, failed, skipped, seconds = before
    ok = report.passed[check] - passed[check]
    bad = report.failed()[check] - failed[check]
    na = report.skipped[check] - skipped[check]
    spent = report.seconds[check] - seconds[check]
    return f"{ok} ok, {bad} failed, {na} n/a" + (f" ({spent:.1f} s)" if spent >= 0.05 else "")


def _time_bound(agent: Any) -> str | None:
    """Why ``agent``'s choices depend on the clock (a wall-clock deadline), or None."""
    deadline = getattr(agent, "deadline", None)
    if isinstance(deadline, int | float) and not isinstance(deadline, bool):
        return f"it plays to a wall-clock deadline ({deadline:g} s a decision), so its choices depend on the machine's load"
    return None


def _seats_that_play(game_name: str, players: int, config: Mapping[str, Any], candidates: Sequence[_Seat],
                     seed: int, report: AuditReport) -> list[_Seat]:
    """The ``candidates`` that can play ``config``; the others go to ``report.unseated``."""
    game = make(game_name, num_players=players, **config)
    out = []
    for seat in candidates:
        why = _cannot_play(seat, game, seed, trial=bool(config))
        if why is None:
            out.append(seat)
        else:
            report.unseated[seat.label] = why
    return out


def _cannot_play(seat: _Seat, game: Game, seed: int, trial: bool) -> str | None:
    """Why the agent of ``seat`` cannot play ``game``: its own declaration, its refusal in
    ``reset``, or (``trial``, for an agent that declares nothing) a rule it breaks in a short
    game with itself in every seat; None when it can."""
    agent = seat.build(game.name)
    declared = getattr(agent, "cannot_play", None)
    if callable(declared):
        why = declared(game)
        if why:
            return str(why)
    try:
        agent.reset(game, 0, 0)
    except Exception as exc:
        return f"it refuses the game: {exc}"
    if callable(declared) or not trial:
        return None
    trial_run = GameRun(game, [seat.build(game.name) for _ in range(game.num_players)], seed, max_moves=_TRIAL_MOVES)
    for _ in trial_run:
        pass
    failure = trial_run.failure
    if failure is not None and failure.kind in ("illegal", "exception"):
        return f"in a trial game (seed {seed}) it broke a rule: {failure.message}"
    return None


class _AgentRaised(Exception):
    """An agent's own exception, told apart from the audit's and the engine's."""

    def __init__(self, seat: int, error: Exception) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.seat = seat


def _new_agents(game: Game, seated: Sequence[_Seat]) -> tuple[list[Any], list[Action | None]]:
    """Fresh agents (the game loop resets them with the seats' seeds), each ``act`` recording
    the seat's last action and marking the agent's own exceptions."""
    players = [seat.build(game.name) for seat in seated]
    last: list[Action | None] = [None] * len(players)
    for i, agent in enumerate(players):
        agent.act = _recording(agent.act, i, last)
    return players, last


def _recording(act: Callable[[Any], Action], seat: int, last: list[Action | None]) -> Callable[[Any], Action]:
    def recorded(observation: Any) -> Action:
        try:
            last[seat] = act(observation)
        except Exception as exc:
            raise _AgentRaised(seat, exc) from exc
        return last[seat]  # type: ignore[return-value]

    return recorded


def _play(
    game: Game,
    seated: Sequence[_Seat],
    game_seed: int,
    max_actions: int,
    report: AuditReport,
    backends: Sequence[Any],
    check_every: int,
) -> tuple[list[Action], list[int], tuple[Any, ...]]:
    """Play one game through the shared loop, running the checks after every action. An
    illegal action or an agent's exception ends the game as a ``play`` failure with its
    reproducer. Returns the actions, the seat of each, and the events."""
    rng = np.random.default_rng(game_seed)
    actions: list[Action] = []
    by: list[int] = []
    verdicts: dict[tuple, Agreement] = {}

    def check(step: Step) -> None:
        actions.append(step.action)
        by.append(step.seat)
        start = time.perf_counter()
        _check_step(game, step.state, actions, step.moves, game_seed, report, backends, rng,
                    step.moves % check_every == 0, verdicts)
        report.seconds["checks"] += time.perf_counter() - start

    players, last = _new_agents(game, seated)
    run = GameRun(game, players, game_seed, max_moves=max_actions, on_action=check, errors="raise")
    try:
        for _ in run:
            pass
    except IllegalAction as exc:
        seat = run.state.current_player
        _fail(report, "play", game, game_seed, len(actions), seat,
              f"agent {seated[seat].label} chose {last[seat]!r}, which is illegal: {exc}")
    except _AgentRaised as exc:
        _fail(report, "play", game, game_seed, len(actions), exc.seat, f"agent {seated[exc.seat].label} raised {exc}")
    else:
        report.passed["play"] += 1
    return actions, by, run.state.events


def _fail(report: AuditReport, check: str, game: Game, game_seed: int, step: int, player: int | None, msg: str) -> None:
    report.failures.append(AuditFailure(check, game_seed, game.num_players, step, player, msg, tuple(report.config.items())))


def _check_step(
    game: Game,
    state: Any,
    actions: Sequence[Action],
    step: int,
    game_seed: int,
    report: AuditReport,
    backends: Sequence[Any],
    rng: np.random.Generator,
    agreement: bool,
    verdicts: dict[tuple, Agreement],
) -> None:
    """The checks after one action, for every player; ``verdicts`` holds the game's agreement
    verdicts by knowledge-base fingerprint (an equal base is not solved twice)."""
    try:
        world = state.world()
    except NotImplementedError:
        world = None
    for p in range(game.num_players):
        start = time.perf_counter()
        obs = state.observation(p)
        kb = game.knowledge(obs)
        report.seconds["knowledge"] += time.perf_counter() - start
        start = time.perf_counter()
        sound = False
        if world is None:
            report.skipped["soundness"] += 1
        elif kb.consistent_with(world):
            report.passed["soundness"] += 1
            sound = True
        else:
            broken = [kb.describe(c) for c in kb.violated(world)][:3] if hasattr(kb, "violated") else []
            _fail(report, "soundness", game, game_seed, step, p, f"the true world breaks {broken}")
        report.seconds["soundness"] += time.perf_counter() - start
        if agreement:
            start = time.perf_counter()
            key = kb.fingerprint() if hasattr(kb, "fingerprint") else None
            if key is not None and key in verdicts:
                verdict = verdicts[key]
                report.reused += 1
            else:
                # a copy of the true world for this player's check alone: the next player's
                # soundness check reads ``world`` again
                truth = (np.array(world) if sound and np.shape(world) == (getattr(kb, "epochs", 0), getattr(kb, "num_cards", -1))
                         else None)
                verdict = (_agreement(kb, backends, seed=game_seed % 2**31 + step, truth=truth)
                           if hasattr(kb, "constraints")
                           else Agreement(skipped="the knowledge base has no constraints to solve"))
                if key is not None:
                    verdicts[key] = verdict
            if verdict.methods:
                report.methods[verdict.methods] += 1
            if verdict.mismatch:
                _fail(report, "agreement", game, game_seed, step, p, f"{verdict.mismatch} ({verdict.methods})")
            elif verdict.skipped:
                report.skipped["agreement"] += 1
                report.why_skipped[verdict.skipped] += 1
            else:
                report.passed["agreement"] += 1
            report.seconds["agreement"] += time.perf_counter() - start
        start = time.perf_counter()
        variant = state.hidden_variant(p, actions, rng) if agreement else None
        if not agreement:
            pass
        elif variant is None:
            report.skipped["leak"] += 1
        elif variant.observation(p) == obs:
            report.passed["leak"] += 1
        else:
            _fail(report, "leak", game, game_seed, step, p, "the observation changed with cards the player never saw")
        report.seconds["leak"] += time.perf_counter() - start


def _check_determinism(
    game: Game,
    seated: Sequence[_Seat],
    game_seed: int,
    actions: Sequence[Action],
    by: Sequence[int],
    events: tuple[Any, ...],
    report: AuditReport,
) -> None:
    """Replay the actions (same events?), then rerun the agents from their seeds (same
    actions?); a seat whose agent plays to a deadline replays its own actions instead."""
    n = game.num_players
    replay = GameRun(game, [ScriptedPlayer(actions)] * n, game_seed, max_moves=len(actions), errors="raise")
    for _ in replay:
        pass
    if replay.state.events != events:
        _fail(report, "determinism", game, game_seed, len(actions), None, "replaying the actions gave other events")
        return
    timed = [seat.label in report.unchecked for seat in seated]
    if all(timed):
        report.skipped["determinism"] += 1
        return
    players, _ = _new_agents(game, seated)
    for i in range(n):
        if timed[i]:
            players[i] = ScriptedPlayer([a for a, s in zip(actions, by, strict=True) if s == i])
    again = GameRun(game, players, game_seed, max_moves=len(actions), errors="raise")
    try:
        for step in again:
            expected = actions[step.moves - 1]
            if step.action != expected:
                _fail(report, "determinism", game, game_seed, step.moves - 1, step.seat,
                      f"agent {seated[step.seat].label} chose {step.action!r}, not {expected!r}")
                return
    except (IllegalAction, _AgentRaised) as exc:  # another action than before, and not even a legal one
        seat = again.state.current_player
        _fail(report, "determinism", game, game_seed, again.moves, seat,
              f"agent {seated[seat].label} did otherwise on the rerun ({exc}), not {actions[again.moves]!r}")
        return
    report.passed["determinism"] += 1
