"""The audit: play games and check, after every event and for every player, that nothing a
researcher relies on is silently wrong.

Checks (each failure carries a reproducer: game seed, number of actions, player):

* ``soundness``: the true world is consistent with the player's knowledge base;
* ``agreement``: every backend that supports the knowledge base (and can finish on it) finds
  the same possible locations, and the same count where counting is feasible;
* ``leak``: the player's observation is unchanged in a state that differs only in cards the
  player has not seen (games that offer ``State.hidden_variant``);
* ``determinism``: replaying the game's actions from its seed reproduces the same events, and
  rerunning the agents from their seeds reproduces the same actions.

Agents and solvers are looked up by name in their registries.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import agents as agent_registry
import solvers as solver_registry
from deduce.constraints import At, NotAt
from deduce.errors import IllegalAction, NotSupported, TooLarge
from deduce.games.base import Action, Game
from deduce.games.registry import game_class, make
from deduce.knowledge import propagate
from deduce.play import GameRun, ScriptedPlayer, Step

__all__ = ["audit", "AuditReport", "AuditFailure", "CHECKS"]

CHECKS = ("soundness", "agreement", "leak", "determinism")
_BRUTE_MAX_WORLDS = 200_000  # domain product under which brute force is asked to agree
_CSP_MAX_WORLDS = 10**6


@dataclass(frozen=True)
class AuditFailure:
    """One failed check, with what is needed to reproduce it."""

    check: str
    game_seed: int
    num_players: int
    step: int
    player: int | None
    message: str

    def reproducer(self, game: str) -> str:
        who = "" if self.player is None else f", player {self.player}"
        return f"{game} with {self.num_players} players, game seed {self.game_seed}, after action {self.step}{who}"


@dataclass
class AuditReport:
    """Counts of checks passed and failed, and every failure."""

    game: str
    games: int = 0
    events: int = 0
    actions: int = 0
    passed: Counter = field(default_factory=Counter)
    skipped: Counter = field(default_factory=Counter)
    failures: list[AuditFailure] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def failed(self) -> Counter:
        return Counter(f.check for f in self.failures)


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
            possible = propagate(kb).possible
        except Exception:
            return math.inf
    sizes = possible.sum(axis=2).astype(float)
    if (sizes == 0).any():
        return 0.0
    log_total = float(np.log(sizes).sum())  # in logs: the product overflows on big decks
    return math.inf if log_total > 700 else math.exp(log_total)


def _agreement(kb: Any, backends: Sequence[Any]) -> tuple[int, str | None]:
    """Compare possible locations (and counts, where all finish) across backends.
    Returns the number of backends compared and a mismatch message, if any."""
    results: dict[str, np.ndarray] = {}
    counts: dict[str, int] = {}
    bound = _worlds_bound(kb)
    brute_bound = _worlds_bound(kb, facts_only=True)
    for backend in backends:
        if not backend.supports(kb):
            continue
        if backend.name == "brute" and brute_bound > _BRUTE_MAX_WORLDS:
            continue
        if backend.name == "csp" and bound > _CSP_MAX_WORLDS:
            continue
        try:
            results[backend.name] = np.asarray(backend.possible(kb))
            if backend.name in ("exact", "brute") or bound <= 20_000:
                counts[backend.name] = int(backend.count(kb))
        except TooLarge:
            continue
        except NotSupported:
            continue
    names = sorted(results)
    for other in names[1:]:
        if not np.array_equal(results[names[0]], results[other]):
            diff = np.argwhere(results[names[0]] != results[other])[:3].tolist()
            return len(names), f"{names[0]} and {other} disagree on possible locations at (card, loc) {diff}"
    if len(set(counts.values())) > 1:
        return len(names), f"backends disagree on the count: {counts}"
    return len(names), None


def audit(
    game_name: str,
    games: int = 10,
    seed: int = 0,
    agents: Sequence[str] | None = None,
    solvers: Sequence[str] = ("exact", "cpsat", "csp", "brute"),
    check_every: int = 5,
    max_actions: int = 3000,
    config: dict[str, Any] | None = None,
) -> AuditReport:
    """Play ``games`` games of ``game_name`` and run every check; see the module docstring.

    Player counts cycle through the game's range; seats are filled from ``agents`` (default:
    every agent registered for the game) in rotation. Backend agreement is checked every
    ``check_every`` actions (it is the expensive check); the rest after every action.
    """
    cls = game_class(game_name)
    names = list(agents or _agents_that_play(game_name, config))
    backends = []
    for s in solvers:
        try:
            backends.append(solver_registry.get(s))
        except Exception:
            continue
    report = AuditReport(game=game_name)
    root = np.random.SeedSequence(seed)
    counts = list(range(cls.min_players, cls.max_players + 1))
    for g, child in enumerate(root.spawn(games)):
        game_seed = int(child.generate_state(1, dtype=np.uint64)[0] >> 1)
        n = counts[g % len(counts)]
        game = make(game_name, num_players=n, **(config or {}))
        seated = [names[(g + i) % len(names)] for i in range(n)]
        actions, events = _play(game, seated, game_seed, max_actions, report, backends, check_every)
        report.games += 1
        report.actions += len(actions)
        report.events += len(events)
        _check_determinism(game, seated, game_seed, actions, events, report)
    return report


def _agents_that_play(game_name: str, config: dict[str, Any] | None) -> list[str]:
    """Every agent registered for the game that accepts this configuration (a board agent
    refuses the board-less game in ``reset``)."""
    cls = game_class(game_name)
    game = make(game_name, num_players=cls.min_players, **(config or {}))
    names = []
    for name in agent_registry.available(game_name):
        try:
            agent_registry.get(name, game=game_name).reset(game, 0, 0)
        except Exception:
            continue
        names.append(name)
    return names


def _new_agents(game: Game, seated: Sequence[str]) -> list[Any]:
    """Fresh agents by name; the game loop resets them with the seats' seeds."""
    return [agent_registry.get(name, game=game.name) for name in seated]


