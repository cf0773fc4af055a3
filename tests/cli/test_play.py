"""``deduce play``: a person against agents, driven through the command's own streams."""

import io

import pytest

import deduce
from deduce.cli import build_parser, main
from deduce.cli.play import run
from deduce.play import seeds_for


def play(lines, *argv):
    args = build_parser().parse_args(["play", *argv])
    out = io.StringIO()
    code = run(args, stdin=io.StringIO("".join(line + "\n" for line in lines)), stdout=out)
    return code, out.getvalue()


def _deal(seed):
    game = deduce.make("clue")
    return game, game.new_initial_state(seeds_for(seed, game.num_players + 1)[0])


def test_clue_against_agents_to_the_end():
    game, state = _deal(3)
    mine = [game.deck[c] for c in state.hands[0]]
    suspect = next(c for c in mine if c.category == "suspect")  # a card of mine: the accusation is wrong
    weapon = next(c for c in game.deck if c.category == "weapon")
    room = next(c for c in game.deck if c.category == "room")
    lines = [
        "notebook",
        "sug zzz",                    # matches nothing
        "sug gr rope",                # nine rooms match: a numbered choice
        "1",
        f"why {mine[0].name}",
        "end",
        f"acc {suspect.name} {weapon.name} {room.name}",
    ] + ["1"] * 40                    # refutations while the agents play on
    code, out = play(lines, "clue", "--seed", "3", "--agents", "deductive")
    assert code == 0
    assert "Traceback" not in out and "internal error" not in out
    # only what seat 0 sees: its own hand, other refutations as 'a card'
    assert f"your hand: {', '.join(c.name for c in mine)}" in out
    assert "p1's hand" not in out and "p2's hand" not in out
    assert "showed p1 a card" in out or "showed p2 a card" in out
    # the notebook, the name matching and the explanation
    assert "envelope: 120 possible answers" in out
    assert "error: no legal action matches 'sug zzz'" in out
    assert "9 actions match 'sug gr rope'; pick a number:" in out
    assert "you: suggest Mr. Green, Rope, Kitchen" in out
    assert f"{mine[0].name} is p0's: p0 holds {mine[0].name} (event 0)." in out
    assert f"you accused {suspect.name}, {weapon.name}, {room.name}: wrong" in out
    assert "you saw the envelope: Colonel Mustard, Rope, Hall" in out
    # the agents finish the game
    assert "-- game over" in out
    assert "the envelope held Colonel Mustard, Rope, Hall" in out
    assert "winner: p1" in out or "winner: p2" in out


def test_every_game_is_playable_from_a_numbered_list():
    code, out = play(["2", "notebook"] + ["1"] * 300, "checkpoint-charlie", "--seed", "1", "--agents", "random")
    assert code == 0 and "Traceback" not in out
    assert "    1. choose side side=0" in out and "you: choose side side=1" in out
    assert "-- game over" in out and "scores: p0 " in out


def test_quit_and_end_of_input_leave_cleanly():
    code, out = play(["quit"], "mafia-code", "--agents", "random")
    assert code == 0 and out.rstrip().endswith("you left the game")
    code, out = play([], "clue", "--agents", "random", "--seat", "1")
    assert code == 0 and "input ended; you left the game" in out


def test_bad_options_are_one_line_errors(capsys):
    assert main(["play", "clue", "--seat", "7"]) == 2
    assert "--seat must be 0 to 2 for 3 players, not 7" in capsys.readouterr().err
    assert main(["play", "clue", "--agents", "nope"]) == 2
    assert "unknown agent 'nope'" in capsys.readouterr().err
    assert main(["play", "clue", "--agents", "random,random,random"]) == 2
    assert "one per seat; got 3" in capsys.readouterr().err
    assert main(["play", "clue", "--players", "9"]) == 2
    assert "cannot set up clue: num_players=9: Clue needs 3 to 6 players" in capsys.readouterr().err


@pytest.mark.slow
def test_clue_on_the_board_draws_the_tokens_each_turn():
    lines = ["board", "roll", "1"] + ["1"] * 400  # "1": the first legal action (rooms come before squares)
    code, out = play(lines, "clue", "--board", "--seed", "2")
    assert code == 0 and "Traceback" not in out and "internal error" not in out
    turns = out.split("-- your turn")
    assert len(turns) > 10
    # the first turn: the board with every token at its start square, whose token is whose
    first = turns[1]
    assert "1 Miss Scarlet (you): r24c7" in first and "2 Colonel Mustard (p1): r17c0" in first
    assert "4 Mr. Green: r0c14" in first  # a suspect nobody plays
    assert ":::::::1." in first  # seat 0's token drawn on its start square, bottom row
    assert first.count("1 Miss Scarlet (you)") == 2  # once at the turn, once for 'board'
    assert "you: roll the dice\n  you rolled 7" in out
    assert "you rolled 7: move up to 7 squares" in turns[2]
    # the person moves: the picture follows the token
    assert "you: move to r17c7" in out and "1 Miss Scarlet (you): r17c7" in turns[3]
    assert "2......1" in turns[3] and ":::::::1." not in turns[3]
    # the agents' moves and suggestions are worded, and dragged tokens show up in the legend
    assert "p1 rolled" in out and "Colonel Mustard (p1) moved from r17c0" in out
    assert "was moved into the" in out
    assert "rooms within reach:" in out and "you: suggest Miss Scarlet" in out
    assert "p1 suggested" in out and "p2 suggested" in out


def test_board_flag_is_for_clue_only(capsys):
    assert main(["play", "mafia-code", "--board"]) == 2
    assert "--board is for clue, not mafia-code" in capsys.readouterr().err
    code, out = play(["board", "quit"], "clue", "--agents", "random")
    assert "this game is not played on a board" in out


@pytest.mark.slow
def test_clue_intrigue_edition_on_the_board():
    code, out = play(["1"] * 300, "clue", "--board", "--set", "edition=intrigue", "--seed", "2")
    assert code == 0 and "Traceback" not in out and "internal error" not in out
    first = out.split("-- your turn")[1]
    assert "Pool" in first and "?" in first  # the pool and the "?" squares are drawn
    assert "drew a clock (a rolled '?'); 1 beside the board" in out
    assert "    1. roll the dice\n>" in first and "accuse" not in first  # no accusing outside the pool


def test_a_notebook_over_a_relaxed_knowledge_base_is_labelled_approximate():
    from deduce.games.alibi_adlung.rules import AlibiAdlungGame

    code, out = play(["notebook", "quit"], "alibi-adlung", "--seed", "1", "--agents", "random")
    assert code == 0 and "Traceback" not in out and "internal error" not in out
    assert f"(approximate: {AlibiAdlungGame.knowledge_relaxed})" in out
    code, out = play(["notebook", "quit"], "clue", "--seed", "1", "--agents", "random")
    assert "envelope: " in out and "approximate" not in out  # Clue's knowledge is exact
