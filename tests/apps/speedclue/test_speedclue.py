"""The Speed Clue protocol: framing and parsing, the seat mirror against the engine, our client
against our server in every seat (3-6 players), the command line end to end, and a deliberately
bad bot's violations detected and reported."""

import json
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import agents
from agents.base import Agent
from deduce.apps.speedclue import (
    CardCodes,
    Mirror,
    ProtocolError,
    SpeedClueBot,
    SpeedClueServer,
    Violation,
    encode,
    parse_bot,
    parse_message,
    parse_reply,
    speedclue_config,
)
from deduce.apps.speedclue.protocol import (
    AccusationNotice,
    AccuseReply,
    AccuseRequest,
    DisproveRequest,
    Done,
    Reset,
    ShowReply,
    SuggestionNotice,
    SuggestReply,
    SuggestRequest,
    parse_alive,
)
from deduce.apps.tournament import TournamentResults
from deduce.cli import main
from deduce.errors import DeduceError, InvalidConfig
from deduce.games.clue.rules import (
    Accusation,
    Accuse,
    ClueGame,
    ClueState,
    EndTurn,
    Show,
    Suggest,
    Suggestion,
)

pytestmark = pytest.mark.timeout(60)

BADBOT = Path(__file__).resolve().parent / "bots" / "badbot.py"


# -- protocol -------------------------------------------------------------------------------------
MESSAGES = [
    Reset(3, 0, ("Gr", "Ca", "Ba", "Bi", "Co", "Di")),
    Reset(4, 3, ("Gr", "Ca", "Ba", "Bi")),
    SuggestRequest(),
    DisproveRequest(2, ("Pl", "Ro", "Ki")),
    SuggestionNotice(1, ("Pl", "Ro", "Ki"), 2, "Ro"),
    SuggestionNotice(1, ("Pl", "Ro", "Ki"), 2),
    SuggestionNotice(1, ("Pl", "Ro", "Ki"), None),
    AccuseRequest(),
    AccusationNotice(0, ("Pe", "Pi", "Bi"), True),
    AccusationNotice(0, ("Pe", "Pi", "Bi"), False),
    Done(),
]


@pytest.mark.parametrize("message", MESSAGES, ids=encode)
def test_messages_round_trip_exactly(message):
    text = encode(message)
    assert "\n" not in text and text == text.strip()
    assert parse_message(text) == message


def test_exact_reply_texts():
    assert encode(SuggestReply(("Pl", "Ro", "Ki"))) == "suggest Pl Ro Ki"
    assert encode(ShowReply("Ha")) == "show Ha"
    assert encode(AccuseReply(("Pe", "Pi", "Bi"))) == "accuse Pe Pi Bi"
    assert encode(AccuseReply(None)) == "-"
    assert parse_reply("accuse Pe Pi Bi", AccuseRequest()) == AccuseReply(("Pe", "Pi", "Bi"))
    assert parse_reply("-", AccuseRequest()) == AccuseReply(None)
    assert parse_alive("bot.0 alive").identifier == "bot.0"


@pytest.mark.parametrize("text,request_", [
    ("ok\n", Reset(3, 0, ("Gr", "Ca", "Ba", "Bi", "Co", "Di"))),
    ("ok\r\n", SuggestionNotice(0, ("Gr", "Ca", "Ba"), None)),
    ("ok ", AccusationNotice(0, ("Gr", "Ca", "Ba"), False)),
    (" ok", AccusationNotice(0, ("Gr", "Ca", "Ba"), False)),
    ("OK", AccusationNotice(0, ("Gr", "Ca", "Ba"), False)),
    ("suggest Pl Ro Ki\n", SuggestRequest()),
    ("suggest Pl  Ro Ki", SuggestRequest()),
    ("suggest Ro Pl Ki", SuggestRequest()),  # weapon where the suspect belongs
    ("suggest Pl Ro", SuggestRequest()),
    ("show Xx", DisproveRequest(1, ("Pl", "Ro", "Ki"))),
    ("show", DisproveRequest(1, ("Pl", "Ro", "Ki"))),
    ("- ", AccuseRequest()),
    ("ok", AccuseRequest()),
    ("dead\n", Done()),
])
def test_badly_formed_replies_are_violations(text, request_):
    with pytest.raises(Violation) as info:
        parse_reply(text, request_)
    assert info.value.kind == "malformed"


