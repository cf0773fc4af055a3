"""``deduce play``: a person against agents, driven through the command's own streams."""

import io
import re

import numpy as np
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
    assert "    1. side bare ears up" in out and "you: side hat up" in out
    assert "-- game over" in out
    # the scores are the totals the game ended with, not win flags
    totals = re.search(r"totals you (-?\d+), p1 (-?\d+), p2 (-?\d+), p3 (-?\d+)", out).groups()
    assert f"scores: you {totals[0]}, p1 {totals[1]}, p2 {totals[2]}, p3 {totals[3]}" in out  # seat 0 is "you", as in every event
    assert sorted(set(totals)) != ["0", "1"]


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
    # the roll is the only choice outside the pool (no accusing there): it is played for you
    assert "you: roll the dice (your only choice)" in out and "accuse" not in first


def test_a_notebook_over_a_relaxed_knowledge_base_is_labelled_approximate():
    from deduce.games.alibi_adlung.rules import AlibiAdlungGame

    code, out = play(["notebook", "quit"], "alibi-adlung", "--seed", "1", "--agents", "random")
    assert code == 0 and "Traceback" not in out and "internal error" not in out
    assert f"(approximate: {AlibiAdlungGame.knowledge_relaxed})" in out
    code, out = play(["notebook", "quit"], "clue", "--seed", "1", "--agents", "random")
    assert "envelope: " in out and "approximate" not in out  # Clue's knowledge is exact


# -- a person sees names, never indices (issue 20) ----------------------------------------------
#: what a bare index looks like in a transcript: a field=number, a Python value, a repr, or a
#: number where a card, room, suspect, cat, side, feature or seat is meant
BARE_INDEX = [
    (re.compile(r"\b[a-z_]+=[-(\d]"), "a field=number"),
    (re.compile(r"\b(None|True|False)\b"), "a Python value"),
    (re.compile(r"\b[A-Z][A-Za-z]+\((?:[a-z_]+=|\d)"), "a repr"),
    (re.compile(r"\b(?:room|play|played|led|give|gave|took|card|cat|side|suspect|feature|seat|player) \d{1,2}\b"), "a number"),
]


def bare_indices(transcript: str) -> list[tuple[str, str]]:
    """Every place in ``transcript`` that shows an index where a name belongs."""
    return [(why, m.group(0)) for rx, why in BARE_INDEX for m in rx.finditer(transcript)]


def test_the_scanner_finds_what_the_old_play_printed():
    old = """  clue drawn player=p0 feature=0
  deduced player=p0 space=space kind=floor value=1 double=False
you: meld sets=(18)
    2. play card=23
  row dealt row=(11, 3, 2, 4)"""
    found = {text for _, text in bare_indices(old)}
    assert {"feature=0", "value=1", "False", "sets=(", "card=2", "row=("} <= found
    assert bare_indices("you: deduce room 306\n  p1 arrested [hat, glasses, grey, coat, newspaper]") == []
    assert bare_indices("you: deduce room 23") == [("a number", "room 23")]


