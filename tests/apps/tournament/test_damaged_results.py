"""A damaged results directory (issue 22, item 7): whatever cannot be read is moved into
``quarantine/`` with one line saying so, its games are played again, and the run goes on; the
same for ``deduce report``. Through the real command, with its exit code."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from deduce.apps.tournament import TournamentResults
from deduce.apps.tournament.store import QUARANTINE
from deduce.cli import main

pytest.importorskip("pandas")

GAME = "checkpoint-charlie"
COLS = ["game_id", "seat", "agent", "score", "win", "forfeit", "moves", "decisions", "seed"]


def _run(out: Path, *extra: str) -> int:
    return main(["tournament", GAME, "--agents", "random", "r2=random", "r3=random", "--games", "3", "--seed", "2",
                 "--backend", "serial", "--out", str(out), "--json", *extra])


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> tuple[Path, object]:
    """A finished run and its table."""
    out = tmp_path_factory.mktemp("clean") / "out"
    assert _run(out) == 0
    return out, TournamentResults.load(out).games[COLS]


def _copy(clean_dir: Path, tmp_path: Path) -> Path:
    import shutil

    target = tmp_path / "out"
    shutil.copytree(clean_dir, target)
    return target


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: max(1, path.stat().st_size // 3)])


def _damage_rows(out: Path) -> None:
    """The games file, cut to a third: every game in it is lost."""
    games = next(out.glob("games.*"))
    _truncate(games)


def _empty_part(out: Path) -> None:
    (out / "parts").mkdir(exist_ok=True)
    suffix = next(out.glob("games.*")).suffix
    (out / "parts" / f"part-00000000000000000001-1-000001{suffix}").write_bytes(b"")


def _directory_part(out: Path) -> None:
    (out / "parts" / "part-00000000000000000002-1-000001.parquet").mkdir(parents=True)


def _foreign_csv(out: Path) -> None:
    (out / "parts").mkdir(exist_ok=True)
    (out / "parts" / "part-00000000000000000003-1-000001.csv").write_text("name,colour\nada,red\n")


def _array_config(out: Path) -> None:
    (out / "tournament.json").write_text("[1, 2, 3]\n")


def _truncated_config(out: Path) -> None:
    _truncate(out / "tournament.json")


DAMAGE = {
    "truncated games file": (_damage_rows, True),
    "0-byte part": (_empty_part, False),
    "directory named like a part": (_directory_part, False),
    "csv part with foreign columns": (_foreign_csv, False),
    "tournament.json holding an array": (_array_config, False),
    "truncated tournament.json": (_truncated_config, False),
}


@pytest.mark.parametrize("name", sorted(DAMAGE))
def test_a_damaged_directory_resumes_after_quarantine(clean, tmp_path, capsys, name: str) -> None:
    damage, rows_lost = DAMAGE[name]
    out = _copy(clean[0], tmp_path)
    damage(out)
    assert _run(out) == 0
    err = capsys.readouterr().err
    assert "Traceback" not in err
    notes = [line for line in err.splitlines() if QUARANTINE in line]
    assert len(notes) == 1 and "moved to" in notes[0], err
    assert len(list((out / QUARANTINE).iterdir())) == 1
    again = TournamentResults.load(out)
    assert again.games[COLS].equals(clean[1])  # the lost games were played again, to the same table
    assert again.config["status"] == "complete" and again.config["games_recorded"] == 3
    assert _run(out) == 0 and QUARANTINE not in capsys.readouterr().err  # nothing left to move
    if rows_lost:
        assert json.loads((out / "tournament.json").read_text())["games_recorded"] == 3


@pytest.mark.parametrize("name", sorted(DAMAGE))
def test_report_on_a_damaged_directory_quarantines_and_reports(clean, tmp_path, capsys, name: str) -> None:
    damage, rows_lost = DAMAGE[name]
    out = _copy(clean[0], tmp_path)
    damage(out)
    code = main(["report", str(out), "--json"])
    captured = capsys.readouterr()
    assert "Traceback" not in captured.err
    assert [line for line in captured.err.splitlines() if QUARANTINE in line], captured.err
    assert code == 0 and json.loads(captured.out)["run"]["path"] == str(out)
    assert TournamentResults.load(out).num_games == (0 if rows_lost else 3)  # what is left reports
    assert (out / QUARANTINE).is_dir()


def test_rows_of_another_tournament_are_not_resumed_into(clean, tmp_path, capsys) -> None:
    """With its tournament.json unreadable, a directory is still known by the run id of its rows."""
    out = _copy(clean[0], tmp_path)
    _array_config(out)
    code = main(["tournament", GAME, "--agents", "random", "r2=random", "r3=random", "--games", "3", "--seed", "3",
                 "--backend", "serial", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "holds rows of another tournament" in err and "Traceback" not in err


@pytest.mark.parametrize("command", [["report"], ["tournament", GAME, "--games", "1", "--out"]])
def test_a_file_where_a_directory_belongs_is_one_line(tmp_path, capsys, command: list[str]) -> None:
    path = tmp_path / "a-file"
    path.write_text("not a directory\n")
    assert main([*command, str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "is a file" in err and "Traceback" not in err
