"""``deduce assist crime-hotel`` driven end to end through its own input and output streams."""


import solvers
from deduce.apps.assist.session import GameAssistant, adapter_for
from deduce.logs import export_log, load_log
from tests.apps.assist.test_session import (
    assert_lines_refused,
    last_status,
    played,
    saved,
)
from tests.apps.assist.test_session import session as run_session

SETUP = ["ann, bob, cy, dee", "ann", "", "104 207", "101 105 203 206 302 309"]


def session(tmp_path, lines, *extra, name="game.json"):
    """Run one crime-hotel session on ``lines``; returns (exit code, transcript, log path)."""
    return run_session(tmp_path, "crime-hotel", lines, *extra, name=name)


def status_of(text):
    """The last grid and answer in a transcript."""
    return last_status(text, "  ann  bob   cy  dee", "deduce:")


def test_setup_events_contradiction_undo_redo_and_resume(tmp_path):
    lines = SETUP + [
        "play me 105",
        "play bob 108",
        "play cy 201",
        "play dee 102",                          # the trick closes by itself
        "play me 101",                           # refused: cy took the trick and leads the next
        "deduce bob d5",
        "exchange cy me gave 301 took 203",
        "check bob me 101",
        "play cy 104",                           # contradicts event 0: 104 is lit on the board
        "",                                      # drop it
        "play cy 203",
        "undo",
        "redo",
        "events",
        "quit",
    ]
    code, out, path = session(tmp_path, lines)
    assert code == 0 and "Traceback" not in out
    assert "who leads the first game [ann]?" in out and "the 2 leftover cards lit on the board:" in out
    assert "event 5: dee played 102\nevent 6: the trick is ranked; parking: 1st cy (201), 2nd bob (108), 3rd ann (105), 4th dee (102)" in out
    assert "ann cannot lead this trick: cy leads it (cy took the last trick)" in out
    assert "event 7: bob placed a meeple on digit 5" in out
    assert "event 8: cy gave ann 301 and took 203" in out
    assert "event 9: bob looked at 1 of ann's cards: 101" in out
    assert "not added: this contradicts event 0 (game 1 of 3 begins: ann leads; lit on the board: 104, 207)" in out
    assert "dropped the new event; the log is unchanged" in out
    assert "event 10: cy led 203" in out and "removed event 10: cy led 203" in out
    assert "\n> redo\nevent 10: cy led 203\n" in out
    assert "hidden room: " in out and "points expected (exact)" in out
    log = saved(path)
    assert [e["type"] for e in log["events"]][-5:] == ["trick", "deduce", "exchange", "check", "play"]
    load_log(path, check=solvers.get("cpsat"))
    before = status_of(out)

    code, out2, _ = session(tmp_path, ["grid", "move bob d5 r305", "undo", "move bob d5 r305", "undo 4", "quit"])
    assert code == 0 and "Resumed a game with 11 events." in out2
    assert status_of(out2[: out2.index("> move")]) == before
    # meeples move between tricks, not while cy's trick is open (event 10)
    assert "not added: the trick is still open (1 of 4 played)" in out2
    assert "event 10: bob moved a meeple from digit 5 to room 305" in out2
    # without bob's play, dee's would be out of turn (issue 20 B7: plays go clockwise)
    assert "cannot undo event 4: event 5 (dee played 102) depends on it (dee cannot play now" in out2
    assert len(saved(path)["events"]) == 11


def test_bad_input_never_changes_the_log(tmp_path):
    # with ann's card on an open trick: plays, and anything else while the trick is open
    code, _, path = session(tmp_path, SETUP + ["play me 105", "quit"])
    before = path.read_text()
    bad = {
        "play bob": "usage: play WHO CARD",
        "play bob 999": "unknown card '999'",
        "play me 101": "ann already played to this trick",
        "play cy 201": "cy cannot play now: bob plays next",  # issue 20 B7: clockwise from the leader
        "deduce bob x9": "unknown space 'x9'",
        "move bob r305 f1": "the trick is still open",  # meeples move between tricks
        "hidden": "usage: hidden CARD",
        "frobnicate": "unknown command 'frobnicate'",
    }
    assert_lines_refused(tmp_path, "crime-hotel", path, before, bad)
    # between tricks: moves, exchanges and checks
    between = tmp_path / "between"
    between.mkdir()
    code, _, path = session(between, SETUP + ["quit"])
    before = path.read_text()
    bad = {
        "move bob d5 f1": "bob has no meeple on digit 5",
        "exchange cy dee gave 303 took 304": "only cy and dee see those cards",
        "exchange cy me 1": "you took part: give 'given' and 'taken'",
        "check bob bob 1": "one exchanges with, or checks, another player",
    }
    assert_lines_refused(between, "crime-hotel", path, before, bad)


def test_the_assistant_sees_what_the_engine_shows_the_player():
    game, state = played("crime-hotel", 8, 30, num_players=4)
    obs = state.observation(3)
    solver = solvers.get("auto")
    a = GameAssistant(adapter_for("crime-hotel"), solver, log=export_log(game, obs))
    truth = solver.tallies(game.knowledge(obs))
    assert (a.marginals().total, a.marginals().cells) == (truth.total, truth.cells) and truth.total > 1
    assert "deduce: " in a.start()


def test_the_best_space_follows_the_hidden_room():
    # three players, 8 lit cards: ann knows the 6 in her hand; the hidden room is one of 12
    a = GameAssistant(adapter_for("crime-hotel"), solvers.get("auto"),
                      setup={"players": ["ann", "bob", "cy"], "me": "ann", "leader": "ann",
                             "revealed": ["101", "102", "103", "104", "105", "106", "107", "108"],
                             "hand": ["109", "201", "202", "203", "204", "205"]})
    text = a.start()
    assert "hidden room: 13 possible" in text
    # floor 3 holds 9 of the 13 rooms: 2 x 9/13 = 1.38 beats any room (10/13 = 0.77) or digit
    assert "deduce: floor 3 - 1.38 points expected (exact)" in text


def test_why_names_the_moves_where_cards_move(tmp_path, capsys):
    # events: 0 game, 1 hand, 2-5 the plays, 6 the trick, 7 cy's exchange with ann, 8 bob's with dee
    code, out, path = session(tmp_path, SETUP + ["play me 105", "play bob 108", "play cy 201", "play dee 102",
                                                 "exchange cy me gave 301 took 203", "exchange bob dee 1",
                                                 "why 203", "why 101", "quit"])
    assert code == 0 and "Traceback" not in out and "error:" not in out
    assert ("203 is cy's now: cy holds 203 after event 7; "
            "bob and dee swapped 1 card and no other card moved (event 8: bob exchanged 1 card with dee).") in out
    assert "101 is ann's now: ann holds 101 and 105 at the start (event 1); " in out
    # the trick's cards go public with its last play (issue 20 B13), not with the trick event
    assert "ann, bob, cy and dee each put 1 card in the open cards and no other card moved (event 5: dee played 102)" in out
    from deduce.cli import main

    assert main(["solve", str(path), "--why", "203"]) == 0
    assert capsys.readouterr().out.startswith("203 is cy's now: cy holds 203 after event 7; bob and dee swapped")
