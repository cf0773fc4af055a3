"""The table-side assistant's Clue part: the setup, the event lines, their wording and the advice.

Setup asks the players, the deck (classic, or the user's own), the hand sizes, the user's seat
and hand. Lines (names may be shortened to any unambiguous prefix; 'me' is you):

* ``sug BY SUSPECT WEAPON ROOM REFUTER|none [shown=CARD]``: a suggestion and who refuted it.
* ``acc BY SUSPECT WEAPON ROOM right|wrong``: an accusation.
* ``has WHO CARD...`` / ``not WHO CARD...``: where cards are or are not (WHO may be 'envelope').
* ``hand WHO CARD...``: a whole hand.

Under the grid: the envelope's likeliest answers, whether an accusation is safe, and a
suggestion worth asking with its expected information (from the ``recommender`` the adapter
is built with; the default estimates it from the card marginals).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from deduce.apps.assist.session import SHARED_HELP, GameAdapter, GameAssistant, Marginals
from deduce.apps.assist.text import (
    Recommendation,
    Recommender,
    _take,
    heuristic_recommendation,
    read_names,
    view_event_text,
    view_phrase,
)
from deduce.cards import normalise_name
from deduce.errors import DeduceError, LogError, NotSupported
from deduce.explain import DEFAULT_PLACES, Phrase
from deduce.games.base import Game, Observation
from deduce.games.clue.log import parse
from deduce.games.clue.rules import (
    CLASSIC_ROOMS,
    CLASSIC_SUSPECTS,
    CLASSIC_WEAPONS,
    ENVELOPE,
    EXTRA,
    ClueConfig,
    ClueGame,
    ClueObservation,
)
from deduce.knowledge import KnowledgeBase

__all__ = ["ClueAdapter", "ClueAssistant", "ADAPTER", "HELP", "envelope_lines"]

_NONE_WORDS = {"none", "nobody", "noone", "-", "x", "no"}
_RIGHT = {"right", "correct", "yes", "true", "won", "win", "y"}
_WRONG = {"wrong", "incorrect", "no", "false", "lost", "n"}
_RESERVED = {"envelope", "extra", "me", "none"}


def envelope_lines(solver: Any, kb: KnowledgeBase, top: int = 5) -> list[str]:
    """The envelope's ``top`` likeliest answers with their probabilities, and whether accusing
    the likeliest is safe (it is the only answer left), from exact counts of the deals."""
    try:
        counts = solver.solution_counts(kb, ENVELOPE)
    except (NotSupported, NotImplementedError) as exc:
        return [f"envelope: its answers cannot be counted exactly ({exc or type(exc).__name__})"]
    total = sum(counts.values())
    if not total:
        return []
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    lines = [f"envelope: {len(counts)} possible answer{'s' if len(counts) != 1 else ''}; most likely:"]
    lines += [f"  {100 * count / total:6.2f}%  {', '.join(kb.deck.names(cards))}" for cards, count in ranked[:top]]
    best_cards, best = ranked[0]
    if best == total:
        lines.append(f"accuse: SAFE - it is certainly {', '.join(kb.deck.names(best_cards))}")
    else:
        lines.append(f"accuse: not safe yet (the likeliest answer is right {100 * best / total:.1f}% of the time)")
    return lines


class ClueAdapter(GameAdapter):
    """Clue at a real table: suggestions, accusations and cards seen.

    ``recommender`` scores the suggestion to ask (default: an estimate from the card marginals;
    ``deduce assist`` passes the exact expected-information scorer when it is installed);
    ``top``: how many envelope answers to list.
    """

    game: ClassVar[str] = "clue"
    help: ClassVar[str] = """\
