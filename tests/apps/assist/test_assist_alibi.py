"""``deduce assist alibi`` driven end to end through its own input and output streams."""

import numpy as np
import pytest

import solvers
from agents.alibi.sampling import SamplingAgent
from deduce.apps.assist.session import GameAssistant, adapter_for
from deduce.games.alibi.rules import Accuse, AlibiGame
from deduce.logs import export_log, load_log
from tests.apps.assist.test_session import (
    assert_lines_refused,
    last_status,
    played,
    saved,
    solver_for,
)
from tests.apps.assist.test_session import session as run_session

GAME = AlibiGame(num_players=4)
STATE = GAME.new_initial_state(5)
HAND = [GAME.deck[c].name for c in sorted(STATE.hands[0])]
SETUP = ["ann, bob, cy, dee", "ann", ", ".join(HAND)]
OUT, IN = HAND[0], next(c.name for c in GAME.deck if c.name not in HAND)


def session(tmp_path, lines, *extra, name="game.json"):
    """Run one alibi session on ``lines``; returns (exit code, transcript, log path)."""
    return run_session(tmp_path, "alibi", lines, *extra, name=name)


def status_of(text):
    """The last grid and answer in a transcript."""
    return last_status(text, "  ann  bob   cy  dee", "accuse:")


@pytest.mark.slow
def test_setup_events_contradiction_undo_redo_and_resume(tmp_path):
    lines = SETUP + [
        "ask me bob hand rage 1",
        "ask bob cy held 19",
        "ask cy bob hand rage 2",            # contradicts event 1: bob holds one Rage card
        "1",                                 # undo event 1 and add the new one instead
        "undo",
        "redo",
        f"pass gave {OUT.replace(' / ', ' ')} got {IN.replace(' / ', ' ')}",
        "events",
        "quit",
    ]
    code, out, path = session(tmp_path, lines)
    assert code == 0 and "Traceback" not in out
    assert "your hand (18 cards" in out
    assert "event 1: ann asked bob: how many of Rage do you hold? answer 1" in out
    assert "event 2: bob asked cy: how many different cards have you ever held? answer 19" in out
    assert "not added: this contradicts event 1 (ann asked bob: how many of Rage do you hold? answer 1)" in out
    assert "removed event 1: ann asked bob: how many of Rage do you hold? answer 1" in out
    assert "event 2: cy asked bob: how many of Rage do you hold? answer 2" in out
    assert "removed event 2: cy asked bob" in out and "\n> redo\nevent 2: cy asked bob" in out
    assert f"event 3: everyone passed 1 card to the left; ann gave bob {OUT}; dee gave ann {IN}" in out
    # through the first pass the grid is counted exactly (frontier): no approximation's label
    assert "(approximate: too many deals" not in out and "(sampled: " not in out
    assert "box (cards that may still be there, exact):" in out
    log = saved(path)
    assert [e["type"] for e in log["events"]] == ["hand", "ask", "ask", "pass"]
    load_log(path, check=solvers.get("cpsat"))
    before = status_of(out)

    code, out2, _ = session(tmp_path, ["grid", "ask dee cy seen weapon 7", "quit"])
    assert code == 0 and "Resumed a game with 4 events." in out2
    assert status_of(out2[: out2.index("> ask")]) == before
    assert "event 4: dee asked cy: how many of weapon have you ever seen? answer 7" in out2
    assert len(saved(path)["events"]) == 5


@pytest.mark.slow
def test_bad_input_never_changes_the_log(tmp_path):
    code, _, path = session(tmp_path, SETUP + ["ask me bob hand rage 1", "quit"])
    before = path.read_text()
    bad = {
        "ask me bob hand rage": "usage: ask ASKER TARGET hand|seen|held [NAMES...] N",
        "ask me bob owned rage 1": "usage: ask ASKER TARGET",
        "ask me me hand rage 1": "a player cannot ask itself",
        "ask me bob held rage 1": "a 'held' question names no cards",
        "ask me bob hand rage 4": "'answer' must be a whole number from 0 to 3",
        "ask me bob hand fury 1": "unknown name 'fury'",
        "meld bob fury": "unknown",
        "pass": "usage: pass gave CARDS got CARDS",
        "frobnicate": "unknown command 'frobnicate'",
    }
    assert_lines_refused(tmp_path, "alibi", path, before, bad)


@pytest.mark.slow
def test_the_assistant_sees_what_the_engine_shows_the_player():
    game, state = played("alibi", 9, 30, num_players=4)
    obs = state.observation(2)
    a = GameAssistant(adapter_for("alibi"), solver_for("alibi"), log=export_log(game, obs))
    possible = solvers.get("cpsat").possible(game.knowledge(obs))
    assert ((a.marginals().p > 0) == possible).all() and not a.marginals().exact
    assert "box (cards that may still be there, exact):" in a.start()


