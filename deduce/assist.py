"""The table-side assistant for Clue: a session that takes one typed line and returns text.

A person at a real table types events as they happen ("sug ann gr rope hall cy shown=hall");
after each one the session answers with the notebook grid, the envelope's likeliest contents, a
suggestion worth asking and whether an accusation is safe. The game so far is a Clue game log
(the format of ``deduce solve``); every accepted change is handed to ``save`` so the caller can
write it to disk. Bad input never changes the log: a mistyped line is refused with a one-line
error, and an event that contradicts the log is held back, naming the events it conflicts
with, until the user removes one of them (``undo N``) or moves on.

No I/O and no solver import: the caller passes a solver (``consistent``, ``tallies``,
``solution_counts``, ``possible``, ``core``) and a ``save`` callback; ``deduce assist`` does the
terminal and the file.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from deduce.cards import normalise_name
from deduce.errors import DeduceError, LogError, UnknownName
from deduce.explain import why as explain_why
from deduce.games.clue import (
    CLASSIC_ROOMS,
    CLASSIC_SUSPECTS,
    CLASSIC_WEAPONS,
    ENVELOPE,
    EXTRA,
    ClueConfig,
    ClueGame,
    ClueObservation,
)
from deduce.games.clue_log import parse
from deduce.games.clue_text import event_text, phraser
from deduce.knowledge import KnowledgeBase

__all__ = [
    "ClueAssistant",
    "Recommendation",
    "Recommender",
    "heuristic_recommendation",
    "match_name",
    "read_names",
    "render_grid",
    "HELP",
]

HELP = """\
events (names may be shortened to any unambiguous prefix; 'me' is you):
  sug BY SUSPECT WEAPON ROOM REFUTER|none [shown=CARD]   a suggestion and who refuted it
  acc BY SUSPECT WEAPON ROOM right|wrong                 an accusation
  has WHO CARD...       WHO holds these cards (WHO may be 'envelope')
  not WHO CARD...       WHO does not hold these cards
  hand WHO CARD...      WHO's whole hand
