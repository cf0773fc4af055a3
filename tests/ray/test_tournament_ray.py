"""The Ray backend plays the same games as the serial and process backends."""

import pandas as pd

from deduce.apps.tournament import TIMING_COLUMNS, Tournament


def test_same_seed_same_table_on_all_three_backends(ray_local, tmp_path):
    kw = dict(games=6, seed=8)
    names = ["deductive", "notebook", "random"]
    tables = {
        backend: Tournament("clue", names, backend=backend, workers=2, out=tmp_path / backend, **kw).run().games
        for backend in ("serial", "processes", "ray")
    }
    drop = list(TIMING_COLUMNS)
    pd.testing.assert_frame_equal(tables["serial"].drop(columns=drop), tables["processes"].drop(columns=drop))
    pd.testing.assert_frame_equal(tables["serial"].drop(columns=drop), tables["ray"].drop(columns=drop))
    assert len(tables["ray"]) == 18 and ray_local.is_initialized()  # an existing Ray is reused, not shut down