@pytest.mark.parametrize("text", [
    "reset 3 0 Gr Ca", "reset 3 3 Gr Ca Ba Bi Co Di", "reset 7 0", "suggestion 1 Pl Ro Ki - Ro",
    "suggestion 1 Pl Ro Ki 2 Ha", "suggest\n", "accusation 0 Pe Pi Bi *", "hello",
])
def test_bad_server_messages_are_refused(text):
    with pytest.raises(ProtocolError):
        parse_message(text)


# -- the mirror against the engine --------------------------------------------------------------
def _notices(state: ClueState, codes: CardCodes, seat: int) -> list:
    """The broadcasts ``seat`` would have received for the engine's events."""
    out = []
    for e in state.events:
        if isinstance(e, Suggestion):
            d = e.refuters[0] if e.refuters else None
            x = codes.code(e.shown[0]) if d is not None and seat in (e.by, d) else None
            out.append(SuggestionNotice(e.by, codes.codes(e.cards), d, x))
        elif isinstance(e, Accusation):
            out.append(AccusationNotice(e.by, codes.codes(e.cards), e.correct))
    return out


@pytest.mark.parametrize("players", [3, 4, 5, 6])
def test_mirror_rebuilds_the_engine_observation(players):
    game = ClueGame(speedclue_config(players))
    codes = CardCodes(game)
    for seed in range(2):
        state = _finished_game(game, seed)
        for seat in range(players):
            mirror = Mirror(Reset(players, seat, codes.codes(state.hands[seat])))
            for notice in _notices(state, codes, seat):
                mirror.update(notice)
            assert tuple(mirror.events) == state.observation(seat).events
            assert mirror.hand == state.hands[seat]
            assert mirror.game.config.hand_sizes() == game.config.hand_sizes()


def _finished_game(game: ClueGame, seed: int) -> ClueState:
    """A game played to the end by two deductive agents and random ones, kept as a state."""
    state = game.new_initial_state(seed)
    table = [agents.get("deductive" if p % 2 == 0 else "random", game="clue") for p in range(game.num_players)]
    for p, a in enumerate(table):
        a.reset(game, p, seed + p)
    for _ in range(2000):
        if state.is_terminal():
            break
        seat = state.current_player
        state.apply(table[seat].act(state.observation(seat)))
    return state


def test_mirror_forced_accusation_and_allowed_accusations():
    mirror = Mirror(Reset(3, 0, ("Gr", "Ca", "Ba", "Bi", "Co", "Di")))
    legal = mirror.legal_actions(SuggestRequest())
    own = set(mirror.hand)
    assert all(not own.intersection(a.cards) for a in legal if isinstance(a, Accuse))
    assert any(isinstance(a, Suggest) and own.intersection(a.cards) for a in legal)  # may name own cards
    mirror.update(SuggestionNotice(0, ("Pl", "Ro", "Ki"), None))
    assert mirror.legal_actions(AccuseRequest()) == (Accuse(mirror.codes.ids(("Pl", "Ro", "Ki"))),)
    mirror.turn_over()
    assert Suggest(mirror.codes.ids(("Pl", "Ro", "Ki"))) not in mirror.legal_actions(SuggestRequest())
    # a suggestion naming my own card, disproved by nobody, forces nothing
    mirror.update(SuggestionNotice(1, ("Gr", "Kn", "Ha"), 0, "Gr"))
    mirror.update(SuggestionNotice(0, ("Gr", "Kn", "Ha"), None))
    assert EndTurn() in mirror.legal_actions(AccuseRequest())
    mirror.turn_over()
    # a card shown to me is never accused
    mirror.update(SuggestionNotice(0, ("Mu", "Pi", "St"), 1, "Pi"))
    pi = mirror.codes.id("Pi")
    assert all(pi not in a.cards for a in mirror.legal_actions(AccuseRequest()) if isinstance(a, Accuse))


# -- the client bot without a socket ------------------------------------------------------------
class _Sleepy(Agent):
    name = "sleepy"

    def act(self, observation):
        time.sleep(2.0)
        return observation.legal_actions[0]


