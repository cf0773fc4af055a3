"""``deduce play GAME``: a person plays in the terminal against agents of their choice.

The person sees only what their seat sees, in the words of the game's rule book (its wording
module, declared in the game's record): every event of their own observation, and at each of
their decisions their private information and the public table. They choose from the legal
actions by a number from the list shown, or by the action's words as shown (or a few words
that abbreviate them: "sug gr rope hall"), or, where the game allows more actions than it can
list (Alibi's hypothesis questions), in the words its wording module reads and shows how to
type ("ask bob has seen Slim Slant, Morning, Front Seat, Pillow"); ``notebook`` shows the detective's notebook of their
own view and ``why CARD`` explains a deduction. A decision with a single legal action is played
for them (``--no-auto`` asks anyway). ``deduce play clue --board`` plays on the classic board.

The game is played by the shared game loop (:class:`deduce.play.GameRun`): the person's seat is
a player whose action is the one they typed, and the loop stops before each of their decisions.
Input comes from a given text stream, so tests and scripts can drive a whole game.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from deduce.cards import normalise_name
from deduce.cli.assist import on_terminal, read_line
from deduce.errors import DeduceError, IllegalAction, NotSupported
from deduce.games.base import Action, Event, Game, Observation, State
from deduce.games.registry import game_info, game_names
from deduce.play import GameRun, Step

__all__ = ["register", "run", "HumanGame", "Words"]

_LIST_LIMIT = 30

COMMANDS = """\
on your turn type a number from the list, or the words of an action as shown (a few words that
abbreviate it will do: each word abbreviates a word of the action). Also:
  list        every legal action, numbered      notebook   your detective's notebook
  table       your private information and the public table
  wait        pass now and at every decision until something new can be done (a new cat to arrest)
  why CARD    why a card must or cannot be somewhere
  events      everything you have seen, numbered as 'why' cites them
  help        this text
  board       the board and every token (Clue played with --board)
  quit        leave the game"""


class _GameHelp(argparse.Action):
    """``deduce play GAME --help``: the options, then that game's actions with examples."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS, **kwargs: Any) -> None:
        super().__init__(option_strings, dest=dest, default=argparse.SUPPRESS, nargs=0, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option_string: str | None = None) -> None:
        parser.print_help()
        name = getattr(namespace, "game", None)
        if name in game_names():
            import deduce

            print()
            print(Words(deduce.make(name)).help())
        parser.exit()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="play a game in the terminal against agents", add_help=False)
    p.add_argument("-h", "--help", action=_GameHelp, help="show this help and the game's actions ('deduce play GAME --help')")
    p.add_argument("game", help="game name (see 'deduce games')")
    p.add_argument("--agents", default=None, help="agents for the other seats, comma-separated (one name: all of them)")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deal and the agents (default 0)")
    p.add_argument("--players", type=int, default=None, help="number of players (default: the game's)")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="a game config field, typed by the field")
    p.add_argument("--board", action="store_true", help="clue: play on the board (same as --set board_mode=board)")
    p.add_argument(
        "--no-auto", dest="auto", action="store_false",
        help="ask even when a decision has a single legal action (default: it is played for you)",
    )
    p.set_defaults(func=run)


# -- words ------------------------------------------------------------------------------------
class Words:
    """The game's wording module (declared in its record) for one seat: events, actions, the
    table, the final scores and the game's actions help."""

    def __init__(self, game: Game, seat: int | None = None) -> None:
        wording = game_info(game.name).wording
        self.game, self.seat = game, seat
        self.text: Any = wording(game) if wording is not None else _Plain()

    def event(self, event: Event) -> str:
        return self.text.event_text(self.game, event, self.seat)

    def action(self, action: Action, observation: Observation | None = None) -> str:
        try:
            return self.text.action_text(self.game, action, observation)
        except TypeError:  # a wording module whose actions need no observation
            return self.text.action_text(self.game, action)

    def phraser(self, events: Sequence[Event]) -> Callable[..., Any] | None:
        """The hook ``why`` words constraints and cites events with, from this seat's view."""
        if not hasattr(self.text, "phraser"):
            return None
        try:
            return self.text.phraser(self.game, events, self.seat)
        except TypeError:  # a wording module whose phraser takes no seat
            return self.text.phraser(self.game, events)

    def status(self, observation: Observation) -> str:
        return self.text.status_text(self.game, observation) if hasattr(self.text, "status_text") else ""

    def scores(self, observation: Observation) -> Sequence[float] | None:
        return self.text.final_scores(self.game, observation) if hasattr(self.text, "final_scores") else None

    def help(self) -> str:
        return self.text.actions_help(self.game) if hasattr(self.text, "actions_help") else ""

    def parse(self, line: str, observation: Observation) -> Action | None:
        """An action typed in the game's words that is legal without being listed (Alibi's
        hypothesis questions), if the wording module reads such actions (``None``: not one)."""
        parse = getattr(self.text, "parse_action", None)
        return parse(self.game, line, observation) if parse is not None else None

    def hint(self, observation: Observation) -> str:
        """How to type the actions that are legal without being listed ("" for none)."""
        hint = getattr(self.text, "question_hint", None)
        return hint(self.game, observation) if hint is not None else ""

    def board(self, positions: Sequence[int]) -> str | None:
        """The board picture for this seat, if the game is played on one."""
        if getattr(self.game, "board", None) is None or not hasattr(self.text, "board_text"):
            return None
        return self.text.board_text(self.game, positions, self.seat)


