"""``deduce assist clue`` driven end to end through its own input and output streams."""

import io
import json
import subprocess
import sys

import pytest

import solvers
from deduce.cli import build_parser, main
from deduce.cli.assist import run
from deduce.logs import load_log

SETUP = ["ann, bob, cy", "", "", "ann", "rope hall knife scarlet kitchen study"]


def session(tmp_path, lines, *extra, name="game.json"):
    """Run one assistant session on ``lines``; returns (exit code, transcript, log path)."""
    path = tmp_path / name
    args = build_parser().parse_args(["assist", "clue", "--log", str(path), *extra])
    out = io.StringIO()
    code = run(args, stdin=io.StringIO("".join(line + "\n" for line in lines)), stdout=out)
    return code, out.getvalue(), path


def saved(path):
    return json.loads(path.read_text())


@pytest.mark.slow
def test_setup_events_contradiction_undo_redo_and_resume(tmp_path):
    lines = SETUP + [
        "sug ann gr wrench lounge cy shown=lounge",   # prefixes: Mr. Green, Wrench, Lounge
        "sug bob mrs pea wre lib none",               # 'mrs pea' needs both words
        "sug cy plum candle ball bob",
        "has bob lounge",                             # contradicts event 1: cy showed Lounge
        "1",                                          # undo event 1 and add the new one instead
        "events",
        "undo",
        "redo",
        "why wrench",
        "quit",
    ]
    code, out, path = session(tmp_path, lines)
    assert code == 0
    # setup and the first events
    assert "hand sizes in seat order [6 6 6]" in out
    assert "event 1: ann suggested Mr. Green, Wrench, Lounge: bob has none of them; cy showed ann Lounge" in out
    assert "event 2: bob suggested Mrs. Peacock, Wrench, Library: cy and ann have none of them" in out
    # the contradiction names the earlier event and offers to undo it
    assert "not added: this contradicts event 1 (ann suggested Mr. Green, Wrench, Lounge" in out
    assert "Type 'undo 1'" in out
    assert "removed event 1: ann suggested Mr. Green, Wrench, Lounge" in out
    assert "event 3: bob holds Lounge" in out
    # undo then redo puts the last event back
    assert "removed event 3: bob holds Lounge" in out
    assert "\n> redo\nevent 3: bob holds Lounge\n" in out
    # with ann's suggestion gone, bob may hold the Wrench; his unrefuted suggestion is now event 1
    assert "Wrench may still be with bob, or in the envelope." in out
    assert "Wrench is not cy's: cy does not hold Wrench (event 1: bob suggested Mrs. Peacock, Wrench, Library: " in out
    log = saved(path)
    assert [e["type"] for e in log["events"]] == ["hand", "suggestion", "suggestion", "card_at"]
    assert log["events"][3] == {"type": "card_at", "card": "Lounge", "at": "bob"}
    assert log["hand_sizes"] == [6, 6, 6] and log["me"] == "ann"
    kb = load_log(path, check=solvers.get("cpsat"))  # the saved log is a valid, consistent game log
    assert len(kb.constraints) > 0
    assert not list(tmp_path.glob(".*.tmp"))  # no temporary files left behind

    # resume: the game so far is there, and new events go on from it
    code, out2, _ = session(tmp_path, ["events", "acc bob pea wre lib wrong", "grid", "quit"])
    assert code == 0
    assert f"resuming {path}" in out2 and "Resumed a game with 4 events." in out2
    assert "  3  bob holds Lounge" in out2
    assert "event 4: bob accused Mrs. Peacock, Wrench, Library: wrong" in out2
    assert len(saved(path)["events"]) == 5