class _Stubborn(Agent):
    """Always the same suggestion (a repeat from its second turn), accuses a held card, shows
    a card it was not asked about, and crashes when asked whether to accuse."""

    name = "stubborn"

    def act(self, observation):
        if observation.to_refute is not None:
            return Show(99)
        hand = observation.hand
        if any(isinstance(a, EndTurn) for a in observation.legal_actions):
            raise RuntimeError("boom")
        return Suggest((0, 6, 12)) if observation.turn % 2 == 0 else Accuse((hand[0], 6, 12))


class _Anytime(Agent):
    """Thinks until its deadline, then answers with its best so far (the first legal action)."""

    name = "anytime"
    deadline: float | None = None  # seconds for this decision, as every deduce agent reads it

    def act(self, observation):
        stop = time.monotonic() + (self.deadline or 0.0)
        while self.deadline is not None and time.monotonic() < stop - 0.2:
            time.sleep(0.01)
        return observation.legal_actions[-1]


@pytest.fixture
def misbehaving_agents(monkeypatch):
    """The misbehaving agents, registered for Clue only while a test runs."""
    import agents.registry

    for cls in (_Anytime, _Sleepy, _Stubborn):
        monkeypatch.setitem(agents.registry._EXTRA, (cls.name, "clue"), cls)


def test_a_late_agent_is_answered_for_in_time(misbehaving_agents):
    bot = SpeedClueBot("sleepy", time_limit=1.0)
    assert bot.handle("reset 3 1 Gr Ca Ba Bi Co Di") == "ok"
    start = time.monotonic()
    reply = bot.handle("suggest")
    assert time.monotonic() - start < 0.9
    assert isinstance(parse_reply(reply, SuggestRequest()), SuggestReply)
    # still thinking: the next decision is the fallback too, at once
    reply = bot.handle("disprove 2 Gr Kn Ba")
    assert reply in ("show Gr", "show Ba") and bot.stats["late"] == 2


def test_every_answer_the_agent_did_not_give_is_said_and_counted(misbehaving_agents):
    bot = SpeedClueBot("sleepy", time_limit=1.0)
    notes: list[str] = []
    bot.on_note = notes.append
    bot.handle("reset 3 1 Gr Ca Ba Bi Co Di")
    bot.handle("suggest")
    bot.handle("disprove 2 Gr Kn Ba")
    assert notes == ["game 1: sleepy: late: no answer within 0.5 s, the fallback answered"] * 2
    assert bot.summary() == ("sleepy: 1 games, 2 decisions (0 forced answers besides), 2 not the agent's own: "
                             "2 late, 0 errors, 0 not allowed")


def test_an_agent_with_a_deadline_answers_itself_in_time(misbehaving_agents):
    bot = SpeedClueBot("anytime", time_limit=2.0)
    bot.handle("reset 3 0 Gr Ca Ba Bi Co Di")
    start = time.monotonic()
    reply = bot.handle("suggest")
    assert 0.7 < time.monotonic() - start < 1.5  # it used its budget (half the limit), no more
    assert reply.startswith("suggest ")  # its choice (an accusation, deferred: suggest it first)
    assert bot.stats["late"] == 0 and bot.stats["disallowed"] == 0


def test_an_anytime_agent_is_given_seconds_not_a_clock_reading():
    """infogain reads ``deadline`` as seconds per decision: the bot sets what is left of its
    budget (a monotonic clock reading there would be hours, and the mode silently off)."""
    bot = SpeedClueBot("infogain", time_limit=2.0)
    bot.handle("reset 3 0 Gr Ca Ba Bi Co Di")
    assert bot.handle("suggest").startswith("suggest ")
    assert 0 < bot.agent.deadline <= bot.budget <= 2.0