def _play(
    game: Game,
    seated: Sequence[str],
    game_seed: int,
    max_actions: int,
    report: AuditReport,
    backends: Sequence[Any],
    check_every: int,
) -> tuple[list[Action], tuple[Any, ...]]:
    """Play one game through the shared loop, running the checks after every action (an agent's
    exception or illegal action is a bug to see, so it propagates)."""
    rng = np.random.default_rng(game_seed)
    actions: list[Action] = []

    def check(step: Step) -> None:
        actions.append(step.action)
        _check_step(game, step.state, actions, step.moves, game_seed, report, backends, rng,
                    step.moves % check_every == 0)

    run = GameRun(game, _new_agents(game, seated), game_seed, max_moves=max_actions, on_action=check, errors="raise")
    for _ in run:
        pass
    return actions, run.state.events


def _fail(report: AuditReport, check: str, game: Game, game_seed: int, step: int, player: int | None, msg: str) -> None:
    report.failures.append(AuditFailure(check, game_seed, game.num_players, step, player, msg))


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
) -> None:
    try:
        world = state.world()
    except NotImplementedError:
        world = None
    for p in range(game.num_players):
        obs = state.observation(p)
        kb = game.knowledge(obs)
        if world is None:
            report.skipped["soundness"] += 1
        elif kb.consistent_with(world):
            report.passed["soundness"] += 1
        else:
            broken = [kb.describe(c) for c in kb.violated(world)][:3] if hasattr(kb, "violated") else []
            _fail(report, "soundness", game, game_seed, step, p, f"the true world breaks {broken}")
        if agreement:
            compared, mismatch = _agreement(kb, backends) if hasattr(kb, "constraints") else (0, None)
            if mismatch:
                _fail(report, "agreement", game, game_seed, step, p, mismatch)
            elif compared >= 2:
                report.passed["agreement"] += 1
            else:
                report.skipped["agreement"] += 1
        variant = state.hidden_variant(p, actions, rng) if agreement else None
        if not agreement:
            pass
        elif variant is None:
            report.skipped["leak"] += 1
        elif variant.observation(p) == obs:
            report.passed["leak"] += 1
        else:
            _fail(report, "leak", game, game_seed, step, p, "the observation changed with cards the player never saw")


def _check_determinism(
    game: Game,
    seated: Sequence[str],
    game_seed: int,
    actions: Sequence[Action],
    events: tuple[Any, ...],
    report: AuditReport,
) -> None:
    n = game.num_players
    replay = GameRun(game, [ScriptedPlayer(actions)] * n, game_seed, max_moves=len(actions), errors="raise")
    for _ in replay:
        pass
    if replay.state.events != events:
        _fail(report, "determinism", game, game_seed, len(actions), None, "replaying the actions gave other events")
        return
    again = GameRun(game, _new_agents(game, seated), game_seed, max_moves=len(actions), errors="raise")
    try:
        for step in again:
            expected = actions[step.moves - 1]
            if step.action != expected:
                _fail(report, "determinism", game, game_seed, step.moves - 1, step.seat,
                      f"agent {seated[step.seat]} chose {step.action!r}, not {expected!r}")
                return
    except IllegalAction as exc:  # another action than before, and not even a legal one
        seat = again.state.current_player
        _fail(report, "determinism", game, game_seed, again.moves, seat,
              f"agent {seated[seat]} chose an illegal action ({exc}), not {actions[again.moves]!r}")
        return
    report.passed["determinism"] += 1
