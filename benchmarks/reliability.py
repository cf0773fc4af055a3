"""The hostile-input campaign of issue 22, at a size you choose, with a table of what happened.

    python -m benchmarks.reliability [--cases 100] [--lines 200] [--kills 20] [--seed 1]
        [--games clue,mafia-code,...] [--hang 60] [--reproducers]

Three parts, every random choice from ``--seed``:

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

``--reproducers`` also times the issue's slow logs (repeated ``card_at`` facts, repeated Alibi
questions, the hard-state corpus's Mafia Code and Crime Hotel views rebuilt from their seeds,
``--why`` on them) through the real command, each in a fresh process: outcome, seconds, peak
memory and the load average beside each (absolute times depend on the machine's load).
"""

from __future__ import annotations

import argparse
import contextlib
import copy
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


class Hang(Exception):
    """Raised by the alarm when one case runs past ``--hang`` seconds."""


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

    def timed(self, secs: float, what: str) -> None:
        if secs > self.slowest:
            self.slowest, self.slowest_case = secs, what[:160]

    def note(self, what: str) -> None:
        if len(self.examples) < 3:
            self.examples.append(what[:200])


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


def _run_cli(argv: list[str], hang: float) -> tuple[str, float, str]:
    """``deduce ARGV`` in this process: ('refused'|'answered'|'crash'|'hang', seconds, stderr)."""
    from deduce.cli import main

    err, out = io.StringIO(), io.StringIO()
    t0 = time.perf_counter()
    try:
        with _deadline(hang), contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
            code = main(argv)
    except Hang:
        return "hang", time.perf_counter() - t0, ""
    except BaseException as exc:  # a traceback: what the campaign is looking for
        return "crash", time.perf_counter() - t0, f"{type(exc).__name__}: {exc}"
    secs = time.perf_counter() - t0
    text = err.getvalue().strip()
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
            tally.tried += 1
            tally.timed(secs, f"{kind_of(path)}: {text[:100]}")
            if outcome == "refused":
                tally.refused += 1
            elif outcome == "answered":
                tally.answered += 1
            elif outcome == "hang":
                tally.hangs += 1
                tally.note(f"hang: {path.read_text(errors='replace')[:120]}")
            else:
                tally.crashes += 1
                tally.note(text)
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
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--games", default=",".join(EXAMPLE))
    ap.add_argument("--hang", type=float, default=60.0, help="seconds after which one case counts as a hang")
    ap.add_argument("--reproducers", action="store_true", help="also time the issue's slow logs")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    games = [g for g in args.games.split(",") if g]
    print(f"reliability campaign: seed {args.seed}, load average {_load()} at the start", flush=True)
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