def test_disallowed_or_crashing_answers_are_replaced(misbehaving_agents):
    bot = SpeedClueBot("stubborn", time_limit=2.0)
    bot.handle("reset 3 0 Gr Ca Ba Bi Co Di")
    first = bot.handle("suggest")
    assert first == "suggest Sc Ca Ki"  # card ids 0, 6, 12 of our classic deck
    bot.handle("suggestion 0 Sc Ca Ki 1 Sc")
    assert bot.handle("accuse") == "-"  # the agent crashed: nothing forces an accusation
    bot.handle("suggestion 1 Mu Kn Ha 2")
    bot.handle("suggestion 2 Mu Ca Ha 0 Ca")
    second = bot.handle("suggest")
    assert second != first and second.startswith("suggest ")  # never a repeat
    assert bot.handle("disprove 1 Gr Kn Ba") in ("show Gr", "show Ba")  # never card 99
    assert bot.stats["errors"] == 1 and bot.stats["disallowed"] >= 2
    assert bot.handle("done") == "dead" and bot.done
    assert ", 1 errors, " in bot.summary() and f"{bot.stats['disallowed']} not allowed" in bot.summary()


def test_the_certain_win_is_always_accused():
    bot = SpeedClueBot("notebook", time_limit=2.0)
    bot.handle("reset 3 0 Gr Ca Ba Bi Co Di")
    bot.handle("suggestion 0 Pl Ro Ki -")
    assert bot.handle("accuse") == "accuse Pl Ro Ki"


# -- our client against our server --------------------------------------------------------------
@pytest.mark.parametrize("players", [3, 4, 5, 6])
@pytest.mark.slow
def test_our_agents_in_every_seat_over_sockets(players):
    bots = ["thread:deductive", "thread:notebook", "thread:random"]
    session = SpeedClueServer(bots, players, players, seed=players, time_limit=10.0).run()
    games = session.results.games
    assert session.disqualified == {}
    assert session.games_played == players and games["game_id"].nunique() == players
    assert not games["forfeit"].any()
    assert (games.groupby("game_id")["win"].sum() <= 1).all()
    assert games["win"].sum() >= players - 1  # someone wins (almost) every game
    assert session.timing["socket_ok_ms"]["count"] > 0


def test_builtin_seats_replay_the_deal_of_the_in_process_tournament():
    server = SpeedClueServer(["builtin:deductive", "builtin:notebook", "builtin:random"], 3, 3, seed=5)
    deals = [server.game.new_initial_state(s.deal_seed).hands for s in server.schedule.games(3)]
    assert deals[0] == deals[1] == deals[2]  # duplicate deals, as in the harness
    session = server.run()
    assert session.games_played == 3 and session.disqualified == {}


@pytest.mark.slow
def test_command_line_end_to_end_with_processes_and_report(tmp_path, capsys):
    out, log, botlog = tmp_path / "res", tmp_path / "server.log", tmp_path / "bot.log"
    client = f"{sys.executable} -m deduce speedclue --agent deductive --log {botlog}"
    code = main(["speedclue-server", "--players", "3", "--games", "3", "--out", str(out), "--log", str(log),
                 client, "builtin:notebook", f"rnd={sys.executable} -m deduce speedclue --agent random"])
    assert code == 0
    text = capsys.readouterr().out
    assert "win rate" in text and "games/s" in text and "round trip" in text
    config = json.loads((out / "tournament.json").read_text())
    assert config["protocol"] == "speedclue" and config["status"] == "complete"
    assert config["config"]["deal_mode"] == "all" and config["config"]["last_player_wins"] is True
    results = TournamentResults.load(out)
    assert set(results.games["agent"]) == {"deductive", "notebook", "rnd"} and not results.games["forfeit"].any()
    summary = (out / "bots" / "deductive.0.err").read_text()  # the client's stderr: its summary at done
    assert "deductive: 3 games, " in summary and " 0 late, 0 errors, 0 not allowed" in summary
    assert main(["report", str(out)]) == 0
    assert "Head to head" in capsys.readouterr().out
    lines = botlog.read_text().splitlines()
    assert lines[0].endswith('> "deductive.0 alive"') and lines[-1].endswith('> "dead"')
    sent = [json.loads(line.split(" ", 3)[3]) for line in lines]
    assert all("\n" not in m for m in sent) and any(m.startswith("reset 3 ") for m in sent)
    assert len(log.read_text().splitlines()) >= len(lines)


