"""The table-side assistant's Checkpoint Charlie part: the event lines, their wording and the advice.

Lines (names may be shortened to any unambiguous prefix; 'me' is you). A cat is five letters,
one per feature in the order ears, eyes, fur, clothes, hands: ``b``/``h`` (bare ears, hat),
``b``/``g`` (bare eyes, glasses), ``g``/``o`` (grey, orange), ``s``/``c`` (sweater, coat),
``n``/``e`` (newspaper, empty-handed); so ``hgocn`` is a hat, glasses, orange, coat and
newspaper cat. Its five face names work too.

* ``round WHO``: a new round, WHO flips first.
* ``side WHO [FACE]``: WHO hid a clue token (FACE: the face you put up, for your own).
* ``flip WHO CAT kept|gone``: WHO flipped CAT and kept it, or discarded it.
* ``hound WHO FACE``: WHO flipped a hound; a bag token was tossed and landed FACE up.
* ``arrest WHO CAT``: WHO put a badge on a face-up cat.

Under the grid (clue-token faces x who has them up): the chief's likeliest cats and the
face-up cat most likely to be the chief, with that probability (exact).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from deduce.apps.assist.session import GameAdapter, GameAssistant, Marginals
from deduce.apps.assist.text import match_name, read_names, view_event_text, view_phrase
from deduce.errors import DeduceError, NotSupported
from deduce.explain import Phrase
from deduce.games.base import Game, Observation
from deduce.games.checkpoint_charlie.log import CAT_NAMES, parse
from deduce.games.checkpoint_charlie.rules import (
    DOWN,
    NUM_FEATURES,
    SIDE_NAMES,
    CheckpointCharlieObservation,
    cat_sides,
    chief_from_down,
)

__all__ = ["CheckpointCharlieAdapter", "ADAPTER", "cat_code", "chief_odds"]

_KEPT = {"kept", "keep", "k", "yes", "y"}
_GONE = {"gone", "discard", "discarded", "d", "no", "n", "x"}
#: the letter of each side of each feature in a cat code.
_LETTERS: tuple[tuple[str, str], ...] = (("b", "h"), ("b", "g"), ("g", "o"), ("s", "c"), ("n", "e"))
_FACE_NAMES = [SIDE_NAMES[f][s] for f in range(NUM_FEATURES) for s in range(2)]


def cat_code(cat: int) -> str:
    """A cat's five-letter code ("hgocn")."""
    return "".join(_LETTERS[f][s] for f, s in enumerate(cat_sides(cat)))


def _cat_text(cat: int) -> str:
    return f"{cat_code(cat)} ({CAT_NAMES[cat]})"


def chief_odds(solver: Any, kb: Any) -> dict[int, float]:
    """P(chief = cat) for every possible cat, from the exact counts of the faces left down."""
    counts = solver.solution_counts(kb, DOWN)
    total = sum(counts.values())
    odds: dict[int, float] = {}
    for faces, count in counts.items():
        chief = chief_from_down(faces)
        odds[chief] = odds.get(chief, 0.0) + count / total
    return odds


