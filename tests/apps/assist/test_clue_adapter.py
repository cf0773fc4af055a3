"""The assistant's text helpers and the Clue adapter on a small deck, without the terminal."""

import io

import pytest

import solvers
from deduce.apps.assist.clue import ADAPTER, ClueAdapter, envelope_lines
from deduce.apps.assist.session import GameAssistant
from deduce.apps.assist.text import match_name, read_names
from deduce.cli.assist import read_line
from deduce.errors import DeduceError, NotSupported, UnknownName

SMALL = {"suspect": ["Ash", "Birch"], "weapon": ["Cord", "Dart"], "room": ["Eyrie", "Forge", "Garden"]}
CARDS = ["Mr. Green", "Mrs. Peacock", "Mrs. White", "Lead Pipe", "Rope"]


def small_session(solver_name="brute", hand="eyrie forge"):
    """Ann, Bob and Cy with the seven-card deck (hands 2, 1, 1); Ann holds ``hand``."""
    return GameAssistant(
        ClueAdapter(top=3), solvers.get(solver_name),
        setup={"players": ["ann", "bob", "cy"], "deck": SMALL, "hand_sizes": None, "me": "ann", "hand": hand},
    )


def test_names_are_read_by_prefixes_of_their_words():
    assert match_name("gr", CARDS, "card") == "Mr. Green"
    assert match_name("lead pi", CARDS, "card") == "Lead Pipe"
    assert read_names("mrs pea lead pipe rope".split(), CARDS, "card") == ["Mrs. Peacock", "Lead Pipe", "Rope"]
    with pytest.raises(DeduceError, match="card 'mrs' is ambiguous: it could be Mrs. Peacock, Mrs. White"):
        match_name("mrs", CARDS, "card")
    with pytest.raises(UnknownName, match="unknown card 'zed'"):
        read_names(["zed"], CARDS, "card")


def test_setup_asks_in_order_with_defaults_from_earlier_answers():
    a = GameAssistant(ADAPTER, solvers.get("brute"))
    asked = []
    for line in ["ann bob cy", "suspects: Ash, Birch; weapons: Cord, Dart; rooms: Eyrie, Forge, Garden", "", "ann"]:
        asked.append(a.prompt)
        assert a.handle(line) == ""
    assert asked == [
        "players in seat order (3 to 6 names): ",
        "deck [classic] (or 'suspects: A, B; weapons: C, D; rooms: E, F'): ",
        "hand sizes in seat order [2 1 1]: ",
        "which one are you (ann, bob, cy, or 'spectator')? ",
    ]
    assert a.prompt == "your hand (2 cards): "
    assert a.handle("eyrie") == "error: your hand: ann holds 2 cards, but 1 are listed"
    assert a.header is None and a.prompt == "your hand (2 cards): "  # asked again, nothing saved
    assert a.handle("eyrie forge").startswith("clue: ann, bob, cy.\n")
    assert a.log() == {
        "game": "clue", "players": ["ann", "bob", "cy"], "deck": SMALL, "hand_sizes": [2, 1, 1], "me": "ann",
        "events": [{"type": "hand", "player": "ann", "cards": ["Eyrie", "Forge"]}],
    }


def test_envelope_lines_agree_with_brute_force_and_say_when_to_accuse():
    brute, auto = small_session("brute"), small_session("auto")
    lines = envelope_lines(brute.solver, brute.kb, 3)
    # Garden is certain (ann holds the other rooms); 2 x 2 suspects and weapons, all equally likely
    assert lines == [
        "envelope: 4 possible answers; most likely:",
        "   25.00%  Ash, Cord, Garden",
        "   25.00%  Ash, Dart, Garden",
        "   25.00%  Birch, Cord, Garden",
        "accuse: not safe yet (the likeliest answer is right 25.0% of the time)",
    ]
    assert envelope_lines(auto.solver, auto.kb, 3) == lines
    for a in (brute, auto):
        a.handle("has bob birch")
        a.handle("has cy dart")
    assert envelope_lines(brute.solver, brute.kb) == envelope_lines(auto.solver, auto.kb) == [
        "envelope: 1 possible answer; most likely:",
        "  100.00%  Ash, Cord, Garden",
        "accuse: SAFE - it is certainly Ash, Cord, Garden",
    ]


def test_envelope_lines_say_when_they_cannot_count():
    class NoCounts:
        def solution_counts(self, kb, loc):
            raise NotSupported("too many deals")

    assert envelope_lines(NoCounts(), small_session().kb) == ["envelope: its answers cannot be counted exactly (too many deals)"]