def test_bot_specs():
    assert parse_bot("builtin:deductive").label == "deductive"
    bot = parse_bot("python3 -m deduce speedclue --agent notebook")
    assert bot.kind == "process" and bot.label == "notebook" and bot.command[0] == "python3"
    assert parse_bot("mine=python3 bots/clever_bot.py").label == "mine"
    assert parse_bot("python3 bots/clever_bot.py").label == "clever_bot"


# -- a deliberately bad bot ---------------------------------------------------------------------
def _pl_ro_ki_deal(game, spec):
    """Every game's envelope is Pl Ro Ki (so a first suggestion of it is a certain win)."""
    codes = CardCodes(game)
    envelope = codes.ids(("Pl", "Ro", "Ki"))
    rest = [c for c in range(len(game.deck)) if c not in envelope]
    np.random.default_rng(spec.deal_seed).shuffle(rest)
    hands, pos = [], 0
    for size in game.config.hand_sizes():
        hands.append(rest[pos:pos + size])
        pos += size
    return ClueState.from_deal(game, envelope, hands)


@pytest.mark.parametrize("mode,kind", [
    ("newline", "malformed"),
    ("split", ("unsolicited", "malformed")),  # the late "\n" may come first or as the next "reply"
    ("repeat", "repeat"),
    ("accuse_own", "accuse_known"),
    ("no_accuse", "must_accuse"),
    ("bad_show", "bad_show"),
    ("garbage", "malformed"),
    ("slow", "timeout"),
    ("crash", "disconnected"),
    ("silent", "no_connection"),
])
def test_violations_are_detected_and_reported(tmp_path, mode, kind):
    bad = f"bad={sys.executable} {BADBOT} {mode}"
    server = SpeedClueServer([bad, "builtin:deductive", "builtin:notebook"], 3, 6, seed=1,
                             time_limit=1.0, connect_timeout=10.0, out=tmp_path / "res",
                             deal=_pl_ro_ki_deal if mode == "no_accuse" else None)
    session = server.run()
    assert set(session.disqualified) == {"bad"}
    reason = session.disqualified["bad"]
    assert reason.startswith(kind), reason
    kind = reason.split(":", 1)[0]
    games = TournamentResults.load(tmp_path / "res").games
    if kind == "no_connection":
        assert games.empty  # the bot sits in every game, none could be played
        return
    assert session.games_played == 1  # the bad bot sits in every game: the rest are not played
    forfeits = games[games["forfeit"]]
    assert list(forfeits["agent"]) == ["bad"] and list(forfeits["failure"]) == [kind]
    assert not games["win"].any()


def test_a_good_bot_without_terminators_plays_every_game(tmp_path):
    good = f"good={sys.executable} {BADBOT} good"
    session = SpeedClueServer([good, "builtin:deductive", "builtin:random"], 3, 3, seed=2,
                              time_limit=2.0, out=tmp_path / "res").run()
    assert session.disqualified == {} and session.games_played == 3
    assert not session.results.games["forfeit"].any()


# -- the agent grammar: NAME[:KEY=VALUE,...], as on every subcommand ---------------------------
def test_builtin_and_thread_bots_take_typed_parameters():
    bot = parse_bot("builtin:infogain:gamble=false")
    assert (bot.agent, bot.params, bot.label) == ("infogain", (("gamble", False),), "infogain")
    assert bot.name == "builtin:infogain:gamble=False"
    fast = parse_bot("fast=thread:deductive:solver=csp")
    assert (fast.kind, fast.label, fast.params) == ("thread", "fast", (("solver", "csp"),))
    with pytest.raises(InvalidConfig, match="parameter nope"):
        parse_bot("builtin:deductive:nope=1")
    with pytest.raises(InvalidConfig, match="parameter gamble"):
        parse_bot("builtin:infogain:gamble=maybe")


def test_a_builtin_bot_plays_with_its_parameters():
    server = SpeedClueServer(["builtin:infogain:gamble=false", "builtin:notebook", "builtin:random"], 3, 1, seed=2)
    entry = next(a for a in server.identity()["agents"] if a["label"] == "infogain")
    assert entry["params"] == {"gamble": False}
    assert server.run().games_played == 1


