"""``deduce assist mafia-code`` driven end to end through its own input and output streams."""


import solvers
from deduce.apps.assist.session import GameAssistant, adapter_for
from deduce.errors import TooLarge
from deduce.logs import export_log, load_log
from tests.apps.assist.test_session import (
    assert_refused,
    last_status,
    played,
    saved,
)
from tests.apps.assist.test_session import session as run_session

HAND = "red a, red b, yel c, gre d, gre e, blu c, blue e, pur f, whi a, whi b"
HAND_NAMES = ["red A", "red B", "yellow C", "green D", "green E", "blue C", "blue E", "purple F", "white A", "white B"]
SETUP = ["ann, bob, cy", "ann", HAND]


def session(tmp_path, lines, *extra, name="game.json"):
    """Run one mafia-code session on ``lines``; returns (exit code, transcript, log path)."""
    return run_session(tmp_path, "mafia-code", lines, *extra, name=name)


def grid_of(text):
    """The last grid and answer in a transcript."""
    return last_status(text, "       ann", "guess:")


def test_setup_events_contradiction_undo_redo_and_resume(tmp_path):
    lines = SETUP + [
        "code ann red b 3 2 4",      # the opening round: everyone's count, in seat order
        "code bob whi d 2",          # a turn: bob alone writes
        "hit bob cy red c",
        "miss bob me yel a",         # 'me' is ann
        "code cy red c 0",           # contradicts event 3: cy holds red C
        "3",                         # undo event 3 and add the new one instead
        "events",
        "undo",
        "redo",
        "why red c",
        "quit",
    ]
    code, out, path = session(tmp_path, lines)
    assert code == 0 and "Traceback" not in out
    assert "your hand (10 cards" in out
    assert "event 1: ann rolled opening code red/B; written: ann 3, bob 2, cy 4" in out
    assert "event 2: bob rolled white/D; written: bob 2" in out
    assert "event 3: bob guessed cy holds red C: a hit, the card is revealed" in out
    assert "event 4: bob guessed ann holds yellow A: a miss, crossed off" in out
    assert "cy: 1 revealed; 9 more among" in out
    # the contradiction names the earlier event and offers to undo it
    assert "not added: this contradicts event 3 (bob guessed cy holds red C: a hit, the card is revealed)" in out
    assert "Type 'undo 3' to remove that event and add the new one instead" in out
    assert "removed event 3: bob guessed cy holds red C: a hit, the card is revealed" in out
    assert "event 4: cy rolled red/C; written: cy 0" in out
    assert "  3  bob guessed ann holds yellow A: a miss, crossed off\n  4  cy rolled red/C; written: cy 0" in out
    # undo then redo puts the last event back
    assert "removed event 4: cy rolled red/C; written: cy 0" in out
    assert "\n> redo\nevent 4: cy rolled red/C; written: cy 0\n" in out
    # with the hit gone and cy's zero for red C, red C is nobody's but bob's or the box's
    assert "red C may still be with bob, or in the box." in out
    assert "red C is not cy's: cy holds none of {red A, red B, red C" in out
    log = saved(path)
    assert [e["type"] for e in log["events"]] == ["hand", "code", "code", "guess", "code"]
    assert log["events"][4] == {"type": "code", "roller": "cy", "colour": "red", "letter": "C", "counts": {"cy": 0}}
    assert log["me"] == "ann" and log["game"] == "mafia-code"
    load_log(path, check=solvers.get("cpsat"))  # the saved log is a valid, consistent game log
    assert not list(tmp_path.glob(".*.tmp"))
    before = grid_of(out)

    # resume: the same state, and new events go on from it
    code, out2, _ = session(tmp_path, ["grid", "hit ann cy blue a", "quit"])
    assert code == 0
    assert f"resuming {path}" in out2 and "Resumed a game with 5 events." in out2
    assert grid_of(out2[: out2.index("> hit")]) == before
    assert "event 5: ann guessed cy holds blue A: a hit, the card is revealed" in out2
    assert len(saved(path)["events"]) == 6


def test_bad_input_never_changes_the_log(tmp_path):
    code, _, path = session(tmp_path, SETUP + ["code ann red b 3 2 4", "hit bob cy red c", "quit"])
    before = path.read_text()
    bad = {
        "code ann red b": "usage: code WHO COLOUR LETTER N",
        "code ann pink b 3": "unknown colour 'pink'",
        "code ann red b 3 1": "give the roller's count, or one count per player (3); got 2",
        "code ann red b 2": "ann already wrote 3 for red B at event 1",
        "code bob red d 11": "bob's count must be a whole number from 0 to 10",
        "hit ann ann red d": "a player cannot guess its own cards",
        "hit ann bob red": "'red' has no letter",
        "hit ann bob red c": "red C was already revealed by cy at event 2",
        "hit zed bob red d": "unknown player 'zed'",
        "guess ann bob red d maybe": "usage: guess BY TARGET CARD hit|miss",
        "frobnicate": "unknown command 'frobnicate'",
        "undo 99": "there is no event 99",
    }
    code, out, _ = session(tmp_path, [*bad, "hit cy bob red a", "", "quit"])
    assert code == 0 and "Traceback" not in out
    assert path.read_text() == before
    assert_refused(out, bad)
    assert "not added: this contradicts event 0 (ann's hand:" in out  # ann holds red A
    assert "dropped the new event; the log is unchanged" in out


def test_the_assistant_sees_what_the_engine_shows_the_player():
    game, state = played("mafia-code", 21, 8, num_players=3)
    obs = state.observation(1)
    solver = solvers.get("exact")
    a = GameAssistant(adapter_for("mafia-code"), solver, log=export_log(game, obs))
    assert a.marginals().exact
    truth = solver.tallies(game.knowledge(obs))
    assert (a.marginals().total, a.marginals().cells) == (truth.total, truth.cells)
    assert truth.total > 1
    assert "Resumed a game with" in a.start()


def test_a_certain_guess_is_safe_and_a_spectator_gets_no_guess():
    log = {"game": "mafia-code", "players": ["ann", "bob"], "colours": ["red", "blue"], "letters": ["A", "B"],
           "me": "ann", "events": [{"type": "hand", "player": "ann", "cards": ["red A"]},
                                   {"type": "code", "roller": "bob", "colour": "red", "letter": "B",
                                    "counts": {"bob": 0}}]}
    a = GameAssistant(adapter_for("mafia-code"), solvers.get("auto"), log=log)
    assert "guess: bob holds blue A - SAFE - certain hit" in a.start()
    spectator = GameAssistant(adapter_for("mafia-code"), solvers.get("auto"),
                              log={**log, "me": None, "events": log["events"][1:]})
    text = spectator.start()
    assert "bob: 0 revealed; certainly blue A; 0 more among 0 possible cards" in text and "guess:" not in text


class _NoCounting:
    """A solver that cannot count (as the exact counter on a spectator's 36-card game)."""

    def __init__(self):
        self.inner = solvers.get("cpsat")

    def tallies(self, kb):
        raise TooLarge("too many deals")

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_too_many_deals_are_shown_approximately_and_labelled():
    a = GameAssistant(adapter_for("mafia-code"), _NoCounting(),
                      setup={"players": ["ann", "bob", "cy"], "me": "ann", "hand": HAND_NAMES})
    text = a.start()
    assert "(approximate: too many deals to count" in text
    assert "(approximate)" in text and "(exact)" not in text
    assert "*red A     YES    -    -    -" in text
