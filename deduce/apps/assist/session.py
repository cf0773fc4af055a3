"""The table-side assistant for any game with a player-view log: one session, a small adapter per game.

The session owns everything games share: setup questions, the event log, undo and redo, an
event that contradicts the log held back naming the events it conflicts with, the grid of
card locations, continuous saving and resuming. A :class:`GameAdapter` owns what differs: the
game's log format (``deduce.games.<game>_log``), the line grammar of its events, how they read
back, and the answer shown under the grid (the hidden answer, a recommended action and its
value). ``deduce.apps.assist.<game>`` modules hold the adapters, listed in :data:`ADAPTERS`; :func:`adapter_for`
finds them.

No I/O and no solver import: the caller passes a solver (``consistent``, ``tallies``,
``possible``, ``core``; Clue's adapter also counts the envelope's answers with
``solution_counts``) and a ``save`` callback; ``deduce assist`` does the terminal and the
file. Bad input never changes the log: a mistyped line is refused with a one-line error.

A ``budget`` bounds the counting of each update or query (one typed line, the resume, a page's
``why`` or grid) in counted steps (:mod:`solvers.budget`, the meter ``deduce solve --budget``
uses): past it the line is refused with the same one-line "too large" message and the log is
unchanged. The grid's approximation (where each card may still be) gets a budget of its own,
so a view too large to count is still shown.
"""

from __future__ import annotations

import abc
import contextlib
import copy
import functools
import importlib
import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from deduce.apps.assist.text import (
    _take,
    match_name,
    quiet_long_values,
    read_names,
    render_grid,
    short,
)
from deduce.cards import normalise_name
from deduce.errors import DeduceError, LogError, NotSupported, TooLarge, UnknownName
from deduce.explain import Phrase
from deduce.explain import why as explain_why
from deduce.games.base import Game, Observation
from deduce.knowledge import KnowledgeBase
from deduce.logs import MAX_EVENTS, view_knowledge

__all__ = ["ADAPTERS", "GameAdapter", "GameAssistant", "Marginals", "adapter_for", "assisted_games", "budget_checker",
           "SHARED_HELP"]

SHARED_HELP = """\
commands:
  grid                  the grid again            events    the events so far, numbered
  why CARD              why a card must or cannot be somewhere
  undo [N]              remove the last event (or event N)   redo   put it back
  help                  this text                 quit      leave (the log is already saved)"""

_SPECTATOR_WORDS = {"spectator", "none", "nobody", "-", "watcher"}
_ME_WORDS = ("me", "i", "myself")
_APPROX_SCALE = 1_000_000


@dataclass(frozen=True)
class Marginals:
    """Where each card is: ``p[card, loc]``; ``exact`` or an approximation (labelled as one).

    ``total`` and ``cells`` mirror an exact tally (for an approximation, ``cells`` are the
    probabilities scaled to ``total`` and rounded down, so 'certain' and 'impossible' stay exact).
    """

    p: np.ndarray
    exact: bool
    total: int
    cells: tuple[tuple[int, ...], ...]
    #: what the grid's label says when it is an approximation (None: the adapter's
    #: :attr:`GameAdapter.approximate`, the even spread over the places still possible).
    label: str | None = None

    @classmethod
    def counted(cls, tally: Any) -> Marginals:
        """The exact grid of a solver's tally (``total``, ``cells``, ``marginals()``)."""
        p = np.asarray(tally.marginals(), dtype=float)
        return cls(p, True, int(tally.total), tuple(tuple(int(v) for v in r) for r in tally.cells))

    @classmethod
    def approximated(cls, p: np.ndarray, label: str | None = None) -> Marginals:
        """An approximate grid of probabilities ``p[card, loc]``, scaled to a pseudo tally
        (certain cells stay exactly ``total``); ``total`` is 0 when a card has no place left."""
        cells = tuple(tuple(_APPROX_SCALE if v == 1.0 else int(v * _APPROX_SCALE) for v in row) for row in p)
        total = _APPROX_SCALE if bool((p.sum(axis=1) > 0).all()) else 0
        return cls(p, False, total, cells, label)