commands:
  grid                  the notebook again        events    the events so far, numbered
  why CARD              why a card must or cannot be somewhere
  undo [N]              remove the last event (or event N)   redo   put it back
  help                  this text                 quit      leave (the log is already saved)"""

_NONE_WORDS = {"none", "nobody", "noone", "-", "x", "no"}
_SPECTATOR_WORDS = {"spectator", "none", "nobody", "-", "watcher"}
_RIGHT = {"right", "correct", "yes", "true", "won", "win", "y"}
_WRONG = {"wrong", "incorrect", "no", "false", "lost", "n"}


# -- names ------------------------------------------------------------------------------------
def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[^0-9a-z]+", name.casefold()) if w]


def _matches(tokens: Sequence[str], name: str) -> bool:
    """Whether ``tokens`` abbreviate ``name``: a prefix of the whole name ("mrgr"), or prefixes
    of consecutive words of it ("gr" for Mr. Green, "lead pi" for Lead Pipe)."""
    joined = "".join(normalise_name(t) for t in tokens)
    if not joined:
        return False
    if normalise_name(name).startswith(joined):
        return True
    words = _words(name)
    toks = [normalise_name(t) for t in tokens]
    if any(not t for t in toks):
        return False
    for start in range(len(words) - len(toks) + 1):
        if all(words[start + i].startswith(t) for i, t in enumerate(toks)):
            return True
    return False


def match_name(text: str | Sequence[str], names: Sequence[str], what: str = "name") -> str:
    """The one name in ``names`` that ``text`` abbreviates (an exact match wins), or an error
    naming the input and the candidates."""
    tokens = text.split() if isinstance(text, str) else list(text)
    shown = " ".join(tokens)
    joined = "".join(normalise_name(t) for t in tokens)
    exact = [n for n in names if normalise_name(n) == joined and joined]
    if len(exact) == 1:
        return exact[0]
    found = [n for n in names if _matches(tokens, n)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise UnknownName(f"unknown {what} {shown!r}")
    raise DeduceError(f"{what} {shown!r} is ambiguous: it could be {', '.join(found)}")


def _take(tokens: Sequence[str], i: int, names: Sequence[str], what: str) -> tuple[str, int]:
    """Read one name starting at ``tokens[i]``; returns it and the index after it.

    The shortest span that names one thing wins, then extends over following tokens that
    still spell the same name ("lead pipe" is one card, "mrs white" needs both words).
    """
    first_error: DeduceError | None = None
    for k in range(1, min(4, len(tokens) - i) + 1):
        try:
            name = match_name(tokens[i : i + k], names, what)
        except DeduceError as exc:
            first_error = first_error or exc
            if isinstance(exc, UnknownName) and k == 1 and not _any_prefix(tokens[i], names):
                raise
            continue
        end = i + k
        while end < len(tokens):
            try:
                if match_name(tokens[i : end + 1], names, what) != name:
                    break
            except DeduceError:
                break
            end += 1
        return name, end
    assert first_error is not None
    raise first_error


def _any_prefix(token: str, names: Sequence[str]) -> bool:
    t = normalise_name(token)
    return bool(t) and any(any(w.startswith(t) for w in _words(n)) or normalise_name(n).startswith(t) for n in names)


def read_names(tokens: Sequence[str], names: Sequence[str], what: str, count: int | None = None) -> list[str]:
    """Read names until the tokens run out (or ``count`` are read)."""
    out: list[str] = []
    i = 0
    while i < len(tokens) and (count is None or len(out) < count):
        name, i = _take(tokens, i, names, what)
        out.append(name)
    return out


# -- recommendations --------------------------------------------------------------------------
@dataclass(frozen=True)
class Recommendation:
    """A suggestion worth asking: the three cards, its expected information, and how it was found."""

    cards: tuple[int, int, int]
    bits: float
    method: str


Recommender = Callable[[ClueGame, ClueObservation, KnowledgeBase, Any], "Recommendation | None"]


def heuristic_recommendation(
    game: ClueGame, obs: ClueObservation, kb: KnowledgeBase, tally: Any
) -> Recommendation | None:
    """The suggestion whose answer is most uncertain, from exact card marginals.

    The answer is who refutes first and which card they show; its entropy estimates the
    expected information. Cards are treated as independent and the refuter as choosing
    uniformly in proportion to the marginals, so the bits are an estimate, not exact.
    """
    me = obs.player
    if me is None or tally.total == 0:
        return None
    n = game.num_players
    m = np.asarray(tally.cells, dtype=float) / float(tally.total)  # [card, loc]
    s_ids, w_ids, r_ids = (np.asarray(c) for c in game.categories)
    order = [(me + k) % n for k in range(1, n)]
    shape = (len(s_ids), len(w_ids), len(r_ids))
    reach = np.ones(shape)  # probability nobody before q could refute
    entropy = np.zeros(shape)
    for q in order:
        a = m[s_ids, q][:, None, None]
        b = m[w_ids, q][None, :, None]
        c = m[r_ids, q][None, None, :]
        none = (1 - a) * (1 - b) * (1 - c)
        p_refute = reach * (1 - none)
        held = a + b + c
        for part in (a, b, c):
            share = np.divide(part, held, out=np.zeros(shape), where=held > 0) * np.ones(shape)
            p = p_refute * share
            entropy -= np.where(p > 0, p * np.log2(np.where(p > 0, p, 1)), 0.0)
        reach = reach * none
    entropy -= np.where(reach > 0, reach * np.log2(np.where(reach > 0, reach, 1)), 0.0)
    i, j, k = np.unravel_index(int(np.argmax(entropy)), shape)
    cards = (int(s_ids[i]), int(w_ids[j]), int(r_ids[k]))
    return Recommendation(cards, float(entropy[i, j, k]), "estimated from exact marginals; no infogain scorer installed")


# -- rendering --------------------------------------------------------------------------------
def _cell(count: int, total: int) -> str:
    if total == 0:
        return "!"
    if count == total:
        return "YES"
    if count == 0:
        return "-"
    pct = 100 * count / total
    return f"{pct:.0f}%" if pct >= 1 else "<1%"


def render_grid(kb: KnowledgeBase, tally: Any, mark: Sequence[int] = ()) -> str:
    """Card x location: YES (certain), - (impossible), or the probability; ``mark`` stars cards."""
    if tally.total == 0:
        return "no deal fits these events: they contradict each other"
    width = max(len(c.name) for c in kb.deck) + 2
    labels = ["env" if z == ENVELOPE else z for z in kb.locations]
    cols = [max(len(z), 4) for z in labels]
    lines = [" " * width + " ".join(z.rjust(w) for z, w in zip(labels, cols, strict=True))]
    category = None
    for card in kb.deck:
        if card.category != category:
            category = card.category
            lines.append(f"-- {category}")
        cells = [_cell(tally.cells[card.id][z], tally.total) for z in range(kb.num_locations)]
        label = ("*" if card.id in mark else " ") + card.name
        lines.append(label.ljust(width) + " ".join(c.rjust(w) for c, w in zip(cells, cols, strict=True)))
    return "\n".join(lines)


# -- the session ------------------------------------------------------------------------------
@dataclass
class _Pending:
    """An event held back because it contradicts the log; ``at`` is where it would go."""

    at: int
    event: dict[str, Any]
    conflicts: tuple[int, ...]


class ClueAssistant:
    """One table-side session: ``start()`` once, then ``handle(line)`` per typed line.

    ``log``: a saved game log to resume (raises :class:`LogError` if it cannot be read; a
    contradictory log is accepted and the conflict reported, so nothing is lost). ``setup``
    pre-fills setup answers: ``players``, ``deck`` (``{"suspect": [...], ...}``),
    ``hand_sizes``, ``me`` (a name, or ``None`` for a spectator), ``hand``.
    """

    def __init__(
        self,
        solver: Any,
        log: Mapping[str, Any] | None = None,
        save: Callable[[dict[str, Any]], None] | None = None,
        recommender: Recommender | None = None,
        setup: Mapping[str, Any] | None = None,
        top: int = 5,
    ) -> None:
        self.solver = solver
        self.save_fn = save
        self.recommender = recommender or heuristic_recommendation
        self.top = top
        self.done = False
        self.header: dict[str, Any] | None = None
        self.events: list[dict[str, Any]] = []
        self.redo_stack: list[tuple[int, dict[str, Any]]] = []
        self.pending: _Pending | None = None
        self.conflict: str | None = None
        self.game: ClueGame | None = None
        self.obs: ClueObservation | None = None
        self.kb: KnowledgeBase | None = None
        self._tally: Any = None
        self._answers: dict[str, Any] = dict(setup or {})
        self._step: str | None = None
        self._intro = ""
        self._rules_too = False
        self._save_warning = ""
        if log is not None:
            data = dict(log)
            events = data.pop("events", [])
            if not isinstance(events, list):
                raise LogError("log header: 'events' must be a list")
            self.header = data
            self.events = [dict(e) if isinstance(e, dict) else e for e in events]
            self._rebuild(self.events)  # raises LogError on unreadable logs
            self.conflict = self._conflict_text(self._conflicts(self.kb), None) if not self._consistent() else None
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
        if self._step is not None:
            return _SETUP_PROMPTS[self._step](self) + " "
        if self.pending is not None:
            return "undo which event (or press enter to drop the new one)? "
        return "> "

    def log(self) -> dict[str, Any]:
        """The game so far as a Clue game log (JSON-ready)."""
        assert self.header is not None
        return {**copy.deepcopy(self.header), "events": copy.deepcopy(self.events)}

    def start(self) -> str:
        """What to show before the first prompt."""
        if self._intro:
            return self._intro
        if self._step is not None:
            return "New Clue game. Answer a few questions (press enter to accept a [default])."
        out = [f"Resumed a game with {len(self.events)} events."]
        if self.conflict:
            out.append(self.conflict)
        out.append(self.status())
        return "\n".join(out)

    def handle(self, line: str) -> str:
        """Act on one typed line; never raises for bad input (the message says what was wrong)."""
        try:
            if self._step is not None:
                answer = self._setup(line.strip())
            else:
                answer = self._command(line.strip())
            if self._save_warning:
                answer = f"{answer}\n{self._save_warning}" if answer else self._save_warning
            return answer
        except DeduceError as exc:
            return f"error: {exc}"
        except Exception as exc:  # a bug must not cost the game so far; the log is untouched
            return f"internal error ({type(exc).__name__}: {exc}); the log is unchanged"

    # -- setup ------------------------------------------------------------------------------
    def _next_step(self) -> str | None:
        for step in ("players", "deck", "hand_sizes", "me", "hand"):
            if step == "hand" and self._answers.get("me") is None:
                continue
            if step not in self._answers:
                return step
        return None

    def _default_sizes(self) -> list[int]:
        players = self._answers["players"]
        deck = self._answers.get("deck") or _classic_deck()
        dealt = sum(len(v) for v in deck.values()) - 3
        base, rest = divmod(dealt, len(players))
        return [base + (1 if i < rest else 0) for i in range(len(players))]

    def _setup(self, line: str) -> str:
        step = self._step
        assert step is not None
        if line.lower() in ("quit", "exit"):
            self.done = True
            return "setup abandoned; nothing saved"
        if step == "players":
            names = [t for t in re.split(r"[,\s]+", line) if t]
            if len(names) < 3 or len(names) > 6:
                raise DeduceError(f"Clue needs 3 to 6 players in seat order, got {len(names)}: {line!r}")
            keys = [normalise_name(n) for n in names]
            if len(set(keys)) != len(keys) or not all(keys):
                raise DeduceError(f"player names must be distinct: {line!r}")
            if {"envelope", "extra", "me", "none"} & set(keys):
                raise DeduceError("'envelope', 'extra', 'me' and 'none' cannot be player names")
            self._answers["players"] = names
        elif step == "deck":
            self._answers["deck"] = _parse_deck(line) if line and line.lower() != "classic" else None
        elif step == "hand_sizes":
            if not line:
                self._answers["hand_sizes"] = self._default_sizes()
            else:
                try:
                    sizes = [int(t) for t in re.split(r"[,\s]+", line) if t]
                except ValueError:
                    raise DeduceError(f"hand sizes must be numbers, got {line!r}") from None
                if len(sizes) != len(self._answers["players"]) or min(sizes) < 0:
                    raise DeduceError(f"give one hand size per player ({len(self._answers['players'])}), got {line!r}")
                dealt = sum(self._default_sizes())
                if sum(sizes) > dealt:
                    raise DeduceError(f"hand sizes {line!r} add up to {sum(sizes)}, but only {dealt} cards are dealt")
                self._answers["hand_sizes"] = sizes
        elif step == "me":
            if not line:
                raise DeduceError("type your name, or 'spectator' if you hold no cards")
            if line.lower() in _SPECTATOR_WORDS:
                self._answers["me"] = None
            else:
                self._answers["me"] = match_name(line, self._answers["players"], "player")
        elif step == "hand":
            self._answers["hand"] = line
        self._step = self._next_step()
        if self._step is not None:
            return ""
        return self._finish_setup()

    def _finish_setup(self) -> str:
        a = self._answers
        header: dict[str, Any] = {"game": "clue", "players": list(a["players"])}
        if a.get("deck"):
            header["deck"] = {k: list(v) for k, v in a["deck"].items()}
        header["hand_sizes"] = list(a.get("hand_sizes") or self._default_sizes())
        if a.get("me") is not None:
            header["me"] = a["me"]
        self.header = header
        try:
            self._rebuild([])
        except DeduceError as exc:
            self.header = None
            for key in ("hand_sizes", "me", "hand"):
                self._answers.pop(key, None)
            self._step = self._next_step()
            return f"error: {exc}; please give the hand sizes again"
        events: list[dict[str, Any]] = []
        if a.get("me") is not None:
            hand_text = a.get("hand")
            if hand_text:
                assert self.game is not None
                tokens = _tokens(hand_text) if isinstance(hand_text, str) else list(hand_text)
                try:
                    cards = read_names(tokens, [c.name for c in self.game.deck], "card")
                    events.append({"type": "hand", "player": a["me"], "cards": cards})
                    self._rebuild(events)
                except DeduceError as exc:
                    del self._answers["hand"]
                    self._step = "hand"
                    self.header = None
                    return "error: your hand: " + re.sub(r"^event \d+ \(.*?\): ", "", str(exc))
        self.events = events
        self._rebuild(self.events)
        self._saved()
        return "Ready. Type events as they happen ('help' lists them).\n" + self.status()

    # -- commands ---------------------------------------------------------------------------
    def _command(self, line: str) -> str:
        pending = self.pending
        self.pending = None
        tokens = _tokens(line)
        if not tokens:
            if pending is not None:
                return "dropped the new event; the log is unchanged"
            return ""
        word = tokens[0].lower()
        if pending is not None and word.isdigit():
            tokens = ["undo", *tokens]
            word = "undo"
        note = ""
        if pending is not None and word != "undo":
            note = "(dropped the held-back event)\n"
        if word in ("help", "h", "?"):
            return note + HELP
        if word in ("quit", "exit", "q"):
            self.done = True
            return note + "bye; the game is saved"
        if word in ("grid", "show", "notebook", "status"):
            return note + self.status()
        if word in ("events", "log", "list"):
            return note + self.list_events()
        if word == "why":
            return note + self.why(tokens[1:])
        if word == "undo":
            return self._undo(tokens[1:], pending)
        if word == "redo":
            return note + self._redo()
        event = self._parse_event(word, tokens[1:])
        if event is None:
            raise DeduceError(f"unknown command {tokens[0]!r}; type 'help' for the list")
        return note + self._add(event, len(self.events))

    def _parse_event(self, word: str, rest: list[str]) -> dict[str, Any] | None:
        assert self.game is not None
        players = list(self.game.config.names)
        cards = [c.name for c in self.game.deck]
        if word in ("sug", "suggest", "suggestion", "s"):
            if not rest:
                raise DeduceError("usage: sug BY SUSPECT WEAPON ROOM REFUTER|none [shown=CARD]")
            by, i = self._player(rest, 0)
            shown_at = next((j for j, t in enumerate(rest) if t.lower().startswith(("shown", "show="))), None)
            shown_tokens: list[str] = []
            body = rest
            if shown_at is not None:
                tok = rest[shown_at]
                value = tok.split("=", 1)[1] if "=" in tok else ""
                shown_tokens = ([value] if value else []) + rest[shown_at + 1 :]
                body = rest[:shown_at]
            triple: list[str] = []
            while len(triple) < 3:
                if i >= len(body):
                    raise DeduceError(f"a suggestion names a suspect, a weapon and a room; got {len(triple)} card(s)")
                name, i = _take(body, i, cards, "card")
                triple.append(name)
            refuted_tokens = body[i:]
            if not refuted_tokens:
                raise DeduceError("who refuted? end the suggestion with a player's name or 'none'")
            if len(refuted_tokens) == 1 and refuted_tokens[0].lower() in _NONE_WORDS:
                refuted: Any = None
            else:
                names = [self._me_alias(t) for t in refuted_tokens]
                refs = read_names(names, players, "player")
                refuted = refs[0] if len(refs) == 1 else refs
            event: dict[str, Any] = {"type": "suggestion", "by": by, "cards": triple, "refuted_by": refuted}
            if shown_tokens:
                shown = read_names(shown_tokens, cards, "card")
                if len(shown) != 1:
                    raise DeduceError(f"shown= takes one card, got {', '.join(shown)}")
                event["shown"] = shown[0]
            return event
        if word in ("acc", "accuse", "accusation", "a"):
            by, i = self._player(rest, 0)
            if not rest[i:]:
                raise DeduceError("usage: acc BY SUSPECT WEAPON ROOM right|wrong")
            verdict = rest[-1].lower()
            if verdict in _RIGHT:
                correct = True
            elif verdict in _WRONG:
                correct = False
            else:
                raise DeduceError(f"end an accusation with 'right' or 'wrong', not {rest[-1]!r}")
            triple = read_names(rest[i:-1], cards, "card")
            if len(triple) != 3:
                raise DeduceError(f"an accusation names a suspect, a weapon and a room; got {len(triple)} card(s)")
            return {"type": "accusation", "by": by, "cards": triple, "correct": correct}
        if word in ("has", "holds", "at", "not", "hasnt", "lacks", "notat"):
            kind = "card_at" if word in ("has", "holds", "at") else "card_not_at"
            if not rest:
                raise DeduceError(f"usage: {word} WHO CARD...")
            where, i = self._location(rest)
            named = read_names(rest[i:], cards, "card")
            if not named:
                raise DeduceError(f"usage: {word} WHO CARD... (which card?)")
            return {"type": kind, "cards": named, "at": where}
        if word == "hand":
            who, i = self._player(rest, 0)
            return {"type": "hand", "player": who, "cards": read_names(rest[i:], cards, "card")}
        return None

    def _me_alias(self, token: str) -> str:
        assert self.game is not None
        if token.lower() in ("me", "i", "myself") and self.obs is not None and self.obs.player is not None:
            return self.game.config.names[self.obs.player]
        return token

    def _player(self, tokens: list[str], i: int) -> tuple[str, int]:
        assert self.game is not None
        if i >= len(tokens):
            raise DeduceError("which player?")
        tokens = [*tokens[:i], self._me_alias(tokens[i]), *tokens[i + 1 :]]
        return _take(tokens, i, list(self.game.config.names), "player")

    def _location(self, tokens: list[str]) -> tuple[str, int]:
        word = normalise_name(tokens[0])
        if word and ENVELOPE.startswith(word) and len(word) >= 3:
            return ENVELOPE, 1
        if word and word in ("extra", "pile", "leftover"):
            return EXTRA, 1
        return self._player(tokens, 0)

    # -- changes ----------------------------------------------------------------------------
    def _add(self, event: dict[str, Any], at: int) -> str:
        """Insert ``event`` (a ``cards`` list in has/not expands to one event per card)."""
        new = _expand(event)
        trial = self.events[:at] + new + self.events[at:]
        self._check_readable(trial, at)
        kb = self._kb_for(trial)
        if not self.solver.consistent(kb):
            ours = set(range(at, at + len(new)))
            conflicts = tuple(i for i in self._conflicts(kb) if i not in ours)
            shifted = tuple(i if i < at else i - len(new) for i in conflicts)
            self.pending = _Pending(at, event, shifted)
            return self._conflict_text(shifted, event)
        self.events = trial
        self.redo_stack.clear()
        self._rebuild(self.events)
        self.conflict = None
        self._saved()
        added = "\n".join(self._event_line(i) for i in range(at, at + len(new)))
        return added + "\n" + self.status()

    def _check_readable(self, events: list[dict[str, Any]], at: int) -> None:
        """Parse the log with the new events; a reading error names the input, not an index."""
        assert self.header is not None
        try:
            parse({**self.header, "events": events})
        except LogError as exc:
            message = str(exc)
            message = re.sub(r"^event \d+ \(.*?\): ", "", message)
            me = self.header.get("me")
            message = message.replace("'me' is neither", f"you ({me}) are neither" if me else "you are a spectator")
            raise DeduceError(f"not added: {message}") from None

    def _undo(self, args: list[str], pending: _Pending | None) -> str:
        if not self.events:
            return "nothing to undo"
        if args:
            try:
                index = int(args[0])
            except ValueError:
                raise DeduceError(f"undo takes an event number, not {args[0]!r}") from None
            if not 0 <= index < len(self.events):
                raise DeduceError(f"there is no event {index}; events are numbered 0 to {len(self.events) - 1}")
        else:
            index = len(self.events) - 1
        removed = self.events[index]
        text = f"removed event {index}: {self._event_line(index, number=False)}"
        self.events = self.events[:index] + self.events[index + 1 :]
        self.redo_stack.append((index, removed))
        self._rebuild(self.events)
        self.conflict = None if self._consistent() else self._conflict_text(self._conflicts(self.kb), None)
        self._saved()
        if pending is not None:
            at = pending.at - (1 if index < pending.at else 0)
            return text + "\n" + self._add(pending.event, at)
        return text + "\n" + (self.conflict + "\n" if self.conflict else "") + self.status()

    def _redo(self) -> str:
        if not self.redo_stack:
            return "nothing to redo"
        index, event = self.redo_stack.pop()
        index = min(index, len(self.events))
        stack = list(self.redo_stack)
        text = self._add(event, index)
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
            self._save_warning = ""
        except Exception as exc:
            self._save_warning = f"warning: could not save the game ({type(exc).__name__}: {exc}); it is kept in memory"

    # -- knowledge --------------------------------------------------------------------------
    def _kb_for(self, events: list[dict[str, Any]]) -> KnowledgeBase:
        assert self.header is not None
        game, obs = parse({**self.header, "events": events})
        kb = game.knowledge(obs, check=False)
        return kb

    def _rebuild(self, events: list[dict[str, Any]]) -> None:
        assert self.header is not None
        self.game, self.obs = parse({**self.header, "events": events})
        self.kb = self.game.knowledge(self.obs, check=False)
        self._tally = None

    def _consistent(self) -> bool:
        assert self.kb is not None
        return bool(self.solver.consistent(self.kb))

    def _conflicts(self, kb: KnowledgeBase | None) -> tuple[int, ...]:
        """The events in an unsatisfiable core of ``kb`` (``self._rules_too``: rules are in it)."""
        assert kb is not None
        self._rules_too = False
        core_fn = getattr(self.solver, "core", None)
        if core_fn is None:
            return ()
        found: set[int] = set()
        for i in core_fn(kb):
            match = re.fullmatch(r"event (\d+)", kb.sources[i] or "")
            if match:
                found.add(int(match.group(1)))
            elif kb.sources[i] == "rules":
                self._rules_too = True
        return tuple(sorted(found))

    def _conflict_text(self, conflicts: Sequence[int], event: dict[str, Any] | None) -> str:
        if event is None:
            if not conflicts:
                return "the log contradicts itself; undo events until it does not"
            listed = "; ".join(f"event {i}: {self._event_line(i, number=False)}" for i in conflicts)
            return f"the log contradicts itself: {listed}. Type 'undo N' to remove one of them."
        if not conflicts:
            return "not added: this contradicts the rules (hand sizes, one card of each kind in the envelope)"
        listed = "; ".join(f"event {i} ({self._event_line(i, number=False)})" for i in conflicts)
        if self._rules_too:
            listed += " given the hand sizes and one card of each kind in the envelope"
        others = f" (or another of {', '.join(map(str, conflicts))})" if len(conflicts) > 1 else ""
        return (
            f"not added: this contradicts {listed}.\n"
            f"Type 'undo {conflicts[-1]}'{others} to remove that event and add the new one instead, "
            "or press enter to drop the new one."
        )

    def _event_line(self, i: int, number: bool = True) -> str:
        assert self.game is not None and self.obs is not None
        try:
            game, obs = parse({**(self.header or {}), "events": self.events[: i + 1]})
            text = event_text(game, obs.events[i])
        except (DeduceError, IndexError):
            text = str(self.events[i])
        return f"event {i}: {text}" if number else text

    def tally(self) -> Any:
        if self._tally is None:
            assert self.kb is not None
            self._tally = self.solver.tallies(self.kb)
        return self._tally

    # -- answers ----------------------------------------------------------------------------
    def list_events(self) -> str:
        if not self.events:
            return "no events yet"
        assert self.game is not None and self.obs is not None
        return "\n".join(f"{i:>3}  {event_text(self.game, e)}" for i, e in enumerate(self.obs.events))

    def why(self, tokens: list[str]) -> str:
        assert self.game is not None and self.kb is not None and self.obs is not None
        if not tokens:
            raise DeduceError("usage: why CARD")
        name = match_name(tokens, [c.name for c in self.game.deck], "card")
        card = self.game.deck.card(name).id
        return explain_why(self.kb, card, self.solver, phraser(self.game, self.obs.events))

    def status(self) -> str:
        """The grid, the envelope's top candidates, a suggestion and whether to accuse."""
        assert self.game is not None and self.kb is not None and self.obs is not None
        tally = self.tally()
        kb = self.kb
        lines = [render_grid(kb, tally, self.obs.hand)]
        if tally.total == 0:
            return "\n".join(lines)
        counts = self.solver.solution_counts(kb, ENVELOPE)
        total = sum(counts.values())
        ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
        lines.append(f"envelope: {len(counts)} possible answer{'s' if len(counts) != 1 else ''}; most likely:")
        for cards, count in ranked[: self.top]:
            lines.append(f"  {100 * count / total:6.2f}%  {', '.join(kb.deck.names(cards))}")
        best_cards, best = ranked[0]
        if best == total:
            lines.append(f"accuse: SAFE - it is certainly {', '.join(kb.deck.names(best_cards))}")
        else:
            lines.append(f"accuse: not safe yet (the likeliest answer is right {100 * best / total:.1f}% of the time)")
        rec = self.recommender(self.game, self.obs, kb, tally) if self.obs.player is not None else None
        if rec is not None:
            lines.append(f"suggest: {', '.join(kb.deck.names(rec.cards))} - about {rec.bits:.2f} bits expected ({rec.method})")
        return "\n".join(lines)