class _Plain:
    """The words of a registered game that declares no wording module: its values as printed."""

    @staticmethod
    def event_text(game: Game, event: Event, you: int | None = None) -> str:
        return str(event)

    @staticmethod
    def action_text(game: Game, action: Action, observation: Observation | None = None) -> str:
        return str(action)


def _words(text: str) -> list[str]:
    return [w for w in re.split(r"[^0-9a-z]+", text.casefold()) if w]


def _matches(tokens: Sequence[str], text: str) -> bool:
    """Whether every typed word abbreviates a word of ``text`` (separators such as "/" typed as
    words are skipped)."""
    words = _words(text)
    typed = [normalise_name(t) for t in tokens if any(ch.isalnum() for ch in t)]
    return all(any(w.startswith(t) for w in words) for t in typed if t)


def choose(line: str, menu: Sequence[tuple[Action, str]]) -> list[Action]:
    """The actions ``line`` picks out of ``(action, words)``: the one whose words it is exactly
    (what the game displayed), else every one whose words it abbreviates."""
    key = _words(line)
    exact = [a for a, text in menu if _words(text) == key]
    if exact:
        return exact[:1]
    tokens = line.split()
    return [a for a, text in menu if _matches(tokens, text)]


class _Person:
    """The person's seat in the game loop: plays the action they chose (the loop stops before
    every decision of theirs that has none chosen yet)."""

    name = "you"

    def __init__(self) -> None:
        self.chosen: Action | None = None

    def reset(self, game: Game, player: int, seed: Any = None) -> None:
        """Nothing to do: the person chooses."""

    def act(self, observation: Observation) -> Action:
        if self.chosen is None:  # a forced single action, played for the person
            return observation.legal_actions[0]
        action, self.chosen = self.chosen, None
        return action


