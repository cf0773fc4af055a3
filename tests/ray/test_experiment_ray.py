"""An experiment of several tables on the ray backend connects to Ray once."""

import pytest

from deduce.apps.tournament import backends


def test_every_table_of_an_experiment_shares_one_ray_connection(monkeypatch, tmp_path):
    ray = pytest.importorskip("ray")
    from benchmarks._experiment import Cell, RunOptions, run_cells

    if ray.is_initialized():  # start from no connection, as a benchmark run does
        ray.shutdown()
    connects = []
    real = backends._connect

    def counted(*args, **kwargs):
        connects.append(args[1])
        return real(*args, **kwargs)

    monkeypatch.setattr(backends, "_connect", counted)
    cells = [Cell.create(f"t{i}", "clue", ["random", "notebook"], 3, 4, seed=i) for i in (1, 2)]
    tables = run_cells(cells, RunOptions(backend="ray", workers=2, out=tmp_path))
    assert connects == [None]  # one local Ray for both tables, not one per table
    assert sorted(tables) == ["t1", "t2"] and all(len(t) == 12 for t in tables.values())
    assert not ray.is_initialized()  # the session closed what it opened