events (names may be shortened to any unambiguous prefix; 'me' is you):
  sug BY SUSPECT WEAPON ROOM REFUTER|none [shown=CARD]   a suggestion and who refuted it
  acc BY SUSPECT WEAPON ROOM right|wrong                 an accusation
  has WHO CARD...       WHO holds these cards (WHO may be 'envelope')
  not WHO CARD...       WHO does not hold these cards
  hand WHO CARD...      WHO's whole hand"""
    rules: ClassVar[str] = "the hand sizes and one card of each kind in the envelope"
    words: ClassVar[tuple[str, ...]] = ("sug", "acc", "has", "not", "hand", "shown=", "none", "right", "wrong",
                                        "envelope", "classic")
    seats: ClassVar[tuple[int, int]] = (3, 6)
    places: ClassVar[Mapping[str, str]] = DEFAULT_PLACES
    first_steps: ClassVar[tuple[str, ...]] = ("deck", "hand_sizes")

    def __init__(self, recommender: Recommender | None = None, top: int = 5) -> None:
        self.recommender = recommender or heuristic_recommendation
        self.top = top

    def parse(self, log: Mapping[str, Any]) -> tuple[Game, Observation]:
        """The log's game and view; an error about the logging player names them as 'you'."""
        try:
            return parse(log)
        except LogError as exc:
            me = log.get("me")
            text = str(exc).replace("'me' is neither", f"you ({me}) are neither" if me else "you are a spectator")
            if text == str(exc):
                raise
            raise LogError(text, exc.index, exc.event) from None

    # -- setup -------------------------------------------------------------------------------
    def check_players(self, names: list[str]) -> None:
        keys = [normalise_name(n) for n in names]
        if len(set(keys)) != len(keys) or not all(keys):
            raise DeduceError(f"player names must be distinct: {' '.join(names)!r}")
        if _RESERVED & set(keys):
            raise DeduceError("'envelope', 'extra', 'me' and 'none' cannot be player names")
        super().check_players(names)

    def steps(self, me: str | None) -> tuple[str, ...]:
        return () if me is None else ("hand",)

    def ask(self, step: str, answers: Mapping[str, Any]) -> str:
        if step == "deck":
            return "deck [classic] (or 'suspects: A, B; weapons: C, D; rooms: E, F'):"
        if step == "hand_sizes":
            return f"hand sizes in seat order [{' '.join(map(str, _default_sizes(answers)))}]:"
        sizes = answers.get("hand_sizes") or _default_sizes(answers)
        return f"your hand ({sizes[answers['players'].index(answers['me'])]} cards):"

    def read_answer(self, step: str, line: str, answers: Mapping[str, Any]) -> Any:
        if step == "deck":
            return _parse_deck(line) if line and line.lower() != "classic" else None
        if step == "hand_sizes":
            sizes = _read_sizes(line, answers)
            try:
                parse(_header(answers["players"], None, {**answers, "hand_sizes": sizes}))
            except LogError as exc:
                raise DeduceError(f"hand sizes {line!r}: {exc}") from None
            if answers.get("hand") and answers.get("me") is not None:  # a hand given up front must fit
                try:
                    self._hand(answers["hand"], {**answers, "hand_sizes": sizes})
                except DeduceError as exc:
                    raise DeduceError(f"{exc}; give hand sizes that fit the hand you gave, or 'quit'") from None
            return sizes
        return self._hand(line, answers)

    def _hand(self, hand: str | Sequence[str], answers: Mapping[str, Any]) -> list[str]:
        """The user's hand read and checked against the deck and their hand size."""
        if not hand:
            return []
        me = answers["me"]
        log = _header(answers["players"], me, answers)
        try:
            game, _ = parse(log)
            tokens = [t for t in re.split(r"[,\s]+", hand) if t] if isinstance(hand, str) else list(hand)
            cards = read_names(tokens, [c.name for c in game.deck], "card")
            parse({**log, "events": [{"type": "hand", "player": me, "cards": cards}]})
        except DeduceError as exc:
            raise DeduceError("your hand: " + re.sub(r"^event \d+ \(.*?\): ", "", str(exc))) from None
        return cards

    def new_log(self, players: list[str], me: str | None, answers: Mapping[str, Any]) -> dict[str, Any]:
        log = _header(players, me, answers)
        hand = self._hand(answers.get("hand") or [], answers) if me is not None else []
        log["events"] = [{"type": "hand", "player": me, "cards": hand}] if hand else []
        return log

    # -- lines -------------------------------------------------------------------------------
    def read(self, session: GameAssistant, word: str, rest: list[str]) -> list[dict[str, Any]] | None:
        assert session.game is not None
        cards = [c.name for c in session.game.deck]  # type: ignore[attr-defined]
        if word in ("sug", "suggest", "suggestion", "s"):
            return [_suggestion(session, rest, cards)]
        if word in ("acc", "accuse", "accusation", "a"):
            by, i = session.player(rest, 0)
            if not rest[i:]:
                raise DeduceError("usage: acc BY SUSPECT WEAPON ROOM right|wrong")
            verdict = rest[-1].lower()
            if verdict not in _RIGHT | _WRONG:
                raise DeduceError(f"end an accusation with 'right' or 'wrong', not {rest[-1]!r}")
            triple = read_names(rest[i:-1], cards, "card")
            if len(triple) != 3:
                raise DeduceError(f"an accusation names a suspect, a weapon and a room; got {len(triple)} card(s)")
            return [{"type": "accusation", "by": by, "cards": triple, "correct": verdict in _RIGHT}]
        if word in ("has", "holds", "at", "not", "hasnt", "lacks", "notat"):
            kind = "card_at" if word in ("has", "holds", "at") else "card_not_at"
            if not rest:
                raise DeduceError(f"usage: {word} WHO CARD...")
            where, i = _location(session, rest)
            named = read_names(rest[i:], cards, "card")
            if not named:
                raise DeduceError(f"usage: {word} WHO CARD... (which card?)")
            return [{"type": kind, "card": c, "at": where} for c in named]
        if word == "hand":
            who, i = session.player(rest, 0)
            return [{"type": "hand", "player": who, "cards": read_names(rest[i:], cards, "card")}]
        return None

    def event_text(self, game: Game, obs: Observation, index: int) -> str:
        """The event in the game's own words (its text module, as ``deduce play`` says it)."""
        return view_event_text(game, obs, index)

    def phrase(self, game: Game, obs: Observation) -> Phrase | None:
        """``why``'s words: the game's text module, citing each event as it is said."""
        return view_phrase(game, obs)

    # -- advice ------------------------------------------------------------------------------
    def answer_lines(self, session: GameAssistant, marginals: Marginals) -> list[str]:
        game, obs, kb = session.game, session.obs, session.kb
        assert isinstance(game, ClueGame) and isinstance(obs, ClueObservation) and kb is not None
        lines = envelope_lines(session.solver, kb, self.top)
        rec = self.recommender(game, obs, kb, marginals) if obs.player is not None else None
        if rec is not None:
            lines.append(f"suggest: {', '.join(kb.deck.names(rec.cards))} - about {rec.bits:.2f} bits expected ({rec.method})")
        return lines