# -- the game ---------------------------------------------------------------------------------
class HumanGame:
    """One game: a person at ``seat``, agents elsewhere; ``feed(line)`` answers the person's
    input and plays on until the person must decide again or the game ends."""

    def __init__(
        self, game: Game, agents: dict[int, Any], seat: int, seed: int, solver: Any = None, auto: bool = True
    ) -> None:
        self.game, self.agents, self.seat, self.solver, self.auto = game, agents, seat, solver, auto
        self.person = _Person()
        players = [self.person if i == seat else agents[i] for i in range(game.num_players)]
        self.run = GameRun(game, players, seed, until=self._must_ask, on_action=self._record)
        self.state: State = self.run.state
        obs = self.state.observation(seat)
        self.names: Sequence[str] = obs.names or tuple(f"p{i}" for i in range(game.num_players))
        self.words = Words(game, seat)
        self.shown_events = 0
        self.menu: list[Action] = []
        self.done = False
        self._out: list[str] = []

    # -- the loop's hooks -------------------------------------------------------------------
    def _must_ask(self, state: State) -> bool:
        """Stop the loop before a decision of the person's that they have not made yet (a forced
        single action is played for them, and so is 'pass' while they wait)."""
        if state.current_player != self.seat or self.person.chosen is not None:
            return False
        legal = state.legal_actions()
        if self.auto and len(legal) == 1:
            self._how = "your only choice"
            return False
        if self.waiting is not None:
            menu = self._menu(state.observation(self.seat), legal)
            passes = [a for a, t in menu if t == "pass"]
            if passes and {t for _, t in menu} <= self.waiting:
                self.person.chosen, self._how = passes[0], "waiting"
                return False
            self.waiting = None  # something new to do: ask
        return True

    def _record(self, step: Step) -> None:
        if step.seat == self.seat:
            text = self.words.action(step.action, step.observation)
            self._out.append(f"you: {text}" if not self._how else f"you: {text} ({self._how})")
            self._how = ""
        self._out.append(self._new_events())

    #: why the person's last action was played for them ("": they typed it)
    _how = ""
    #: while waiting, the choices the person has seen: 'pass' is played until a new one appears
    waiting: set[str] | None = None

    # -- flow -------------------------------------------------------------------------------
    def start(self) -> str:
        names = ", ".join(
            f"{n} ({'you' if i == self.seat else getattr(self.agents.get(i), 'name', '?')})" for i, n in enumerate(self.names)
        )
        intro = f"{self.game.name}: {names}. Type 'help' for commands and this game's actions."
        return intro + "\n" + self.advance()

    def advance(self) -> str:
        """Play until the person must act or the game ends; returns what they saw."""
        self._out = [self._new_events()]
        for _ in self.run:
            pass
        out = self._out
        failure = self.run.failure
        if failure is not None:
            out.append(self._new_events())
            out.append(f"agent {failure.agent} at seat {self.names[failure.seat]} failed ({failure.message}); game stopped")
            self.done = True
        elif self.state.is_terminal():
            out.append(self._result())
            self.done = True
        else:
            out.append(self._your_turn())
        return "\n".join(x for x in out if x)

    def _new_events(self) -> str:
        events = self.state.observation(self.seat).events
        fresh = events[self.shown_events :]
        self.shown_events = len(events)
        return "\n".join(f"  {self.words.event(e)}" for e in fresh)

    def _menu(self, obs: Observation, actions: Sequence[Action]) -> list[tuple[Action, str]]:
        """The actions and their words, one per distinct wording (identical copies are one choice)."""
        seen: dict[str, Action] = {}
        for a in actions:
            seen.setdefault(self.words.action(a, obs), a)
        return [(a, t) for t, a in seen.items()]

    def _your_turn(self) -> str:
        obs = self.state.observation(self.seat)
        menu = self._menu(obs, obs.legal_actions)
        refuting = getattr(obs, "to_refute", None)
        lines = ["-- you are refuting" if refuting else "-- your turn"]
        picture = self.words.board(getattr(obs, "positions", ()))
        if picture is not None:
            lines.append(picture)
            if getattr(obs, "roll", None) is not None:
                rooms = [t for a, t in menu if self._is_room_move(a)]
                reach = f"; rooms within reach: {', '.join(r.removeprefix('move to ') for r in rooms)}" if rooms else ""
                lines.append(f"you rolled {obs.roll}: move up to {obs.roll} squares{reach}")
        status = self.words.status(obs)
        if status:
            lines.append(status)
        self.menu = [a for a, _ in menu]
        structured = any(s.size for s in getattr(obs.legal_actions, "structured", ()))
        if len(menu) <= _LIST_LIMIT:
            lines += [f"  {i + 1:>3}. {t}" for i, (_, t) in enumerate(menu)]
        else:
            kinds = sorted({t.split()[0] for _, t in menu})
            lines.append(
                f"{len(menu)} legal actions ({', '.join(kinds)}): type words to pick one "
                f"(e.g. '{menu[0][1]}'), or 'list'"
            )
        if structured:
            lines.append(self.words.hint(obs) or "other actions are legal without being listed")
        return "\n".join(lines)

    def _is_room_move(self, action: Action) -> bool:
        board = getattr(self.game, "board", None)
        to = getattr(action, "to", None)
        return board is not None and type(action).__name__ == "Move" and isinstance(to, int) and board.is_room(to)

    def _result(self) -> str:
        lines = ["-- game over"]
        obs = self.state.observation(self.seat)
        scores = self.words.scores(obs)
        if scores is not None:
            lines.append("scores: " + ", ".join(
                f"{'you' if i == self.seat else self.names[i]} {s:g}" for i, s in enumerate(scores)))
        winners = self.state.winners()
        if winners:
            lines.append(f"winner: {', '.join('you' if w == self.seat else self.names[w] for w in winners)}")
        else:
            lines.append("nobody won")
        envelope = getattr(self.state, "envelope", None)
        deck = getattr(self.game, "deck", None)
        if envelope and deck is not None:
            lines.append(f"the envelope held {', '.join(deck[c].name for c in envelope)}")
        return "\n".join(lines)

    # -- input ------------------------------------------------------------------------------
    def feed(self, line: str) -> str:
        """One line from the person. Never raises for bad input."""
        try:
            return self._feed(line.strip())
        except DeduceError as exc:
            return f"error: {exc}"
        except Exception as exc:  # a bug here must not lose the game in progress
            return f"internal error ({type(exc).__name__}: {exc})"

    def _feed(self, line: str) -> str:
        if not line:
            return ""
        tokens = line.split()
        word = tokens[0].lower()
        obs = self.state.observation(self.seat)
        if word in ("quit", "exit"):
            self.done = True
            return "you left the game"
        if word in ("help", "?"):
            return COMMANDS + "\n\n" + self.words.help()
        if word == "list":
            menu = self._menu(obs, obs.legal_actions)
            self.menu = [a for a, _ in menu]
            return "\n".join(f"  {i + 1:>3}. {t}" for i, (_, t) in enumerate(menu))
        if word == "table":
            return self.words.status(obs) or "nothing more to show"
        if word in ("events", "history"):  # numbered as 'why' cites them ("(event 5)")
            return "\n".join(f"  {i:>3}. {self.words.event(e)}" for i, e in enumerate(obs.events))
        if word in ("notebook", "grid"):
            return self.notebook()
        if word == "board":
            picture = self.words.board(getattr(obs, "positions", ()))
            return picture if picture is not None else "this game is not played on a board"
        if word == "why":
            return self.why(tokens[1:])
        menu = self._menu(obs, obs.legal_actions)
        if word == "wait":
            passes = [a for a, t in menu if t == "pass"]
            if not passes:
                raise DeduceError("'wait' passes until something new can be done, but you cannot pass now")
            self.waiting = {t for _, t in menu}
            return self._play(passes[0])
        if line.isdigit():
            k = int(line)
            pool = self.menu or [a for a, _ in menu]
            if not 1 <= k <= len(pool):
                raise DeduceError(f"there is no action {k}; choose 1 to {len(pool)}")
            return self._play(pool[k - 1])
        found = choose(line, menu)
        if not found:
            typed = self.words.parse(line, obs)
            if typed is not None:
                return self._play(typed)
            return self._no_match(line, obs)
        if len(found) == 1:
            return self._play(found[0])
        self.menu = found
        shown = [f"  {i + 1:>3}. {self.words.action(a, obs)}" for i, a in enumerate(found[:_LIST_LIMIT])]
        more = f"\n  ... and {len(found) - _LIST_LIMIT} more: add words to narrow down" if len(found) > _LIST_LIMIT else ""
        return f"{len(found)} actions match {line!r}; pick a number:\n" + "\n".join(shown) + more

    def _no_match(self, line: str, obs: Observation) -> str:
        """Why nothing matches: a barred room (Clue), else the list to look at."""
        barred = getattr(obs, "barred_room", None)
        deck = getattr(self.game, "deck", None)
        if barred is not None and deck is not None and _matches(line.split()[-1:], deck[barred].name):
            raise DeduceError(
                f"no legal action matches {line!r}: you may not suggest in {deck[barred].name} again this turn"
            )
        raise DeduceError(f"no legal action matches {line!r}; type 'list' to see them")

    def _play(self, action: Action) -> str:
        if action not in self.state.legal_actions():
            try:
                reason = self.state.explain_illegal(action)
            except Exception:
                reason = "not a legal action now"
            words = self.words.action(action, self.state.observation(self.seat))
            # the engine names the action by its repr: a person reads the action's words instead
            reason = reason.removeprefix(f"{action!r}: ").replace(repr(action), f"'{words}'")
            raise IllegalAction(f"{words}: {reason}")
        self.person.chosen = action
        self.menu = []
        return self.advance()

    # -- notebook ---------------------------------------------------------------------------
    def _knowledge(self) -> Any:
        obs: Observation = self.state.observation(self.seat)
        return obs, self.game.knowledge(obs)

    def notebook(self) -> str:
        from deduce.apps.assist.clue import envelope_lines
        from deduce.apps.assist.text import render_grid

        if self.solver is None:
            return "no solver available for a notebook"
        obs, kb = self._knowledge()
        try:
            tally = self.solver.tallies(kb)
        except (NotSupported, NotImplementedError):
            return (
                f"no notebook now: the {self.solver.name} backend cannot count the deals of this game "
                "once its cards have moved; 'deduce assist' shows where each card may still be"
            )
        except DeduceError as exc:
            return f"no notebook for this game state: {exc}"
        lines = [render_grid(kb, tally, getattr(obs, "hand", ()))]
        relaxed = self.game.knowledge_relaxed
        if relaxed and tally.total:  # counts over a relaxation are not the posterior: say so
            lines.append(f"(approximate: {relaxed})")
        if "envelope" in kb.locations and tally.total:
            lines += envelope_lines(self.solver, kb)
        return "\n".join(lines)

    def why(self, tokens: list[str]) -> str:
        from deduce.apps.assist.text import match_name
        from deduce.explain import why

        if not tokens:
            raise DeduceError("usage: why CARD")
        if self.solver is None:
            return "no solver available to explain"
        obs, kb = self._knowledge()
        name = match_name(tokens, [c.name for c in kb.deck], "card")
        try:
            return why(kb, kb.deck.card(name).id, self.solver, self.words.phraser(obs.events))
        except (NotSupported, NotImplementedError):
            return f"the {self.solver.name} backend cannot explain this game's deductions once its cards have moved"