# -- helpers ----------------------------------------------------------------------------------
def _tokens(line: str) -> list[str]:
    return [t for t in re.split(r"[,\s]+", line.strip()) if t]


def _expand(event: dict[str, Any]) -> list[dict[str, Any]]:
    """``has``/``not`` with several cards: one log event per card (the log format's shape)."""
    if event.get("type") in ("card_at", "card_not_at") and "cards" in event:
        return [{"type": event["type"], "card": c, "at": event["at"]} for c in event["cards"]]
    return [event]


def _classic_deck() -> dict[str, tuple[str, ...]]:
    return {"suspect": CLASSIC_SUSPECTS, "weapon": CLASSIC_WEAPONS, "room": CLASSIC_ROOMS}


def _parse_deck(line: str) -> dict[str, list[str]]:
    """``suspects: A, B; weapons: C, D; rooms: E, F`` into a deck mapping."""
    out: dict[str, list[str]] = {}
    for part in line.split(";"):
        if not part.strip():
            continue
        if ":" not in part:
            raise DeduceError(f"write the deck as 'suspects: A, B; weapons: C, D; rooms: E, F', not {line!r}")
        head, _, names = part.partition(":")
        key = normalise_name(head).rstrip("s")
        if key not in ("suspect", "weapon", "room"):
            raise DeduceError(f"unknown card category {head.strip()!r}: use suspects, weapons and rooms")
        out[key] = [n.strip() for n in names.split(",") if n.strip()]
    if set(out) != {"suspect", "weapon", "room"}:
        raise DeduceError("the deck needs suspects, weapons and rooms")
    try:
        ClueConfig(suspects=tuple(out["suspect"]), weapons=tuple(out["weapon"]), rooms=tuple(out["room"])).deck()
    except ValueError as exc:
        raise DeduceError(f"bad deck: {exc}") from None
    return out


def _prompt_players(a: ClueAssistant) -> str:
    return "players in seat order (3 to 6 names):"


def _prompt_deck(a: ClueAssistant) -> str:
    return "deck [classic] (or 'suspects: A, B; weapons: C, D; rooms: E, F'):"


def _prompt_sizes(a: ClueAssistant) -> str:
    return f"hand sizes in seat order [{' '.join(map(str, a._default_sizes()))}]:"


def _prompt_me(a: ClueAssistant) -> str:
    return f"which one are you ({', '.join(a._answers['players'])}, or 'spectator')?"


def _prompt_hand(a: ClueAssistant) -> str:
    players = a._answers["players"]
    me = a._answers["me"]
    sizes = a._answers.get("hand_sizes") or a._default_sizes()
    return f"your hand ({sizes[players.index(me)]} cards):"


_SETUP_PROMPTS: Mapping[str, Callable[[ClueAssistant], str]] = {
    "players": _prompt_players,
    "deck": _prompt_deck,
    "hand_sizes": _prompt_sizes,
    "me": _prompt_me,
    "hand": _prompt_hand,
}
