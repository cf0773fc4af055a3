"""``Tournament``: a schedule, a backend and a results directory put together.

``Tournament("clue", ["deductive", "notebook", "random"], games=60, seed=1).run()`` plays the
games (resuming whatever its results directory already holds) and returns
:class:`~deduce.apps.tournament.results.TournamentResults`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
import platform
import sys
from collections.abc import Iterator, Mapping, Sequence
from contextlib import nullcontext
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from deduce.apps.tournament.backends import BackendName, default_workers, resolve_backend, run_games
from deduce.apps.tournament.results import TournamentResults
from deduce.apps.tournament.schedule import AgentSpec, Arrangement, GameSpec, Schedule, labelled
from deduce.apps.tournament.store import ResultStore, require_pandas, rows_to_frame
from deduce.apps.tournament.worker import Setup, build_agent
from deduce.errors import DeduceError
from deduce.games import game_class, make
from deduce.play import GameRecord, play_game

__all__ = ["Tournament", "AgentLike"]

AgentLike = AgentSpec | str | tuple[str, Mapping[str, Any]] | Mapping[str, Any]

#: Settings that define which games are played; a results directory holds one such identity.
IDENTITY_KEYS = ("game", "config", "players", "agents", "seed", "arrangement", "duplicate", "move_time_limit")


class Tournament:
    """Agents playing a schedule of games of one game, on a backend, saved to ``out``.

    ``agents`` are names (``"deductive"``), ``"label=name"`` strings, ``(name, params)`` pairs
    or :class:`AgentSpec`. ``players`` defaults to the number of agents, clamped to the game's
    range. ``games`` counts games, not rounds; a multiple of ``schedule.round_size`` seats
    every agent equally. With ``out`` the run is saved as it goes and resumes what is there;
    without it nothing touches the disk. ``progress=None`` shows a bar only on a terminal.

    ``backend`` is ``serial`` (the default here), ``processes`` (``workers`` local processes,
    default all cores), ``ray`` (``address`` of a cluster, default a local one) or ``auto``
    (serial, switching to processes when the rest of the run looks long; the command line's
    default). Process and Ray workers rebuild agents by registered name, so agents registered
    at run time need the serial backend, and a script starting them needs the
    ``if __name__ == "__main__":`` guard. Every backend gives the same table for a seed.
    """

    def __init__(
        self,
        game: str,
        agents: Sequence[AgentLike],
        games: int = 60,
        seed: int = 0,
        *,
        players: int | None = None,
        config: Mapping[str, Any] | None = None,
        arrangement: Arrangement | str = Arrangement.ROTATE,
        duplicate: bool = True,
        move_time_limit: float | None = None,
        backend: BackendName | str = BackendName.SERIAL,
        workers: int | None = None,
        address: str | None = None,
        out: str | os.PathLike[str] | None = None,
        progress: bool | None = None,
    ) -> None:
        require_pandas()
        if games < 0:
            raise DeduceError(f"games must be at least 0, not {games}")
        if move_time_limit is not None and move_time_limit <= 0:
            raise DeduceError(f"move time limit must be positive, not {move_time_limit}")
        self.game = game
        self.specs = tuple(labelled([AgentSpec.coerce(a) for a in agents]))
        cls = game_class(game)
        config = dict(config or {})
        if "num_players" in config:
            if players is not None and players != config["num_players"]:
                raise DeduceError("give the number of players once (players or config num_players)")
            players = int(config.pop("num_players"))
        if players is None:
            players = min(max(len(self.specs), cls.min_players), cls.max_players)
        if not cls.min_players <= players <= cls.max_players:
            raise DeduceError(f"{game} is for {cls.min_players} to {cls.max_players} players, not {players}")
        self.players = players
        self.config = config
        try:
            make(game, num_players=players, **config)
        except (ValueError, TypeError) as exc:
            raise DeduceError(f"{game}: bad configuration: {exc}") from None
        for spec in self.specs:  # fail here, not in a worker, on an unknown agent or parameter
            build_agent(spec, game)
        self.games = games
        self.seed = int(seed)
        self.schedule = Schedule(tuple(s.label for s in self.specs), players, self.seed, Arrangement(arrangement), duplicate)
        self.move_time_limit = move_time_limit
        self.workers = workers or default_workers()
        self.backend = resolve_backend(backend)
        self.address = address
        self.out = Path(out) if out is not None else None
        self.progress = progress
        self.setup = Setup.create(game, {**config, "num_players": players}, self.specs, move_time_limit)

    # -- identity --------------------------------------------------------------------------
    def identity(self) -> dict[str, Any]:
        """What determines the games played (JSON types); equal identities give equal tables."""
        ident = {
            "game": self.game,
            "config": self.config,
            "players": self.players,
            "agents": [s.to_json() for s in self.specs],
            "seed": self.seed,
            "arrangement": str(self.schedule.arrangement),
            "duplicate": self.schedule.duplicate,
            "move_time_limit": self.move_time_limit,
        }
        return json.loads(json.dumps(ident, default=_json_default))

    def default_out(self, root: str | os.PathLike[str] = "results") -> Path:
        """``results/<game>-seed<seed>-<hash>``: the same command always finds its own results
        (so rerunning it resumes), and a different tournament never mixes with them."""
        digest = hashlib.sha256(json.dumps(self.identity(), sort_keys=True).encode()).hexdigest()[:8]
        return Path(root) / f"{self.game}-seed{self.seed}-{digest}"

    # -- playing ---------------------------------------------------------------------------
    def game_specs(self) -> list[GameSpec]:
        return self.schedule.games(self.games)

    def replay(self, game_id: int) -> GameRecord:
        """Play game ``game_id`` alone, here: the same result it had in the tournament."""
        spec = self.schedule[game_id]
        game = make(self.game, num_players=self.players, **self.config)
        agents = [build_agent(self.setup.agent(label), self.game) for label in spec.seats]
        return play_game(game, agents, spec.seed, move_time_limit=self.move_time_limit, deal_seed=spec.deal_seed)

    def run(self) -> TournamentResults:
        """Play every game not yet in ``out`` and return all the results."""
        specs = self.game_specs()
        store = ResultStore(self.out) if self.out is not None else None
        with store.lock() if store is not None else nullcontext():
            done = self._prepare(store) if store is not None else set()
            todo = [s for s in specs if s.game_id not in done]
            backend = self.backend
            rows: list[dict[str, Any]] = []
            played = 0
            try:
                for game_rows in self._progress(run_games(backend, self.setup, todo, self.workers, self.address),
                                                total=len(specs), initial=len(specs) - len(todo)):
                    played += 1
                    if store is not None:
                        store.append(game_rows)
                    else:
                        rows.extend(game_rows)
            finally:
                if store is not None:
                    store.flush()  # an interrupted run keeps every finished game
            if store is None:
                return TournamentResults(rows_to_frame(rows), self._config(backend, "complete"), None, played)
            frame = store.compact()
            store.write_config(self._config(backend, "complete", games_recorded=int(frame["game_id"].nunique())))
        frame = frame[frame["game_id"] < self.games].reset_index(drop=True)
        return TournamentResults(frame, store.read_config() or {}, self.out, played)

    def _prepare(self, store: ResultStore) -> set[int]:
        """Check the directory holds this tournament (or nothing) and list the games it has."""
        existing = store.read_config()
        if existing is not None:
            mine = self.identity()
            differ = [k for k in IDENTITY_KEYS if existing.get(k) != mine[k]]
            if differ:
                raise DeduceError(
                    f"{store.path} holds a different tournament ({', '.join(differ)} differ); "
                    "choose another --out directory"
                )
        done = store.done_ids()
        store.write_config(self._config(self.backend, "running", games_recorded=len(done)))
        return done

    def _config(self, backend: Any, status: str, games_recorded: int | None = None) -> dict[str, Any]:
        from deduce import __version__

        config = self.identity()
        config.update({
            "games": self.games,
            "round_size": self.schedule.round_size,
            "backend": str(backend),
            "workers": self.workers,
            "status": status,
            "deduce_version": __version__,
            "python": platform.python_version(),
            "updated": datetime.now(UTC).isoformat(timespec="seconds"),
        })
        if games_recorded is not None:
            config["games_recorded"] = games_recorded
        return config

    def _progress(self, items: Iterator[Any], total: int, initial: int) -> Iterator[Any]:
        show = self.progress if self.progress is not None else sys.stderr.isatty()
        if not show:
            return items
        try:
            from tqdm import tqdm
        except ImportError:
            return items
        return iter(tqdm(items, total=total, initial=initial, unit="game", desc=self.game, file=sys.stderr))


def _json_default(value: Any) -> Any:
    if isinstance(value, tuple | set | frozenset):
        return list(value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    return str(value)