# -- the command ------------------------------------------------------------------------------
def _config(args: argparse.Namespace) -> dict[str, Any]:
    """The game's config fields from the options, each ``--set`` value typed by its field."""
    fields: dict[str, Any] = {}
    if args.players is not None:
        fields["num_players"] = args.players
    if getattr(args, "board", False):
        if args.game != "clue":
            raise DeduceError(f"--board is for clue, not {args.game}")
        fields["board_mode"] = "board"
    for item in args.set:
        key, sep, _ = item.partition("=")
        if not sep or not key:
            raise DeduceError(f"--set takes FIELD=VALUE, not {item!r}")
    if args.set:
        fields.update(_typed(args.game, args.set))
    return fields


def _typed(game: str, items: Sequence[str]) -> dict[str, Any]:
    """``--set`` values typed by their config fields (the shared parser of every subcommand)."""
    from deduce.cli.options import parse_config

    return parse_config(game, items, flag="--set")


def _build(args: argparse.Namespace) -> HumanGame:
    import agents as agents_mod  # lazy: 'deduce --help' starts without loading the agents
    import deduce
    import solvers
    from deduce.apps.assist.text import match_name

    match_name(args.game, game_names(), "game", exact=True)
    try:
        game = deduce.make(args.game, **_config(args))
    except (ValueError, TypeError) as exc:
        raise DeduceError(f"cannot set up {args.game}: {exc}") from None
    n = game.num_players
    if not 0 <= args.seat < n:
        raise DeduceError(f"--seat must be 0 to {n - 1} for {n} players, not {args.seat}")
    available = agents_mod.available(game.name)
    preferred = ("deductive-board",) if getattr(game, "board", None) is not None else ()
    preferred += ("deductive", "guess-chain", "sampling", "expected-points", "counting", "bayesian")
    default = next((a for a in preferred if a in available), "random")
    names = [a.strip() for a in (args.agents or default).split(",") if a.strip()]
    others = [i for i in range(n) if i != args.seat]
    if len(names) == 1:
        names = names * len(others)
    if len(names) != len(others):
        raise DeduceError(f"--agents: give one agent for all {len(others)} other seats, or one per seat; got {len(names)}")
    agents: dict[int, Any] = {}
    for seat, name in zip(others, names, strict=True):
        match_name(name, available, "agent", exact=True)
        agents[seat] = agents_mod.get(name, game=game.name)
    return HumanGame(game, agents, args.seat, args.seed, solvers.get("auto"), auto=args.auto)


def run(args: argparse.Namespace, stdin: TextIO | None = None, stdout: TextIO | None = None) -> int:
    source = stdin or sys.stdin
    out = stdout or sys.stdout
    session = _build(args)
    tty = on_terminal(source, out)
    print(session.start(), file=out)
    while not session.done:
        line = read_line("> ", source, out, tty)
        if line is None:
            out.write("\nyou left the game\n" if tty else "\ninput ended; you left the game\n")
            break
        answer = session.feed(line)
        if answer:
            print(answer, file=out)
        out.flush()
    return 0
