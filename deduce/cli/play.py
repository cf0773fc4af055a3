"""``deduce play GAME``: a person plays in the terminal against agents of their choice.

The person sees only what their seat sees: the events of their own observation, rendered in
words (Clue) or as readable fields with card and player names (every other game). On their
turn they choose from the legal actions: a number from the list shown, or a few words that
abbreviate the action ("sug gr rope hall"); ``notebook`` shows the detective's notebook of
their own view and ``why CARD`` explains a deduction. ``deduce play clue --board`` plays on
the classic board: the board with every token is drawn at each of the person's turns (and on
``board``). Input comes from a given text stream, so tests and scripts can drive a whole game.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import sys
from collections.abc import Callable, Sequence
from typing import Any, TextIO

from deduce.cards import normalise_name
from deduce.cli.assist import on_terminal, read_line
from deduce.errors import DeduceError, IllegalAction
from deduce.games.base import Action, Event, Game, Observation, State
from deduce.games.registry import game_info

__all__ = ["register", "run", "HumanGame", "describe"]

_LIST_LIMIT = 30

HELP = """\
on your turn type a number from the list, or words that pick out one action ("sug gr rope hall"
in Clue; each word abbreviates a word of the action). Also:
  list        every legal action, numbered      notebook   your detective's notebook
  why CARD    why a card must or cannot be somewhere
  events      everything you have seen so far  help       this text
  board       the board and every token (Clue played with --board)
  quit        leave the game"""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("play", help="play a game in the terminal against agents")
    p.add_argument("game", help="game name (see 'deduce games')")
    p.add_argument("--agents", default=None, help="agents for the other seats, comma-separated (one name: all of them)")
    p.add_argument("--seat", type=int, default=0, help="your seat, 0-based (default 0)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deal and the agents (default 0)")
    p.add_argument("--players", type=int, default=None, help="number of players (default: the game's)")
    p.add_argument("--set", action="append", default=[], metavar="FIELD=VALUE", help="a game config field")
    p.add_argument("--board", action="store_true", help="clue: play on the board (same as --set board_mode=board)")
    p.set_defaults(func=run)


# -- words for any game -----------------------------------------------------------------------
_PLAYER_FIELDS = {
    "player", "players", "target", "by", "to", "refuter", "refuters", "seat", "roller", "accuser", "leader",
    "starter", "passed", "winner", "winners", "writers", "giver", "receiver", "asker", "responder", "suspect_of",
}


def _words_of(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", " ", name).lower()


def describe(value: Any, game: Game, names: Sequence[str], field: str = "") -> str:
    """Any action or event in words: class name, then fields with card and player names.

    A game's own ``deduce.games.<game>_text`` module words Clue; this is the fallback that
    makes every other game readable (``repr`` if anything looks unusual).
    """
    try:
        return _describe(value, game, names, field)
    except Exception:
        return repr(value)


def _describe(value: Any, game: Game, names: Sequence[str], field: str) -> str:
    deck = getattr(game, "deck", None)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        parts = [_words_of(type(value).__name__)]
        for f in dataclasses.fields(value):
            parts.append(f"{f.name}={_describe(getattr(value, f.name), game, names, f.name)}")
        return " ".join(parts) if len(parts) > 1 else parts[0]
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int):
        if deck is not None and "card" in field and 0 <= value < len(deck):
            return deck[value].name.replace(" ", "_")
        if field in _PLAYER_FIELDS and 0 <= value < len(names):
            return names[value]
        return str(value)
    if isinstance(value, tuple | list):
        return "(" + ", ".join(_describe(v, game, names, field) for v in value) + ")"
    return str(value)


class _Words:
    """The game's wording module if its record declares one (Clue), else :func:`describe`."""

    def __init__(self, game: Game, seat: int, names: Sequence[str]) -> None:
        self.game, self.seat, self.names = game, seat, names
        wording = game_info(game.name).wording
        self.text: Any = wording(game) if wording is not None else None

    def event(self, event: Event) -> str:
        if self.text is not None and hasattr(self.text, "event_text"):
            return self.text.event_text(self.game, event, self.seat)
        return describe(event, self.game, self.names)

    def action(self, action: Action) -> str:
        if self.text is not None and hasattr(self.text, "action_text"):
            return self.text.action_text(self.game, action)
        return describe(action, self.game, self.names)

    def phraser(self, events: Sequence[Event]) -> Callable[..., Any] | None:
        if self.text is not None and hasattr(self.text, "phraser"):
            return self.text.phraser(self.game, events)
        return None

    def board(self, positions: Sequence[int]) -> str | None:
        """The board picture for this seat, if the game is played on one."""
        if getattr(self.game, "board", None) is None or self.text is None or not hasattr(self.text, "board_text"):
            return None
        return self.text.board_text(self.game, positions, self.seat)