class GameAdapter(abc.ABC):
    """What one game adds to the shared session: log format, line grammar and answers."""

    #: the registry name of the game ("mafia-code").
    game: ClassVar[str]
    #: its events' line grammar, shown by ``help`` above the shared commands.
    help: ClassVar[str]
    #: the rules a contradiction may involve besides events, in words.
    rules: ClassVar[str]
    #: words offered by tab completion besides player and card names.
    words: ClassVar[tuple[str, ...]] = ()
    #: fewest and most players.
    seats: ClassVar[tuple[int, int]] = (2, 6)
    #: locations that are places, not people, as ``why`` words them ("in the box").
    places: ClassVar[Mapping[str, str]] = {}
    #: whether to ask the solver for exact counts (False: the game is too large to count, so
    #: go straight to the labelled approximation rather than wait on a counter).
    countable: ClassVar[bool] = True
    #: what the grid's label says when it is not an exact count (``countable`` False, or the
    #: counter gave up).
    approximate: ClassVar[str] = "approximate: too many deals to count, spread over the places still possible"
    #: the ``auto`` solver's backends for this game, in order (``None``: its default order).
    backends: ClassVar[tuple[str, ...] | None] = None
    #: setup questions asked after the players and before the seat (Clue's deck and hand sizes).
    first_steps: ClassVar[tuple[str, ...]] = ()

    def grid(self, kb: KnowledgeBase, possible: Callable[[], np.ndarray]) -> Marginals | None:
        """The game's own grid where the session's solver does not count: exact from a counter
        of its own where one takes the view, or an approximation with its own label (a sampler
        with a stated error); None (the default) leaves the even spread over ``possible()``
        (the exact places still possible, ``[card, loc]``, computed when first asked)."""
        return None

    @abc.abstractmethod
    def parse(self, log: Mapping[str, Any]) -> tuple[Game, Observation]:
        """The game and the logging player's view (raises :class:`LogError`)."""

    @abc.abstractmethod
    def new_log(self, players: list[str], me: str | None, answers: Mapping[str, Any]) -> dict[str, Any]:
        """A new log from the setup answers (header and any opening events)."""

    def header(self, players: list[str], me: str | None) -> dict[str, Any]:
        """The log header every game shares: the game, the players and the logging seat, if any."""
        return {"game": self.game, "players": players, **({"me": me} if me is not None else {})}

    def steps(self, me: str | None) -> tuple[str, ...]:
        """Setup questions asked after the players and the seat (e.g. ``("hand",)``)."""
        return ()

    def prompt(self, step: str, players: list[str], me: str | None) -> str:
        """The question for one extra setup step."""
        raise NotImplementedError(step)

    def answer(self, step: str, line: str, players: list[str], me: str | None) -> Any:
        """Read the answer to one extra setup step (raises :class:`DeduceError` to ask again)."""
        raise NotImplementedError(step)

    def ask(self, step: str, answers: Mapping[str, Any]) -> str:
        """The question for one extra setup step, given every answer so far (for questions whose
        default depends on earlier answers, e.g. Clue's hand sizes on its deck)."""
        return self.prompt(step, list(answers.get("players") or []), answers.get("me"))

    def read_answer(self, step: str, line: str, answers: Mapping[str, Any]) -> Any:
        """Read the answer to one extra setup step, given every answer so far."""
        return self.answer(step, line, list(answers.get("players") or []), answers.get("me"))

    def check_players(self, names: list[str]) -> None:
        """Refuse player names the game's lines could not tell apart (raises :class:`DeduceError`):
        repeated names, and words a line or the setup reads otherwise - the places, 'me', the
        spectator words and the adapter's own ``words`` (an adapter may refuse more)."""
        keys = [normalise_name(n) for n in names]
        if len(set(keys)) != len(keys) or not all(keys):
            seen: dict[str, str] = {}
            for name, key in zip(names, keys, strict=True):
                if key in seen or not key:
                    other = f" and {short(seen[key])!r} read the same" if key in seen else " reads as nothing"
                    raise DeduceError(f"player names must be distinct: {short(name)!r}{other}")
                seen[key] = name
        taken = {normalise_name(w) for w in (*self.places, *_ME_WORDS, *_SPECTATOR_WORDS, *self.words)} - {""}
        clash = [n for n, k in zip(names, keys, strict=True) if k in taken]
        if clash:
            raise DeduceError(
                f"{', '.join(map(repr, clash))} cannot be a player name here: the {self.game} lines read "
                f"{'it' if len(clash) == 1 else 'them'} as something else"
            )

    def phrase(self, game: Game, obs: Observation) -> Phrase | None:
        """Words for a constraint in terms of the event it came from, for ``why`` (``None``: generic)."""
        return None

    @abc.abstractmethod
    def read(self, session: GameAssistant, word: str, rest: list[str]) -> list[dict[str, Any]] | None:
        """The log events one typed line stands for (``None``: not an event line)."""

    @abc.abstractmethod
    def event_text(self, game: Game, obs: Observation, index: int) -> str:
        """One event of the view, in words."""

    @abc.abstractmethod
    def answer_lines(self, session: GameAssistant, marginals: Marginals) -> list[str]:
        """What to show under the grid: the hidden answer, a recommendation and its value."""

    def hand(self, obs: Observation) -> Sequence[int]:
        """The logging player's own cards (starred in the grid)."""
        return tuple(getattr(obs, "hand", ()) or ())