class ClueAssistant(GameAssistant):
    """The shared session with a :class:`ClueAdapter`: the name the Clue assistant had before
    every game shared one session (``recommender`` and ``top`` configure the adapter)."""

    def __init__(
        self,
        solver: Any,
        log: Mapping[str, Any] | None = None,
        save: Callable[[dict[str, Any]], None] | None = None,
        recommender: Callable[..., Recommendation | None] | None = None,
        setup: Mapping[str, Any] | None = None,
        top: int = 5,
    ) -> None:
        super().__init__(ClueAdapter(recommender, top), solver, log=log, save=save, setup=setup)


# -- helpers ----------------------------------------------------------------------------------
def _suggestion(session: GameAssistant, rest: list[str], cards: list[str]) -> dict[str, Any]:
    """``sug BY SUSPECT WEAPON ROOM REFUTER...|none [shown=CARD]`` as a log event."""
    if not rest:
        raise DeduceError("usage: sug BY SUSPECT WEAPON ROOM REFUTER|none [shown=CARD]")
    by, i = session.player(rest, 0)
    shown_at = next((j for j, t in enumerate(rest) if t.lower().startswith(("shown", "show="))), None)
    shown_tokens: list[str] = []
    body = rest
    if shown_at is not None:
        value = rest[shown_at].split("=", 1)[1] if "=" in rest[shown_at] else ""
        shown_tokens = ([value] if value else []) + rest[shown_at + 1 :]
        body = rest[:shown_at]
    triple: list[str] = []
    while len(triple) < 3:
        if i >= len(body):
            raise DeduceError(f"a suggestion names a suspect, a weapon and a room; got {len(triple)} card(s)")
        name, i = _take(body, i, cards, "card")
        triple.append(name)
    if i >= len(body):
        raise DeduceError("who refuted? end the suggestion with a player's name or 'none'")
    refuted: Any = None
    if not (len(body) == i + 1 and body[i].lower() in _NONE_WORDS):
        refs = []
        while i < len(body):
            name, i = session.player(body, i)
            refs.append(name)
        refuted = refs[0] if len(refs) == 1 else refs
    event: dict[str, Any] = {"type": "suggestion", "by": by, "cards": triple, "refuted_by": refuted}
    if shown_tokens:
        shown = read_names(shown_tokens, cards, "card")
        if len(shown) != 1:
            raise DeduceError(f"shown= takes one card, got {', '.join(shown)}")
        event["shown"] = shown[0]
    return event