def _matches(tokens: Sequence[str], text: str) -> bool:
    words = [w for w in re.split(r"[^0-9a-z]+", text.casefold()) if w]
    return all(any(w.startswith(normalise_name(t)) for w in words) for t in tokens if normalise_name(t))


# -- the game ---------------------------------------------------------------------------------
class HumanGame:
    """One game: a person at ``seat``, agents elsewhere; ``feed(line)`` answers the person's
    input and plays agents' moves until the person must decide again or the game ends."""

    def __init__(self, game: Game, agents: dict[int, Any], seat: int, deal_seed: int, solver: Any = None) -> None:
        self.game, self.agents, self.seat = game, agents, seat
        self.state: State = game.new_initial_state(deal_seed)
        self.solver = solver
        obs = self.state.observation(seat)
        self.names: Sequence[str] = getattr(obs, "names", ()) or tuple(f"p{i}" for i in range(game.num_players))
        self.words = _Words(game, seat, self.names)
        self.shown_events = 0
        self.menu: list[Action] = []
        self.done = False

    # -- flow -------------------------------------------------------------------------------
    def start(self) -> str:
        names = ", ".join(
            f"{n} ({'you' if i == self.seat else getattr(self.agents.get(i), 'name', '?')})" for i, n in enumerate(self.names)
        )
        intro = f"{self.game.name}: {names}. Type 'help' for commands."
        return intro + "\n" + self.advance()

    def advance(self) -> str:
        """Play agents until the person must act or the game ends; returns what they saw."""
        out: list[str] = []
        while not self.state.is_terminal() and self.state.current_player != self.seat:
            player = self.state.current_player
            agent = self.agents[player]
            try:
                action = agent.act(self.state.observation(player))
                self.state.apply(action)
            except Exception as exc:  # an agent's failure ends the game, not the program
                out.append(self._new_events())
                out.append(f"agent {agent.name} at seat {player} failed ({type(exc).__name__}: {exc}); game stopped")
                self.done = True
                return "\n".join(x for x in out if x)
            for other, a in self.agents.items():
                if other != player and hasattr(a, "observe"):
                    a.observe(self.state.observation(other))
        out.append(self._new_events())
        if self.state.is_terminal():
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

    def _your_turn(self) -> str:
        obs = self.state.observation(self.seat)
        actions = list(obs.legal_actions)
        lines = ["-- your turn"]
        picture = self.words.board(getattr(obs, "positions", ()))
        if picture is not None:
            lines.append(picture)
            if getattr(obs, "roll", None) is not None:
                rooms = [self.words.action(a) for a in actions if self._is_room_move(a)]
                reach = f"; rooms within reach: {', '.join(r.removeprefix('move to ') for r in rooms)}" if rooms else ""
                lines.append(f"you rolled {obs.roll}: move up to {obs.roll} squares{reach}")
        hand = getattr(obs, "hand", None)
        deck = getattr(self.game, "deck", None)
        if hand and deck is not None:
            lines.append(f"your hand: {', '.join(deck[c].name for c in hand)}")
        bonus = getattr(obs, "intrigue_hand", ())
        if bonus:
            lines.append(f"your intrigue cards: {', '.join(k.replace('_', ' ') for k in bonus)}")
        to_refute = getattr(obs, "to_refute", None)
        if to_refute:
            by, cards = to_refute
            lines.append(f"{self.names[by]} suggested {', '.join(deck[c].name for c in cards)}: show one of your cards")
        if len(actions) <= _LIST_LIMIT:
            self.menu = actions
            lines += [f"  {i + 1:>3}. {self.words.action(a)}" for i, a in enumerate(actions)]
        else:
            self.menu = actions
            kinds = sorted({self.words.action(a).split()[0] for a in actions})
            lines.append(
                f"{len(actions)} legal actions ({', '.join(kinds)}): type words to pick one "
                f"(e.g. '{self._example(actions)}'), or 'list'"
            )
        return "\n".join(lines)

    def _is_room_move(self, action: Action) -> bool:
        board = getattr(self.game, "board", None)
        to = getattr(action, "to", None)
        return board is not None and type(action).__name__ == "Move" and isinstance(to, int) and board.is_room(to)

    def _example(self, actions: Sequence[Action]) -> str:
        words = self.words.action(actions[0]).split()
        return " ".join(w[:4].strip(",").lower() for w in words)

    def _result(self) -> str:
        lines = ["-- game over"]
        returns = self.state.returns()
        winners = self.state.winners()
        lines.append("scores: " + ", ".join(f"{self.names[i]} {r:g}" for i, r in enumerate(returns)))
        if winners:
            who = ["you" if w == self.seat else self.names[w] for w in winners]
            lines.append(f"winner: {', '.join(who)}")
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
        if word in ("quit", "exit"):
            self.done = True
            return "you left the game"
        if word in ("help", "?"):
            return HELP
        if word == "list":
            self.menu = list(self.state.observation(self.seat).legal_actions)
            return "\n".join(f"  {i + 1:>3}. {self.words.action(a)}" for i, a in enumerate(self.menu))
        if word in ("events", "history"):
            return "\n".join(f"  {self.words.event(e)}" for e in self.state.observation(self.seat).events)
        if word in ("notebook", "grid"):
            return self.notebook()
        if word == "board":
            picture = self.words.board(getattr(self.state.observation(self.seat), "positions", ()))
            return picture if picture is not None else "this game is not played on a board"
        if word == "why":
            return self.why(tokens[1:])
        legal = list(self.state.observation(self.seat).legal_actions)
        if line.isdigit():
            k = int(line)
            pool = self.menu or legal
            if not 1 <= k <= len(pool):
                raise DeduceError(f"there is no action {k}; choose 1 to {len(pool)}")
            return self._play(pool[k - 1])
        found = [a for a in legal if _matches(tokens, self.words.action(a))]
        if not found:
            raise DeduceError(f"no legal action matches {line!r}; type 'list' to see them")
        if len(found) == 1:
            return self._play(found[0])
        self.menu = found
        shown = [f"  {i + 1:>3}. {self.words.action(a)}" for i, a in enumerate(found[:_LIST_LIMIT])]
        more = f"\n  ... and {len(found) - _LIST_LIMIT} more: add words to narrow down" if len(found) > _LIST_LIMIT else ""
        return f"{len(found)} actions match {line!r}; pick a number:\n" + "\n".join(shown) + more

    def _play(self, action: Action) -> str:
        try:
            self.state.apply(action)
        except IllegalAction as exc:
            raise DeduceError(str(exc)) from None
        self.menu = []
        return f"you: {self.words.action(action)}\n" + self.advance()

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
        return why(kb, kb.deck.card(name).id, self.solver, self.words.phraser(obs.events))


