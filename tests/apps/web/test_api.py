"""The notebook's HTTP API without a browser: every route, and the security checks (no token,
wrong token, oversized bodies, path tricks, hostile input never changing the saved log)."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from deduce.apps.web.server import (
    MAX_BODY,
    MAX_UPLOAD,
    Server,
    create_app,
    make_adapter,
    next_log_path,
)
from deduce.apps.web.table import Table

with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient

TOKEN = "test-token-123"
SETUP = ["Ann Bob Cat", "classic", "", "Ann", "mrsw, rope, ballroom, kitchen, study, library"]


def clue_table(folder: Path, lines: list[str] = SETUP) -> Table:
    adapter, solver = make_adapter("clue", "auto")
    table = Table.open(adapter, solver, folder / "clue-1.json")
    for line in lines:
        assert table.line(line).outcome == "ok", line
    return table


@pytest.fixture
def table(tmp_path: Path) -> Table:
    return clue_table(tmp_path)


@pytest.fixture
def client(table: Table) -> TestClient:
    c = TestClient(create_app(Server({"clue-1": table}, token=TOKEN)))
    c.headers["X-Deduce-Token"] = TOKEN
    return c


def bare(table: Table) -> TestClient:
    """A client with no token at all."""
    return TestClient(create_app(Server({"clue-1": table}, token=TOKEN)))


def post_line(client: TestClient, line: str) -> Any:
    return client.post("/t/clue-1/line", json={"line": line})


# -- the token -------------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/", "/t/clue-1", "/t/clue-1/state", "/t/clue-1/log", "/static/app.js",
                                  "/t/clue-1/why?card=0", "/nowhere"])
def test_every_route_refuses_a_request_without_the_token(table: Table, path: str) -> None:
    r = bare(table).get(path)
    assert r.status_code == 403
    assert "no access token" in r.text


def test_a_wrong_token_is_refused_and_changes_nothing(table: Table) -> None:
    before = table.path.read_bytes()
    c = bare(table)
    for r in (c.get("/t/clue-1?token=guess"), c.post("/t/clue-1/line?token=guess", json={"line": "sug bob gr kn ha cat"}),
              c.post("/t/clue-1/line", json={"line": "has bob knife"}, headers={"X-Deduce-Token": TOKEN[:-1]}),
              c.post("/t/clue-1/line", json={"line": "has bob knife"}, cookies={"deduce_token": "x" * len(TOKEN)})):
        assert r.status_code == 403 and "wrong access token" in r.text
    assert table.path.read_bytes() == before
    assert len(table.assistant.events) == 1


def test_the_token_in_the_url_sets_a_same_site_cookie_the_page_then_uses(table: Table) -> None:
    c = bare(table)
    r = c.get(f"/?token={TOKEN}", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/t/clue-1"
    cookie = r.headers["set-cookie"]
    assert f"deduce_token={TOKEN}" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
    assert c.get("/t/clue-1/state").status_code == 200  # the cookie alone now


def test_responses_carry_the_security_headers(client: TestClient) -> None:
    r = client.get("/t/clue-1")
    assert r.status_code == 200
    assert "script-src 'self'" in r.headers["content-security-policy"]
    assert r.headers["referrer-policy"] == "no-referrer"  # the token never leaks in a Referer
    assert r.headers["x-content-type-options"] == "nosniff"


# -- bodies ----------------------------------------------------------------------------------
def test_an_oversized_body_is_refused_before_it_is_read_and_the_log_is_untouched(client: TestClient, table: Table) -> None:
    before = table.path.read_bytes()
    r = client.post("/t/clue-1/line", content=json.dumps({"line": "x" * MAX_BODY}),
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 413 and "larger than" in r.json()["message"]
    big = {"log": {"game": "clue", "players": ["Ann", "Bob", "Cat"], "events": [], "pad": "x" * MAX_UPLOAD}}
    r = client.post("/t/clue-1/upload", json=big)
    assert r.status_code == 413
    assert table.path.read_bytes() == before


def test_a_body_streamed_without_a_length_is_cut_off_at_the_limit(client: TestClient, table: Table) -> None:
    before = table.path.read_bytes()

    def chunks() -> Any:
        yield b'{"line": "'
        for _ in range(MAX_BODY // 1000 + 2):
            yield b"y" * 1000
        yield b'"}'

    r = client.post("/t/clue-1/line", content=chunks(), headers={"Content-Type": "application/json"})
    assert r.status_code == 413
    assert table.path.read_bytes() == before


@pytest.mark.parametrize(
    ("kwargs", "status", "words"),
    [
        ({"content": "line=has bob knife", "headers": {"Content-Type": "application/x-www-form-urlencoded"}}, 415, "send JSON"),
        ({"content": "{not json", "headers": {"Content-Type": "application/json"}}, 400, "not JSON"),
        ({"json": ["has bob knife"]}, 400, "JSON object"),
        ({"json": {"line": 3}}, 400, "the line the terminal"),
        ({"json": {"line": "has bob knife", "path": "/etc/passwd"}}, 400, "the line the terminal"),
        ({"json": {"line": "has bob knife\nhas cat rope"}}, 422, "one line"),
        ({"json": {"line": "has bob \x00knife"}}, 422, "one line"),
        ({"json": {"line": "x " * 600}}, 422, "one line"),
        ({"json": {"line": "quit"}}, 422, "nothing to quit"),
        ({"json": {"line": "fly me to the moon"}}, 422, "unknown command"),
        ({"json": {"line": "sug bob gr kn"}}, 422, "a suggestion names"),
    ],
)
def test_malformed_or_hostile_lines_get_a_4xx_with_a_message_and_never_change_the_log(
    client: TestClient, table: Table, kwargs: dict[str, Any], status: int, words: str
) -> None:
    before = table.path.read_bytes()
    r = client.post("/t/clue-1/line", **kwargs)
    assert r.status_code == status
    assert words in r.json()["message"]
    assert table.path.read_bytes() == before
    assert len(table.assistant.events) == 1


# -- path tricks -----------------------------------------------------------------------------
@pytest.mark.parametrize("path", ["/t/..%2F..%2Fetc%2Fpasswd", "/t/%2E%2E/state", "/t/clue-1.json", "/t/other/state",
                                  "/static/..%2Fserver.py", "/static/../server.py", "/t/clue-1/../../etc/passwd"])
def test_path_tricks_find_nothing(client: TestClient, path: str) -> None:
    r = client.get(path)
    assert r.status_code == 404
    assert "passwd" not in r.text and "import" not in r.text


def test_a_folder_server_opens_only_logs_it_listed_itself(tmp_path: Path) -> None:
    folder = tmp_path / "games"
    folder.mkdir()
    (tmp_path / "secret.json").write_text(json.dumps({"game": "clue", "players": ["A", "B", "C"]}))
    (folder / "notes.json").write_text(json.dumps({"game": "chess"}))
    c = TestClient(create_app(Server(folder=folder, token=TOKEN)))
    c.headers["X-Deduce-Token"] = TOKEN
    for slug in ("..%2Fsecret", "%2E%2E%2Fsecret", "secret", "..", ".hidden"):
        assert c.get(f"/t/{slug}/state").status_code == 404, slug
    r = c.get("/t/notes/state")
    assert r.status_code == 422 and "not a log of a game" in r.json()["message"]
    assert "notes" not in c.get("/").text


@pytest.mark.parametrize(("query", "status"), [("", 400), ("?card=-1", 400), ("?card=../3", 400), ("?card=1e3", 400),
                                               ("?card=99", 422), ("?card=9999999999", 400)])
def test_why_takes_only_a_card_number_of_the_deck(client: TestClient, query: str, status: int) -> None:
    r = client.get(f"/t/clue-1/why{query}")
    assert r.status_code == status
    assert r.json()["message"].startswith("error:")


# -- the routes ------------------------------------------------------------------------------
def test_the_page_embeds_the_state_and_the_rendered_grid(client: TestClient) -> None:
    r = client.get("/t/clue-1")
    assert r.status_code == 200
    assert '<table class="grid"' in r.text and "Mrs. White" in r.text
    state = json.loads(r.text.split('<script id="state" type="application/json">')[1].split("</script>")[0])
    assert state["phase"] == "play" and state["players"] == ["Ann", "Bob", "Cat"] and state["me"] == "Ann"
    assert state["locations"] == ["Ann", "Bob", "Cat", "envelope"]
    white = next(row for row in state["grid"] if row["name"] == "Mrs. White")
    assert white["mine"] and white["cells"][0] == {"text": "YES", "p": 1.0, "state": "yes"}
    scarlet = next(row for row in state["grid"] if row["name"] == "Miss Scarlet")
    assert [c["p"] for c in scarlet["cells"]] == pytest.approx([0.0, 0.4, 0.4, 0.2])
    assert any(line.startswith("envelope:") for line in state["advice"])
    assert any(line.startswith("suggest:") for line in state["advice"])


def test_an_event_line_is_added_saved_and_shown(client: TestClient, table: Table) -> None:
    r = post_line(client, "sug bob mrgreen knife hall cat")
    assert r.status_code == 200
    body = r.json()
    assert body["outcome"] == "ok" and body["message"].startswith("event 1: Bob suggested Mr. Green, Knife, Hall")
    assert body["state"]["events"][1].startswith("Bob suggested Mr. Green")
    assert "Bob suggested Mr. Green" in body["board"]
    saved = json.loads(table.path.read_text())
    assert saved["events"][1] == {"type": "suggestion", "by": "Bob", "cards": ["Mr. Green", "Knife", "Hall"],
                                  "refuted_by": "Cat"}
    assert client.get("/t/clue-1/state").json()["state"]["events"] == body["state"]["events"]


def test_a_contradiction_is_held_back_naming_the_event_then_undo_adds_it(client: TestClient, table: Table) -> None:
    before = table.path.read_bytes()
    r = post_line(client, "has bob rope")  # Ann holds the Rope (event 0)
    assert r.status_code == 409
    body = r.json()
    assert body["outcome"] == "held" and "contradicts event 0 (Ann's hand" in body["message"]
    assert body["state"]["pending"] == {"at": 1, "conflicts": [0]}
    assert 'data-line="undo 0"' in body["board"]
    assert table.path.read_bytes() == before  # held back: not saved
    r = post_line(client, "")  # drop it
    assert r.json()["message"] == "dropped the new event; the log is unchanged"
    assert r.json()["state"]["pending"] is None
    assert table.path.read_bytes() == before


def test_undo_and_redo(client: TestClient, table: Table) -> None:
    post_line(client, "sug bob mrgreen knife hall cat")
    r = post_line(client, "undo")
    assert r.json()["message"].startswith("removed event 1")
    assert r.json()["state"]["can_redo"] is True
    assert len(json.loads(table.path.read_text())["events"]) == 1
    r = post_line(client, "redo")
    assert r.json()["state"]["events"][1].startswith("Bob suggested")
    assert len(json.loads(table.path.read_text())["events"]) == 2


def test_why_explains_a_card(client: TestClient) -> None:
    r = client.get("/t/clue-1/why?card=3")
    assert r.status_code == 200
    assert r.json()["message"].startswith("Mr. Green may still be with Bob or Cat, or in the envelope.")


def test_the_log_downloads_as_deduce_solve_reads_it(client: TestClient, table: Table) -> None:
    r = client.get("/t/clue-1/log")
    assert r.status_code == 200
    assert r.headers["content-disposition"] == 'attachment; filename="clue-1.json"'
    assert json.loads(r.text) == json.loads(table.path.read_text())
    from deduce.games.clue.log import parse

    game, obs = parse(json.loads(r.text))
    assert game.num_players == 3 and obs.player == 0


def test_an_upload_replaces_the_game_and_is_saved(client: TestClient, table: Table) -> None:
    log = {"game": "clue", "players": ["Xa", "Yb", "Zc", "Wd"], "hand_sizes": [5, 5, 4, 4], "me": "Yb",
           "events": [{"type": "card_at", "card": "Knife", "at": "Yb"}]}
    r = client.post("/t/clue-1/upload", json={"log": log})
    assert r.status_code == 200 and r.json()["outcome"] == "ok"
    assert r.json()["state"]["players"] == ["Xa", "Yb", "Zc", "Wd"]
    assert json.loads(table.path.read_text()) == log
    assert post_line(client, "has xa rope").status_code == 200  # the new game takes lines


@pytest.mark.parametrize("log", [{"game": "mafia-code", "players": ["A", "B"]}, {"game": "clue", "players": "Ann"},
                                 {"game": "clue", "players": ["A", "B", "C"], "events": [{"type": "teleport"}]}, [1, 2]])
def test_a_bad_upload_is_refused_and_the_game_is_unchanged(client: TestClient, table: Table, log: Any) -> None:
    before = table.path.read_bytes()
    r = client.post("/t/clue-1/upload", json={"log": log})
    assert r.status_code == 422 and "the game is unchanged" in r.json()["message"]
    assert table.path.read_bytes() == before
    assert client.get("/t/clue-1/state").json()["state"]["players"] == ["Ann", "Bob", "Cat"]


def test_setup_by_lines_and_its_state(tmp_path: Path) -> None:
    adapter, solver = make_adapter("clue", "auto")
    table = Table.open(adapter, solver, tmp_path / "clue-1.json")
    c = TestClient(create_app(Server({"clue-1": table}, token=TOKEN)))
    c.headers["X-Deduce-Token"] = TOKEN
    s = c.get("/t/clue-1/state").json()["state"]
    assert s["phase"] == "setup" and s["step"] == "players" and s["setup"]["seats"] == [3, 6]
    for line, step in [("Ann Bob Cat Dan", "deck"), ("classic", "hand_sizes"), ("", "me"), ("Bob", "hand")]:
        s = post_line(c, line).json()["state"]
        assert s["step"] == step
    assert "5 cards" in s["prompt"]
    assert [card["name"] for card in s["setup"]["cards"]][:2] == ["Miss Scarlet", "Colonel Mustard"]
    assert not table.path.exists()  # nothing saved until the setup is done
    r = post_line(c, "mrgreen, knife, hall, study, rope")
    assert r.json()["state"]["phase"] == "play" and r.json()["state"]["me"] == "Bob"
    assert json.loads(table.path.read_text())["events"][0]["cards"] == ["Mr. Green", "Knife", "Hall", "Study", "Rope"]


def test_a_folder_server_starts_and_resumes_games(tmp_path: Path) -> None:
    c = TestClient(create_app(Server(folder=tmp_path, token=TOKEN)))
    c.headers["X-Deduce-Token"] = TOKEN
    index = c.get("/")
    assert index.status_code == 200 and 'data-new="clue"' in index.text and 'data-new="mafia-code"' in index.text
    r = c.post("/new", json={"game": "clue"})
    assert r.json() == {"outcome": "ok", "url": "/t/clue-1"}
    assert c.post("/new", json={"game": "clue"}).json()["url"] == "/t/clue-2"  # the first is still being set up
    assert c.post("/new", json={"game": "../clue"}).status_code == 422
    assert c.post("/new", json={"game": "clue", "dir": "/"}).status_code == 400
    for line in SETUP:
        c.post("/t/clue-1/line", json={"line": line})
    c.post("/t/clue-1/line", json={"line": "sug bob mrgreen knife hall cat"})
    # a restart: a new server over the same folder resumes the saved game
    c2 = TestClient(create_app(Server(folder=tmp_path, token="other")))
    c2.headers["X-Deduce-Token"] = "other"
    assert "clue-1.json" in c2.get("/").text
    s = c2.get("/t/clue-1/state").json()["state"]
    assert s["phase"] == "play" and len(s["events"]) == 2 and "Resumed a game with 2 events" in s["message"]


def test_a_one_game_server_has_no_new_games(client: TestClient) -> None:
    r = client.post("/new", json={"game": "clue"})
    assert r.status_code == 404 and "serves one game" in r.json()["message"]


def test_next_log_path_skips_saved_and_pending_names(tmp_path: Path) -> None:
    (tmp_path / "clue-1.json").write_text("{}")
    assert next_log_path(tmp_path, "clue") == tmp_path / "clue-2.json"
    assert next_log_path(tmp_path, "clue", taken={"clue-2"}) == tmp_path / "clue-3.json"


def test_the_saved_log_is_the_one_deduce_solve_reads(client: TestClient, table: Table,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from deduce.cli import main

    post_line(client, "sug bob mrgreen knife hall cat")
    capsys.readouterr()
    assert main(["solve", str(table.path), "--json"]) == 0
    out = capsys.readouterr().out
    assert "Mr. Green" in out and "envelope" in out


def test_a_cross_site_form_post_cannot_send_a_line(client: TestClient, table: Table) -> None:
    before = table.path.read_bytes()
    r = client.post("/t/clue-1/line", content='{"line": "has bob knife"}', headers={"Content-Type": "text/plain"})
    assert r.status_code == 415
    assert table.path.read_bytes() == before


def test_a_table_bounds_its_work_like_the_assistant_and_keeps_the_bound_on_upload(tmp_path):
    """A served table's updates and queries have the assistant's work budget (a server must not
    hang on a hard view), and an uploaded log keeps it."""
    from solvers.budget import DEFAULT_BUDGET

    adapter, solver = make_adapter("clue", "auto")
    example = Path(__file__).parents[3] / "examples" / "clue-3p.json"
    (tmp_path / "clue-1.json").write_text(example.read_text())
    table = Table.open(adapter, solver, tmp_path / "clue-1.json")  # a resumed game
    assert table.assistant.budget == DEFAULT_BUDGET and table.assistant.checker is not None
    table.assistant.budget = DEFAULT_BUDGET // 2  # the bound this table was given is what an upload keeps
    assert table.replace(json.loads(example.read_text())).outcome == "ok"
    assert table.assistant.budget == DEFAULT_BUDGET // 2 and table.assistant.checker is not None
    unbounded = Table.open(adapter, solver, tmp_path / "clue-2.json", budget=0)
    assert unbounded.assistant.budget is None
