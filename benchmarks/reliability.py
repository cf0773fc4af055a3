"""The hostile-input campaign of issue 22, at a size you choose, with a table of what happened.

    python -m benchmarks.reliability [--cases 100] [--lines 200] [--kills 20] [--resumes 50]
        [--zoo 1] [--zoo-move-limit S] [--orphans 5] [--seed 1] [--games clue,mafia-code,...]
        [--hang 60] [--reproducers]

Six parts, each off with a count of 0, every random choice from ``--seed``:

* **solve**: ``--cases`` bad logs per game, each a game's example log damaged once (a field
  replaced by arbitrary JSON or removed, an event repeated thousands of times, the text cut
  short, a huge integer, a lone surrogate, a deeply nested value, an unprintable name), run
  through ``deduce solve`` in this process with its default work budget. Counted: one-line
  exit-2 refusals, logs answered (exit 0: the damage left a valid log), crashes (any other
  exception or exit status) and hangs (past ``--hang`` seconds).
* **assist**: ``--lines`` typed lines per game (game words, player and card names, numbers,
  garbage, commas, over-long values) into a session resumed from the example log under the
  default budget. Counted: refused lines (``error: ...``), refused lines that changed or saved
  the log (must be 0), internal errors and hangs.
* **save**: ``--kills`` SIGKILLs of a process saving a log over and over with
  ``save_atomically``, at a random moment each; after each the file must read back as one of
  the versions written. Counted: kills, corrupt or missing files.
* **resume**: ``--resumes`` hostile saved logs per game (damaged as in *solve*, cut short,
  a value nested 100 to 1,000,000 deep, past the event
  or byte limit, foreign keys, wrong types, names that collide, Unicode and surrogate names, no
  final newline, invalid UTF-8, another game's log, empty, a directory or a FIFO, a log locked
  by another session) resumed with ``deduce assist GAME --log FILE`` in this process, typing
  ``events`` and a last line without its newline. Counted: resumed, one-line exit-2 refusals,
  crashes, hangs, and "bad": cases that changed a file (nothing typed may change the log).
* **zoo**: ``--zoo`` rounds of tournaments (``deduce tournament`` in a fresh process, the
  ``zoo`` agent registered by a ``sitecustomize``) where one agent raises in ``act``,
  ``reset`` or ``observe``, returns a numpy array, an action whose ``==`` raises or an illegal
  action, calls ``sys.exit(3)`` or ``os._exit(1)``, raises
  ``KeyboardInterrupt`` or hangs (cut by the command's default move limit unless
  ``--zoo-move-limit``), on the serial and processes backends. "answered": the run completed,
  every game recorded, the misbehaviour a forfeit of that seat naming its reason and no other
  forfeit; "refused": the same, but every game ended before the misbehaving call (nothing to
  record); "crashes": anything else (a traceback, another exit status, a wrong forfeit).
* **orphans**: ``--orphans`` processes-backend tournaments SIGKILLed (the parent alone) at a
  random moment of their first seconds; five seconds later every process the run had started
  (workers, the resource tracker) must be gone. "bad": processes left behind.

``--reproducers`` also times the issue's slow logs (repeated ``card_at`` facts, repeated Alibi
questions, the hard-state corpus's Mafia Code and Crime Hotel views rebuilt from their seeds,
``--why`` on them) through the real command, each in a fresh process: outcome, seconds, peak
memory and the load average beside each (absolute times depend on the machine's load).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import functools
import io
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
#: the example log each game's campaign damages
EXAMPLE = {
    "clue": "clue-3p.json",
    "mafia-code": "mafia-code-3p.json",
    "checkpoint-charlie": "checkpoint-charlie-4p.json",
    "crime-hotel": "crime-hotel-4p.json",
    "alibi": "alibi-4p.json",
    "alibi-adlung": "alibi-adlung-3p.json",
}


class Hang(BaseException):
    """Raised by the alarm when one case runs past ``--hang`` seconds (a ``BaseException``, so
    the library's ``except Exception`` around a typed line cannot mistake it for an answer)."""


@contextlib.contextmanager
def _deadline(seconds: float) -> Iterator[None]:
    def ring(signum: int, frame: Any) -> None:
        raise Hang

    old = signal.signal(signal.SIGALRM, ring)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


@dataclass
class Tally:
    """What one part of the campaign counted for one game."""

    tried: int = 0
    refused: int = 0
    answered: int = 0
    crashes: int = 0
    hangs: int = 0
    bad: int = 0  # refused lines that changed the log / corrupt saves
    slowest: float = 0.0
    #: what the slowest case was
    slowest_case: str = ""
    examples: list[str] = field(default_factory=list)
    #: kind of case -> outcome -> count (the resume part's kinds of saved log)
    kinds: dict[str, dict[str, int]] = field(default_factory=dict)

    def timed(self, secs: float, what: str) -> None:
        if secs > self.slowest:
            self.slowest, self.slowest_case = secs, what[:160]

    def note(self, what: str) -> None:
        if len(self.examples) < 3:
            self.examples.append(what[:200])

    def count(self, outcome: str, text: str, what: str, changed: bool = False) -> None:
        """Count one case: a one-line exit-2 refusal, an answer, a crash (any traceback or other
        exit), a hang; ``changed`` (files touched by a case that wrote nothing) is counted as bad."""
        self.tried += 1
        if outcome == "refused":
            self.refused += 1
        elif outcome == "answered":
            self.answered += 1
        elif outcome == "hang":
            self.hangs += 1
            self.note(f"hang: {what}")
        else:
            self.crashes += 1
            self.note(f"{what}: {text}")
        if changed:
            self.bad += 1
            self.note(f"{outcome} and changed the files: {what}")


# -- solve ------------------------------------------------------------------------------------
def _random_json(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.randrange(10 if depth < 2 else 7)
    if pick == 0:
        return None
    if pick == 1:
        return rng.random() < 0.5
    if pick == 2:
        return rng.randint(-5, 40)
    if pick == 3:
        return rng.choice([0.5, -1e300, 1e308, 3.0])
    if pick == 4:
        return "".join(rng.choice("abcxyz ,.!李é-0") for _ in range(rng.randrange(12)))
    if pick == 5:
        return rng.choice(["ann", "bob", "cy", "envelope", "box", "me", "", " ", "hand", "red A", "Rope"])
    if pick == 6:
        return rng.choice(["李", "!!!", "Вера", "é", "?"])
    if pick == 7:
        return [_random_json(rng, depth + 1) for _ in range(rng.randrange(4))]
    return {rng.choice(["type", "player", "cards", "by", "x", ""]): _random_json(rng, depth + 1) for _ in range(rng.randrange(4))}


def _paths(log: Any, prefix: tuple = ()) -> Iterator[tuple]:
    """Every place in a log a value can be replaced or removed."""
    if isinstance(log, dict):
        for k, v in log.items():
            yield (*prefix, k)
            yield from _paths(v, (*prefix, k))
    elif isinstance(log, list):
        for i, v in enumerate(log):
            yield (*prefix, i)
            yield from _paths(v, (*prefix, i))


def damaged_log(log: dict[str, Any], rng: random.Random) -> str:
    """``log`` damaged once, as the text of a file."""
    kind = rng.randrange(10)
    text = json.dumps(log, ensure_ascii=False)
    if kind == 0:  # cut short
        return text[: rng.randrange(1, len(text))]
    if kind == 1:  # a huge integer in a random place
        return text.replace("[", "[" + "9" * rng.randint(4301, 6000) + ",", 1)
    if kind == 2:  # a lone surrogate in a name
        return text.replace('"players": ["', '"players": ["\\ud800', 1)
    if kind == 3:  # deep nesting
        depth = rng.choice([1000, 100_000])
        return text[:-1] + ', "x": ' + "[" * depth + "]" * depth + "}"
    out = copy.deepcopy(log)
    if kind == 4 and out.get("events"):  # one event repeated thousands of times
        out["events"] = out["events"] + [rng.choice(out["events"])] * rng.choice([1000, 3000, 10_000])
        return json.dumps(out, ensure_ascii=False)
    if kind == 5:  # an unprintable or unicode player name
        if isinstance(out.get("players"), list) and out["players"]:
            out["players"][rng.randrange(len(out["players"]))] = rng.choice(["李", "!!!", "é", "", " ", "Вера"])
        return json.dumps(out, ensure_ascii=False)
    paths = list(_paths(out))
    path = rng.choice(paths)
    target = out
    for key in path[:-1]:
        target = target[key]
    if rng.random() < 0.3 and isinstance(target, dict):
        target.pop(path[-1], None)
    else:
        target[path[-1]] = _random_json(rng)
    return json.dumps(out, ensure_ascii=False)


def kind_of(path: Path) -> str:
    """A damaged log in a few words, for the table's notes."""
    text = path.read_text(errors="replace")
    return f"{len(text):,} bytes, {text.count('{') - 1:,} objects"


def _run_cli(argv: list[str], hang: float, stdin: str = "") -> tuple[str, float, str]:
    """``deduce ARGV`` in this process, reading ``stdin``: ('refused'|'answered'|'crash'|'hang',
    seconds, stderr); an ``internal error`` in its output is a crash too."""
    from deduce.cli import main

    err, out = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    saved_stdin, sys.stdin = sys.stdin, io.StringIO(stdin)
    try:
        with _deadline(hang), contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = main(argv)
    except Hang:
        return "hang", time.perf_counter() - t0, ""
    except BaseException as exc:  # a traceback: what the campaign is looking for
        return "crash", time.perf_counter() - t0, f"{type(exc).__name__}: {exc}"
    finally:
        sys.stdin = saved_stdin
    secs = time.perf_counter() - t0
    text = err.getvalue().strip()
    if "internal error" in out.getvalue():
        line = next(x for x in out.getvalue().splitlines() if "internal error" in x)
        return "crash", secs, line[:200]
    if code == 2 and text and "\n" not in text:
        return "refused", secs, text
    if code == 0:
        return "answered", secs, text
    return "crash", secs, f"exit {code}: {text[:200]}"


def solve_campaign(game: str, cases: int, rng: random.Random, hang: float) -> Tally:
    log = json.loads((EXAMPLES / EXAMPLE[game]).read_text())
    tally = Tally()
    _run_cli(["solve", str(EXAMPLES / EXAMPLE[game])], hang)  # warm up: imports and compiled kernels are not a case
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "bad.json"
        for _ in range(cases):
            path.write_text(damaged_log(log, rng), encoding="utf-8", errors="surrogatepass")
            outcome, secs, text = _run_cli(["solve", str(path)], hang)
            tally.timed(secs, f"{kind_of(path)}: {text[:100]}")
            tally.count(outcome, text, path.read_text(errors="replace")[:120])
    return tally


# -- assist -----------------------------------------------------------------------------------
def _words(session: Any) -> list[str]:
    game = session.game
    words = ["grid", "why", "undo", "redo", "events", "help", "me", "spectator", *session.adapter.words]
    words += list(game.config.names)
    words += [w for c in game.deck for w in c.name.split()]
    return words


def _random_line(rng: random.Random, words: list[str]) -> str:
    kind = rng.randrange(8)
    if kind == 0:
        return "," * rng.randrange(1, 5)
    if kind == 1:
        return "x" * rng.choice([200, 10_000])
    if kind == 2:
        return "".join(rng.choice("abc,;:!? 0123456789李") for _ in range(rng.randrange(1, 30)))
    parts = [rng.choice(words) if rng.random() < 0.8 else str(rng.randint(-2, 12)) for _ in range(rng.randrange(1, 7))]
    return " ".join(parts)


def assist_campaign(game: str, lines: int, rng: random.Random, hang: float) -> Tally:
    import solvers
    from deduce.apps.assist.adapters import table_adapter
    from deduce.apps.assist.session import GameAssistant
    from solvers.budget import DEFAULT_BUDGET

    log = json.loads((EXAMPLES / EXAMPLE[game]).read_text())
    adapter = table_adapter(game)
    backends = adapter.backends

    def fresh() -> tuple[Any, list[Any]]:
        saves: list[Any] = []
        solver = solvers.get("auto", **({"order": backends} if backends else {}))
        return GameAssistant(adapter, solver, log=copy.deepcopy(log), save=saves.append, budget=DEFAULT_BUDGET,
                             checker=solvers.get("cpsat")), saves

    tally = Tally()
    session, saves = fresh()
    words = _words(session)
    for n in range(lines):
        if n and n % 25 == 0:
            session, saves = fresh()
        line = _random_line(rng, words)
        before, saved = session.log(), len(saves)
        t0 = time.perf_counter()
        try:
            with _deadline(hang):
                answer = session.handle(line)
        except Hang:
            tally.hangs += 1
            tally.note(f"hang: {line[:80]}")
            session, saves = fresh()
            continue
        secs = time.perf_counter() - t0
        tally.tried += 1
        tally.timed(secs, f"{line[:60]!r}: {answer[:80]}")
        if answer.startswith("internal error"):
            tally.crashes += 1
            tally.note(f"{line[:60]!r}: {answer[:140]}")
        elif answer.startswith("error:"):
            tally.refused += 1
            if session.log() != before or len(saves) != saved:
                tally.bad += 1
                tally.note(f"refused but changed the log: {line[:80]!r}")
        else:
            tally.answered += 1
        if session.done:
            session, saves = fresh()
    return tally


# -- save -------------------------------------------------------------------------------------
_SAVER = """
import sys
from pathlib import Path
from deduce.cli.assist import save_atomically
path = Path(sys.argv[1])
for i in range(1_000_000):
    save_atomically(path, {"version": i, "events": [{"type": "card_at", "n": j} for j in range(i % 500)]})
"""


def save_campaign(kills: int, rng: random.Random) -> Tally:
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.json"
        for _ in range(kills):
            proc = subprocess.Popen([sys.executable, "-c", _SAVER, str(path)], cwd=ROOT)
            while not path.exists() and proc.poll() is None:  # let it start saving
                time.sleep(0.05)
            time.sleep(rng.uniform(0.0, 0.5))
            proc.kill()
            proc.wait()
            tally.tried += 1
            try:
                data = json.loads(path.read_text())
                ok = data["events"] == [{"type": "card_at", "n": j} for j in range(data["version"] % 500)]
            except (OSError, ValueError, KeyError, TypeError):
                ok = False
            if ok:
                tally.answered += 1
            else:
                tally.bad += 1
                tally.note("corrupt save after a kill")
    return tally


# -- resume -----------------------------------------------------------------------------------
#: what a saved log given to ``deduce assist GAME --log FILE`` may be
RESUME_KINDS = (
    "damaged", "truncated", "deeply nested", "past the event limit", "past the byte limit", "foreign keys", "wrong types", "colliding names",
    "unicode names", "no final newline", "invalid utf-8", "locked", "other game", "empty", "not a file",
)
#: names a player may be renamed to (all of them must work), and ways to spell another's name again
_UNICODE_NAMES = ("李", "김민준", "Вера", "é", "e\u0301", "Zoë", "!!!", "🂡", "\ud800", "ǅ", "  spaced  ")
_COLLIDE = (str.upper, str.title, lambda n: f" {n} ", lambda n: n + "\u0301", lambda n: n.translate({ord(c): ord(c) + 0xFEE0 for c in n if "!" <= c <= "~"}))


def _renamed(value: Any, old: str, new: str) -> Any:
    """``value`` with every string (and key) equal to ``old`` spelled ``new``."""
    if isinstance(value, str):
        return new if value == old else value
    if isinstance(value, list):
        return [_renamed(v, old, new) for v in value]
    if isinstance(value, dict):
        return {_renamed(k, old, new): _renamed(v, old, new) for k, v in value.items()}
    return value


def _dump(log: Any, rng: random.Random) -> bytes:
    """A log as its bytes, as the assistant saves it (indented, a final newline) or on one line."""
    text = json.dumps(log, indent=1, ensure_ascii=False) + "\n" if rng.random() < 0.5 else json.dumps(log)
    return text.encode("utf-8", "surrogatepass")


def saved_log(game: str, rng: random.Random) -> tuple[str, bytes | None]:
    """A hostile saved log of ``game``: (its kind, its bytes; ``None`` for a kind that is not a
    regular file's content: a directory, a FIFO, a log past the byte limit, made by the caller)."""
    log = json.loads((EXAMPLES / EXAMPLE[game]).read_text())
    kind = rng.choice(RESUME_KINDS)
    players = list(log["players"])
    if kind == "damaged":  # the solve part's damage: cut short, huge integers, surrogates, nesting...
        return kind, damaged_log(log, rng).encode("utf-8", "surrogatepass")
    if kind == "truncated":  # a save cut short (by a full disk, a copy stopped half-way)
        text = _dump(log, rng)
        return kind, text[: rng.randrange(len(text))]
    if kind == "deeply nested":
        depth = rng.choice([100, 1000, 100_000, 1_000_000])
        target = rng.choice([log, rng.choice(log["events"])])
        target[rng.choice(sorted(target))] = "NESTED"  # a valid document, nested in one value
        nested = "[" * depth + "]" * depth if rng.random() < 0.5 else '{"a":' * depth + "0" + "}" * depth
        return kind, _dump(log, rng).replace(b'"NESTED"', nested.encode(), 1)
    if kind == "past the event limit":
        from deduce.logs import MAX_EVENTS

        events = log["events"]
        log["events"] = events * (MAX_EVENTS // len(events) + rng.randint(1, 3))
        return kind, json.dumps(log).encode()
    if kind == "foreign keys":
        target = rng.choice([log, *log["events"]])
        for _ in range(rng.randint(1, 3)):
            target[rng.choice(["x", "version", "__proto__", "type2", "ann", "", "events "])] = _random_json(rng)
        return kind, _dump(log, rng)
    if kind == "wrong types":
        target = rng.choice([log, rng.choice(log["events"])])
        key = rng.choice(sorted(target))
        target[key] = rng.choice([123, -1, 1.5, "x", "", [], {}, None, True, [None], {"a": 1}, ["ann", 3]])
        return kind, _dump(log, rng)
    if kind == "colliding names":
        first, second = rng.sample(players, 2)
        return kind, _dump(_renamed(log, second, rng.choice(_COLLIDE)(first)), rng)
    if kind == "unicode names":
        for old, new in zip(players, rng.sample(_UNICODE_NAMES, len(players)), strict=True):
            log = _renamed(log, old, new)
        return kind, _dump(log, rng)
    if kind == "no final newline":
        return kind, json.dumps(log, indent=1, ensure_ascii=False).encode()
    if kind == "invalid utf-8":
        text = _dump(log, rng)
        at = rng.randrange(len(text))
        return kind, text[:at] + rng.choice([b"\xff", b"\xed\xa0\x80", b"\xc3", b"\x00"]) + text[at:]
    if kind == "locked":
        return kind, _dump(log, rng)
    if kind == "other game":
        other = rng.choice([g for g in EXAMPLE if g != game])
        return kind, (EXAMPLES / EXAMPLE[other]).read_bytes()
    if kind == "empty":
        return kind, rng.choice([b"", b" \n", b"null", b"[]", b"{}", b'"clue"', b"\xef\xbb\xbf{}"])
    return kind, None  # past the byte limit, not a file


@contextlib.contextmanager
def _held_lock(path: Path) -> Iterator[None]:
    """Hold ``path``'s session lock as another ``deduce assist`` would (its own open file
    description: ``flock`` refuses a second one even in this process)."""
    import fcntl

    from deduce.cli.assist import _lock_path

    fd = os.open(_lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.pwrite(fd, b"4242\n", 0)
        yield
    finally:
        os.close(fd)


def _snapshot(folder: Path) -> dict[str, bytes | str]:
    """Every file in ``folder`` and its bytes (a lock file's holder aside): what a refused resume
    must leave as it was."""
    out: dict[str, bytes | str] = {}
    for entry in sorted(folder.iterdir()):
        if entry.name.endswith(".lock"):
            continue
        info = entry.stat()
        out[entry.name] = entry.read_bytes() if entry.is_file() and info.st_size < 2**22 else f"<{info.st_mode} {info.st_size} {info.st_mtime_ns}>"
    return out


def resume_campaign(game: str, cases: int, rng: random.Random, hang: float, kinds: tuple[str, ...] = RESUME_KINDS) -> Tally:
    """``cases`` hostile saved logs of ``game`` resumed with ``deduce assist GAME --log FILE``
    (in this process, lines typed from a string: ``events`` and a last line without its newline,
    so no line changes the log). Counted: resumed, one-line exit-2 refusals, crashes, hangs, and
    cases that changed a file (must be 0: nothing typed changes the log, a refusal leaves it)."""
    from deduce.logs import MAX_LOG_BYTES

    tally = Tally()
    done = 0
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        warm = folder / "warm.json"  # imports and compiled kernels are not a case
        warm.write_bytes((EXAMPLES / EXAMPLE[game]).read_bytes())
        _run_cli(["assist", game, "--log", str(warm)], hang, stdin="")
        while done < cases:
            kind, data = saved_log(game, rng)
            if kind not in kinds:
                continue
            done += 1
            for entry in folder.iterdir():
                entry.rmdir() if entry.is_dir() and not entry.is_symlink() else entry.unlink()
            path = folder / "game.json"
            if kind == "not a file":
                if rng.random() < 0.5:
                    path.mkdir()
                else:
                    os.mkfifo(path)
            elif kind == "past the byte limit":
                path.write_bytes(_dump(json.loads((EXAMPLES / EXAMPLE[game]).read_text()), rng))
                with path.open("r+b") as f:  # sparse: past the limit without writing 64 MB
                    f.truncate(MAX_LOG_BYTES + rng.randint(1, 4096))
            else:
                assert data is not None
                path.write_bytes(data)
            before = _snapshot(folder)
            typed = "events\n" + rng.choice(["undo", "quit", "", "redo", ",,,"])  # the last line: no Enter
            with _held_lock(path) if kind == "locked" else contextlib.nullcontext():
                outcome, secs, text = _run_cli(["assist", game, "--log", str(path)], hang, stdin=typed)
            changed = _snapshot(folder) != before
            if kind == "locked" and outcome != "refused":
                outcome, text = "crash", f"a locked log was not refused: {text[:100]}"
            tally.count(outcome, text, f"{kind} ({len(data or b''):,} bytes)", changed)
            seen = tally.kinds.setdefault(kind, {})
            seen[outcome] = seen.get(outcome, 0) + 1
            tally.timed(secs, f"{kind}: {text[:100]}")
    return tally


# -- the agent zoo ----------------------------------------------------------------------------
class Uncomparable:
    """An action whose ``==`` raises."""

    def __eq__(self, other: object) -> bool:
        raise TypeError("zoo action cannot be compared")

    __hash__ = object.__hash__


def _misbehave(mode: str) -> Any:
    """What the zoo agent does instead of a legal action in ``mode``."""
    import numpy as np

    if mode == "raise":
        raise RuntimeError("zoo act crash")
    if mode == "numpy":
        return np.array([1, 2])
    if mode == "bad-eq":
        return Uncomparable()
    if mode == "illegal":
        return ("not", "an", "action")
    if mode == "exit":
        sys.exit(3)
    if mode == "os-exit":
        os._exit(1)
    if mode == "keyboard":
        raise KeyboardInterrupt
    if mode == "hang":
        time.sleep(3600)
    if mode == "sigkill":  # planted: nothing can catch it in its own process
        os.kill(os.getpid(), signal.SIGKILL)
    raise AssertionError(f"zoo mode {mode!r}")


@functools.cache
def _zoo_agent_class() -> type:
    from agents.base import Agent

    class ZooAgent(Agent):
        """Random legal play, except in seat ``seat`` of each game: there it misbehaves as
        ``mode`` says at its ``at``-th call of ``act`` (of ``observe`` for mode ``observe``;
        in ``reset`` for mode ``reset``)."""

        name = "zoo"

        def __init__(self, mode: str = "raise", seat: int = 1, at: int = 1) -> None:
            super().__init__(mode=mode, seat=seat, at=at)
            self.mode, self.seat, self.at = mode, seat, at
            self.acts = self.observed = 0

        def reset(self, game: Any, player: int, seed: Any = None) -> None:
            super().reset(game, player, seed)
            self.acts = self.observed = 0
            if self.mode == "reset" and player == self.seat:
                raise RuntimeError("zoo reset crash")

        def observe(self, observation: Any) -> None:
            self.observed += 1
            if self.mode == "observe" and self.player == self.seat and self.observed == self.at:
                raise ValueError("zoo observe crash")

        def act(self, observation: Any) -> Any:
            self.acts += 1
            if self.player == self.seat and self.acts == self.at and self.mode not in ("reset", "observe"):
                return _misbehave(self.mode)
            legal = observation.legal_actions
            return legal[int(self.rng.integers(len(legal)))]

    return ZooAgent


def __getattr__(name: str) -> Any:
    """``ZooAgent`` is built on first use, so that importing this module loads no agent code."""
    if name == "ZooAgent":
        return _zoo_agent_class()
    raise AttributeError(name)


#: mode -> (failure kind, texts one of which the recorded forfeit's message must hold; an
#: ``illegal`` forfeit's message is the game's own words, which may say what was wanted and not
#: what was given: any message of that kind will do); os-exit's on the processes backend, where
#: it ends the worker process and the parent charges the game to the seat (on serial it is caught
#: in the call: :data:`ZOO_ON_SERIAL`)
ZOO: dict[str, tuple[str, tuple[str, ...]]] = {
    "raise": ("exception", ("RuntimeError: zoo act crash",)),
    "reset": ("exception", ("in reset: RuntimeError: zoo reset crash",)),
    "observe": ("exception", ("in observe: ValueError: zoo observe crash",)),
    "numpy": ("illegal", ("",)),
    "bad-eq": ("illegal", ("",)),
    "illegal": ("illegal", ("",)),
    "exit": ("exception", ("sys.exit(3)",)),
    "os-exit": ("crash", ("os._exit or a crash",)),
    "keyboard": ("exception", ("KeyboardInterrupt raised by the agent",)),
    "hang": ("timeout", ("interrupted",)),
}
#: where the serial backend records a mode otherwise than :data:`ZOO` says
ZOO_ON_SERIAL: dict[str, tuple[str, tuple[str, ...]]] = {
    "os-exit": ("exception", ("the agent called os._exit(1)",)),
}
ZOO_GAMES = ("checkpoint-charlie", "clue", "mafia-code", "crime-hotel", "alibi", "alibi-adlung")
BACKENDS = ("serial", "processes")

_SITE = """import agents
agents.register("zoo", "benchmarks.reliability:ZooAgent")
"""


def _zoo_env(folder: Path) -> dict[str, str]:
    """The environment of a ``deduce`` process (and its workers) that knows the ``zoo`` agent:
    a ``sitecustomize`` registering it, on PYTHONPATH, which spawned workers inherit."""
    (folder / "sitecustomize.py").write_text(_SITE)
    path = os.pathsep.join(p for p in (str(folder), str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    return {**os.environ, "PYTHONPATH": path}


def _wait(proc: subprocess.Popen, timeout: float) -> int | None:
    """``proc``'s exit status, or ``None`` (it and its process group killed) past ``timeout``."""
    try:
        return proc.wait(timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        return None


@dataclass(frozen=True)
class ZooCase:
    """One tournament with one misbehaving agent."""

    game: str
    backend: str
    mode: str
    at: int = 1
    seat: int = 1
    games: int = 3
    seed: int = 1


def judge_zoo(case: ZooCase, code: int | None, err: str, out: Path,
              expected: tuple[str, tuple[str, ...]] | None = None) -> tuple[str, str]:
    """('forfeit' | 'unreached' | 'hang' | 'failure', why): the run completed with every game
    recorded, the zoo's misbehaviour a forfeit of its seat with the expected reason, and no other
    forfeit ('unreached': so, but every game ended before the zoo's misbehaving call)."""
    if code is None:
        return "hang", "no exit"
    if "Traceback" in err:
        return "failure", "traceback: " + err.strip().splitlines()[-1][:160]
    if code != 0:
        return "failure", f"exit {code}: {err.strip()[-160:]}"
    kind, texts = expected or (ZOO_ON_SERIAL if case.backend == "serial" else {}).get(case.mode) or ZOO[case.mode]
    try:
        from deduce.apps.tournament import TournamentResults

        config = json.loads((out / "tournament.json").read_text())
        games = TournamentResults.load(out).games
    except Exception as exc:  # noqa: BLE001 - a result that cannot be read is the case's failure
        return "failure", f"results unreadable: {type(exc).__name__}: {exc}"
    if config.get("status") != "complete" or sorted(set(games["game_id"])) != list(range(case.games)):
        return "failure", f"status {config.get('status')}, games {sorted(set(games['game_id']))}"
    zoo = (games["agent"] == "zoo") & (games["seat"] == case.seat)
    forfeits = games[games["forfeit"]]
    if not (forfeits.index.isin(games[zoo].index)).all():
        return "failure", f"a forfeit of another seat: {forfeits[['agent', 'seat', 'failure']].to_dict('records')}"
    for row in games[zoo].itertuples():
        if row.forfeit:
            if row.failure != kind or not row.failure_message or not any(t in row.failure_message for t in texts):
                return "failure", f"forfeit {row.failure}: {row.failure_message[:120]!r}, expected {kind}: {texts[0]!r}"
        elif case.mode in ("reset", "observe") or row.decisions >= case.at:
            return "failure", f"game {row.game_id}: the zoo misbehaved and did not forfeit"
    if forfeits.empty:
        return "unreached", f"no game reached the zoo's call {case.at} in seat {case.seat}"
    return "forfeit", f"{len(forfeits)} forfeits"


def run_zoo_case(case: ZooCase, folder: Path, env: dict[str, str], move_limit: float | None, timeout: float,
                 expected: tuple[str, tuple[str, ...]] | None = None) -> tuple[str, float, str]:
    """``deduce tournament`` with the zoo agent in a fresh process: (outcome, seconds, why)."""
    out = folder / f"{case.game}-{case.backend}-{case.mode}-{case.at}-{case.seed}"
    agent = f"zoo:mode={case.mode},seat={case.seat},at={case.at}"
    argv = [sys.executable, "-m", "deduce", "tournament", case.game, "--agents", "random", "r2=random", agent,
            "--games", str(case.games), "--seed", str(case.seed), "--backend", case.backend, "--workers", "2",
            "--out", str(out), "--json"]
    if move_limit is not None:
        argv += ["--move-time-limit", str(move_limit)]
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err, cwd=ROOT, env=env, start_new_session=True)
        code = _wait(proc, timeout)
        err.seek(0)
        text = err.read()
    outcome, why = judge_zoo(case, code, text, out, expected)
    return outcome, time.perf_counter() - t0, why


def zoo_cases(rounds: int, rng: random.Random, games: tuple[str, ...] = ZOO_GAMES,
              modes: tuple[str, ...] = tuple(ZOO), backends: tuple[str, ...] = BACKENDS) -> list[ZooCase]:
    """Every mode on every backend, ``rounds`` times, each on a game, seat, call and seed drawn
    from ``rng``."""
    out = []
    for _ in range(rounds):
        for backend in backends:
            for mode in modes:
                at = 1 if mode in ("reset", "observe", "hang") else rng.randint(1, 3)
                out.append(ZooCase(rng.choice(games), backend, mode, at, rng.randint(0, 2) if at > 1 else rng.randint(1, 2),
                                   rng.choice([3, 4, 6]), rng.randrange(1000)))
    return out


def zoo_campaign(cases: list[ZooCase], move_limit: float | None, timeout: float, jobs: int = 2) -> dict[str, Tally]:
    """Run ``cases`` (``jobs`` at a time: a hung agent's case mostly waits) and count per backend:
    'answered' = completed with the forfeit recorded, 'refused' = completed but no game reached
    the misbehaving call (nothing to record), 'crashes' = anything else, 'hangs'."""
    from concurrent.futures import ThreadPoolExecutor

    tallies = {b: Tally() for b in BACKENDS}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        env = _zoo_env(folder)
        with ThreadPoolExecutor(jobs) as pool:
            results = pool.map(lambda c: run_zoo_case(c, folder, env, move_limit, timeout), cases)
            for case, (outcome, secs, why) in zip(cases, results, strict=True):
                tally = tallies.setdefault(case.backend, Tally())
                what = f"{case.game} {case.mode} at={case.at} seat={case.seat} seed={case.seed}"
                tally.count({"forfeit": "answered", "unreached": "refused"}.get(outcome, outcome), why, what)
                tally.timed(secs, what)
    return {b: t for b, t in tallies.items() if t.tried}


# -- orphans ----------------------------------------------------------------------------------
def _descendants(pid: int) -> list[Any]:
    import psutil

    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def left_behind(processes: list[Any], wait: float) -> list[Any]:
    """The processes of ``processes`` still running (zombies aside) after ``wait`` seconds."""
    import psutil

    deadline = time.monotonic() + wait
    while True:
        alive = []
        for p in processes:
            with contextlib.suppress(psutil.NoSuchProcess):
                if p.is_running() and p.status() != psutil.STATUS_ZOMBIE:
                    alive.append(p)
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.1)


def orphan_campaign(kills: int, rng: random.Random, wait: float = 5.0, timeout: float = 180.0) -> Tally:
    """``kills`` processes-backend tournaments (``deduce tournament``), each SIGKILLed (the parent
    only) at a random moment once its pool is up; ``wait`` seconds later, every process it had
    started must be gone. Counted: 'answered' = kills with nothing left, 'bad' = processes left
    (each then killed here)."""
    tally = Tally()
    with tempfile.TemporaryDirectory() as tmp:
        for n in range(kills):
            out = Path(tmp) / f"run{n}"
            argv = [sys.executable, "-m", "deduce", "tournament", "clue", "--agents", "deductive", "notebook", "random",
                    "--games", "3000", "--seed", str(n), "--backend", "processes", "--workers", "2", "--out", str(out)]
            t0 = time.perf_counter()
            proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=ROOT)
            started: dict[int, Any] = {}
            while time.perf_counter() - t0 < timeout and proc.poll() is None:
                started.update({p.pid: p for p in _descendants(proc.pid)})
                if len(started) >= 3:  # two workers and the resource tracker
                    break
                time.sleep(0.1)
            end = time.perf_counter() + rng.uniform(0.0, 4.0)  # mid-run: any moment of the first seconds
            while time.perf_counter() < end and proc.poll() is None:
                started.update({p.pid: p for p in _descendants(proc.pid)})
                time.sleep(0.05)
            started.update({p.pid: p for p in _descendants(proc.pid)})
            tally.tried += 1
            if proc.poll() is not None:
                tally.crashes += 1
                tally.note(f"the tournament ended by itself (exit {proc.returncode}) before the kill")
                continue
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait()
            alive = left_behind(list(started.values()), wait)
            tally.timed(time.perf_counter() - t0, f"{len(started)} processes started")
            if alive:
                tally.bad += len(alive)
                tally.note(f"left behind: {[' '.join(p.cmdline())[:80] for p in alive]}")
                for p in alive:
                    with contextlib.suppress(Exception):
                        p.kill()
            else:
                tally.answered += 1
    return tally


# -- the slow logs --------------------------------------------------------------------
def reproducer_logs(folder: Path) -> list[tuple[str, Path, list[str]]]:
    """The issue's slow logs as files in ``folder``: (label, path, extra solve options)."""
    import deduce
    from benchmarks.hard_states.find import EXCLUDE, _Random
    from deduce.logs import export_log
    from deduce.play import play_game

    out: list[tuple[str, Path, list[str]]] = []
    clue = json.loads((EXAMPLES / "clue-3p.json").read_text())
    for n in (1000, 3000, 10_000):
        log = {**clue, "events": clue["events"] + [{"type": "card_at", "card": "Rope", "at": "ann"}] * n}
        path = folder / f"clue-card-at-x{n}.json"
        path.write_text(json.dumps(log))
        out.append((f"clue, {n:,} repeated card_at", path, []))
    alibi = json.loads((EXAMPLES / "alibi-4p.json").read_text())
    for n in (1000, 10_000):
        path = folder / f"alibi-ask-x{n}.json"
        path.write_text(json.dumps({**alibi, "events": alibi["events"] + [alibi["events"][-1]] * n}))
        out.append((f"alibi, {n:,} repeated questions", path, []))
    corpus = ROOT / "benchmarks" / "hard_states"
    why = {"mafia-code": "red A", "crime-hotel": "101"}
    for game in ("mafia-code", "crime-hotel"):
        for state in sorted((corpus / game).glob("*.json")):
            data = json.loads(state.read_text())
            meta = data["meta"]
            g = deduce.make(game, **meta["config"])
            states: list[Any] = []
            play_game(g, [_Random(meta["seed"], exclude=EXCLUDE.get(game, ()))] * g.num_players, meta["seed"],
                      before_act=lambda s, seat, obs, states=states: states.append(s.clone()), errors="raise",
                      max_moves=5000)
            log = export_log(g, states[meta["decision"]].observation(meta["view"]))
            path = folder / f"{game}-{data['name']}.json"
            path.write_text(json.dumps(log))
            label = f"{game} {data['name']} ({len(log['events'])} events)"
            out.append((label, path, []))
            out.append((f"{label} --why {why[game]!r}", path, ["--why", why[game]]))
    return out


def time_command(argv: list[str], timeout: float) -> tuple[str, float, int, str]:
    """``deduce ARGV`` in a fresh process: (outcome, seconds, its peak MB, first line of output)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-m", "deduce", *argv], stdout=out, stderr=err, cwd=ROOT)
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - t0 > timeout:
                proc.kill()
                os.wait4(proc.pid, 0)
                return "hang", time.perf_counter() - t0, 0, ""
            time.sleep(0.05)
        secs = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text = (err.read().strip() or out.read().strip()).splitlines()
    first = text[0] if text else ""
    outcome = {0: "answered", 2: "refused" if "too large" in first else "error"}.get(proc.returncode, f"exit {proc.returncode}")
    return outcome, secs, usage.ru_maxrss // 1024, first


def _load() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3]) if Path("/proc/loadavg").exists() else "?"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cases", type=int, default=100, help="bad logs per game through deduce solve")
    ap.add_argument("--lines", type=int, default=200, help="typed lines per game into the assistant")
    ap.add_argument("--kills", type=int, default=20, help="SIGKILLs during saving")
    ap.add_argument("--resumes", type=int, default=50, help="hostile saved logs per game resumed by deduce assist --log")
    ap.add_argument("--zoo", type=int, default=1, help="rounds of the agent zoo (every mode on both backends)")
    ap.add_argument("--zoo-games", default=",".join(ZOO_GAMES), help="the games the zoo's tournaments are drawn from")
    ap.add_argument("--zoo-move-limit", type=float, help="--move-time-limit of the zoo's tournaments (default: "
                    "the command's own default, so a hung agent is cut by the default limit)")
    ap.add_argument("--zoo-jobs", type=int, default=2, help="zoo tournaments at a time (a hung one mostly waits)")
    ap.add_argument("--orphans", type=int, default=5, help="SIGKILLs of a processes-backend tournament's parent")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", default=",".join(EXAMPLE))
    ap.add_argument("--hang", type=float, default=60.0, help="seconds after which one case counts as a hang")
    ap.add_argument("--reproducers", action="store_true", help="also time the issue's slow logs")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    games = [g for g in args.games.split(",") if g]
    print(f"reliability campaign: seed {args.seed}, load average {_load()} at the start", flush=True)
    print(f"command: python -m benchmarks.reliability {' '.join(sys.argv[1:] if argv is None else argv)}", flush=True)
    print(f"{'part':<8} {'game':<20} {'tried':>6} {'refused':>8} {'answered':>9} {'crashes':>8} {'hangs':>6} "
          f"{'bad':>4} {'slowest':>8}", flush=True)
    totals = Tally()

    def row(part: str, game: str, t: Tally) -> None:
        print(f"{part:<8} {game:<20} {t.tried:>6} {t.refused:>8} {t.answered:>9} {t.crashes:>8} {t.hangs:>6} "
              f"{t.bad:>4} {t.slowest:>7.1f}s", flush=True)
        for e in t.examples:
            print(f"    {e}", flush=True)
        if t.slowest_case:
            print(f"    slowest: {t.slowest_case}", flush=True)
        for name in ("tried", "refused", "answered", "crashes", "hangs", "bad"):
            setattr(totals, name, getattr(totals, name) + getattr(t, name))

    t0 = time.perf_counter()
    for game in games:
        if args.cases:
            row("solve", game, solve_campaign(game, args.cases, random.Random(rng.random()), args.hang))
    for game in games:
        if args.lines:
            row("assist", game, assist_campaign(game, args.lines, random.Random(rng.random()), args.hang))
    if args.kills:
        row("save", "-", save_campaign(args.kills, random.Random(rng.random())))
    kinds: dict[str, dict[str, int]] = {}
    for game in games:
        if args.resumes:
            tally = resume_campaign(game, args.resumes, random.Random(rng.random()), args.hang)
            row("resume", game, tally)
            for kind, seen in tally.kinds.items():
                for outcome, n in seen.items():
                    kinds.setdefault(kind, {})[outcome] = kinds.get(kind, {}).get(outcome, 0) + n
    for kind in RESUME_KINDS:
        if kind in kinds:
            print(f"    resume, {kind}: " + ", ".join(f"{n} {o}" for o, n in sorted(kinds[kind].items())), flush=True)
    if args.zoo:
        zoo_games = tuple(g for g in args.zoo_games.split(",") if g)
        cases = zoo_cases(args.zoo, random.Random(rng.random()), zoo_games)
        # a case is a hang past the longest a run may take: the move limit cut twice, plus its games
        from deduce.apps.tournament.runner import DEFAULT_MOVE_TIME_LIMIT

        limit = DEFAULT_MOVE_TIME_LIMIT if args.zoo_move_limit is None else args.zoo_move_limit
        for backend, tally in zoo_campaign(cases, args.zoo_move_limit, 3 * limit + args.hang, args.zoo_jobs).items():
            row("zoo", backend, tally)
    if args.orphans:
        row("orphans", "processes", orphan_campaign(args.orphans, random.Random(rng.random())))
    print(f"{'total':<29} {totals.tried:>6} {totals.refused:>8} {totals.answered:>9} {totals.crashes:>8} "
          f"{totals.hangs:>6} {totals.bad:>4}  in {time.perf_counter() - t0:.0f} s, load average {_load()} at the end",
          flush=True)
    if args.reproducers:
        print("\nthe issue's slow logs through the command (a fresh process each):", flush=True)
        with tempfile.TemporaryDirectory() as tmp:
            for label, path, extra in reproducer_logs(Path(tmp)):
                outcome, secs, mb, first = time_command(["solve", str(path), *extra], timeout=max(args.hang, 300))
                print(f"  {label:<58} {outcome:<9} {secs:6.1f} s {mb:>6} MB  load {_load()}  | {first[:70]}", flush=True)


if __name__ == "__main__":
    main()
