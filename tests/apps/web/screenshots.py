"""Screenshots of the Clue notebook for the docs, at a phone's width and a desktop's.

Run from the repository: ``.venv/bin/python tests/apps/web/screenshots.py docs/img`` (needs the
``web`` extra, playwright and Debian's chromium, as the browser tests do). The game is a fixed
evening, so the pictures change only when the page does.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from conftest import CHROMIUM, CHROMIUM_ARGS, Live  # noqa: E402

from deduce.apps.web.server import Server, make_adapter  # noqa: E402
from deduce.apps.web.table import Table  # noqa: E402

EVENING = [
    "Ann Bob Cat Dan", "classic", "", "Ann", "mrswhite, rope, ballroom, kitchen, library",
    "sug bob mrgreen knife hall cat", "sug cat plum rope study dan",
    "sug ann scarlet wrench lounge bob shown=scarlet", "sug dan mustard candlestick conservatory bob", "not cat revolver",
]
SIZES = {"phone": (390, 844, True), "desktop": (1280, 1000, False)}


def main(out: Path) -> None:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    adapter, solver = make_adapter("clue", "auto")
    table = Table.open(adapter, solver, Path(tempfile.mkdtemp()) / "clue-1.json")
    for line in EVENING:
        assert table.line(line).outcome == "ok", line
    live = Live(Server({"clue-1": table}))
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            for name, (width, height, full) in SIZES.items():
                page = browser.new_page(viewport={"width": width, "height": height})
                page.goto(live.url("/t/clue-1"))
                page.locator("#entry button[data-form^='sug ']").first.click()
                for slot, pick in (("BY", "Ann"), ("SUSPECT", "Mrs. Peacock"), ("WEAPON", "Lead Pipe")):
                    page.locator(f"#event-form fieldset[data-slot='{slot}'] button[data-pick='{pick}']").click()
                page.locator("#grid tr[data-name='Mr. Green'] td").nth(1).click()
                page.wait_for_selector("#why:not([hidden])")
                page.screenshot(path=str(out / f"web-clue-{name}.png"), full_page=full)
                page.close()
            browser.close()
    finally:
        live.stop()


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/img"))