def _location(session: GameAssistant, tokens: list[str]) -> tuple[str, int]:
    """A place ('envelope', 'extra') or a player at the start of ``tokens``."""
    word = normalise_name(tokens[0])
    if word and ENVELOPE.startswith(word) and len(word) >= 3:
        return ENVELOPE, 1
    if word in ("extra", "pile", "leftover"):
        return EXTRA, 1
    return session.player(tokens, 0)


def _deck(answers: Mapping[str, Any]) -> Mapping[str, Sequence[str]]:
    return answers.get("deck") or {"suspect": CLASSIC_SUSPECTS, "weapon": CLASSIC_WEAPONS, "room": CLASSIC_ROOMS}


def _default_sizes(answers: Mapping[str, Any]) -> list[int]:
    """The hand sizes of a deal of the whole deck but the envelope, earlier seats first."""
    players = answers["players"]
    dealt = sum(len(v) for v in _deck(answers).values()) - 3
    base, rest = divmod(dealt, len(players))
    return [base + (1 if i < rest else 0) for i in range(len(players))]


def _read_sizes(line: str, answers: Mapping[str, Any]) -> list[int]:
    """One hand size per player (enter: the even deal), adding up to no more than is dealt."""
    if not line:
        return _default_sizes(answers)
    try:
        sizes = [int(t) for t in re.split(r"[,\s]+", line) if t]
    except ValueError:
        raise DeduceError(f"hand sizes must be numbers, got {line!r}") from None
    players = answers["players"]
    if len(sizes) != len(players) or min(sizes) < 0:
        raise DeduceError(f"give one hand size per player ({len(players)}), got {line!r}")
    dealt = sum(_default_sizes(answers))
    if sum(sizes) > dealt:
        raise DeduceError(f"hand sizes {line!r} add up to {sum(sizes)}, but only {dealt} cards are dealt")
    return sizes


def _header(players: list[str], me: str | None, answers: Mapping[str, Any]) -> dict[str, Any]:
    """A Clue log header from the setup answers."""
    header: dict[str, Any] = {"game": "clue", "players": list(players)}
    if answers.get("deck"):
        header["deck"] = {k: list(v) for k, v in answers["deck"].items()}
    header["hand_sizes"] = list(answers.get("hand_sizes") or _default_sizes({**answers, "players": players}))
    if me is not None:
        header["me"] = me
    return {**header, "events": []}


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


#: the Clue adapter with the estimated recommender (:func:`deduce.apps.assist.session.adapter_for`); ``deduce assist
#: clue`` builds one with the exact scorer when it is installed.
ADAPTER = ClueAdapter()

#: the Clue session's help: its event lines, then the commands every game shares.
HELP = f"{ClueAdapter.help}\n{SHARED_HELP}"