def test_a_clue_line_stands_for_log_events_and_is_worded_back():
    a = small_session("auto")
    assert a.handle("not cy ash cord") == "\n".join([
        "event 1: cy does not hold Ash",
        "event 2: cy does not hold Cord",
    ]) + "\n" + a.status()
    reply = a.handle("sug me ash cord garden bob shown=cord")
    assert reply.startswith("event 3: ann suggested Ash, Cord, Garden: bob showed ann Cord\n")
    assert a.log()["events"][3] == {
        "type": "suggestion", "by": "ann", "cards": ["Ash", "Cord", "Garden"], "refuted_by": "bob", "shown": "Cord",
    }
    assert "Cord is bob's: bob showed ann Cord (event 3: ann suggested Ash, Cord, Garden: bob showed ann Cord)." in a.handle("why cord")
    assert a.handle("has env garden").startswith("event 4: Garden is in the envelope\n")
    assert a.handle("acc bob ash dart garden maybe") == "error: end an accusation with 'right' or 'wrong', not 'maybe'"
    assert len(a.log()["events"]) == 5


def test_a_pasted_huge_line_is_echoed_cut_but_read_whole():
    """A 44 KB line piped in was echoed in full; the transcript now shows its start and length,
    while the session still gets the whole line (and refuses it on its own terms)."""
    out = io.StringIO()
    line = "a" * 44_000
    assert read_line("> ", io.StringIO(line + "\n"), out, tty=False) == line + "\n"
    echoed = out.getvalue()
    assert len(echoed) < 500 and echoed.startswith("> aaa") and "(44000 characters)" in echoed


def test_read_line_echoes_a_stream_and_ends_with_none(monkeypatch):
    out = io.StringIO()
    source = io.StringIO("grid\nlast")
    assert read_line("> ", source, out, tty=False) == "grid\n"
    assert read_line("> ", source, out, tty=False) == "last"
    assert read_line("> ", source, out, tty=False) is None
    assert out.getvalue() == "> grid\n> last\n> "
    typed = iter(["undo"])

    def fake_input(prompt):
        try:
            return next(typed)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", fake_input)
    assert read_line("> ", io.StringIO(), out, tty=True) == "undo"
    assert read_line("> ", io.StringIO(), out, tty=True) is None


def test_a_held_back_event_is_added_by_a_bare_undo_and_dropped_by_anything_else():
    a = small_session("auto")
    a.handle("has bob birch")
    assert a.handle("has cy birch").startswith("not added: this contradicts event 1 (bob holds Birch)")
    assert a.prompt == "undo which event (or press enter to drop the new one)? "
    reply = a.handle("undo")  # the last event, and the held-back one goes in its place
    assert reply.startswith("removed event 1: bob holds Birch\nevent 1: cy holds Birch\n")
    assert a.log()["events"][1:] == [{"type": "card_at", "card": "Birch", "at": "cy"}]
    assert a.handle("has bob birch").startswith("not added: this contradicts event 1 (cy holds Birch)")
    assert a.handle("grid") == "(dropped the held-back event)\n" + a.status()
    assert a.prompt == "> " and a.log()["events"][1:] == [{"type": "card_at", "card": "Birch", "at": "cy"}]


@pytest.mark.parametrize("line,message", [
    ("undo 1x", "undo takes an event number, not '1x'"),
    ("undo 7", "there is no event 7; events are numbered 0 to 1"),
    ("7", "there is no event 7"),
])
def test_a_bad_undo_keeps_the_held_back_event(line, message):
    a = small_session("auto")
    a.handle("has bob birch")
    a.handle("has cy birch")
    reply = a.handle(line)
    assert reply.startswith(f"error: {message}") and reply.endswith("(the new event is still held back)")
    assert a.prompt.startswith("undo which event") and len(a.log()["events"]) == 2
    assert a.handle("undo 1").startswith("removed event 1: bob holds Birch\nevent 1: cy holds Birch\n")
    assert a.log()["events"][1:] == [{"type": "card_at", "card": "Birch", "at": "cy"}]


def test_a_failed_undo_keeps_the_held_back_event():
    """Removing the hand leaves Ann's two cards unplaced with nothing against it; instead the
    adapter refuses the removal, and the held-back event must survive that too."""
    a = small_session("auto")
    a.handle("has bob birch")
    a.handle("has cy birch")

    def refuse(index, remaining):
        raise DeduceError(f"cannot undo event {index}: a later event depends on it")

    a._check_removable = refuse
    reply = a.handle("undo 1")
    assert reply == "error: cannot undo event 1: a later event depends on it (the new event is still held back)"
    assert a.pending is not None and len(a.log()["events"]) == 2


