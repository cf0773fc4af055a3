"""A bounded fuzz of the table assistant for every game (issue 22): random lines, made of garbage
and of the game's own words, never crash a session (only the library's one-line errors) and a
refused line never changes the log nor saves it; a damaged log resumes or is refused with the
library's error, never another exception. Few examples per game, so it runs in CI; raise
``FUZZ_EXAMPLES`` for a long run."""

import copy
import json
import os

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from deduce.apps.assist.adapters import table_adapter
from deduce.apps.assist.session import GameAssistant
from deduce.apps.assist.text import ECHO_LIMIT
from deduce.errors import DeduceError
from tests.apps.assist.test_hardening import EXAMPLE, EXAMPLES
from tests.apps.assist.test_session import solver_for

EXAMPLES_PER_GAME = int(os.environ.get("FUZZ_EXAMPLES", "12"))

_LOGS = {game: json.loads((EXAMPLES / name).read_text()) for game, name in EXAMPLE.items()}
_PARTS: dict = {}


def parts(game):
    """The game's adapter and solver, built once per game."""
    if game not in _PARTS:
        _PARTS[game] = (table_adapter(game), solver_for(game))
    return _PARTS[game]


def vocabulary(game):
    """Words a line of ``game`` may hold: its event words, players, card names and the shared
    commands that change the log (the ones that only show things cost solver time, not coverage)."""
    adapter, solver = parts(game)
    session = GameAssistant(adapter, solver, log=_LOGS[game])
    words = [w for w in adapter.help.split() if w.isalpha()]
    cards = [w for c in session.game.deck for w in c.name.split()]  # type: ignore[attr-defined]
    return sorted({*words, *adapter.words, *session.names, *cards, "me", "undo", "redo", "spectator"})


_JUNK = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=12)
_NUMBERS = st.integers(-3, 10**6).map(str)


def lines(game):
    """A line of game words, numbers, separators and junk."""
    token = st.one_of(st.sampled_from(vocabulary(game)), _NUMBERS, _JUNK, st.sampled_from([",", ",,", "=", "/", "-"]))
    return st.lists(token, max_size=7).map(lambda ts: " ".join(ts)) | st.text(max_size=40) | st.just("q" * 5000)


@pytest.mark.parametrize("game", sorted(EXAMPLE))
def test_random_lines_never_crash_and_a_refused_line_changes_nothing(game):
    adapter, solver = parts(game)

    @settings(max_examples=EXAMPLES_PER_GAME, deadline=None, database=None)
    @given(st.lists(lines(game), min_size=1, max_size=3))
    def check(typed):
        saves = []
        session = GameAssistant(adapter, solver, log=copy.deepcopy(_LOGS[game]), save=saves.append)
        for line in typed:
            if line.strip().lower() in ("quit", "exit", "q"):
                continue
            before, saved = session.log(), len(saves)
            answer = session.handle(line)
            assert not answer.startswith("internal error"), (line, answer)
            if answer.startswith("error:"):
                assert session.log() == before and len(saves) == saved, line
                assert len(answer) < 20 * ECHO_LIMIT, answer[:300]

    check()


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 10**9) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=6,
)


@st.composite
def damaged(draw, game):
    """``game``'s example log with one thing changed: a field of an event or of the header set
    to any JSON value, a field removed, or an event added or dropped."""
    log = copy.deepcopy(_LOGS[game])
    events = log["events"]
    kind = draw(st.sampled_from(["event field", "drop field", "header", "new event", "drop event"]))
    if kind in ("event field", "drop field") and events:
        event = events[draw(st.integers(0, len(events) - 1))]
        key = draw(st.sampled_from(sorted(event)))
        if kind == "drop field":
            del event[key]
        else:
            event[key] = draw(_JSON)
    elif kind == "header":
        key = draw(st.sampled_from(sorted(k for k in log if k not in ("game", "events"))))
        log[key] = draw(_JSON)
    elif kind == "new event":
        new = draw(st.dictionaries(st.sampled_from(["type", "player", "by", "card", "cards", "at"]), _JSON, max_size=4))
        events.insert(draw(st.integers(0, len(events))), new)
    elif events:
        del events[draw(st.integers(0, len(events) - 1))]
    return log


@pytest.mark.parametrize("game", sorted(EXAMPLE))
def test_a_damaged_log_resumes_or_is_refused_with_the_library_error(game):
    adapter, solver = parts(game)

    @settings(max_examples=EXAMPLES_PER_GAME, deadline=None, database=None)
    @given(damaged(game))
    def check(log):
        try:
            session = GameAssistant(adapter, solver, log=log)
        except DeduceError as exc:
            assert "\n" not in str(exc) and len(str(exc)) < 2000
            return
        assert session.handle(",,,").startswith("error:")  # a resumed session reads lines

    check()
