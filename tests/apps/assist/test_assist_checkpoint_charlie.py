"""``deduce assist checkpoint-charlie`` driven end to end through its own input and output streams."""


import solvers
from deduce.apps.assist.checkpoint_charlie import cat_code
from deduce.apps.assist.session import GameAssistant, adapter_for
from deduce.logs import export_log, load_log, view_knowledge
from tests.apps.assist.test_session import (
    assert_lines_refused,
    last_status,
    played,
    saved,
)
from tests.apps.assist.test_session import session as run_session

SETUP = ["ann, bob, cy", "ann", "", "hat"]  # players, you, the starter, your clue token


def session(tmp_path, lines, *extra, name="game.json"):
    """Run one checkpoint-charlie session on ``lines``; returns (exit code, transcript, log path)."""
    return run_session(tmp_path, "checkpoint-charlie", lines, *extra, name=name)


def status_of(text):
    """The last grid and answer in a transcript."""
    return last_status(text, "  ann  bob   cy", "arrest:")


def test_setup_events_contradiction_undo_redo_and_resume(tmp_path):
    lines = SETUP + [
        "side bob",
        "side cy",
        "flip ann hgocn kept",
        "flip bob bbgsn gone",
        "hound cy orange",
        "flip ann bgocn kept",    # contradicts event 1: ann's hat is up, a bare-eared cat cannot be hers
        "1",                      # undo event 1 and add the new one instead
        "events",
        "undo",
        "redo",
        "why hat",
        "quit",
    ]
    code, out, path = session(tmp_path, lines)
    assert code == 0 and "Traceback" not in out
    assert "who flips first in round 1 [ann]?" in out
    assert "your clue token: the face you put up" in out  # issue 20 B14: asked at start-up
    assert "event 1: ann hid the ears token with hat up" in out
    assert "event 3: cy hid a clue token under the hound card" in out
    assert "event 4: ann flipped [hat, glasses, orange, coat, newspaper] and kept it (it fits the clue)" in out
    assert "event 6: cy flipped a hound: a bag token is tossed and shows orange" in out
    assert "not added: this contradicts event 1 (ann hid the ears token with hat up)" in out
    assert "removed event 1: ann hid the ears token with hat up" in out
    assert "event 6: ann flipped [bare ears, glasses, orange, coat, newspaper] and kept it (it fits the clue)" in out
    assert "  3  ann flipped [hat, glasses, orange, coat, newspaper] and kept it (it fits the clue)\n" in out
    assert "removed event 6: ann flipped [bare ears, glasses, orange, coat, newspaper] and kept it" in out
    assert "\n> redo\nevent 6: ann flipped [bare ears, glasses" in out
    assert "hat may still be with bob or cy, or in the bag or face down." in out
    assert "hat is not ann's: ann holds at least one of {bare ears, glasses, orange, coat, newspaper} (event 6: ann flipped [bare ears, glasses, orange, coat, newspaper] and kept it (it fits the clue))" in out
    assert "chief: " in out and "arrest: " in out
    log = saved(path)
    assert [e["type"] for e in log["events"]] == ["round", "side", "side", "flip", "flip", "hound", "flip"]
    load_log(path, check=solvers.get("cpsat"))
    before = status_of(out)

    code, out2, _ = session(tmp_path, ["grid", "arrest me hgocn", "undo 3", "quit"])
    assert code == 0 and "Resumed a game with 7 events." in out2
    assert status_of(out2[: out2.index("> arrest")]) == before
    assert "event 7: ann arrested [hat, glasses, orange, coat, newspaper] from ann's row" in out2
    assert "arrest: you arrested hgocn" in out2
    # the flip an arrest depends on cannot be undone before the arrest
    assert "error: cannot undo event 3: event 7 (ann arrested [hat, glasses, orange, coat, newspaper]" in out2 and "undo event 7 first" in out2
    assert len(saved(path)["events"]) == 8


def test_bad_input_never_changes_the_log(tmp_path):
    code, _, path = session(tmp_path, SETUP + ["flip bob hgocn kept", "quit"])
    before = path.read_text()
    bad = {
        "flip bob hgocn": "usage: flip WHO CAT kept|gone",
        "flip bob hgocx kept": "cat code 'hgocx': letter 5 is 'n' or 'e', not 'x'",
        "flip bob hgocn gone": "that cat was already flipped at event 2",
        "flip bob hat glasses gone": "a cat is five letters like 'hgocn', or one face of each feature",
        "side bob hat": "only bob sees which face of that token is up",
        "side me": "not added: ann already hid a token this round",
        "arrest cy bbbbb": "letter 3 is 'g' or 'o', not 'b'",
        "arrest cy bbgsn": "cat bbgsn (bare ears, bare eyes, grey, sweater, newspaper) is not face up in any row",
        "hound cy tail": "unknown face 'tail'",
        "round": "which player?",
        "frobnicate": "unknown command 'frobnicate'",
    }
    assert_lines_refused(tmp_path, "checkpoint-charlie", path, before, bad)


def test_the_assistant_sees_what_the_engine_shows_the_player():
    game, state = played("checkpoint-charlie", 12, 14, num_players=4)
    obs = state.observation(2)
    solver = solvers.get("exact")
    a = GameAssistant(adapter_for("checkpoint-charlie"), solver, log=export_log(game, obs))
    truth = solver.tallies(game.knowledge(obs))
    assert (a.marginals().total, a.marginals().cells) == (truth.total, truth.cells) and truth.total > 1
    assert view_knowledge(a.game, a.obs).sources[-1].startswith("event ")
    assert "chief: " in a.start()


def test_a_certain_chief_is_a_safe_arrest():
    a = GameAssistant(adapter_for("checkpoint-charlie"), solvers.get("auto"),
                      setup={"players": ["ann", "bob", "cy"], "me": "ann", "starter": "ann", "clue": "hat"})
    # ann has hat up; the hounds toss orange and coat, so bob and cy hold eyes and hands
    for line in ["side bob", "side cy", "hound bob orange", "hound cy coat", "flip bob hgocn kept"]:
        assert not a.handle(line).startswith("error"), line
    assert "SAFE" not in a.status()
    # bob discards a newspaper cat: bob's face is glasses; cy keeps one: cy's is newspaper
    a.handle("flip bob bbgsn gone")
    text = a.handle("flip cy hbgsn kept")
    assert "chief: 1 possible cat; most likely:\n  100.00%  hgocn" in text
    assert "arrest: hgocn (hat, glasses, orange, coat, newspaper) in bob's row - SAFE - certainly the chief" in text
    assert cat_code(0b01110) == "bgocn"


def test_the_clue_token_may_wait_until_it_is_drawn(tmp_path):
    code, out, path = session(tmp_path, ["ann, bob, cy", "ann", "", "tail", "", "side me coat", "quit"])
    assert code == 0 and "unknown face 'tail'" in out
    assert [e["type"] for e in saved(path)["events"]] == ["round", "side"]
    assert saved(path)["events"][1] == {"type": "side", "player": "ann", "face": "coat"}