def test_the_client_reads_the_agent_grammar(capsys):
    from deduce.cli.speedclue import agent_of

    assert agent_of("infogain:gamble=false", []) == ("infogain", {"gamble": False})
    assert agent_of("deductive", ["solver=csp"]) == ("deductive", {"solver": "csp"})
    with pytest.raises(InvalidConfig, match="given twice"):
        agent_of("deductive:solver=csp", ["solver=exact"])
    assert main(["speedclue", "--agent", "deductive:nope=1", "bot", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nope" in err[0] and "deductive" in err[0]


def test_permutations_seat_every_order_and_are_recorded(tmp_path):
    """At three players rotation gives only 3 of the 6 seat orders (who refutes whom first
    differs between the other 3); ``arrangement="permutations"`` plays all 6, as the contest does."""
    server = SpeedClueServer(["builtin:deductive", "builtin:notebook", "builtin:random"], 3, 6, seed=5,
                             arrangement="permutations", out=tmp_path / "res")
    orders = {tuple(s.seats) for s in server.schedule.games(6)}
    assert len(orders) == 6
    rotated = SpeedClueServer(["builtin:deductive", "builtin:notebook", "builtin:random"], 3, 6, seed=5)
    assert len({tuple(s.seats) for s in rotated.schedule.games(6)}) == 3
    session = server.run()
    assert session.games_played == 6
    assert json.loads((tmp_path / "res" / "tournament.json").read_text())["arrangement"] == "permutations"


def test_an_unknown_arrangement_is_one_line_naming_it():
    with pytest.raises(DeduceError, match="unknown seating arrangement 'shuffle'"):
        SpeedClueServer(["builtin:deductive", "builtin:notebook", "builtin:random"], 3, 6, arrangement="shuffle")


def test_the_table_benchmark_reads_every_accusation_from_the_message_log(tmp_path):
    """benchmarks.speedclue's table counts accusations from the session's message log: the
    counts agree with the results (a right accusation per game won by accusing)."""
    from benchmarks.speedclue import accusations, table

    got = table(["eager=builtin:aggressive-accuser", "builtin:deductive", "builtin:notebook"], 3, 6, 3, tmp_path)
    games = accusations(tmp_path / "messages.log", list(got["entrants"]))
    assert len(games) == 6 and all(len(g["seats"]) == 3 for g in games)
    rows = pd.read_parquet(tmp_path / "results" / "games.parquet")
    for label, e in got["entrants"].items():
        right = sum(1 for g in games for (_, who, ok) in g["accusations"] if who == label and ok)
        assert e["accusations"] - e["wrong"] == right
        assert e["wins"] == int(rows[rows["agent"] == label]["win"].sum())
        assert e["seats"] == 6 and e["ci95"][0] <= e["win_rate"] <= e["ci95"][1]
    # every game ends with a right accusation or one player left
    for g in games:
        rights = [a for a in g["accusations"] if a[2]]
        assert len(rights) <= 1


def test_the_in_process_table_pairs_the_first_two_entrants_by_deal(tmp_path):
    from benchmarks.speedclue import table_in_process

    got = table_in_process(["a=builtin:deductive", "b=notebook", "random"], 3, 12, 4, tmp_path)
    rows = pd.read_parquet(tmp_path / "in-process" / "games.parquet")
    assert {e["seats"] for e in got["entrants"].values()} == {12}
    per = rows.groupby(["deal", "agent"])["win"].mean().unstack()
    paired = got["paired"]
    assert (paired["first"], paired["second"], paired["deals"]) == ("a", "b", 2)
    assert paired["mean"] == pytest.approx(float((per["a"] - per["b"]).mean()))
    assert paired["lo"] <= paired["mean"] <= paired["hi"]


def test_the_table_counts_every_lost_seat_once(tmp_path):
    from benchmarks.speedclue import table

    """Two random accusers eliminate themselves, so the notebook wins as the last one standing
    without accusing: those are wins, not losses."""
    got = table(["r1=builtin:random", "r2=builtin:random", "builtin:notebook"], 3, 6, 1, tmp_path)
    notebook = got["entrants"]["notebook"]
    assert notebook["accusations"] == 0 and notebook["wins"] > 0
    for e in got["entrants"].values():
        assert sum(e["lost"].values()) == e["seats"] - e["wins"]
