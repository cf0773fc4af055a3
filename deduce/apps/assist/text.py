"""The table-side assistant's shared text helpers: reading names, the grid, suggestion estimates.

A person at a real table types abbreviated names ("gr" for Mr. Green, "lead pi" for Lead
Pipe); :func:`match_name` and :func:`read_names` read them, refusing unknown or ambiguous ones
with a message naming the input. :func:`render_grid` draws the notebook (card x location:
certain, impossible or the probability), and :func:`heuristic_recommendation` estimates the
Clue suggestion worth asking when no exact scorer is installed.

The session itself is :class:`deduce.apps.assist.session.GameAssistant`, with one adapter per game
(Clue's in :mod:`deduce.apps.assist.clue`).
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from deduce.cards import normalise_name
from deduce.errors import DeduceError, UnknownName
from deduce.games.clue.rules import ENVELOPE, ClueGame, ClueObservation, refute_order
from deduce.knowledge import KnowledgeBase

__all__ = [
    "count_text", "exact_digits",
    "cell_text",
    "Recommendation",
    "Recommender",
    "heuristic_recommendation",
    "match_name",
    "suggest",
    "unknown",
    "read_names",
    "render_grid",
    "short",
    "quiet_long_values",
    "view_event_text",
    "view_phrase",
]

#: how much of a typed value an error message echoes: a 40 KB line is not read back in full.
ECHO_LIMIT = 80


# -- the game's words -----------------------------------------------------------------------------
def _wording(game: Any) -> Any:
    from deduce.games.registry import game_info

    wording = game_info(game.name).wording
    if wording is None:
        raise DeduceError(f"{game.name} declares no wording module")
    return wording(game)


def view_event_text(game: Any, obs: Any, index: int) -> str:
    """Event ``index`` of a logged view in the game's own words (its ``text.py``, the words
    ``deduce play`` shows), every seat by its name as the lines that logged it say them
    ("ann suggested ..."), so the assistant and the terminal game word every event alike."""
    return str(_wording(game).event_text(game, obs.events[index], None))


def view_phrase(game: Any, obs: Any) -> Any:
    """The game's ``why`` hook for a logged view: constraints worded by its text module and
    each cited event in its words, seats by name as :func:`view_event_text` says them."""
    return _wording(game).phraser(game, obs.events, None)


# -- echoing input ------------------------------------------------------------------------------
def short(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` cut to ``limit`` characters, with an ellipsis and the full length when cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text)} characters)"


def quiet_long_values(message: str, line: str, limit: int = ECHO_LIMIT) -> str:
    """``message`` (an error about the typed ``line``) with every over-long piece of the line it
    echoes cut by :func:`short`, whoever worded the message (the session or a game's adapter)."""
    if len(message) <= limit:
        return message
    pieces = sorted({p for p in re.split(r"[,\s]+", line) if len(p) > limit}, key=len, reverse=True)
    for piece in (line.strip(), *pieces):
        if len(piece) > limit:
            message = message.replace(piece, short(piece, limit))
    # a piece the message quoted with escapes is not found above: no line stays longer than this
    most = 12 * limit
    return "\n".join(m if len(m) <= most else f"{m[:most]}... (cut)" for m in message.split("\n"))


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


def suggest(text: str, names: Sequence[str], count: int = 3) -> list[str]:
    """The names closest in spelling to ``text``, for a "did you mean" hint: difflib's ratio
    against the whole name or one of its words ("plumm" is close to Professor Plum)."""
    import difflib

    key = normalise_name(text)
    if not key or len(key) > 4 * max((len(n) for n in names), default=0):
        return []  # far longer than any name: no near miss, and no quadratic comparison

    def score(name: str) -> float:
        parts = [normalise_name(name), *(normalise_name(w) for w in _words(name))]
        return max(difflib.SequenceMatcher(None, key, p).ratio() for p in parts if p)

    scored = sorted(((score(n), i) for i, n in enumerate(names)), key=lambda si: (-si[0], si[1]))
    return [names[i] for s, i in scored[:count] if s >= 0.75]


def unknown(text: str, names: Sequence[str], what: str) -> UnknownName:
    """The error for a name that is not one of ``names``: the closest names as "did you mean",
    else the known names (when there are few enough to list)."""
    close = suggest(text, names)
    if close:
        hint = f"; did you mean {' or '.join(close)}?"
    elif len(names) <= 12:
        hint = f"; known {what}s: {', '.join(names)}"
    else:
        hint = ""
    return UnknownName(f"unknown {what} {short(text)!r}{hint}")


def match_name(text: str | Sequence[str], names: Sequence[str], what: str = "name", exact: bool = False) -> str:
    """The one name in ``names`` that ``text`` abbreviates (an exact match wins), or an error
    naming the input and the candidates ("did you mean ..." for a near miss). ``exact``: only
    the name itself will do (a game or an agent)."""
    tokens = text.split() if isinstance(text, str) else list(text)
    shown = " ".join(tokens)
    if exact:
        if shown in names:
            return shown
        raise unknown(shown, names, what)
    # a separator typed as a word ("Andy Anderson / Noon") is not part of any word
    tokens = [t for t in tokens if any(ch.isalnum() for ch in t)] or tokens
    joined = "".join(normalise_name(t) for t in tokens)
    exact_names = [n for n in names if normalise_name(n) == joined and joined]
    if len(exact_names) == 1:
        return exact_names[0]
    found = [n for n in names if _matches(tokens, n)]
    if len(found) == 1:
        return found[0]
    if not found:
        raise unknown(shown, names, what)
    raise DeduceError(f"{what} {short(shown)!r} is ambiguous: it could be {', '.join(found)}")


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
    # [card, loc]: int / int is exact even for counts past a float's range (float(total) is not)
    m = np.array([[int(v) / int(tally.total) for v in row] for row in tally.cells], dtype=float)
    s_ids, w_ids, r_ids = (np.asarray(c) for c in game.categories)
    order = refute_order(me, n)
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
#: counts with more digits than this are written in scientific form
EXACT_DIGITS = 30


def count_text(n: int) -> str:
    """A count of worlds as a person reads it: every digit up to :data:`EXACT_DIGITS`, else
    ``about 1.234e+5000`` (a log of 10,000 exchanges has more histories than Python will
    print as digits by default, and nobody reads 5,000 of them)."""
    if n < 10**EXACT_DIGITS:
        return str(n)
    e = int(n.bit_length() * 0.30102999566398120) - 1  # log10(2): within one of the exponent
    while 10 ** (e + 1) <= n:
        e += 1
    lead = n // 10 ** (e - 3)  # the first four digits
    return f"about {lead // 1000}.{lead % 1000:03d}e+{e}"


@contextlib.contextmanager
def exact_digits() -> Iterator[None]:
    """Lift Python's limit on converting long integers to digits (4,300 by default, a guard
    against parsing hostile input) while exact output is written: a count or a fraction we
    computed ourselves is safe to print in full. Input is still read with the limit on."""
    get = getattr(sys, "get_int_max_str_digits", None)
    if get is None:  # pragma: no cover - Python without the limit
        yield
        return
    before = get()
    sys.set_int_max_str_digits(0)
    try:
        yield
    finally:
        sys.set_int_max_str_digits(before)


def cell_text(count: int, total: int, fractions: bool = False) -> str:
    """One grid cell: YES when certain, - when impossible, else a percentage (or a fraction);
    ``!`` when nothing is consistent. Exact counts keep 'certain' and 'impossible' exact."""
    if total == 0:
        return "!"
    if count == total:
        return "YES"
    if count == 0:
        return "-"
    if fractions:
        return str(Fraction(count, total))
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
        cells = [cell_text(tally.cells[card.id][z], tally.total) for z in range(kb.num_locations)]
        label = ("*" if card.id in mark else " ") + card.name
        lines.append(label.ljust(width) + " ".join(c.rjust(w) for c, w in zip(cells, cols, strict=True)))
    return "\n".join(lines)
