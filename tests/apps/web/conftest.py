"""Fixtures of the browser notebook's tests: a live server in a thread, and headless Chromium.

The ``browser`` marker is for tests that drive Debian's ``chromium`` through Playwright (pointed
at the system browser: nothing is downloaded at run time); they skip, saying why, when either
is missing. Deselect them with ``-m 'not browser'``.
"""

from __future__ import annotations

import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the browser notebook needs the 'web' extra (pip install -e '.[web]')")
pytest.importorskip("uvicorn", reason="the browser notebook needs the 'web' extra (pip install -e '.[web]')")

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "browser: drives headless Chromium through the page (Debian's chromium, Playwright)")


class Live:
    """A server running in a thread: its base URL, token and :class:`Server`."""

    def __init__(self, server: Any) -> None:
        import uvicorn

        from deduce.apps.web.server import create_app

        self.server = server
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.uv = uvicorn.Server(uvicorn.Config(create_app(server), log_level="warning", lifespan="off"))
        self.thread = threading.Thread(target=self.uv.run, kwargs={"sockets": [self.sock]}, daemon=True)
        self.thread.start()
        for _ in range(200):
            if self.uv.started:
                break
            time.sleep(0.05)
        self.base = f"http://127.0.0.1:{self.port}"

    def url(self, path: str = "/") -> str:
        return f"{self.base}{path}?token={self.server.token}"

    def stop(self) -> None:
        self.uv.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


@pytest.fixture
def live_server() -> Iterator[Any]:
    """Call with a :class:`Server`; returns a :class:`Live` (stopped after the test)."""
    started: list[Live] = []

    def start(server: Any) -> Live:
        live = Live(server)
        started.append(live)
        return live

    yield start
    for live in started:
        live.stop()


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """Headless Debian Chromium through Playwright (skips with the reason when either is missing)."""
    # CI sets DEDUCE_REQUIRE_BROWSER=1: there a missing browser is a failure, not a silent skip.
    missing = pytest.fail if os.environ.get("DEDUCE_REQUIRE_BROWSER") else pytest.skip
    if not CHROMIUM.exists():
        missing(f"no {CHROMIUM}: install Debian's chromium (apt-get install -y chromium) to run the browser tests")
    try:
        from playwright import sync_api
    except ImportError:
        missing("the browser tests need playwright (pip install playwright)")
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(chromium: Any) -> Iterator[Any]:
    """A fresh phone-sized page (a new context: no cookies from another test)."""
    context = chromium.new_context(viewport={"width": 390, "height": 844})
    pg = context.new_page()
    pg.set_default_timeout(20_000)
    yield pg
    context.close()
