"""Running tournaments: determinism across backends, replay by id, failures that do not stop it,
failures that stop it before (or soon after) it starts, and metadata that stays true."""

import json
import time

import pandas as pd
import pytest

import agents
from agents.base import Agent
from deduce.apps.tournament import TIMING_COLUMNS, Tournament, TournamentResults
from deduce.apps.tournament.runner import AllForfeited, Interrupted
from deduce.errors import DeduceError
from deduce.games.clue.rules import Accuse

FAST = ["notebook", "random", "random"]


def untimed(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.drop(columns=list(TIMING_COLUMNS))


def test_serial_run_is_tidy_and_reproducible():
    t = Tournament("clue", ["deductive", "notebook", "random"], games=6, seed=5, backend="serial")
    first = t.run()
    g = first.games
    assert len(g) == 18 and first.num_games == 6 and first.played == 6
    assert (g.groupby("game_id")["win"].sum() <= 1).all()
    assert (g.groupby("agent").size() == 6).all()
    assert (g.loc[g["win"], "agent"] == "deductive").any()  # the solver-backed agent wins some
    again = Tournament("clue", ["deductive", "notebook", "random"], games=6, seed=5, backend="serial").run()
    pd.testing.assert_frame_equal(untimed(first.games), untimed(again.games))
    other = Tournament("clue", ["deductive", "notebook", "random"], games=6, seed=6, backend="serial").run()
    assert not untimed(other.games).equals(untimed(first.games))


def test_processes_backend_gives_the_serial_table(tmp_path):
    kw = dict(games=8, seed=2, players=3)
    serial = Tournament("clue", ["notebook", "random"], backend="serial", **kw).run()
    pooled = Tournament("clue", ["notebook", "random"], backend="processes", workers=2, out=tmp_path, **kw).run()
    pd.testing.assert_frame_equal(untimed(serial.games), untimed(pooled.games))


def test_replay_one_game_by_id():
    t = Tournament("clue", ["deductive", "notebook", "random"], games=4, seed=9, backend="serial")
    games = t.run().games
    record = t.replay(3)
    row = games[games["game_id"] == 3].sort_values("seat")
    assert list(row["score"]) == list(record.returns)
    assert int(row["moves"].iloc[0]) == record.moves


def test_summary_ratings_and_extension(tmp_path):
    results = Tournament("clue", FAST, games=6, seed=1, out=tmp_path, backend="serial").run()
    summary = results.summary()
    assert list(summary.columns[:5]) == ["agent", "games", "seats", "wins", "win_rate"]
    assert set(summary["agent"]) == {"notebook", "random", "random#2"}
    assert (summary["win_lo"] <= summary["win_rate"]).all() and (summary["win_rate"] <= summary["win_hi"]).all()
    assert set(results.ratings()["agent"]) == set(summary["agent"])
    more = Tournament("clue", FAST, games=9, seed=1, out=tmp_path, backend="serial").run()
    assert more.played == 3 and more.num_games == 9  # the first six came from disk
    pd.testing.assert_frame_equal(untimed(more.games[more.games["game_id"] < 6]), untimed(results.games))


class Crasher(Agent):
    name = "crasher"

    def act(self, observation):
        raise ZeroDivisionError("crasher always divides by zero")


class Sleeper(Agent):
    name = "sleeper"

    def __init__(self, seconds: float = 0.05, **params):
        super().__init__(seconds=seconds, **params)
        self.seconds = seconds

    def act(self, observation):
        time.sleep(self.seconds)
        return observation.legal_actions[0]


class Cheater(Agent):
    name = "cheater"

    def act(self, observation):
        return Accuse((99, 99, 99))


class LateCrasher(Agent):
    """Plays randomly, then crashes at its second decision of every game (so it passes the
    check of its first decision)."""

    name = "late-crasher"

    def reset(self, game, player, seed=None):
        super().reset(game, player, seed)
        self.calls = 0

    def act(self, observation):
        self.calls += 1
        if self.calls > 1:
            raise ZeroDivisionError("late-crasher divides by zero")
        return observation.legal_actions[0]


class SeatZeroCrasher(Agent):
    """Crashes only when it moves first: forfeits some games, not all."""

    name = "seat0-crasher"

    def act(self, observation):
        if self.player == 0 and len(observation.events) > 8:
            raise ZeroDivisionError("seat 0 again")
        return observation.legal_actions[int(self.rng.integers(len(observation.legal_actions)))]


@pytest.fixture(autouse=True, scope="module")
def throwaway_agents():
    agents.register("crasher", Crasher, game="clue")
    agents.register("sleeper", Sleeper, game="clue")
    agents.register("cheater", Cheater, game="clue")
    agents.register("late-crasher", LateCrasher, game="clue")
    agents.register("seat0-crasher", SeatZeroCrasher, game="clue")


@pytest.mark.parametrize("bad, text", [
    ("crasher", "ZeroDivisionError: crasher always divides by zero"),
    ("cheater", "Accuse"),
])
def test_an_agent_that_fails_its_first_decision_stops_the_run_before_any_game(tmp_path, bad, text):
    out = tmp_path / "run"
    with pytest.raises(DeduceError, match=text) as info:
        Tournament("clue", [bad, "notebook", "random"], games=6, seed=4, backend="serial", out=out).run()
    assert f"agent {bad!r}" in str(info.value) and "\n" not in str(info.value)
    assert not out.exists()  # nothing played, nothing written


def test_unknown_solver_and_parameter_fail_before_any_game(tmp_path):
    with pytest.raises(DeduceError, match="agent 'deductive': unknown solver 'foo'"):
        Tournament("clue", [("deductive", {"solver": "foo"}), "notebook"], games=3, out=tmp_path / "a").run()
    with pytest.raises(DeduceError, match="agent 'deductive': parameter bogus=1: no such parameter; it takes: solver"):
        Tournament("clue", [("deductive", {"bogus": 1}), "notebook"], games=3)
    with pytest.raises(DeduceError, match="parameter gamble='maybe': expected true or false"):
        Tournament("clue", ["infogain:gamble=maybe", "notebook"], games=3)
    typed = Tournament("clue", ["infogain:gamble=False,min_gamble=0.25", "notebook"], games=3)
    assert typed.specs[0].kwargs == {"gamble": False, "min_gamble": 0.25}
    assert not (tmp_path / "a").exists()


def test_every_game_of_an_agent_forfeiting_for_one_reason_stops_the_run(tmp_path):
    out = tmp_path / "run"
    t = Tournament("clue", ["late-crasher", "notebook", "random"], games=30, seed=4, backend="serial", out=out)
    with pytest.raises(AllForfeited, match="every game of agent 'late-crasher' forfeited .*ZeroDivisionError"):
        t.run()
    config = json.loads((out / "tournament.json").read_text())
    assert config["status"] == "stopped" and config["games_recorded"] == 3  # one round, then it stopped


def test_agents_that_forfeit_sometimes_do_not_stop_the_tournament():
    results = Tournament("clue", ["seat0-crasher", "notebook", "random"], games=6, seed=4, backend="serial").run()
    g = results.games
    assert results.num_games == 6
    mine = g[g["agent"] == "seat0-crasher"]
    assert mine["forfeit"].any() and not mine["forfeit"].all()
    lost = mine[mine["forfeit"]]
    assert (lost["failure"] == "exception").all() and (lost["score"] == -1).all() and (lost["seat"] == 0).all()
    assert lost["failure_traceback"].str.contains("Traceback").all()
    assert not g.loc[g["agent"] != "seat0-crasher", "forfeit"].any()
    assert len(results.failures()) == int(mine["forfeit"].sum())


def test_a_shorter_rerun_keeps_the_metadata_true(tmp_path):
    Tournament("clue", FAST, games=9, seed=1, out=tmp_path, backend="serial").run()
    short = Tournament("clue", FAST, games=3, seed=1, out=tmp_path, backend="serial").run()
    assert short.num_games == 3 and short.played == 0
    config = json.loads((tmp_path / "tournament.json").read_text())
    assert config["games"] == 9 and config["games_recorded"] == 9 and config["games_requested"] == 3
    assert config["status"] == "complete"


def interrupt_after(monkeypatch, games: int):
    """Make every run raise KeyboardInterrupt (a Ctrl-C) after ``games`` finished games; returns
    the real game loop, to put back."""
    from deduce.apps.tournament import runner

    real = runner.run_games

    def interrupted(*args, **kwargs):
        for k, rows in enumerate(real(*args, **kwargs)):
            if k == games:
                raise KeyboardInterrupt
            yield rows

    monkeypatch.setattr(runner, "run_games", interrupted)
    return real


def test_an_interrupted_run_says_so_and_resumes(tmp_path, monkeypatch):
    from deduce.apps.tournament import runner

    real = interrupt_after(monkeypatch, 2)
    with pytest.raises(Interrupted, match="2 of 6 recorded") as info:
        Tournament("clue", FAST, games=6, seed=1, out=tmp_path, backend="serial").run()
    assert (info.value.recorded, info.value.total) == (2, 6)
    config = json.loads((tmp_path / "tournament.json").read_text())
    assert config["status"] == "interrupted" and config["games_recorded"] == 2
    monkeypatch.setattr(runner, "run_games", real)
    rest = Tournament("clue", FAST, games=6, seed=1, out=tmp_path, backend="serial").run()
    assert rest.played == 4 and rest.num_games == 6
    assert json.loads((tmp_path / "tournament.json").read_text())["status"] == "complete"


def test_rows_carry_game_and_run_identifiers_and_the_summary_is_written(tmp_path):
    t = Tournament("clue", FAST, games=3, seed=1, out=tmp_path, backend="serial", fmt="csv")
    results = t.run()
    assert (results.games["run_id"] == t.run_id()).all() and (results.games["game"] == "clue").all()
    assert t.default_out().name.endswith(t.run_id())
    assert (tmp_path / "games.csv").exists() and not (tmp_path / "games.parquet").exists()
    summary = pd.read_csv(tmp_path / "summary.csv")
    assert list(summary["agent"]) == list(results.summary()["agent"])
    data = json.loads((tmp_path / "summary.json").read_text())
    assert data["run"]["run_id"] == t.run_id() and {a["agent"] for a in data["agents"]} == set(summary["agent"])


@pytest.mark.slow
def test_slow_and_hung_agents_time_out_and_stop_the_run(tmp_path):
    with pytest.raises(AllForfeited, match="'sleeper' forfeited .*timeout: move took"):
        Tournament("clue", ["sleeper", "notebook", "random"], games=6, seed=4, backend="serial",
                   move_time_limit=0.01, out=tmp_path / "slow").run()
    slow = TournamentResults.load(tmp_path / "slow").games
    assert len(slow) == 9 and (slow.loc[slow["agent"] == "sleeper", "failure"] == "timeout").all()
    start = time.perf_counter()
    with pytest.raises(AllForfeited, match="interrupted"):
        Tournament("clue", [("sleeper", {"seconds": 60}), "notebook", "random"], games=3, seed=4,
                   backend="serial", move_time_limit=0.05, out=tmp_path / "hung").run()
    assert time.perf_counter() - start < 10  # interrupted at the hard limit, not after 60 s
    hung = TournamentResults.load(tmp_path / "hung").games
    rows = hung[hung["agent"] == "sleeper"]
    assert (rows["failure"] == "timeout").all() and rows["failure_message"].str.contains("interrupted").all()


def test_auto_backend_moves_long_runs_to_processes(monkeypatch):
    from deduce.apps.tournament import backends

    calls = []
    real = backends._processes

    def spy(setup, specs, workers):
        calls.append(len(specs))
        return real(setup, specs, workers)

    monkeypatch.setattr(backends, "AUTO_PROBE_SECONDS", 0.0)
    monkeypatch.setattr(backends, "AUTO_POOL_SECONDS", 0.0)
    monkeypatch.setattr(backends, "_processes", spy)
    kw = dict(games=6, seed=12, workers=2)
    auto = Tournament("clue", ["notebook", "random", "random"], backend="auto", **kw).run()
    assert calls == [5]  # one game probed here, the other five in the pool
    serial = Tournament("clue", ["notebook", "random", "random"], backend="serial", **kw).run()
    pd.testing.assert_frame_equal(untimed(auto.games), untimed(serial.games))


SEEN_HANDS: dict[int, tuple[int, ...]] = {}


class HandSpy(Agent):
    """Plays randomly and notes the hand its seat was dealt, to check duplicate deals."""

    name = "handspy"

    def act(self, observation):
        SEEN_HANDS.setdefault(self.player, tuple(observation.hand))
        return observation.legal_actions[int(self.rng.integers(len(observation.legal_actions)))]


@pytest.mark.parametrize("duplicate", [True, False])
def test_duplicate_deals_give_each_seat_the_same_hand_within_a_round(duplicate):
    agents.register("handspy", HandSpy, game="clue")
    t = Tournament("clue", ["handspy", "a=handspy", "b=handspy"], games=3, seed=21, duplicate=duplicate)
    per_game = []
    for game_id in range(3):  # round 0: the three rotations
        SEEN_HANDS.clear()
        t.replay(game_id)
        per_game.append(dict(SEEN_HANDS))
    seats = set(per_game[0]) & set(per_game[1]) & set(per_game[2])
    assert seats  # somebody acted in every game
    same = all(per_game[0][s] == per_game[g][s] for s in seats for g in (1, 2))
    assert same is duplicate


def test_the_header_says_rotation_keeps_neighbours_and_permutations_do_not():
    from deduce.apps.tournament.report import header

    kw = dict(games=3, seed=2, backend="serial")
    rotated = header(Tournament("clue", ["notebook", "random", "deductive"], **kw).run())
    assert "seating caveat: rotation keeps the order round the table" in rotated
    permuted = header(Tournament("clue", ["notebook", "random", "deductive"], arrangement="permutations",
                                 games=6, seed=2, backend="serial").run())
    assert "caveat" not in permuted
    two = header(Tournament("clue", ["notebook", "random"], players=3, **kw).run())  # two agents: no order to keep
    assert "caveat" not in two