#: per game: the options of a scripted game, and the lines typed before answering '1' to the end
SCRIPTS = {
    "clue": (["--agents", "deductive"], ["table", "list"]),
    "alibi": (["--agents", "random"], ["table"]),
    "alibi-adlung": (["--agents", "random"], ["table"]),
    "mafia-code": (["--agents", "random"], ["table"]),
    "checkpoint-charlie": (["--agents", "random"], ["table"]),
    "crime-hotel": (["--agents", "random"], ["table", "list"]),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_a_scripted_game_shows_names_never_indices(name):
    options, lines = SCRIPTS[name]
    code, out = play(lines + ["1"] * 400, name, "--seed", "1", *options)
    assert code == 0 and "Traceback" not in out and "internal error" not in out and "error:" not in out
    assert "-- game over" in out, out[-2000:]
    assert bare_indices(out) == []
    assert "-- your turn" in out and "you: " in out


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_what_play_displays_can_be_typed_back(name):
    """An action of the menu, typed as shown, is the action played (the last one, then the first)."""
    from deduce.cli.play import HumanGame, _build

    args = build_parser().parse_args(["play", name, "--seed", "2", "--agents", "random"])
    session: HumanGame = _build(args)
    session.start()
    for pick in (-1, 0):
        obs = session.state.observation(session.seat)
        shown = [t for _, t in session._menu(obs, obs.legal_actions)]
        assert shown
        answer = session.feed(shown[pick])
        assert f"you: {shown[pick]}" in answer, answer
        if session.done:
            break


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n == "alibi" else n for n in sorted(SCRIPTS)])
def test_every_legal_action_is_picked_out_by_its_own_words(name):
    """Along a random game, the words of each legal action choose an action with those words,
    and no event is worded as field=value."""
    from deduce.cli.play import Words, choose

    game = deduce.make(name)
    words = Words(game)
    state = game.new_initial_state(3)
    rng = np.random.default_rng(3)
    for _ in range(60):
        if state.is_terminal():
            break
        obs = state.observation(state.current_player)
        menu = {words.action(a, obs): a for a in obs.legal_actions}
        items = [(a, t) for t, a in menu.items()]
        for _action, text in items[:: max(1, len(items) // 15)]:
            assert [words.action(a, obs) for a in choose(text, items)] == [text]
        for event in obs.events:
            assert bare_indices(Words(game, obs.player).event(event)) == []
        state.apply(obs.legal_actions[int(rng.integers(len(obs.legal_actions)))])


def test_every_turn_shows_the_private_information_and_the_table():
    code, out = play(["1", "1", "quit"], "checkpoint-charlie", "--seed", "1", "--agents", "random")
    turn = out.split("-- your turn")[2]
    assert "your clue: the ears token (bare ears / hat), bare ears up" in turn
    assert "p3: [" in turn or "p1: [" in turn or "(you): [" in turn  # cats in front of the players
    assert "score tokens:" in turn and "tokens left: gold 5, white 12, black 8" in turn
    code, out = play(["1", "1", "quit"], "crime-hotel", "--seed", "1", "--agents", "random")
    assert "you are supporting (no skid marks): station your meeple in a department" in out
    code, out = play(["1", "quit"], "mafia-code", "--seed", "1", "--agents", "random")
    assert "p1: 10 cards, revealed red A" in out and "scores: you 1, p1 0, p2 0" in out


def test_a_forced_single_action_is_played_unless_asked_not_to():
    code, out = play(["1", "1", "quit"], "crime-hotel", "--seed", "1", "--agents", "random")
    assert "you: play 308 (your only choice)" in out
    code, out = play(["1", "1", "quit"], "crime-hotel", "--seed", "1", "--agents", "random", "--no-auto")
    assert "(your only choice)" not in out and "    1. play 308\n>" in out


def test_help_is_specific_to_the_game(capsys):
    with pytest.raises(SystemExit):
        main(["play", "crime-hotel", "--help"])
    text = capsys.readouterr().out
    assert "Crime Hotel actions:" in text and "deduce room 306" in text and "--no-auto" in text
    code, out = play(["help", "quit"], "alibi-adlung", "--agents", "random")
    assert "Alibi (Adlung) actions:" in out and "name SUSPECT" in out


def test_unknown_names_get_did_you_mean(capsys):
    assert main(["play", "checkpoint-charly"]) == 2
    assert "unknown game 'checkpoint-charly'; did you mean checkpoint-charlie?" in capsys.readouterr().err
    assert main(["play", "clue", "--agents", "deductiv"]) == 2
    assert "unknown agent 'deductiv'; did you mean deductive" in capsys.readouterr().err
    code, out = play(["why plumm", "quit"], "clue", "--agents", "random")
    assert "error: unknown card 'plumm'; did you mean Professor Plum?" in out


@pytest.mark.slow
def test_an_alibi_notebook_the_backend_cannot_count_is_one_line():
    code, out = play(["1", "1", "notebook", "why rage m1", "quit"], "alibi", "--agents", "random")
    assert code == 0 and "internal error" not in out and "Traceback" not in out
    assert "no notebook now: the auto backend cannot count" in out


def test_set_values_are_typed_by_the_config_field(capsys):
    from deduce.cli.play import _config

    args = build_parser().parse_args(["play", "mafia-code", "--set", "expert=yes", "--set", "colours=red,blue,green"])
    assert _config(args) == {"expert": True, "colours": ("red", "blue", "green")}
    assert main(["play", "mafia-code", "--set", "expert=maybe"]) == 2
    err = capsys.readouterr().err
    assert "--set expert" in err and "maybe" in err and len(err.strip().splitlines()) == 1
    assert main(["play", "mafia-code", "--set", "expertt=yes"]) == 2
    assert "--set expertt: mafia-code has no such setting" in capsys.readouterr().err


def test_wait_passes_until_something_new_can_be_done():
    code, out = play(["2", "wait", "wait", "wait", "quit"], "checkpoint-charlie", "--seed", "3", "--agents", "random", "--players", "5")
    assert code == 0 and "internal error" not in out and "error:" not in out
    assert "you: pass (waiting)" in out
    # after each question the person is asked again only when a cat they could not arrest before is offered
    turns = out.split("-- your turn")[2:]
    offers = [set(re.findall(r"\d+\. (arrest .*)", turn)) for turn in turns]
    assert all(later - earlier for earlier, later in zip(offers, offers[1:], strict=False) if later)
    code, out = play(["1", "wait", "quit"], "crime-hotel", "--seed", "1", "--agents", "random")
    assert "error: 'wait' passes until something new can be done, but you cannot pass now" in out


def test_the_barred_room_is_shown_and_named_when_suggested():
    code, out = play(["sug gr rope kitch", "end", "sug gr rope kitch", "quit"], "clue", "--seed", "3", "--agents", "random")
    turn = out.split("-- your turn")[3]
    assert "you may not suggest in Kitchen this turn (your last suggestion was there)" in turn
    assert "error: no legal action matches 'sug gr rope kitch': you may not suggest in Kitchen again this turn" in out


def test_events_are_numbered_as_why_cites_them():
    code, out = play(["1", "events", "why red a", "quit"], "mafia-code", "--seed", "1", "--agents", "random")
    assert "    5. you guessed p1 holds red A: a hit, the card is revealed" in out
    assert "red A is p1's: p1 holds red A (event 5: you guessed p1 holds red A: a hit, the card is revealed)." in out


def test_a_separator_typed_as_a_word_is_skipped():
    from deduce.apps.assist.text import match_name
    from deduce.cli.play import choose

    names = [c.name for c in deduce.make("alibi").deck]
    assert match_name("Andy Anderson / Noon", names, "card") == "Andy Anderson / Noon"
    menu = [("a", "pass Boat / Deck"), ("b", "pass Boat / Cabin")]
    assert choose("pass boat / de", menu) == ["a"] and choose("pass Boat / Cabin", menu) == ["b"]


def test_a_registered_game_without_wording_is_still_playable(monkeypatch):
    from deduce.games import registry
    from deduce.games.base import GameInfo

    info = registry.game_info("mafia-code")
    monkeypatch.setitem(registry._LOADED, "mafia-code", GameInfo(name="mafia-code", game=info.game, log=info.log))
    code, out = play(["1", "quit"], "mafia-code", "--agents", "random")
    assert code == 0 and "you: Guess(" in out and "internal error" not in out


def test_an_alibi_hypothesis_question_is_typed_in_the_games_words():
    """The seed's question, typed as the rule book says it, is asked (it is legal without being
    listed), the turn shows how to type one, and the question reads back in the same words."""
    code, out = play(
        ["meld nothing", "ask p1 has seen Slim Slant, Morning, Front Seat, Pillow",
         "ask p2 holds Rage + Gun", "ask p3 has seen Slim Slant, Zzz", "quit"],
        "alibi", "--seed", "3", "--agents", "random",
    )
    assert code == 0 and "internal error" not in out and "Traceback" not in out
    assert "or ask any question by its cards: a hypothesis, 'ask p1 has seen Slim Slant, Morning," in out
    assert "you: ask p1 has seen Slim Slant / Morning + Auto / Front Seat + Smothering / Pillow" in out
    assert "you asked p1: how many of Slim Slant / Morning + Auto / Front Seat + Smothering / Pillow have you ever seen? answer" in out
    # the round's questions are over: the next typed question is refused in words, on one line
    assert "error: ask p2 holds Gun + Rage: p0 must choose cards to pass\n" in out
    assert "error: unknown card, set or category 'Zzz'" in out


def _illegal(name, game, state):
    """An action the seat to move may not take now, of the kind a person can type."""
    from deduce.games.alibi.rules import PassCard
    from deduce.games.alibi_adlung.rules import Decline as AdlungDecline
    from deduce.games.checkpoint_charlie.rules import Arrest
    from deduce.games.clue.intrigue import Decline
    from deduce.games.crime_hotel.rules import Play
    from deduce.games.mafia_code.rules import Guess

    me = state.current_player
    if name == "clue":
        return Decline()
    if name == "alibi":
        return PassCard(min(state.hands[me]))
    if name == "alibi-adlung":
        return AdlungDecline()
    if name == "mafia-code":
        return Guess(me, 0)
    if name == "checkpoint-charlie":
        return Arrest(0)
    hand = state.observation(me).hand
    return Play(next(c for c in range(len(game.deck)) if c not in hand))


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_engine_refusals_name_the_seat(name):
    """What a person reads when the engine refuses an action names the seat ('ann must ...'),
    never 'player 0'; the refusal still raises IllegalAction for research code."""
    from deduce.errors import IllegalAction

    game = deduce.make(name)
    names = ("ann", "bob", "cy", "dee", "eve", "fay")[: game.num_players]
    game = deduce.make(name, player_names=names)
    state = game.new_initial_state(1)
    action = _illegal(name, game, state)
    assert action not in state.legal_actions()
    reason = state.explain_illegal(action)
    assert names[state.current_player] in reason, reason
    assert re.search(r"\bplayer \d", reason) is None and bare_indices(reason.split(": ", 1)[-1]) == [], reason
    with pytest.raises(IllegalAction, match=names[state.current_player]):
        state.apply(action)


@pytest.mark.parametrize("name", sorted(SCRIPTS))
def test_a_refused_action_reads_in_words_in_play(name):
    """In ``deduce play`` a refusal says the action in the game's words and the seat by name:
    no repr such as 'Decline()' and no 'player 0'."""
    import agents
    from deduce.cli.play import HumanGame

    game = deduce.make(name)
    others = {i: agents.get("random", game=name) for i in range(1, game.num_players)}
    session = HumanGame(game, others, 0, 1)
    session.start()
    if session.done:
        pytest.skip("the game ended before the person's turn")
    action = _illegal(name, game, session.state)
    with pytest.raises(deduce.errors.IllegalAction) as refused:
        session._play(action)
    message = str(refused.value)
    assert repr(action) not in message and re.search(r"\bplayer \d", message) is None, message
    assert message.startswith(session.words.action(action, session.state.observation(0)) + ": "), message