#: The assistant adapter of each game, by game name: ``"module:ADAPTER"``, loaded on first use
#: (a registry of names a person types; each adapter module imports its game's solver and agents).
ADAPTERS: dict[str, str] = {
    "clue": "deduce.apps.assist.clue:ADAPTER",
    "mafia-code": "deduce.apps.assist.mafia_code:ADAPTER",
    "checkpoint-charlie": "deduce.apps.assist.checkpoint_charlie:ADAPTER",
    "crime-hotel": "deduce.apps.assist.crime_hotel:ADAPTER",
    "alibi": "deduce.apps.assist.alibi:ADAPTER",
    "alibi-adlung": "deduce.apps.assist.alibi_adlung:ADAPTER",
}


def assisted_games() -> list[str]:
    """Registered games that have an assistant adapter, in the registry's order."""
    from deduce.games.registry import game_names

    return [g for g in game_names() if g in ADAPTERS]


def adapter_for(game: str) -> GameAdapter:
    """The adapter of ``game``, or an error naming the games that have one."""
    if game not in assisted_games():
        raise UnknownName(f"no table assistant for {game!r}; games with one: {', '.join(assisted_games())}")
    module, _, attr = ADAPTERS[game].partition(":")
    return getattr(importlib.import_module(module), attr)


@dataclass
class _Pending:
    """Events held back because they contradict the log; ``at`` is where they would go."""

    at: int
    events: list[dict[str, Any]]
    conflicts: tuple[int, ...]


def budget_checker(solver: Any, budget: int | None) -> Any | None:
    """The second opinion an assistant under a work budget asks when ``solver`` is refused as
    too large: CP-SAT, which decides whether events fit without counting (none without a
    budget, or when the solver is CP-SAT already). One rule for the terminal and the web."""
    if not budget or getattr(solver, "name", solver) == "cpsat":
        return None
    import solvers  # lazy: 'deduce --help' starts without loading the backends

    return solvers.get("cpsat")


