"""``deduce assist GAME``: the detective's notebook at a real table, for every game with an adapter
in ``deduce.apps.assist.<game>`` (Clue's in :mod:`deduce.apps.assist.clue`), driven by the shared
:class:`~deduce.apps.assist.session.GameAssistant`.

Reads typed lines from a text stream (the terminal, with readline completion of commands,
player and card names; or any stream, so tests and scripts can feed lines) and writes the
session's answers to another. The game is saved after every change as a game log,
atomically (a temporary file renamed over the old one), and ``--log FILE`` resumes it. One
session at a time writes a log: it holds a lock on ``.FILE.lock`` beside it (the lock file is
left in place; the lock ends with the process). A line the input ends in the middle of (no
newline: the Enter was never pressed) is not read.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any, TextIO

from deduce.apps.assist.adapters import infogain_recommender, table_adapter
from deduce.apps.assist.session import GameAdapter, GameAssistant, budget_checker
from deduce.apps.assist.text import match_name, short
from deduce.cards import normalise_name
from deduce.errors import DeduceError, InvalidConfig, LogError

__all__ = ["register", "run", "interact", "save_atomically", "infogain_recommender", "read_line", "on_terminal"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("assist", help="an interactive notebook for a game at a real table (clue, mafia-code, checkpoint-charlie, crime-hotel, alibi, alibi-adlung)")
    p.add_argument("game", help="the game being played (clue, mafia-code, checkpoint-charlie, crime-hotel, alibi, alibi-adlung)")
    p.add_argument("--log", help="game log to write continuously; resumed if it exists")
    p.add_argument("--players", help="players in seat order, comma-separated (skips the question)")
    p.add_argument("--me", help="which player you are (skips the question)")
    p.add_argument("--spectator", action="store_true", help="you hold no cards: watch only")
    p.add_argument("--hand", help="your cards, comma-separated (skips the question)")
    p.add_argument("--hand-sizes", help="Clue's hand sizes in seat order, comma-separated (with --players, default: the even deal)")
    p.add_argument("--solver", default="auto", help="solver backend (default auto)")
    p.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                   help="a game setting of a new game, typed by the game's config field (repeatable; "
                   "e.g. --config refute_all=yes); on resume it must agree with the log")
    p.add_argument("--top", type=int, default=5, help="envelope candidates to list (default 5)")
    from deduce.cli.solve import add_budget_option

    add_budget_option(p, "each update or query (a typed line, the resume)")
    p.add_argument("--web", action="store_true", help="the notebook in a browser instead of the terminal (needs the 'web' extra)")
    from deduce.cli.serve import add_server_options

    add_server_options(p)
    p.set_defaults(func=run)


def save_atomically(path: Path, data: dict[str, Any]) -> None:
    """Write ``data`` as JSON to ``path`` so that a crash leaves the old file or the new one,
    never a partial file: write a temporary file beside it, flush it to disk, rename it over."""
    path = Path(path)
    text = json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    fd, tmp = tempfile.mkstemp(dir=path.parent or ".", prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def _seat_answers(args: argparse.Namespace, adapter: GameAdapter) -> dict[str, Any]:
    """The players and the user's seat from ``--players``, ``--me`` and ``--spectator``."""
    answers: dict[str, Any] = {}
    if args.players:
        players = [p.strip() for p in args.players.split(",") if p.strip()]
        low, high = adapter.seats
        try:
            if not low <= len(players) <= high:
                raise DeduceError(f"{adapter.game} takes {low} to {high} players; got {len(players)}")
            adapter.check_players(players)
        except DeduceError as exc:
            raise DeduceError(f"--players {args.players!r}: {exc}") from None
        answers["players"] = players
    if args.spectator:
        answers["me"] = None
    elif args.me:
        if "players" not in answers:
            raise DeduceError("--me needs --players (or answer the setup questions instead)")
        answers["me"] = match_name(args.me, answers["players"], "player")
    return answers


def _default_log_path(game: str = "clue") -> Path:
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    return Path(f"{game}-{stamp}.json")


class LogInUse(DeduceError, OSError):
    """Another session holds the lock of the log this one would write."""


def _lock_path(path: Path) -> Path:
    return path.with_name(f".{path.name}.lock")


