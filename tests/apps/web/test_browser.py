"""The notebook in a real browser (headless Debian Chromium through Playwright): a whole Clue
game by tapping, the grid changing, undo and redo, a contradiction held back, reload and a
server restart resuming; and a short game of each other game through its generic form."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from deduce.apps.web.server import Server, make_adapter
from deduce.apps.web.table import Table

pytestmark = [pytest.mark.browser, pytest.mark.slow]

PLAYERS = ["Ann", "Bob", "Cat"]
ANN = ["Mrs. White", "Rope", "Ballroom", "Kitchen", "Study", "Library"]


def expect() -> Any:
    from playwright.sync_api import expect as _expect

    _expect.set_options(timeout=30_000)  # a slow shared machine; the advice of Alibi samples deals
    return _expect


def open_game(live_server: Any, folder: Path, game: str) -> tuple[Any, Table]:
    adapter, solver = make_adapter(game, "auto")
    table = Table.open(adapter, solver, folder / f"{game}-1.json")
    return live_server(Server({f"{game}-1": table}, token="browser-token")), table


def tap(page: Any, slot: str, label: str) -> None:
    page.locator(f"#event-form fieldset[data-slot='{slot}'] button[data-pick='{label}']").first.click()


def choose_form(page: Any, syntax_start: str, exact: bool = False) -> None:
    page.locator(f"#entry button[data-form{'' if exact else '^'}='{syntax_start}']").first.click()


def add(page: Any) -> None:
    """Tap 'add' and wait for the answer (the page redraws the form when it comes)."""
    with page.expect_response(lambda r: r.url.endswith("/line")):
        page.locator("#add").click()


def events(page: Any) -> Any:
    return page.locator("#events li")


def cell(page: Any, card: str, column: int) -> Any:
    """The grid cell of ``card`` in location column ``column`` (0: the first player)."""
    return page.locator(f"#grid tr[data-name='{card}'] td").nth(column)


def ask(page: Any, form: str, by: str, triple: tuple[str, str, str]) -> None:
    """Open a Clue suggestion or accusation form and tap who and the three cards."""
    choose_form(page, form)
    tap(page, "BY", by)
    for slot, card in zip(("SUSPECT", "WEAPON", "ROOM"), triple, strict=True):
        tap(page, slot, card)


def setup_players(page: Any, names: list[str]) -> None:
    inputs = page.locator(".names input")
    while inputs.count() < len(names):
        page.get_by_role("button", name="+ player").click()
    for i, name in enumerate(names):
        inputs.nth(i).fill(name)
    page.locator("#setup-go").click()


def test_a_whole_clue_game_by_tapping(live_server: Any, tmp_path: Path, page: Any) -> None:
    ex = expect()
    live, table = open_game(live_server, tmp_path, "clue")
    page.goto(live.url("/t/clue-1"))
    # set-up by tapping: players, the classic deck, the even deal, my seat, my hand
    ex(page.locator(".prompt")).to_contain_text("players in seat order")
    setup_players(page, PLAYERS)
    ex(page.locator(".prompt")).to_contain_text("deck")
    page.get_by_role("button", name="classic deck").click()
    ex(page.locator(".prompt")).to_contain_text("hand sizes")
    page.get_by_role("button", name="the even deal").click()
    ex(page.locator(".prompt")).to_contain_text("which one are you")
    page.locator("#entry button[data-pick='Ann']").click()
    ex(page.locator(".prompt")).to_contain_text("your hand (6 cards)")
    for card in ANN:
        page.locator(f"#entry button[data-pick='{card}']").click()
    ex(page.locator(".count")).to_have_text("6 of 6 picked")
    page.locator("#setup-go").click()
    ex(page.locator("#grid")).to_be_visible()
    ex(cell(page, "Mrs. White", 0)).to_have_text("YES")
    ex(cell(page, "Knife", 1)).to_have_text("40%")

    # a suggestion of mine: Bob shows me the Knife (only the three cards asked are offered)
    ask(page, "sug ", "Ann", ("Miss Scarlet", "Knife", "Hall"))
    ex(page.locator("#event-form fieldset[data-slot='REFUTER'] button[data-pick='Ann']")).to_have_count(0)  # not the suggester
    tap(page, "REFUTER", "Bob")
    shown = page.locator("#event-form fieldset[data-slot='CARD'] button")
    ex(shown).to_have_text(["Miss Scarlet", "Knife", "Hall"])
    tap(page, "CARD", "Knife")
    ex(page.locator("#preview")).to_have_text("sug Ann missscarlet knife hall Bob shown=knife")
    add(page)
    ex(page.locator("#message")).to_contain_text("event 1: Ann suggested Miss Scarlet, Knife, Hall: Bob showed Ann Knife")
    ex(cell(page, "Knife", 1)).to_have_text("YES")  # the grid changed
    ex(cell(page, "Knife", 3)).to_have_text("-")

    # others' suggestions: no card shown to me, so no 'shown' picker
    ask(page, "sug ", "Bob", ("Colonel Mustard", "Wrench", "Lounge"))
    tap(page, "REFUTER", "Cat")
    ex(page.locator("#event-form fieldset[data-slot='CARD']")).to_have_count(0)
    add(page)
    ex(events(page)).to_have_count(3)
    ask(page, "sug ", "Cat", ("Mr. Green", "Candlestick", "Conservatory"))
    tap(page, "REFUTER", "Bob")
    add(page)
    ex(events(page)).to_have_count(4)

    # undo from the toolbar, then redo
    page.locator("#undo").click()
    ex(events(page)).to_have_count(3)
    ex(page.locator("#message")).to_contain_text("removed event 3")
    page.locator("#redo").click()
    ex(events(page)).to_have_count(4)

    # a contradiction: Cat cannot hold the Knife Bob showed me; held back naming event 1
    choose_form(page, "has ")
    tap(page, "WHO", "Cat")
    tap(page, "CARD", "Knife")
    add(page)
    ex(page.locator("#held")).to_contain_text("contradicts event 1 (Ann suggested Miss Scarlet, Knife, Hall")
    ex(page.locator("#message")).to_contain_text("not added")
    assert len(json.loads(table.path.read_text())["events"]) == 4  # not saved
    page.get_by_role("button", name="drop the new one").click()
    ex(page.locator("#held")).to_have_count(0)
    ex(page.locator("#message")).to_have_text("dropped the new event; the log is unchanged")

    # why on a cell
    cell(page, "Knife", 2).click()
    ex(page.locator("#why")).to_contain_text("Knife")

    # reload: everything is still there
    page.reload()
    ex(events(page)).to_have_count(4)
    ex(cell(page, "Knife", 1)).to_have_text("YES")

    # my suggestion nobody refutes: the envelope is certain
    ask(page, "sug ", "Ann", ("Professor Plum", "Wrench", "Lounge"))
    tap(page, "REFUTER", "none")
    ex(page.locator("#event-form fieldset[data-slot='CARD']")).to_have_count(0)  # nobody showed anything
    add(page)
    ex(page.locator("#advice")).to_contain_text("accuse: SAFE - it is certainly Professor Plum, Wrench, Lounge")
    ex(cell(page, "Professor Plum", 3)).to_have_text("YES")

    # the accusation ends the evening
    ask(page, "acc ", "Ann", ("Professor Plum", "Wrench", "Lounge"))
    tap(page, "right|wrong", "right")
    add(page)
    ex(events(page)).to_have_count(6)
    saved = json.loads(table.path.read_text())
    assert [e["type"] for e in saved["events"]] == ["hand", "suggestion", "suggestion", "suggestion", "suggestion", "accusation"]
    assert saved["events"][1] == {"type": "suggestion", "by": "Ann", "cards": ["Miss Scarlet", "Knife", "Hall"],
                                  "refuted_by": "Bob", "shown": "Knife"}

    # a restart of the server resumes the same game from its log
    live.stop()
    adapter, solver = make_adapter("clue", "auto")
    again = live_server(Server({"clue-1": Table.open(adapter, solver, table.path)}, token="browser-token"))
    page.goto(again.url("/t/clue-1"))
    ex(events(page)).to_have_count(6)
    ex(page.locator("#message")).to_contain_text("Resumed a game with 6 events")


def test_the_grid_undo_button_on_an_event_and_a_typed_line(live_server: Any, tmp_path: Path, page: Any) -> None:
    ex = expect()
    live, table = open_game(live_server, tmp_path, "clue")
    for line in ("Ann Bob Cat", "classic", "", "spectator"):
        table.line(line)
    page.goto(live.url("/t/clue-1"))
    page.locator("#typed").fill("has bob knife")
    page.locator("#typed").press("Enter")
    ex(events(page)).to_have_count(1)
    ex(cell(page, "Knife", 1)).to_have_text("YES")
    page.locator("#typed").fill("fly me to the moon")
    page.locator("#typed").press("Enter")
    ex(page.locator("#message")).to_contain_text("unknown command")
    page.locator("#events button[data-line='undo 0']").click()
    ex(page.locator("#events")).to_have_count(0)
    assert json.loads(table.path.read_text())["events"] == []


def test_a_token_less_visit_sees_only_the_refusal(live_server: Any, tmp_path: Path, page: Any) -> None:
    live, _ = open_game(live_server, tmp_path, "clue")
    response = page.goto(f"{live.base}/t/clue-1")
    assert response.status == 403
    assert "no access token" in page.content()


def short_game(page: Any, live: Any, slug: str, players: list[str], me: str | None) -> None:
    ex = expect()
    page.goto(live.url(f"/t/{slug}"))
    setup_players(page, players)
    ex(page.locator(".prompt")).to_contain_text("which one are you")
    if me is None:
        page.get_by_role("button", name="spectator (no cards)").click()
    else:
        page.locator(f"#entry button[data-pick='{me}']").click()


def test_mafia_code(live_server: Any, tmp_path: Path, page: Any) -> None:
    ex = expect()
    live, table = open_game(live_server, tmp_path, "mafia-code")
    short_game(page, live, "mafia-code-1", PLAYERS, "Ann")
    ex(page.locator(".prompt")).to_contain_text("your hand (10 cards")
    for card in ["red A", "red B", "red C", "red D", "red E", "red F", "yellow A", "yellow B", "yellow C", "yellow D"]:
        page.locator(f"#entry button[data-pick='{card}']").click()
    page.locator("#setup-go").click()
    ex(cell(page, "red A", 0)).to_have_text("YES")
    choose_form(page, "hit ")
    tap(page, "BY", "Bob")
    ex(page.locator("#event-form fieldset[data-slot='TARGET'] button[data-pick='Bob']")).to_have_count(0)
    tap(page, "TARGET", "Cat")
    tap(page, "CARD", "blue F")
    add(page)
    ex(cell(page, "blue F", 2)).to_have_text("YES")
    choose_form(page, "code WHO COLOUR LETTER N", exact=True)
    tap(page, "WHO", "Bob")
    tap(page, "COLOUR", "red")
    tap(page, "LETTER", "A")
    page.locator("#event-form fieldset[data-slot='N'] input").fill("1")
    add(page)
    ex(events(page)).to_have_count(3)
    # a contradiction: Cat cannot hold red A, which is mine
    choose_form(page, "hit ")
    tap(page, "BY", "Bob")
    tap(page, "TARGET", "Cat")
    tap(page, "CARD", "red A")
    add(page)
    ex(page.locator("#held")).to_contain_text("contradicts event 0")
    page.get_by_role("button", name="drop the new one").click()
    page.locator("#undo").click()
    ex(events(page)).to_have_count(2)
    assert [e["type"] for e in json.loads(table.path.read_text())["events"]] == ["hand", "guess"]


def test_checkpoint_charlie(live_server: Any, tmp_path: Path, page: Any) -> None:
    ex = expect()
    live, table = open_game(live_server, tmp_path, "checkpoint-charlie")
    short_game(page, live, "checkpoint-charlie-1", PLAYERS, "Ann")
    ex(page.locator(".prompt")).to_contain_text("who flips first")
    page.locator("#entry button[data-pick='Bob']").click()
    ex(page.locator(".prompt")).to_contain_text("your clue token")
    ex(page.locator("#entry button[data-pick='hat']")).to_be_visible()  # its faces to tap
    ex(page.locator("#setup-default")).to_have_text("not drawn yet")
    page.locator("#setup-default").click()
    ex(page.locator("#grid")).to_be_visible()
    choose_form(page, "hound ")
    tap(page, "WHO", "Bob")
    tap(page, "FACE", "hat")
    add(page)
    ex(events(page)).to_have_count(2)
    choose_form(page, "side ")
    tap(page, "WHO", "Cat")
    ex(page.locator("#event-form fieldset[data-slot='FACE']")).to_have_count(0)  # only for my own token
    add(page)
    choose_form(page, "flip ")
    tap(page, "WHO", "Cat")
    page.locator("#event-form fieldset[data-slot='CAT'] input").fill("hgocn")
    tap(page, "kept|gone", "kept")
    add(page)
    ex(events(page)).to_have_count(4)
    page.reload()
    ex(events(page)).to_have_count(4)
    assert len(json.loads(table.path.read_text())["events"]) == 4


def test_crime_hotel(live_server: Any, tmp_path: Path, page: Any) -> None:
    ex = expect()
    live, table = open_game(live_server, tmp_path, "crime-hotel")
    short_game(page, live, "crime-hotel-1", PLAYERS, None)
    ex(page.locator(".prompt")).to_contain_text("who leads")
    page.locator("#entry button[data-pick='Ann']").click()
    ex(page.locator(".prompt")).to_contain_text("8 leftover cards")
    for card in ["101", "102", "103", "104", "105", "106", "107", "108"]:
        page.locator(f"#entry button[data-pick='{card}']").click()
    page.locator("#setup-go").click()
    ex(cell(page, "101", 4)).to_have_text("YES")
    choose_form(page, "play ")
    tap(page, "WHO", "Ann")
    tap(page, "CARD", "309")
    add(page)
    ex(cell(page, "309", 4)).to_have_text("YES")
    choose_form(page, "play ")
    tap(page, "WHO", "Bob")
    tap(page, "CARD", "101")  # lit on the board: nobody can play it
    add(page)
    ex(page.locator("#held")).to_contain_text("contradicts event 0")
    page.get_by_role("button", name="drop the new one").click()
    ex(events(page)).to_have_count(2)
    assert len(json.loads(table.path.read_text())["events"]) == 2


def test_alibi(live_server: Any, tmp_path: Path, page: Any) -> None:
    ex = expect()
    live, table = open_game(live_server, tmp_path, "alibi")
    short_game(page, live, "alibi-1", PLAYERS, None)
    ex(page.locator("#grid")).to_be_visible()
    ex(page.locator("#grid caption")).to_contain_text("(exact)")  # before the first pass frontier counts it
    choose_form(page, "ask ")
    tap(page, "ASKER", "Ann")
    tap(page, "TARGET", "Bob")
    tap(page, "hand|seen|held", "hand")
    page.locator("#event-form fieldset[data-slot='NAMES'] input").fill("slimslantmorning")
    page.locator("#event-form fieldset[data-slot='N'] input").fill("1")
    add(page)
    ex(events(page)).to_contain_text(["Ann asked Bob: how many of Slim Slant / Morning do you hold? answer 1"])
    choose_form(page, "accuse ")
    tap(page, "WHO", "Bob")
    add(page)
    ex(events(page)).to_have_count(2)
    page.locator("#undo").click()
    ex(events(page)).to_have_count(1)
    assert len(json.loads(table.path.read_text())["events"]) == 1


def test_alibi_adlung(live_server: Any, tmp_path: Path, page: Any) -> None:
    ex = expect()
    live, table = open_game(live_server, tmp_path, "alibi-adlung")
    short_game(page, live, "alibi-adlung-1", ["Ann", "Bob"], None)
    ex(page.locator(".prompt")).to_contain_text("face-up suspects")
    page.locator("#setup-text").fill("s1 s5 s7 s12")
    page.locator("#setup-go").click()
    ex(page.locator("#grid")).to_be_visible()
    choose_form(page, "eye ")
    tap(page, "WHO", "Ann")
    add(page)
    choose_form(page, "stop ")
    tap(page, "WHO", "Ann")
    ex(page.locator("#event-form fieldset[data-slot='FACES']")).to_have_count(0)  # 'got' is for my own lines
    add(page)
    choose_form(page, "alibi ")
    tap(page, "WHO", "Bob")
    page.locator("#event-form fieldset[data-slot='SUSPECT'] input").fill("s5")
    add(page)
    ex(events(page)).to_have_count(3)
    ex(events(page).nth(2)).to_contain_text("Bob gave s5 an alibi")
    page.reload()
    ex(events(page)).to_have_count(3)
    assert len(json.loads(table.path.read_text())["events"]) == 3


def test_serve_picks_the_game_in_the_page_and_lists_it_afterwards(live_server: Any, tmp_path: Path, page: Any) -> None:
    ex = expect()
    live = live_server(Server(folder=tmp_path, token="browser-token"))
    page.goto(live.url("/"))
    page.locator("button[data-new='checkpoint-charlie']").click()
    page.wait_for_url("**/t/checkpoint-charlie-1")
    setup_players(page, PLAYERS)
    page.get_by_role("button", name="spectator (no cards)").click()
    page.locator("#entry button[data-pick='Cat']").click()
    ex(events(page)).to_have_count(1)
    assert json.loads((tmp_path / "checkpoint-charlie-1.json").read_text())["events"] == [{"type": "round", "starter": "Cat"}]
    page.get_by_role("link", name="all games").click()
    ex(page.locator(".saved a")).to_have_text(["checkpoint-charlie-1.json"])


def test_download_and_upload_of_the_log(live_server: Any, tmp_path: Path, page: Any) -> None:
    ex = expect()
    live, table = open_game(live_server, tmp_path, "clue")
    for line in ("Ann Bob Cat", "classic", "", "spectator", "has bob knife"):
        table.line(line)
    page.goto(live.url("/t/clue-1"))
    with page.expect_download() as download:
        page.locator("#download").click()
    assert json.loads(Path(download.value.path()).read_text()) == json.loads(table.path.read_text())
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"game": "clue", "players": ["Xa", "Yb", "Zc"], "hand_sizes": [6, 6, 6],
                                 "events": [{"type": "card_at", "card": "Rope", "at": "Zc"}]}))
    page.on("dialog", lambda dialog: dialog.accept())
    page.locator("#upload").set_input_files(str(other))
    ex(cell(page, "Rope", 2)).to_have_text("YES")
    ex(page.locator("#grid thead th")).to_have_text(["", "Xa", "Yb", "Zc", "envelope"])
    assert json.loads(table.path.read_text())["players"] == ["Xa", "Yb", "Zc"]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    page.locator("#upload").set_input_files(str(bad))
    ex(page.locator("#message")).to_contain_text("not JSON")
    assert json.loads(table.path.read_text())["players"] == ["Xa", "Yb", "Zc"]


def test_a_second_device_sees_the_first_ones_changes(live_server: Any, tmp_path: Path, page: Any, chromium: Any) -> None:
    ex = expect()
    live, table = open_game(live_server, tmp_path, "clue")
    for line in ("Ann Bob Cat", "classic", "", "spectator"):
        table.line(line)
    page.goto(live.url("/t/clue-1"))
    laptop = chromium.new_context(viewport={"width": 1280, "height": 900}).new_page()
    laptop.goto(live.url("/t/clue-1"))
    laptop.locator("#typed").fill("has bob knife")
    laptop.locator("#typed").press("Enter")
    ex(events(page)).to_have_count(1)  # the phone picks it up without a reload
    ex(cell(page, "Knife", 1)).to_have_text("YES")
    laptop.context.close()