def asking_turn(seed, steps):
    """A seeded random Alibi game advanced to a turn where someone asks; (game, state, asker)."""
    game, state = played("alibi", seed, steps, num_players=4)
    rng = np.random.default_rng(seed)
    while state.phase != "ask":
        actions = state.legal_actions()
        state.apply(actions[int(rng.integers(len(actions)))])
    return game, state, state.current_player


@pytest.mark.parametrize("seed,steps", [(3, 40), (7, 80)])
@pytest.mark.slow
def test_the_recommended_question_is_legal_and_the_solver_agents_choice(seed, steps):
    game, state, asker = asking_turn(seed, steps)
    obs = state.observation(asker)
    a = GameAssistant(adapter_for("alibi"), solver_for("alibi"), log=export_log(game, obs))
    advice = a.adapter.advice(a)
    assert state.why_illegal(advice.question) is None
    agent = SamplingAgent()
    agent.reset(game, asker, a.adapter.seed)
    assert agent.act(obs) == advice.question  # the agent asks here rather than accusing
    assert 0 < advice.bits < 4 * np.log2(max(len(c) for c in game.categories)) and advice.worlds == 120
    shown = a.start()
    ask = next(line for line in shown.splitlines() if line.startswith("ask: "))
    target = game.config.names[advice.question.target]
    from deduce.games.alibi.text import action_text

    assert ask.startswith(f"ask: {action_text(game, advice.question).removeprefix('ask ')} - ")  # the game's words
    assert ask.startswith(f"ask: {target} ") and f"about {advice.bits:.2f} bits expected" in ask
    assert "(approximate: the sampling agent's question, scored on 120 sampled deals)" in ask
    assert a.handle("grid") in shown  # the same view gets the same advice


@pytest.mark.slow
def test_no_question_is_recommended_to_a_spectator_or_after_the_accusation():
    game, state, _ = asking_turn(3, 40)
    spectator = GameAssistant(adapter_for("alibi"), solver_for("alibi"), log=export_log(game, state.observation(None)))
    assert spectator.adapter.advice(spectator) is None and "\nask: " not in spectator.start()
    log = export_log(game, state.observation(0))
    log["events"].append({"type": "accuse", "player": "p2"})
    over = GameAssistant(adapter_for("alibi"), solver_for("alibi"), log=log)
    assert over.adapter.advice(over) is None and "\nask: " not in over.start()


def test_no_question_is_recommended_past_the_last_round():
    game, state = played("alibi", 2, 0, num_players=4)
    rng = np.random.default_rng(2)
    while not (state.phase == "ask" and state.round > game.config.max_rounds):  # nobody accuses early
        actions = [a for a in state.legal_actions() if not isinstance(a, Accuse)] or state.legal_actions()
        state.apply(actions[int(rng.integers(len(actions)))])
    assert state.legal_actions() == [Accuse()]
    a = GameAssistant(adapter_for("alibi"), solver_for("alibi"), log=export_log(game, state.observation(0)))
    assert a.adapter.advice(a) is None and "\nask: " not in a.start()


def test_no_question_is_recommended_once_the_box_is_known():
    game, state, asker = asking_turn(3, 40)
    log = export_log(game, state.observation(asker))
    box = [game.deck[c].name for c in state.box]
    for q, name in enumerate(game.config.names):
        if q != asker:  # nobody else holds a box card: the four are in the box
            log["events"].append({"type": "ask", "asker": game.config.names[asker], "target": name,
                                  "family": "hand", "cards": box, "answer": 0})
    a = GameAssistant(adapter_for("alibi"), solver_for("alibi"), log=log)
    text = a.start()
    assert "accuse: SAFE" in text and "\nask: " not in text


@pytest.mark.slow
def test_why_names_the_pass_a_card_moved_in(tmp_path):
    code, out, _ = session(tmp_path, SETUP + [f"pass gave {OUT.replace(' / ', ' ')} got {IN.replace(' / ', ' ')}",
                                              f"why {OUT.replace(' / ', '').replace(' ', '')}",
                                              f"why {IN.replace(' / ', '').replace(' ', '')}", "quit"])
    assert code == 0 and "Traceback" not in out and "error:" not in out
    assert f"{OUT} is bob's now: bob holds {OUT} after event 1." in out
    assert f"{IN} is ann's now: ann holds {IN} after event 1." in out


def test_a_meld_is_logged_when_it_happens():
    """Issue 20 B3: a set laid down after questions (at any time, as the seed allows)."""
    log = {"game": "alibi", "players": ["ann", "bob", "cy", "dee"], "me": "ann",
           "events": [{"type": "hand", "player": "ann", "cards": HAND}]}
    a = GameAssistant(adapter_for("alibi"), solver_for("alibi"), log=log)
    for line in ("ask me bob hand rage 1", "meld cy gun", "ask dee cy seen gun 3"):  # ann holds no Gun
        text = a.handle(line)
        assert not text.startswith("error"), (line, text)
    assert [type(e).__name__ for e in a.obs.events][-3:] == ["Asked", "Melded", "Asked"]
    assert [e.epoch for e in a.obs.events[-3:]] == [0, 1, 1]
