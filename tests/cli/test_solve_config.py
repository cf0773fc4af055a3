"""``--config KEY=VALUE`` on ``deduce solve`` and ``deduce assist``: the grammar of every
subcommand (``deduce.cli.options``), values typed by the game's config field, a one-line error
and exit 2 for an unknown field (naming it and the fields), a bad value or a setting the log
does not record."""

import io
import json
from pathlib import Path

import pytest

from deduce.cli import build_parser, main
from deduce.cli.assist import run as assist_run
from deduce.cli.solve import config_header, logged_settings, with_config
from deduce.errors import DeduceError, InvalidConfig, UnknownName
from deduce.games.registry import game_names

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

#: a Clue log only refute-all rules read: two players refute one suggestion
REFUTE_ALL = {
    "game": "clue", "players": ["ann", "bob", "cy"], "me": "ann",
    "events": [{"type": "suggestion", "by": "ann", "cards": ["Mr. Green", "Rope", "Hall"], "refuted_by": ["bob", "cy"]}],
}


def run_cli(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_a_setting_the_log_records_is_typed_and_applied(capsys, tmp_path):
    path = tmp_path / "all.json"
    path.write_text(json.dumps(REFUTE_ALL))
    code, out, err = run_cli(capsys, "solve", str(path), "--json")
    assert code == 2 and len(err.strip().splitlines()) == 1  # plain rules: one refuter per suggestion
    code, out, err = run_cli(capsys, "solve", str(path), "--json", "--config", "refute_all=yes")
    assert code == 0, err
    refuted = json.loads(out)["worlds"]
    path.write_text(json.dumps({**REFUTE_ALL, "events": []}))
    code, out, err = run_cli(capsys, "solve", str(path), "--json", "--config", "refute_all=yes")
    assert code == 0 and 0 < refuted < json.loads(out)["worlds"]  # the two refutations were read


def test_with_config_types_the_value_by_the_field():
    out = with_config(REFUTE_ALL, ["refute_all=yes"])
    assert out["refute_all"] is True and out["events"] == REFUTE_ALL["events"]
    assert config_header("mafia-code", ["expert=on"]) == {"expert": True}
    assert with_config(REFUTE_ALL, []) == REFUTE_ALL


@pytest.mark.parametrize(
    ("item", "said"),
    [
        ("colour=red", "--config colour: clue has no such setting; known: "),
        ("refute_all=maybe", "--config refute_all='maybe': expected true or false"),
        ("board_mode=board", "a clue log does not record this setting; the settings it records: deal_mode, refute_all"),
        ("refute_all", "expected KEY=VALUE"),
        ("deal_mode=sideways", "deal_mode"),
    ],
)
def test_a_bad_config_is_one_line_and_exit_2(capsys, item, said):
    code, out, err = run_cli(capsys, "solve", str(EXAMPLES / "clue-3p.json"), "--config", item)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and said in err, err
    assert "Traceback" not in err


def test_an_unknown_field_lists_the_fields(capsys):
    code, _, err = run_cli(capsys, "solve", str(EXAMPLES / "mafia-code-3p.json"), "--config", "speed=3")
    assert code == 2
    assert "--config speed: mafia-code has no such setting; known: " in err and "expert" in err and "hand_size" in err


def test_every_game_lists_the_settings_its_log_records():
    for game in game_names():
        settings = logged_settings(game)
        assert "player_names" not in settings and "num_players" not in settings  # the players say those
    assert logged_settings("clue") == ("deal_mode", "refute_all")
    assert "expert" in logged_settings("mafia-code")


def test_solve_reads_config_for_a_log_on_standard_input(capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO(json.dumps(REFUTE_ALL)))
    code, out, err = run_cli(capsys, "solve", "-", "--json", "--config", "refute_all=true")
    assert code == 0, err
    assert json.loads(out)["worlds"] > 0


# -- assist ------------------------------------------------------------------------------------
def assist(tmp_path, *extra, lines=("quit",)):
    path = tmp_path / "g.json"
    args = build_parser().parse_args(["assist", "clue", "--log", str(path), *extra])
    out = io.StringIO()
    code = assist_run(args, stdin=io.StringIO("".join(f"{line}\n" for line in lines)), stdout=out)
    return code, out.getvalue(), path


SETUP = ("--players", "ann,bob,cy", "--me", "ann", "--hand", "rope,hall,knife,scarlet,kitchen,study")


def test_assist_starts_a_game_with_the_settings(tmp_path):
    code, out, path = assist(tmp_path, *SETUP, "--config", "refute_all=yes")
    assert code == 0 and "error" not in out
    log = json.loads(path.read_text())
    assert log["refute_all"] is True and log["events"][0]["type"] == "hand"
    # resuming with the same setting is fine; with another, refused by name before anything is read
    code, out, _ = assist(tmp_path, "--config", "refute_all=yes")
    assert code == 0 and "resuming" in out
    before = path.read_text()
    with pytest.raises(InvalidConfig, match="refute_all=False: .*plays refute_all=True; a game's settings cannot change"):
        assist(tmp_path, "--config", "refute_all=no")
    assert path.read_text() == before


def test_assist_refuses_a_bad_config_before_the_session(tmp_path):
    with pytest.raises(UnknownName, match="--config colour: clue has no such setting; known: "):
        assist(tmp_path, *SETUP, "--config", "colour=red")
    with pytest.raises(DeduceError, match="does not record this setting"):
        assist(tmp_path, *SETUP, "--config", "dice=2")
    assert not (tmp_path / "g.json").exists()


def test_assist_config_through_main_is_one_line_and_exit_2(capsys, tmp_path):
    code, out, err = run_cli(capsys, "assist", "clue", "--log", str(tmp_path / "x.json"), "--config", "refute_all=maybe")
    assert code == 2 and len(err.strip().splitlines()) == 1 and "refute_all" in err