def test_a_mistyped_line_after_a_held_back_event_says_it_was_dropped():
    a = small_session("auto")
    a.handle("has bob birch")
    a.handle("has cy birch")
    reply = a.handle("frobnicate")
    assert reply == "error: unknown command 'frobnicate'; type 'help' for the list\n(dropped the held-back event)"
    assert a.prompt == "> " and a.pending is None and len(a.log()["events"]) == 2


class _FailingAdvice(ClueAdapter):
    """A Clue adapter whose advice breaks once ``broken`` is set."""

    broken = False

    def answer_lines(self, session, marginals):
        if self.broken:
            raise RuntimeError("scorer crashed")
        return super().answer_lines(session, marginals)


def test_a_failure_after_an_event_is_saved_says_it_was_added():
    saves = []
    adapter = _FailingAdvice(top=3)
    a = GameAssistant(adapter, solvers.get("auto"), save=saves.append,
                      setup={"players": ["ann", "bob", "cy"], "deck": SMALL, "hand_sizes": None, "me": "ann",
                             "hand": "eyrie forge"})
    adapter.broken = True
    reply = a.handle("has bob birch")
    assert reply == "event 1: bob holds Birch\n(added and saved; the advice failed: RuntimeError: scorer crashed)"
    assert "error" not in reply and "unchanged" not in reply
    assert saves[-1]["events"][1] == {"type": "card_at", "card": "Birch", "at": "bob"}
    reply = a.handle("undo")
    assert reply == "removed event 1: bob holds Birch\n(removed and saved; the advice failed: RuntimeError: scorer crashed)"
    assert len(saves[-1]["events"]) == 1
    assert a.handle("redo").endswith("(added and saved; the advice failed: RuntimeError: scorer crashed)")
    assert len(saves[-1]["events"]) == 2


@pytest.mark.parametrize("names,bad", [
    ("ann me cy", "'me'"), ("ann I cy", "'I'"), ("ann myself cy", "'myself'"), ("ann spectator cy", "'spectator'"),
    ("ann nobody cy", "'nobody'"), ("ann sug cy", "'sug'"), ("ann Extra cy", "'extra', 'me'"),
])
def test_clue_refuses_player_names_its_lines_read_otherwise(names, bad):
    a = GameAssistant(ADAPTER, solvers.get("auto"))
    reply = a.handle(names)
    assert reply.startswith("error: ") and bad in reply and "player name" in reply
    assert a.prompt.startswith("players in seat order")  # asked again, before anything else


@pytest.mark.parametrize("game,names,bad", [
    ("alibi-adlung", "ann got cy", "'got'"),
    ("alibi-adlung", "ann new cy", "'new'"),
    ("alibi-adlung", "ann Deck cy", "'Deck'"),
    ("alibi-adlung", "ann glasses cy", "'glasses'"),
    ("mafia-code", "ann box", "'box'"),
    ("crime-hotel", "ann bob hidden", "'hidden'"),
    ("checkpoint-charlie", "ann bag cy", "'bag'"),
    ("alibi", "ann bob meld", "'meld'"),
    ("alibi", "ann bob i", "'i'"),
    ("mafia-code", "ann Ann", "must be distinct"),
])
def test_every_game_refuses_player_names_its_lines_read_otherwise(game, names, bad):
    from deduce.apps.assist.session import adapter_for

    a = GameAssistant(adapter_for(game), solvers.get("auto"))
    reply = a.handle(names)
    assert reply.startswith("error: ") and bad in reply, reply
    assert a.prompt.startswith("players in seat order") and "players" not in a._answers
    assert a.handle(names.replace(bad.strip("'").split("'")[0], "zed") if "distinct" not in bad else "ann bob") == ""


def test_an_event_that_cannot_be_worded_is_still_reported_as_added():
    class Mute(ClueAdapter):
        def event_text(self, game, obs, index):
            raise RuntimeError("no words")

    saves = []
    a = GameAssistant(Mute(top=3), solvers.get("auto"), save=saves.append,
                      setup={"players": ["ann", "bob", "cy"], "deck": SMALL, "hand_sizes": None, "me": "ann",
                             "hand": "eyrie forge"})
    reply = a.handle("has bob birch")
    assert reply.startswith("event 1: {'type': 'card_at', 'card': 'Birch', 'at': 'bob'}\n")
    assert "internal error" not in reply and len(saves[-1]["events"]) == 2
