"""``deduce bench solvers``: the corpus is found, every backend runs, disagreements show."""

from __future__ import annotations

import json

import pytest

import solvers
from deduce import AtLeastOne, Count, Deck, KnowledgeBase, NotAt
from deduce.cli import main
from deduce.cli.bench import find_corpus, load_states, save_state
from solvers.base import Tally
from solvers.brute import BruteSolver


def small_kb(extra: int) -> KnowledgeBase:
    deck = Deck.from_categories({"k": [f"c{i}" for i in range(5)]})
    kb = KnowledgeBase(deck, ["a", "b", "c"])
    kb.extend([Count(range(5), 0, 2), AtLeastOne([0, 1], 1), NotAt(extra % 5, 2)], check=False)
    return kb


class OffByOne(BruteSolver):
    """A counting backend whose world count is wrong: the table must show the disagreement."""

    name = "off-by-one"

    def tallies(self, kb: KnowledgeBase) -> Tally:
        t = super().tallies(kb)
        return Tally(t.total + 1, t.cells)


@pytest.fixture
def corpus(tmp_path):
    for i in range(3):
        save_state(tmp_path / "clue", f"s{i}", "clue", small_kb(i), {"seed": i})
    return tmp_path


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_states_round_trip(corpus):
    states = load_states(find_corpus(corpus, "clue"))
    assert [s.name for s in states] == ["s0", "s1", "s2"]
    assert states[1].kb == small_kb(1) and states[1].meta == {"seed": 1}


def test_json_table_agrees_and_times(capsys, corpus):
    code, out, _ = run(capsys, "bench", "solvers", "--game", "clue", "--backends", "brute,csp,cpsat",
                       "--corpus", str(corpus), "--runs", "2", "--json")
    assert code == 0
    data = json.loads(out)
    rows = {r["backend"]: r for r in data["summary"]}
    assert set(rows) == {"brute", "csp", "cpsat"}
    for r in rows.values():
        assert r["answered"] == r["states"] == 3
        assert r["differs_from_first"] == 0
        assert r["median_ms"] > 0
    assert rows["brute"]["ratio_to_first"] == 1.0


def test_a_wrong_backend_is_shown_to_differ(capsys, corpus):
    solvers.register("off-by-one", OffByOne)
    code, out, _ = run(capsys, "bench", "solvers", "--game", "clue", "--backends", "brute,off-by-one",
                       "--corpus", str(corpus), "--runs", "1", "--json")
    assert code == 0
    rows = {r["backend"]: r for r in json.loads(out)["summary"]}
    assert rows["off-by-one"]["differs_from_first"] == 3


@pytest.mark.slow
def test_text_table_names_backends(capsys, corpus):
    code, out, _ = run(capsys, "bench", "solvers", "--game", "clue", "--backends", "brute,epoch",
                       "--corpus", str(corpus), "--runs", "1")
    assert code == 0
    assert "brute" in out and "epoch" in out and "possible" in out


@pytest.mark.parametrize(
    "args, needle",
    [
        (("--game", "clue", "--corpus", "/nonexistent"), "--corpus=/nonexistent"),
        (("--game", "nogame"), "nogame"),
        (("--game", "clue", "--backends", "nope"), "nope"),
        (("--game", "clue", "--runs", "0"), "runs=0"),
    ],
)
def test_bad_input_is_one_line_and_status_2(capsys, corpus, args, needle):
    if "--corpus" not in args:
        args = args + ("--corpus", str(corpus))
    code, out, err = run(capsys, "bench", "solvers", *args)
    assert code == 2
    assert needle in err and len(err.strip().splitlines()) == 1
