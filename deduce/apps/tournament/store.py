"""A results directory that survives being killed: tidy rows on disk, written as games finish.

Layout of ``DIR``::

    tournament.json          configuration, library version, progress
    games.parquet            every finished game, one row per (game, seat) (``games.csv`` with
                             ``fmt="csv"`` or without pyarrow), written when a run completes
    parts/part-*.parquet     rows of games finished since, each file written atomically
    summary.csv, summary.json  the leaderboard, and every figure of the report, when a run completes
    quarantine/              whatever could not be read (a truncated part, a foreign file, a
                             ``tournament.json`` that is not a JSON object), moved aside

A part file is written to a temporary name and renamed, so a kill (even ``kill -9``) leaves
only whole files; games not yet flushed are simply played again on the next run, and reading
drops duplicate (game, seat) rows, so resuming never loses or doubles a game. A file that cannot
be read all the same (damaged by hand, a full disk, another program) is moved into
``quarantine/`` with one line saying so, never deleted: its games count as not played, so the
next run plays them again and the directory resumes.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from deduce.apps.tournament.worker import COLUMNS
from deduce.errors import DeduceError, InvalidConfig

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["ResultStore", "rows_to_frame", "CONFIG_FILE", "IDENTITY_KEYS", "empty_frame", "require_pandas", "run_id"]

CONFIG_FILE = "tournament.json"
#: where unreadable files of a results directory are moved
QUARANTINE = "quarantine"
#: Settings that define which games are played; a results directory holds one such identity.
IDENTITY_KEYS = ("game", "config", "players", "agents", "seed", "arrangement", "duplicate", "move_time_limit")
_INT = ("game_id", "round", "deal", "seat", "players", "rank", "moves", "turns", "decisions", "seed", "deal_seed")
_FLOAT = ("score", "decision_seconds", "wall_seconds")
_BOOL = ("win", "forfeit")
_STR = ("run_id", "game", "agent", "agent_name", "failure", "failure_message", "failure_traceback")


def require_pandas() -> None:
    """Fail with the install line, not an ImportError traceback, when the extra is missing."""
    import importlib.util

    if importlib.util.find_spec("pandas") is None:
        raise DeduceError("tournaments need pandas: pip install 'deduce[tournament]'")


def run_id(config: dict[str, Any]) -> str:
    """The identifier of a tournament: a hash of its identity (:data:`IDENTITY_KEYS`), the same
    for every run that plays the same games, so rows of several tournaments stack apart."""
    ident = {k: config.get(k) for k in IDENTITY_KEYS}
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()[:8]


def _dtypes() -> dict[str, str]:
    out: dict[str, str] = {}
    for col in COLUMNS:
        out[col] = "int64" if col in _INT else "float64" if col in _FLOAT else "bool" if col in _BOOL else "object"
    return out


def rows_to_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows as a typed DataFrame in the canonical column order, sorted by (game, seat)."""
    import pandas as pd

    frame = pd.DataFrame(rows, columns=list(COLUMNS)) if rows else empty_frame()
    return _normalise(frame)


def empty_frame() -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in _dtypes().items()})


def _normalise(frame: pd.DataFrame) -> pd.DataFrame:
    """Canonical types and order, duplicates dropped: equal games give equal frames."""
    frame = frame[list(COLUMNS)].copy()
    for col in _STR:
        frame[col] = frame[col].fillna("").astype(str).astype(object)
    frame = frame.astype({c: t for c, t in _dtypes().items() if t != "object"})
    frame = frame.drop_duplicates(subset=["game_id", "seat"], keep="first")
    return frame.sort_values(["game_id", "seat"], kind="stable").reset_index(drop=True)


def _has_pyarrow() -> bool:
    try:
        import pyarrow  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        return False
    return True


