"""The results directory: atomic parts, deduplication, CSV fallback, one writer at a time."""

import pandas as pd
import pytest

from deduce.apps.tournament.store import ResultStore, rows_to_frame
from deduce.apps.tournament.worker import COLUMNS
from deduce.errors import DeduceError


def _game(gid, players=3):
    return [
        {c: 0 for c in COLUMNS} | {
            "game_id": gid, "seat": s, "players": players, "agent": f"a{s}", "agent_name": "x",
            "score": float(s == 0), "win": s == 0, "forfeit": False, "failure": "", "failure_message": "",
            "failure_traceback": "", "decision_seconds": 0.1, "wall_seconds": 0.2,
        }
        for s in range(players)
    ]


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_roundtrip_dedup_and_compact(tmp_path, fmt):
    store = ResultStore(tmp_path, fmt=fmt, flush_seconds=0)
    for gid in (2, 0, 1):
        store.append(_game(gid))
    store.append(_game(1))  # a game replayed after a crash between flush and compaction
    store.append(_game(3)[:2])  # a game cut short: not counted as done
    assert store.done_ids() == {0, 1, 2}
    frame = store.load()
    assert list(frame["game_id"]) == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3]
    expected = rows_to_frame(_game(0) + _game(1) + _game(2) + _game(3)[:2])
    pd.testing.assert_frame_equal(frame, expected)
    (tmp_path / "parts" / ".part-x.tmp").write_bytes(b"half a file")  # a write killed midway
    pd.testing.assert_frame_equal(store.compact(), expected)
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("games")) == [f"games.{fmt}"]
    pd.testing.assert_frame_equal(ResultStore(tmp_path, fmt=fmt).load(), expected)


def test_only_one_writer(tmp_path):
    a, b = ResultStore(tmp_path), ResultStore(tmp_path)
    with a.lock():
        with pytest.raises(DeduceError, match="another run"):
            with b.lock():
                pass
    with b.lock():
        pass


def test_csv_failure_columns_read_back_as_strings(tmp_path):
    store = ResultStore(tmp_path, fmt="csv", flush_seconds=0)
    rows = _game(0)
    rows[1] |= {"forfeit": True, "failure": "exception", "failure_message": "ZeroDivisionError: x", "score": -1.0}
    store.append(rows)
    store.compact()
    frame = ResultStore(tmp_path, fmt="csv").load()
    for col in ("run_id", "game", "failure", "failure_message", "failure_traceback"):
        assert frame[col].map(type).eq(str).all(), col
    assert list(frame["failure_message"]) == ["", "ZeroDivisionError: x", ""]
    assert frame["forfeit"].dtype == bool and frame["score"].dtype == float