# -- the command ------------------------------------------------------------------------------
def _config(args: argparse.Namespace) -> dict[str, Any]:
    fields: dict[str, Any] = {}
    if args.players is not None:
        fields["num_players"] = args.players
    if getattr(args, "board", False):
        if args.game != "clue":
            raise DeduceError(f"--board is for clue, not {args.game}")
        fields["board_mode"] = "board"
    for item in args.set:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise DeduceError(f"--set takes FIELD=VALUE, not {item!r}")
        value: Any = raw
        if raw.lower() in ("true", "false"):
            value = raw.lower() == "true"
        else:
            try:
                value = int(raw)
            except ValueError:
                try:
                    value = float(raw)
                except ValueError:
                    value = raw
        fields[key] = value
    return fields


def _build(args: argparse.Namespace) -> HumanGame:
    import agents as agents_mod  # lazy: 'deduce --help' starts without loading the agents
    import deduce
    import solvers
    from deduce.play import seeds_for
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
    deal_seed, *agent_seeds = seeds_for(args.seed, n + 1)
    agents: dict[int, Any] = {}
    for seat, name in zip(others, names, strict=True):
        agent = agents_mod.get(name, game=game.name)
        agent.reset(game, seat, agent_seeds[seat])
        agents[seat] = agent
    solver = solvers.get("auto")
    return HumanGame(game, agents, args.seat, deal_seed, solver)


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