@contextlib.contextmanager
def log_lock(path: Path) -> Iterator[None]:
    """Hold the lock of the log ``path`` while the block runs: a second session on the same log
    is refused by name (two writers would each save over the other's events). ``flock`` on a
    lock file beside the log, which holds the holder's process id; the lock ends with the
    process, so a killed session never leaves the log locked. Without ``fcntl`` (Windows) there
    is no lock."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - no advisory locks on this platform
        yield
        return
    lock = _lock_path(path)
    try:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise LogInUse(f"{path}: cannot create its lock file {lock}: {exc.strerror or exc}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
            raise LogInUse(
                f"{path}: another session (process {holder}) is writing this log; finish that one first, "
                "or choose another --log"
            ) from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def config_answers(args: argparse.Namespace, game: str) -> dict[str, Any]:
    """``--config`` as the header keys of a log of ``game`` (see :func:`deduce.cli.solve.config_header`)."""
    from deduce.cli.solve import config_header

    return config_header(game, list(getattr(args, "config", None) or []))


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    from deduce.cli.solve import budget_of

    budget = budget_of(args)
    adapter = table_adapter(args.game, top=args.top)
    game = adapter.game
    config = config_answers(args, game)
    backends = adapter.backends if args.solver == "auto" else None
    import solvers  # lazy: 'deduce --help' starts without loading the backends

    solver = solvers.get(args.solver, **({"order": backends} if backends else {}))
    checker = budget_checker(args.solver, budget)
    path = Path(args.log) if args.log else _default_log_path(game)
    with log_lock(path):
        return _run_locked(args, adapter, solver, path, config, stdin, stdout, budget, checker)


def _run_locked(
    args: argparse.Namespace, adapter: GameAdapter, solver: Any, path: Path, config: dict[str, Any],
    stdin: TextIO | None, stdout: TextIO | None, budget: int = 0, checker: Any = None,
) -> int:
    from deduce.logs import decode_log  # the bounded reader 'deduce solve' uses

    game = adapter.game
    out = stdout or sys.stdout
    source = stdin or sys.stdin

    def save(data: dict[str, Any]) -> None:
        save_atomically(path, data)

    if path.exists():
        try:
            data = dict(decode_log(path))
        except LogError as exc:
            raise LogError(f"{exc}; cannot resume this log, it was left untouched") from None
        if data.get("game", game) != game:
            raise LogError(f"{path}: this is a {short(str(data.get('game')))!r} log, not {game!r}; it was left untouched")
        try:
            assistant = GameAssistant(adapter, solver, log=data, save=save, budget=budget, checker=checker)
        except LogError as exc:
            raise LogError(f"{path}: {exc} (the file was left untouched)") from None
        _check_resumed_config(assistant, path, config)
        print(f"resuming {path}", file=out)
    else:
        assistant = GameAssistant(adapter, solver, save=save, setup=_setup_answers(args, adapter), config=config,
                                  budget=budget, checker=checker)
        print(f"saving the game to {path}", file=out)
    if getattr(args, "web", False):
        from deduce.apps.web.server import serve_table  # lazy: the 'web' extra is optional

        return serve_table(assistant, path, host=args.host, port=args.port, browser=not args.no_browser, out=out)
    return interact(assistant, source, out, path)


def _check_resumed_config(assistant: GameAssistant, path: Path, config: dict[str, Any]) -> None:
    """A ``--config`` given on resume must say what the log says: a game's settings do not
    change once events are logged under them."""
    assert assistant.header is not None and assistant.game is not None
    if not config:
        return
    wanted, _ = assistant.adapter.parse({**assistant.header, **config, "events": []})
    for key, value in config.items():
        logged = getattr(assistant.game.config, key)
        if getattr(wanted.config, key) != logged:
            raise InvalidConfig(
                f"--config {key}", value,
                f"{path} plays {key}={logged!r}; a game's settings cannot change once it is logged",
            )


def _setup_answers(args: argparse.Namespace, adapter: GameAdapter) -> dict[str, Any]:
    """Setup answers from options: the players and the seat, then the adapter's steps that an
    option answers (given ``--players``, Clue's deck is the classic one and its hand sizes the
    even deal unless ``--hand-sizes`` says otherwise: a setup given by options asks no more than
    it must, and a ``--hand`` is never checked against sizes answered later). A bad answer is
    refused by name, before anything starts."""
    answers = _seat_answers(args, adapter)
    if args.hand and answers.get("me") is None:
        raise DeduceError("--hand needs --players and --me: it is your hand, and a spectator holds none")
    if "players" not in answers:
        if args.hand_sizes:
            raise DeduceError("--hand-sizes needs --players: one size per player, in seat order")
        return answers
    given = {"deck": "classic", "hand_sizes": args.hand_sizes or "", "hand": args.hand}
    steps = adapter.first_steps + (adapter.steps(answers["me"]) if "me" in answers else ())
    for step in steps:
        text = given.get(step)
        if text is not None:
            try:
                answers[step] = adapter.read_answer(step, text.replace(",", " "), answers)
            except DeduceError as exc:
                option = f"--{step.replace('_', '-')} {text!r}" if text else f"the default {step.replace('_', ' ')}"
                raise DeduceError(f"{option}: {exc}") from None
    return answers


def interact(assistant: GameAssistant, stdin: TextIO, stdout: TextIO, path: Path | None = None) -> int:
    """The read-answer loop, one :func:`read_line` at a time, until the session is done or the
    input ends. A last line without its newline (the input ended mid-line, Enter never pressed)
    is not acted on: it is said so, and the log is left as it was. ``path``: where the log is
    saved, for the closing words."""
    tty = on_terminal(stdin, stdout)
    if tty:
        _enable_completion(assistant)
    text = assistant.start()
    if text:
        print(text, file=stdout)
    while not assistant.done:
        line = read_line(assistant.prompt, stdin, stdout, tty)
        if line is None:
            stdout.write("\n")
            break
        if not tty and not line.endswith("\n"):
            print(f"the input ended in the middle of a line; it was not read: {short(line.strip())!r}", file=stdout)
            break
        answer = assistant.handle(line.rstrip("\r\n"))
        if answer:
            print(answer, file=stdout)
        stdout.flush()
    if assistant.header is not None:
        print(closing_words(assistant, path), file=stdout)
    return 0


def closing_words(assistant: GameAssistant, path: Path | None) -> str:
    """The last line of a session: that the game is saved, and where; or, when the last save
    failed, that it is not, where its events were written instead (a file in the temporary
    directory, or this output when no file can be written)."""
    where = f" in {path}" if path is not None else ""
    if not assistant.save_error:
        return f"the game is saved; resume it with --log {path}" if path else "the game is saved; resume it with --log"
    data = assistant.log()
    name = path.name if path is not None else f"{assistant.adapter.game}.json"
    rescue = Path(tempfile.gettempdir()) / f"deduce-unsaved-{os.getpid()}-{name}"
    try:
        save_atomically(rescue, data)
        kept = f"its {len(assistant.events)} events were written to {rescue} instead (resume with --log {rescue})"
    except Exception:
        kept = f"its {len(assistant.events)} events follow as a log:\n{json.dumps(data, ensure_ascii=False)}"
    return f"the game was NOT saved{where} ({assistant.save_error}); {kept}"


def on_terminal(stdin: TextIO, stdout: TextIO) -> bool:
    """Whether a person types at a terminal (the process's own stdin, and both streams are ttys)."""
    return stdin is sys.stdin and _isatty(stdin) and _isatty(stdout)


#: the longest typed line echoed in full on a transcript (longer ones are cut, with their length)
ECHO_LINE_LIMIT = 400


def read_line(prompt: str, stdin: TextIO, stdout: TextIO, tty: bool) -> str | None:
    """One typed line (``None``: the input ended). On a terminal, ``input()`` gives line editing
    and completion; from any other stream the line read is echoed after the prompt, so the
    transcript reads like the session a person would see."""
    try:
        if tty:
            return input(prompt)
        stdout.write(prompt)
        line = stdin.readline()
        if line:  # a pasted 40 KB line is echoed cut, as error lines cut what they quote
            stdout.write(short(line.rstrip("\n"), ECHO_LINE_LIMIT) + "\n")
        return line or None
    except (EOFError, KeyboardInterrupt):
        return None


def _isatty(stream: Any) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


_COMMANDS = ("grid", "events", "why", "undo", "redo", "help", "quit", "me", "spectator")


def _enable_completion(assistant: GameAssistant) -> None:
    """Tab completion of commands, player names and card names (readline, when available)."""
    try:
        import readline
    except ImportError:  # pragma: no cover - e.g. Windows without pyreadline
        return

    def vocabulary() -> list[str]:
        words = set(_COMMANDS) | set(assistant.adapter.words)
        game = assistant.game
        players = assistant._answers.get("players") or (list(game.config.names) if game else [])
        words.update(p.lower() for p in players)
        deck = game.deck if game else None
        if deck is not None:
            for card in deck:
                words.add(normalise_name(card.name))
                words.update(w.lower() for w in card.name.replace(".", "").split() if len(w) > 2)
        return sorted(words)

    def complete(text: str, state: int) -> str | None:
        options = [w for w in vocabulary() if w.startswith(text.lower())]
        if len(options) == 1:  # finish the word, so the next one can be typed straight away
            options = [options[0] + " "]
        return options[state] if state < len(options) else None

    readline.set_completer(complete)
    readline.set_completer_delims(" ,=")
    readline.parse_and_bind("tab: complete")