def test_bad_input_never_changes_the_log(tmp_path):
    code, _, path = session(tmp_path, SETUP + ["sug ann gr wrench lounge cy shown=lounge", "quit"])
    before = path.read_text()
    bad = [
        "sug ann gr rope hall",                 # no refuter
        "sug ann mrs rope hall none",           # ambiguous suspect
        "sug bob gr rope hall cy shown=hall",   # ann cannot have seen bob's shown card
        "acc bob gr rope hall maybe",
        "has zed rope",
        "frobnicate",
        "undo 99",
        "why",
        "sug ann gr wrench lounge bob",         # contradicts event 1 (bob could not refute it)
        "",                                     # ... and is dropped
    ]
    code, out, _ = session(tmp_path, bad + ["quit"])
    assert code == 0
    assert path.read_text() == before
    assert "Traceback" not in out
    errors = [line for line in out.splitlines() if "error:" in line]
    assert any("who refuted?" in e for e in errors)
    assert any("'mrs' is ambiguous" in e or "'mrs rope" in e for e in errors)
    assert any("shown card is seen only by the suggester and the refuter; you (ann) are neither" in e for e in errors)
    assert any("'right' or 'wrong', not 'maybe'" in e for e in errors)
    assert any("unknown player 'zed'" in e for e in errors)
    assert any("unknown command 'frobnicate'" in e for e in errors)
    assert any("there is no event 99" in e for e in errors)
    assert "dropped the new event; the log is unchanged" in out


def test_recommendation_accusation_and_why(tmp_path):
    # everything but the envelope is accounted for: the accusation is safe
    lines = [
        "has bob white green peacock plum candle lead",
        "has cy revolver ball conserv dining billiard library",
        "why mustard",
        "quit",
    ]
    code, out, _ = session(
        tmp_path, lines, "--players", "ann,bob,cy", "--me", "ann", "--hand-sizes", "6,6,6",
        "--hand", "scarlet,knife,rope,kitchen,hall,study",
    )
    assert code == 0
    assert "bits expected (exact expected information about the envelope)" in out  # the infogain scorer
    assert "accuse: SAFE - it is certainly Colonel Mustard, Wrench, Lounge" in out
    assert "Colonel Mustard is in the envelope: " in out


def test_spectator_gets_no_suggestion(tmp_path):
    code, out, path = session(tmp_path, ["ann bob cy dee", "", "", "spectator", "quit"])
    assert code == 0
    assert "hand sizes in seat order [5 5 4 4]" in out
    assert "envelope: 324 possible answers" in out
    assert "suggest:" not in out
    assert "me" not in saved(path) and saved(path)["hand_sizes"] == [5, 5, 4, 4]


@pytest.mark.parametrize(("options", "message"), [
    (["--players", "ann,bob"], "--players 'ann,bob': clue takes 3 to 6 players; got 2"),
    (["--players", "ann,Ann,cy"], "--players 'ann,Ann,cy': player names must be distinct"),
    (["--players", "ann,bob,cy", "--hand-sizes", "9,9,9"], "--hand-sizes '9,9,9': hand sizes '9 9 9' add up to 27"),
    (["--players", "ann,bob,cy", "--me", "ann", "--hand", "rope,zed"], "--hand 'rope,zed': your hand: unknown card 'zed'"),
    (["--players", "ann,bob,cy", "--spectator", "--hand", "rope"], "--hand needs --players and --me"),
    (["--hand-sizes", "6,6,6"], "--hand-sizes needs --players"),
])
def test_a_bad_setup_option_is_refused_by_name_and_nothing_is_saved(tmp_path, capsys, options, message):
    path = tmp_path / "g.json"
    code = main(["assist", "clue", "--log", str(path), *options])
    err = capsys.readouterr().err
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not path.exists()


def test_unreadable_log_is_left_untouched(tmp_path, capsys):
    path = tmp_path / "broken.json"
    path.write_text('{"game": "clue", "players": [')
    code = main(["assist", "clue", "--log", str(path)])
    err = capsys.readouterr().err
    assert code == 2 and "cannot resume" in err and len(err.strip().splitlines()) == 1
    assert path.read_text() == '{"game": "clue", "players": ['


def test_a_contradictory_saved_log_resumes_and_can_be_repaired(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({
        "game": "clue", "players": ["ann", "bob", "cy"], "me": "ann",
        "events": [
            {"type": "card_at", "card": "Rope", "at": "bob"},
            {"type": "card_at", "card": "Rope", "at": "cy"},
        ],
    }))
    code, out, _ = session(tmp_path, ["undo 1", "quit"], name="bad.json")
    assert code == 0
    assert "the log contradicts itself: event 0" in out and "event 1" in out
    assert "removed event 1: cy holds Rope" in out
    assert len(saved(path)["events"]) == 1