class ResultStore:
    """Reads and appends to one results directory; see the module docstring for the layout."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        fmt: str | None = None,
        flush_seconds: float = 0.5,
        notify: Callable[[str], None] | None = None,
    ) -> None:
        self.path = Path(path)
        if self.path.exists() and not self.path.is_dir():
            raise InvalidConfig("results directory", str(self.path), "is a file, not a directory")
        #: where the one-line notes about quarantined files go (default: standard error)
        self.notify = notify or _note
        self.fmt = fmt or ("parquet" if _has_pyarrow() else "csv")
        if self.fmt not in ("parquet", "csv"):
            raise DeduceError(f"results format must be parquet or csv, not {self.fmt!r}")
        self.flush_seconds = flush_seconds
        self._buffer: list[dict[str, Any]] = []
        self._last_flush = time.monotonic()
        self._serial = 0

    # -- configuration -------------------------------------------------------------------
    @property
    def config_path(self) -> Path:
        return self.path / CONFIG_FILE

    def read_config(self) -> dict[str, Any] | None:
        """The configuration, or ``None`` when there is none or it could not be read (then it
        is quarantined, and the directory's rows say which tournament it holds)."""
        path = self.config_path
        try:
            config = json.loads(path.read_bytes())
        except FileNotFoundError:
            return None
        except (ValueError, OSError) as exc:  # not JSON, not UTF-8, a directory of that name...
            self.quarantine(path, f"not readable JSON ({type(exc).__name__})")
            return None
        if not isinstance(config, dict):
            self.quarantine(path, f"holds a JSON {type(config).__name__}, not an object")
            return None
        return config

    def quarantine(self, path: Path, reason: str) -> Path:
        """Move ``path`` into ``quarantine/`` (never delete it) and say so in one line."""
        folder = self.path / QUARANTINE
        folder.mkdir(parents=True, exist_ok=True)
        target = folder / path.name
        serial = 1
        while target.exists() or target.is_symlink():
            serial += 1
            target = folder / f"{path.name}.{serial}"
        os.replace(path, target)
        self.notify(f"{path}: {reason}; moved to {target} (its games will be played again)")
        return target

    def write_config(self, config: dict[str, Any]) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        _atomic_write(self.config_path, (json.dumps(config, indent=2, sort_keys=True) + "\n").encode())

    # -- locking -------------------------------------------------------------------------
    @contextlib.contextmanager
    def lock(self) -> Iterator[None]:
        """One writer per directory; the OS drops the lock if the writer dies (even kill -9)."""
        self.path.mkdir(parents=True, exist_ok=True)
        with open(self.path / ".lock", "w") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                raise DeduceError(f"{self.path} is being written by another run") from None
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    # -- reading -------------------------------------------------------------------------
    def _files(self) -> list[Path]:
        main = [p for p in (self.path / "games.parquet", self.path / "games.csv") if p.exists()]
        parts = sorted((self.path / "parts").glob("part-*.*")) if (self.path / "parts").is_dir() else []
        files = []
        for p in main + [p for p in parts if p.suffix in (".parquet", ".csv")]:
            if p.is_dir():  # a directory where a file of rows belongs
                self.quarantine(p, "is a directory, not a file of rows")
            else:
                files.append(p)
        return files

    def load(self) -> pd.DataFrame:
        """Every recorded row, typed, deduplicated and sorted by (game, seat). A file that cannot
        be read as rows of this table is quarantined (see the module docstring)."""
        import pandas as pd

        frames = []
        fill: dict[str, Any] | None = None
        for path in self._files():
            try:
                frame = _read(path)
                missing = [c for c in ("run_id", "game") if c not in frame.columns]
                if missing:  # written before rows carried them: they come from the configuration
                    if fill is None:
                        config = self.read_config() or {}
                        fill = {"run_id": run_id(config) if config else "", "game": config.get("game", "")}
                    frame = frame.assign(**{c: fill[c] for c in missing})
                foreign = [c for c in COLUMNS if c not in frame.columns]
                if foreign:
                    raise ValueError(f"lacks the columns {', '.join(foreign[:3])}{'...' if len(foreign) > 3 else ''}")
                frame = _normalise(frame)
            except DeduceError:
                raise
            except Exception as exc:  # truncated, empty, foreign: not rows of this table
                self.quarantine(path, f"not readable as results ({_reason(exc)})")
                continue
            if len(frame):
                frames.append(frame)
        if not frames:
            return empty_frame()
        return _normalise(pd.concat(frames, ignore_index=True))

    def done_ids(self) -> set[int]:
        """Ids of games already recorded (every seat present)."""
        frame = self.load()
        if frame.empty:
            return set()
        counts = frame.groupby("game_id")["seat"].count()
        players = frame.groupby("game_id")["players"].first()
        return {int(g) for g in counts.index if counts[g] == players[g]}

    # -- writing -------------------------------------------------------------------------
    def append(self, rows: list[dict[str, Any]]) -> None:
        """Buffer one game's rows; flush to a new part file at most every ``flush_seconds``."""
        self._buffer.extend(rows)
        if time.monotonic() - self._last_flush >= self.flush_seconds:
            self.flush()

    def flush(self) -> None:
        self._last_flush = time.monotonic()
        if not self._buffer:
            return
        frame = rows_to_frame(self._buffer)
        parts = self.path / "parts"
        parts.mkdir(parents=True, exist_ok=True)
        self._serial += 1
        name = f"part-{time.time_ns():020d}-{os.getpid()}-{self._serial:06d}.{self.fmt}"
        _write_frame(frame, parts / name, self.fmt)
        self._buffer.clear()

    def compact(self) -> pd.DataFrame:
        """Merge everything into one ``games.<fmt>`` file and drop the parts it now holds."""
        self.flush()
        frame = self.load()
        files = self._files()
        target = self.path / f"games.{self.fmt}"
        _write_frame(frame, target, self.fmt)
        for p in files:
            if p != target:
                p.unlink(missing_ok=True)
        with contextlib.suppress(OSError):
            (self.path / "parts").rmdir()  # only when empty
        return frame

    def write_summary(self, table: pd.DataFrame, payload: dict[str, Any]) -> list[Path]:
        """``summary.csv`` (the leaderboard, one row per agent) and ``summary.json`` (every
        figure of the report) beside the rows, each written atomically."""
        csv_path, json_path = self.path / "summary.csv", self.path / "summary.json"
        _atomic_write(csv_path, table.to_csv(index=False).encode())
        _atomic_write(json_path, (json.dumps(payload, indent=2, allow_nan=False) + "\n").encode())
        return [csv_path, json_path]


def _note(message: str) -> None:
    print(f"deduce: note: {message}", file=sys.stderr)


def _reason(exc: BaseException) -> str:
    """A short reason for a quarantined file: its error's type and first line, cut short."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    text = text if len(text) <= 100 else text[:97] + "..."
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with open(tmp, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def _write_frame(frame: pd.DataFrame, path: Path, fmt: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    if fmt == "parquet":
        frame.to_parquet(tmp, index=False)
    else:
        frame.to_csv(tmp, index=False)
    with open(tmp, "rb") as handle:
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def _read(path: Path) -> pd.DataFrame:
    import pandas as pd

    if path.suffix == ".parquet":
        if not _has_pyarrow():
            raise DeduceError(f"{path} is Parquet: install pyarrow to read it")
        return pd.read_parquet(path)
    return pd.read_csv(path, dtype={c: str for c in _STR}, keep_default_na=False)