def _read_cat(tokens: list[str]) -> int:
    """A cat from its code ("hgocn") or its five face names (prefixes will do)."""
    if len(tokens) == 1 and len(tokens[0]) == NUM_FEATURES:
        code = tokens[0].lower()
        sides = []
        for f, letter in enumerate(code):
            if letter not in _LETTERS[f]:
                raise DeduceError(
                    f"cat code {tokens[0]!r}: letter {f + 1} is {_LETTERS[f][0]!r} or {_LETTERS[f][1]!r}, not {letter!r}"
                )
            sides.append(_LETTERS[f].index(letter))
        return sum(s << f for f, s in enumerate(sides))
    faces = read_names(tokens, _FACE_NAMES, "face")
    features = sorted(_FACE_NAMES.index(n) // 2 for n in faces)
    if features != list(range(NUM_FEATURES)):
        raise DeduceError("a cat is five letters like 'hgocn', or one face of each feature")
    return sum((_FACE_NAMES.index(n) % 2) << (_FACE_NAMES.index(n) // 2) for n in faces)


class CheckpointCharlieAdapter(GameAdapter):
    """Checkpoint Charlie at a real table: hidden clue tokens, flipped cats, hounds and arrests."""

    game: ClassVar[str] = "checkpoint-charlie"
    help: ClassVar[str] = """\
events (names may be shortened to any unambiguous prefix; 'me' is you; a cat is five letters,
ears b/h, eyes b/g, fur g/o, clothes s/c, hands n/e, e.g. 'hgocn'):
  round WHO                 a new round; WHO flips first
  side WHO [FACE]           WHO hid a clue token (FACE: the face you put up, for yours)
  flip WHO CAT kept|gone    WHO flipped CAT and kept it, or discarded it
  hound WHO FACE            WHO flipped a hound; the tossed bag token landed FACE up
  arrest WHO CAT            WHO arrested a face-up cat"""
    rules: ClassVar[str] = "one token face up per investigator and the tokens in the bag"
    words: ClassVar[tuple[str, ...]] = ("round", "side", "flip", "hound", "arrest", "kept", "gone")
    seats: ClassVar[tuple[int, int]] = (3, 5)
    places: ClassVar[Mapping[str, str]] = {"bag": "the bag", "revealed": "the tossed tokens", "down": "face down"}

    def parse(self, log: Mapping[str, Any]) -> tuple[Game, Observation]:
        return parse(log)

    def steps(self, me: str | None) -> tuple[str, ...]:
        # a seated player knows its own clue token from the start: ask for it with the rest
        return ("starter",) + (("clue",) if me is not None else ())

    def prompt(self, step: str, players: list[str], me: str | None) -> str:
        if step == "clue":
            return "your clue token: the face you put up (e.g. hat, grey, coat; enter: not drawn yet)?"
        return f"who flips first in round 1 [{players[0]}]?"

    def answer(self, step: str, line: str, players: list[str], me: str | None) -> Any:
        if step == "clue":
            return match_name(line, _FACE_NAMES, "face") if line.strip() else None
        return players[0] if not line.strip() else match_name(line, players, "player")

    def new_log(self, players: list[str], me: str | None, answers: Mapping[str, Any]) -> dict[str, Any]:
        events: list[dict[str, Any]] = [{"type": "round", "starter": answers["starter"]}]
        if me is not None and answers.get("clue"):
            events.append({"type": "side", "player": me, "face": answers["clue"]})
        return {**self.header(players, me), "events": events}

    # -- lines -------------------------------------------------------------------------------
    def read(self, session: GameAssistant, word: str, rest: list[str]) -> list[dict[str, Any]] | None:
        obs = session.obs
        assert isinstance(obs, CheckpointCharlieObservation)
        if word not in ("round", "side", "flip", "hound", "arrest"):
            return None
        who, i = session.player(rest, 0)
        tail = rest[i:]
        if word == "round":
            if tail:
                raise DeduceError("usage: round WHO")
            return [{"type": "round", "starter": who}]
        if word == "side":
            event: dict[str, Any] = {"type": "side", "player": who}
            if tail:
                event["face"] = match_name(tail, _FACE_NAMES, "face")
            return [event]
        if word == "hound":
            if not tail:
                raise DeduceError("usage: hound WHO FACE")
            return [{"type": "hound", "player": who, "face": match_name(tail, _FACE_NAMES, "face")}]
        if word == "flip":
            if len(tail) < 2 or tail[-1].lower() not in _KEPT | _GONE:
                raise DeduceError("usage: flip WHO CAT kept|gone")
            cat = _read_cat(tail[:-1])
            return [{"type": "flip", "player": who, "cat": CAT_NAMES[cat], "kept": tail[-1].lower() in _KEPT}]
        if not tail:
            raise DeduceError("usage: arrest WHO CAT")
        cat = _read_cat(tail)
        rows = [p for p, kept in enumerate(obs.kept) if cat in kept]
        if not rows:
            raise DeduceError(f"cat {_cat_text(cat)} is not face up in any row")
        return [{"type": "arrest", "player": who, "cat": CAT_NAMES[cat], "row": session.names[rows[0]]}]

    def event_text(self, game: Game, obs: Observation, index: int) -> str:
        """The event in the game's own words (its text module, as ``deduce play`` says it)."""
        return view_event_text(game, obs, index)

    def phrase(self, game: Game, obs: Observation) -> Phrase | None:
        """``why``'s words: the game's text module, citing each event as it is said."""
        return view_phrase(game, obs)

    # -- advice ------------------------------------------------------------------------------
    def answer_lines(self, session: GameAssistant, marginals: Marginals) -> list[str]:
        obs = session.obs
        assert isinstance(obs, CheckpointCharlieObservation)
        try:
            odds = chief_odds(session.solver, session.kb)
        except NotSupported:
            return ["chief: cannot be counted with this solver"]
        ranked = sorted(odds.items(), key=lambda kv: (-kv[1], kv[0]))
        lines = [f"chief: {len(odds)} possible cat{'s' * (len(odds) != 1)}; most likely:"]
        lines += [f"  {100 * p:6.2f}%  {_cat_text(c)}" for c, p in ranked[:5]]
        arrested = {c for c in obs.arrests if c is not None}
        face_up = [(p, c) for p, kept in enumerate(obs.kept) for c in kept if c not in arrested]
        if obs.player is None:
            return lines
        if obs.arrests[obs.player] is not None:
            lines.append(f"arrest: you arrested {_cat_text(obs.arrests[obs.player])} this round")
        elif not face_up:
            lines.append("arrest: no cat is face up yet")
        else:
            row, cat = max(face_up, key=lambda rc: (odds.get(rc[1], 0.0), -rc[1]))
            p = odds.get(cat, 0.0)
            if p == 0.0:
                lines.append("arrest: wait - no face-up cat can be the chief")
            else:
                safe = "SAFE - certainly the chief" if p == 1.0 else f"the chief with probability {100 * p:.1f}% (exact)"
                lines.append(f"arrest: {_cat_text(cat)} in {session.names[row]}'s row - {safe}")
        return lines


#: the adapter ``deduce assist checkpoint-charlie`` uses (:func:`deduce.apps.assist.session.adapter_for`).
ADAPTER = CheckpointCharlieAdapter()