class GameAssistant:
    """One table-side session of any adapted game: ``start()`` once, then ``handle(line)``.

    ``log``: a saved game log to resume (raises :class:`LogError` if it cannot be read; a
    contradictory log is accepted and the conflict reported, so nothing is lost). ``setup``
    pre-fills setup answers: ``players``, ``me`` (a name, or ``None`` for a spectator) and the
    adapter's own steps (e.g. ``hand``; Clue's ``deck`` and ``hand_sizes``, ``None`` for the defaults).
    ``budget``: counted steps each update or query may spend (``None`` or 0: no bound), see
    the module docstring; a resumed log too large to check within it is kept, and said so.
    ``checker``: a second backend that needs no count (``solvers.get("cpsat")``), asked
    within a budget of its own whether the events fit and where each card may be when the
    solver is refused as too large, so a view too large to count can still be logged.
    """

    def __init__(
        self,
        adapter: GameAdapter,
        solver: Any,
        log: Mapping[str, Any] | None = None,
        save: Callable[[dict[str, Any]], None] | None = None,
        setup: Mapping[str, Any] | None = None,
        config: Mapping[str, Any] | None = None,
        budget: int | None = None,
        checker: Any | None = None,
    ) -> None:
        self.adapter = adapter
        if budget is not None and budget < 0:
            raise ValueError(f"a work budget is a number of steps, 0 or more, not {budget}")
        #: counted steps one update or query may spend (None or 0: no bound)
        self.budget = budget or None
        #: a backend that decides consistency and possible places without counting (CP-SAT),
        #: asked, within a budget of its own, when ``solver`` is refused as too large
        self.checker = checker
        #: header keys a new log starts with besides the setup's (``--config``), as JSON values
        self.config: dict[str, Any] = dict(config or {})
        self.solver = solver
        self.save_fn = save
        self.done = False
        self.header: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.redo_stack: list[tuple[int, dict[str, Any]]] = []
        self.pending: _Pending | None = None
        self.conflict: str | None = None
        self.game: Game | None = None
        self.obs: Observation | None = None
        self.kb: KnowledgeBase | None = None
        self._marginals: Marginals | None = None
        self._answers: dict[str, Any] = dict(setup or {})
        self._step: str | None = None
        self._intro = ""
        self._save_warning = ""
        self._save_error = ""
        if log is not None:
            data = dict(log)
            events = data.pop("events", [])
            if not isinstance(events, list):
                raise LogError("log header: 'events' must be a list")
            if len(events) > MAX_EVENTS:  # the limit 'deduce solve' applies
                raise LogError(f"log header: {len(events)} events, more than the limit of {MAX_EVENTS}")
            self.header = data
            self.events = [dict(e) if isinstance(e, dict) else e for e in events]
            try:
                self._rebuild()  # raises LogError on unreadable logs
                with self._work():
                    self.conflict = None if self._consistent() else self._conflict_text(self._conflicts(self.kb), None)
                    with contextlib.suppress(DeduceError):  # the first grid, within the same budget
                        self.marginals()
            except RecursionError:  # a log nested deeper than any reader walks
                raise LogError("log: nested too deeply to read") from None
            except TooLarge as exc:  # nothing is lost: the log is kept as it is, unchecked
                self.conflict = f"the log was not checked for contradictions: {exc}"
        else:
            self._step = self._next_step()
            if self._step is None:  # everything was given up front
                try:
                    self._intro = self._finish_setup()
                except DeduceError as exc:
                    self._intro = f"error: {exc}"

    # -- public -----------------------------------------------------------------------------
    @property
    def prompt(self) -> str:
        """What to ask for the next line."""
        if self._step is not None:
            return self._prompt(self._step) + " "
        if self.pending is not None:
            return "undo which event (or press enter to drop the new one)? "
        return "> "

    @property
    def setup_step(self) -> str | None:
        """The setup question being asked ("players", "me", an adapter's step), ``None`` once set up:
        a page that offers pickers for each question needs to know which one it is."""
        return self._step

    @property
    def setup_answers(self) -> dict[str, Any]:
        """The setup answers so far (a copy): the players, the seat, the adapter's steps."""
        return copy.deepcopy(self._answers)

    @property
    def names(self) -> list[str]:
        """The players in seat order."""
        if self.game is not None:
            return list(self.game.config.names)  # type: ignore[attr-defined]
        return list(self._answers.get("players") or [])

    @property
    def me(self) -> str | None:
        """The logging player's name (``None``: a spectator)."""
        if self.obs is None or self.obs.player is None:
            return None
        return self.names[self.obs.player]

    def log(self) -> dict[str, Any]:
        """The game so far as a game log (JSON-ready)."""
        assert self.header is not None
        return {**copy.deepcopy(self.header), "events": copy.deepcopy(self.events)}

    def start(self) -> str:
        """What to show before the first prompt."""
        if self._intro:
            return self._intro
        if self._step is not None:
            return f"New {self.adapter.game} game. Answer a few questions."
        out = [f"Resumed a game with {len(self.events)} events."]
        if self.conflict:
            out.append(self.conflict)
        try:
            out.append(self.status())
        except DeduceError as exc:  # e.g. too large to show within the budget: the session goes on
            out.append(f"error: {exc}")
        return "\n".join(out)

    @property
    def save_error(self) -> str:
        """Why the last save failed (``""``: the saved log holds every event), so the caller
        never says 'saved' when it is not."""
        return self._save_error

    def handle(self, line: str) -> str:
        """Act on one typed line; never raises for bad input (the message says what was wrong,
        echoing at most a short piece of an over-long value)."""
        try:
            with self._work():
                answer = self._setup(line.strip()) if self._step is not None else self._command(line.strip())
            if self._save_warning:
                answer = f"{answer}\n{self._save_warning}" if answer else self._save_warning
            return answer
        except TooLarge as exc:  # refused before anything changed (later, the advice says it failed)
            return quiet_long_values(f"error: {exc}; the line was not acted on, the log is unchanged", line)
        except DeduceError as exc:
            return quiet_long_values(f"error: {exc}", line)
        except Exception as exc:  # a bug must not cost the game so far; the log is untouched
            return quiet_long_values(f"internal error ({type(exc).__name__}: {exc}); the log is unchanged", line)

    # -- helpers for adapters ---------------------------------------------------------------
    def player(self, tokens: Sequence[str], i: int = 0) -> tuple[str, int]:
        """Read a player's name (a prefix will do; 'me' is the logging player) at ``tokens[i]``."""
        if i >= len(tokens):
            raise DeduceError("which player?")
        tokens = [*tokens[:i], self._me_alias(tokens[i]), *tokens[i + 1 :]]
        return _take(tokens, i, self.names, "player")

    def cards(self, tokens: Sequence[str], count: int | None = None) -> list[str]:
        """Read card names (prefixes of their words will do)."""
        assert self.game is not None
        return read_names(tokens, [c.name for c in self.game.deck], "card", count)  # type: ignore[attr-defined]

    def _me_alias(self, token: str) -> str:
        if token.lower() in _ME_WORDS and self.me is not None:
            return self.me
        return token

    # -- setup ------------------------------------------------------------------------------
    def _next_step(self) -> str | None:
        for step in ("players", *self.adapter.first_steps, "me"):
            if step not in self._answers:
                return step
        for step in self.adapter.steps(self._answers["me"]):
            if step not in self._answers:
                return step
        return None

    def _prompt(self, step: str) -> str:
        players = self._answers.get("players") or []
        if step == "players":
            low, high = self.adapter.seats
            return f"players in seat order ({low} to {high} names):"
        if step == "me":
            return f"which one are you ({', '.join(players)}, or 'spectator')?"
        return self.adapter.ask(step, self._answers)

    def _setup(self, line: str) -> str:
        step = self._step
        assert step is not None
        if line.lower() in ("quit", "exit"):
            self.done = True
            return "setup abandoned; nothing saved"
        if step == "players":
            names = [t for t in re.split(r"[,\s]+", line) if t]
            low, high = self.adapter.seats
            if not low <= len(names) <= high:
                raise DeduceError(f"{self.adapter.game} takes {low} to {high} players; got {len(names)}")
            self.adapter.check_players(names)
            self._answers["players"] = names
        elif step == "me":
            if not line:
                raise DeduceError("type your name, or 'spectator' if you hold no cards")
            if line.lower() in _SPECTATOR_WORDS:
                self._answers["me"] = None
            else:
                self._answers["me"] = match_name(line, self._answers["players"], "player")
        else:
            self._answers[step] = self.adapter.read_answer(step, line, self._answers)
        self._step = self._next_step()
        return self._finish_setup() if self._step is None else ""

    def _finish_setup(self) -> str:
        answers = self._answers
        try:
            log = self.adapter.new_log(list(answers["players"]), answers["me"], answers)
            if self.config:  # the settings go in the header, before the events
                log = {**{k: v for k, v in log.items() if k != "events"}, **self.config, "events": log.get("events", [])}
            self.adapter.parse(log)
        except DeduceError as exc:  # a log error, or a pre-filled answer that does not read
            self._step = "players"
            for key in list(answers):
                del answers[key]
            raise DeduceError(f"{_strip_index(str(exc))}; let's start the setup again") from None
        events = log.pop("events", [])
        self.header = log
        self.events = list(events)
        self._step = None
        self._rebuild()
        self._saved()
        return self._with_advice(f"{self.adapter.game}: {', '.join(self.names)}.", "set up")

    # -- commands ---------------------------------------------------------------------------
    def _command(self, line: str) -> str:
        pending, self.pending = self.pending, None
        if pending is not None:
            if not line:
                return "dropped the new event; the log is unchanged"
            words = line.split()
            if (words[0].isdigit() and len(words) == 1) or (words[0].lower() == "undo" and len(words) <= 2):
                try:  # 'undo' alone: the last event
                    return self._undo(words[-1:] if words[0].isdigit() else words[1:], pending)
                except DeduceError as exc:  # the undo did not happen: the new event stays held back
                    self.pending = pending
                    raise DeduceError(f"{exc} (the new event is still held back)") from None
                except Exception:
                    self.pending = pending
                    raise
            try:
                return "(dropped the held-back event)\n" + self._command(line)
            except DeduceError as exc:
                raise DeduceError(f"{exc}\n(dropped the held-back event)") from None
        if not line:
            return ""
        tokens = [t for t in re.split(r"[,\s]+", line) if t]
        if not tokens:
            raise DeduceError("a line of only commas says nothing; type 'help' for the list")
        word, rest = tokens[0].lower(), tokens[1:]
        if word in ("quit", "exit", "q"):
            self.done = True
            return "bye"
        if word in ("help", "?", "h"):
            return f"{self.adapter.help}\n{SHARED_HELP}"
        if word in ("grid", "show", "g", "notebook", "status"):
            return self.status()
        if word in ("events", "log", "list"):
            return self.list_events()
        if word == "undo":
            return self._undo(rest, None)
        if word == "redo":
            return self._redo()
        if word == "why":
            return self.why(rest)
        new = self.adapter.read(self, word, rest)
        if new is None:
            raise DeduceError(f"unknown command {short(tokens[0])!r}; type 'help' for the list")
        return self._add(new, len(self.events))

    # -- changes ----------------------------------------------------------------------------
    def _add(self, new: list[dict[str, Any]], at: int) -> str:
        if len(self.events) + len(new) > MAX_EVENTS:
            raise DeduceError(f"not added: the log would pass the limit of {MAX_EVENTS} events")
        trial = self.events[:at] + new + self.events[at:]
        self._check_readable(trial)
        kb = self._kb_for(trial)
        if not self._fits(kb):
            ours = set(range(at, at + len(new)))
            conflicts = tuple(i for i in self._conflicts(kb) if i not in ours)
            shifted = tuple(i if i < at else i - len(new) for i in conflicts)
            self.pending = _Pending(at, new, shifted)
            return self._conflict_text(shifted, new)
        self.events = trial
        self.redo_stack.clear()
        self._rebuild()
        self.conflict = None
        self._saved()
        added = "\n".join(self._event_line(i) for i in range(at, at + len(new)))
        return self._with_advice(added, "added")

    def _with_advice(self, done: str, verb: str, recheck: bool = False) -> str:
        """``done`` (a change already made and saved), then any contradiction left in the log
        (``recheck``), the grid and the advice. A failure while building those is reported as
        such, never as a refused line: the user would type the line again and log it twice."""
        try:
            if recheck:
                self.conflict = None if self._consistent() else self._conflict_text(self._conflicts(self.kb), None)
            return "\n".join([done, *([self.conflict] if recheck and self.conflict else []), self.status()])
        except Exception as exc:
            what = str(exc) if isinstance(exc, DeduceError) else f"{type(exc).__name__}: {exc}"
            saved = " and saved" if self.save_fn is not None and not self._save_warning else ""
            return f"{done}\n({verb}{saved}; the advice failed: {what})"

    def _check_readable(self, events: list[dict[str, Any]]) -> None:
        """Parse the log with the new events; a reading error names the input, not an index."""
        assert self.header is not None
        try:
            self.adapter.parse({**self.header, "events": events})
        except LogError as exc:
            raise DeduceError(f"not added: {_strip_index(str(exc))}") from None

    def _undo(self, args: list[str], pending: _Pending | None) -> str:
        if not self.events:
            if pending is not None:
                raise DeduceError("nothing to undo")
            return "nothing to undo"
        if args:
            try:
                index = int(args[0])
            except ValueError:
                raise DeduceError(f"undo takes an event number, not {short(args[0])!r}") from None
            if not 0 <= index < len(self.events):
                raise DeduceError(f"there is no event {index}; events are numbered 0 to {len(self.events) - 1}")
        else:
            index = len(self.events) - 1
        text = f"removed event {index}: {self._event_line(index, number=False)}"
        removed = self.events[index]
        remaining = self.events[:index] + self.events[index + 1 :]
        self._check_removable(index, remaining)
        self.events = remaining
        self.redo_stack.append((index, removed))
        self._rebuild()
        self._saved()
        if pending is not None:
            at = pending.at - (1 if index < pending.at else 0)
            try:
                return text + "\n" + self._add(pending.events, at)
            except Exception as exc:  # the removal stands (it is saved); say so, not just the error
                what = str(exc) if isinstance(exc, DeduceError) else f"{type(exc).__name__}: {exc}"
                return f"{text}\nthe held-back event was not added: {what}"
        return self._with_advice(text, "removed", recheck=True)

    def _check_removable(self, index: int, remaining: list[dict[str, Any]]) -> None:
        """Refuse to remove an event a later one depends on (an arrest of the cat it flipped)."""
        assert self.header is not None
        try:
            self.adapter.parse({**self.header, "events": remaining})
        except LogError as exc:
            if exc.index is None:
                raise DeduceError(f"cannot undo event {index}: {exc}") from None
            later = exc.index + (1 if exc.index >= index else 0)
            raise DeduceError(
                f"cannot undo event {index}: event {later} ({self._event_line(later, number=False)}) "
                f"depends on it ({_strip_index(str(exc))}); undo event {later} first"
            ) from None

    def _redo(self) -> str:
        if not self.redo_stack:
            return "nothing to redo"
        index, event = self.redo_stack.pop()
        stack = list(self.redo_stack)
        text = self._add([event], min(index, len(self.events)))
        if self.pending is None:
            self.redo_stack = stack  # _add clears redo history; a redo keeps the rest of it
        return text

    def _saved(self) -> None:
        """Hand the log to ``save``; a failure is reported with the next answer, and the game
        stays in memory (and is saved again with the next change)."""
        if self.save_fn is None or self.header is None:
            return
        try:
            self.save_fn(self.log())
            self._save_warning = self._save_error = ""
        except Exception as exc:
            self._save_error = f"{type(exc).__name__}: {exc}"
            self._save_warning = f"warning: could not save the game ({self._save_error}); it is kept in memory"

    # -- knowledge --------------------------------------------------------------------------
    def _kb_for(self, events: list[dict[str, Any]]) -> KnowledgeBase:
        assert self.header is not None
        game, obs = self.adapter.parse({**self.header, "events": events})
        return view_knowledge(game, obs)

    def _rebuild(self) -> None:
        assert self.header is not None
        self.game, self.obs = self.adapter.parse({**self.header, "events": self.events})
        self.kb = view_knowledge(self.game, self.obs)
        self._marginals = None

    def _consistent(self) -> bool:
        assert self.kb is not None
        return self._fits(self.kb)

    def _fits(self, kb: KnowledgeBase) -> bool:
        """Whether some deal fits ``kb``: the solver's answer, or the checker's (within a budget
        of its own) when the solver is refused as too large."""
        try:
            return bool(self.solver.consistent(kb))
        except TooLarge:
            if self.checker is None:
                raise
            with self._work(fresh=True):
                return bool(self.checker.consistent(kb))

    def _conflicts(self, kb: KnowledgeBase | None) -> tuple[int, ...]:
        """The events in an unsatisfiable core of ``kb``."""
        assert kb is not None
        core_fn = getattr(self.solver, "core", None)
        if core_fn is None:
            return ()
        found = {int(m.group(1)) for i in core_fn(kb) if (m := re.fullmatch(r"event (\d+)", kb.sources[i] or ""))}
        return tuple(sorted(found))

    def _conflict_text(self, conflicts: Sequence[int], new: list[dict[str, Any]] | None) -> str:
        if new is None:
            if not conflicts:
                return "the log contradicts itself; undo events until it does not"
            listed = "; ".join(f"event {i}: {self._event_line(i, number=False)}" for i in conflicts)
            return f"the log contradicts itself: {listed}. Type 'undo N' to remove one of them."
        if not conflicts:
            return f"not added: this contradicts the rules ({self.adapter.rules})"
        listed = "; ".join(f"event {i} ({self._event_line(i, number=False)})" for i in conflicts)
        others = f" (or another of {', '.join(map(str, conflicts))})" if len(conflicts) > 1 else ""
        return (
            f"not added: this contradicts {listed}, given {self.adapter.rules}.\n"
            f"Type 'undo {conflicts[-1]}'{others} to remove that event and add the new one instead, "
            "or press enter to drop the new one."
        )

    def _event_line(self, i: int, number: bool = True) -> str:
        try:
            game, obs = self.adapter.parse({**(self.header or {}), "events": self.events[: i + 1]})
            text = self.adapter.event_text(game, obs, i)
        except Exception:  # a fallback for display only: the raw event
            text = str(self.events[i])
        return f"event {i}: {text}" if number else text

    def _work(self, fresh: bool = False) -> contextlib.AbstractContextManager[Any]:
        """The work budget of one update or query: a meter of ``budget`` steps, unless one is
        already running (a line's grid and advice share its budget) and ``fresh`` is not asked;
        nothing without a budget."""
        if not self.budget:
            return contextlib.nullcontext()
        # lazy: the meter is all the session takes from the solvers
        from solvers.budget import active

        if active() is not None and not fresh:
            return contextlib.nullcontext()
        return _budgeted(self.budget)

    def marginals(self) -> Marginals:
        """Where each card is: exact when the solver can count the deals (within the budget),
        else approximate, within a budget of its own."""
        if self._marginals is None:
            assert self.kb is not None
            try:
                if not self.adapter.countable:
                    raise NotSupported(f"{self.adapter.game} is not counted exactly")
                with self._work():
                    tally = self.solver.tallies(self.kb)
                self._marginals = Marginals.counted(tally)
            except (NotSupported, NotImplementedError) as exc:  # cannot count: spread over the places still possible
                places = functools.cache(functools.partial(self._possible, isinstance(exc, TooLarge)))
                own = self._adapter_grid(places)
                if own is not None:
                    self._marginals = own
                    return own
                possible = places()
                rows = possible.sum(axis=1, keepdims=True)
                self._marginals = Marginals.approximated(np.divide(possible, rows, out=np.zeros_like(possible), where=rows > 0))
        return self._marginals

    def _adapter_grid(self, possible: Callable[[], np.ndarray]) -> Marginals | None:
        """The adapter's own grid within a budget of its own, or None (none, or refused)."""
        assert self.kb is not None
        try:
            with self._work(fresh=True):
                return self.adapter.grid(self.kb, possible)
        except TooLarge:
            return None

    def _possible(self, refused: bool) -> np.ndarray:
        """Where each card may be, within a budget of its own: from the solver, unless its count
        was just refused as too large (it would redo the same work) and a checker is there."""
        assert self.kb is not None
        backends = [self.checker] if refused and self.checker is not None else [self.solver, self.checker]
        last: TooLarge | None = None
        for backend in backends:
            if backend is None:
                continue
            try:
                with self._work(fresh=True):
                    return np.asarray(backend.possible(self.kb), dtype=float)
            except TooLarge as exc:
                last = exc
        assert last is not None
        raise last

    # -- answers ----------------------------------------------------------------------------
    def list_events(self) -> str:
        """The events so far, numbered as ``undo`` takes them."""
        if not self.events:
            return "no events yet"
        return "\n".join(f"{i:>3}  {text}" for i, text in enumerate(self.event_texts()))

    def event_texts(self) -> list[str]:
        """Each event of the log in words, in order (index ``i`` is event ``i`` of ``undo``)."""
        assert self.game is not None and self.obs is not None
        return [self.adapter.event_text(self.game, self.obs, i) for i in range(len(self.events))]

    def why(self, tokens: list[str]) -> str:
        """Why a card must or cannot be somewhere."""
        assert self.game is not None and self.obs is not None and self.kb is not None
        if not tokens:
            raise DeduceError("usage: why CARD")
        name = self.cards(tokens, 1)
        if len(name) != 1 or len(self.cards(tokens)) != 1:
            raise DeduceError("usage: why CARD (one card)")
        card = self.game.deck.card(name[0]).id  # type: ignore[attr-defined]
        phrase = self.adapter.phrase(self.game, self.obs)
        with self._work():
            return explain_why(self.kb, card, self.solver, phrase, places=self.adapter.places)

    def status(self) -> str:
        """The grid, then the adapter's answer (hidden answer, recommendation)."""
        assert self.kb is not None and self.obs is not None
        m = self.marginals()
        return "\n".join([render_grid(self.kb, m, self.adapter.hand(self.obs)), *self.advice()])

    def advice(self) -> list[str]:
        """The lines under the grid: the approximation's label when it is one, then the adapter's
        answer (hidden answer, recommendation); none when no deal fits the events."""
        m = self.marginals()
        if m.total == 0:
            return []
        try:
            with self._work():
                lines = self.adapter.answer_lines(self, m)
        except TooLarge as exc:  # the grid stands; only the advice is missing
            lines = [f"(no advice: {exc})"]
        return [*([f"({m.label or self.adapter.approximate})"] if not m.exact else []), *lines]


@contextlib.contextmanager
def _budgeted(budget: int) -> Iterator[Any]:
    """A meter of ``budget`` steps; a refusal for it (the meter spent) is the one-line message
    of ``deduce solve --budget``, a backend's own refusal within it is left as it is."""
    from solvers.budget import metered, refusal

    with metered(budget) as meter:
        try:
            yield meter
        except TooLarge as exc:
            if meter.left == 0 and not str(exc).startswith("too large: this log needs"):
                raise refusal(budget, exc) from None
            raise


def _strip_index(message: str) -> str:
    return re.sub(r"^event \d+ \(.*?\): ", "", message)