def test_unknown_games_are_refused_in_one_line():
    proc = subprocess.run(
        [sys.executable, "-m", "deduce", "assist", "monopoly"], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().startswith("deduce assist: error: unknown game 'monopoly'; known games: clue, ")
    assert "alibi-adlung" in proc.stderr


def test_the_session_alone_estimates_without_a_scorer():
    import solvers
    from deduce.apps.assist.clue import ClueAssistant

    saves = []
    a = ClueAssistant(
        solvers.get("auto"), save=saves.append,
        setup={"players": ["ann", "bob", "cy"], "deck": None, "hand_sizes": [6, 6, 6], "me": "ann",
               "hand": "scarlet knife rope kitchen hall study"},
    )
    assert "estimated from exact marginals; no infogain scorer installed" in a.start()
    assert a.handle("sug me gr wrench lounge cy shown=lounge").startswith("event 1: ann suggested")
    assert len(saves) == 2 and saves[-1]["events"][1]["refuted_by"] == "cy"
    assert a.handle("undo 0").startswith("removed event 0: ann's hand")
    assert [e["type"] for e in saves[-1]["events"]] == ["suggestion"]


def test_setup_mistakes_are_asked_again_and_a_failed_save_keeps_the_game():
    import solvers
    from deduce.apps.assist.clue import ClueAssistant

    a = ClueAssistant(solvers.get("auto"))
    answers = {
        "ann bob": "clue takes 3 to 6 players; got 2",
        "ann Ann cy": "player names must be distinct",
        "ann envelope cy": "'envelope', 'extra', 'me' and 'none' cannot be player names",
        "ann bob cy": "",
        "suspects: a, b; weapons: c": "the deck needs suspects, weapons and rooms",
        "": "",
        "9 9 9": "add up to 27, but only 18 cards are dealt",
        "6 6 6": "",
        "zed": "unknown player 'zed'",
        " ": "type your name, or 'spectator' if you hold no cards",
        "bo": "",
        "rope hall": "your hand: bob holds 6 cards, but 2 are listed",
    }
    for line, expected in answers.items():
        reply = a.handle(line)
        assert expected in reply if expected else reply == "", (line, reply)
    assert a.prompt == "your hand (6 cards): "
    assert a.handle("rope hall knife scarlet kitchen study").startswith("clue: ann, bob, cy.\n")
    assert a.log()["events"] == [{"type": "hand", "player": "bob", "cards": ["Rope", "Hall", "Knife", "Miss Scarlet", "Kitchen", "Study"]}]

    def broken(data):
        raise OSError("disk full")

    a.save_fn = broken
    assert "warning: could not save the game (OSError: disk full)" in a.handle("has cy lounge")
    assert a.log()["events"][-1] == {"type": "card_at", "card": "Lounge", "at": "cy"}


def test_options_without_hand_sizes_take_the_even_deal_and_keep_the_hand(tmp_path):
    code, out, path = session(
        tmp_path, ["has bob white", "quit"], "--players", "ann,bob,cy", "--me", "ann",
        "--hand", "scarlet,knife,rope,kitchen,hall,study",
    )
    assert code == 0 and "error" not in out and "start the setup again" not in out
    assert "hand sizes in seat order" not in out  # not asked: the options gave a whole setup
    log = saved(path)
    assert log["hand_sizes"] == [6, 6, 6] and log["me"] == "ann"
    assert log["events"][0] == {"type": "hand", "player": "ann",
                                "cards": ["Miss Scarlet", "Knife", "Rope", "Kitchen", "Hall", "Study"]}
    assert log["events"][1] == {"type": "card_at", "card": "Mrs. White", "at": "bob"}


def test_hand_sizes_that_do_not_fit_a_given_hand_are_asked_again_alone():
    import solvers
    from deduce.apps.assist.clue import ClueAssistant

    a = ClueAssistant(solvers.get("auto"),
                      setup={"players": ["ann", "bob", "cy"], "deck": None, "me": "ann",
                             "hand": "scarlet knife rope kitchen hall study"})
    assert a.prompt == "hand sizes in seat order [6 6 6]: "
    reply = a.handle("7 6 5")
    assert reply.startswith("error: your hand: ") and reply.endswith("give hand sizes that fit the hand you gave, or 'quit'")
    assert a.prompt == "hand sizes in seat order [6 6 6]: "  # only this step again
    assert a._answers["me"] == "ann" and a._answers["hand"].startswith("scarlet")
    assert a.handle("6 7 5").startswith("clue: ann, bob, cy.")
    assert a.log()["hand_sizes"] == [6, 7, 5] and len(a.log()["events"][0]["cards"]) == 6
