"""``deduce assist GAME --web`` and ``deduce serve``: the options, and that the web path serves
the very session the terminal path built (same log file, same resume)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from deduce.apps.assist.session import GameAssistant, adapter_for
from deduce.cli import build_parser, main


def test_assist_web_options_default_to_this_machine_only() -> None:
    args = build_parser().parse_args(["assist", "clue", "--web"])
    assert args.web and args.host == "127.0.0.1" and args.port == 8765 and not args.no_browser
    args = build_parser().parse_args(["assist", "clue", "--web", "--host", "0.0.0.0", "--port", "0", "--no-browser"])
    assert (args.host, args.port, args.no_browser) == ("0.0.0.0", 0, True)
    assert build_parser().parse_args(["assist", "clue"]).web is False  # the terminal stays the default


def test_assist_web_serves_the_session_the_terminal_path_resumed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    log = tmp_path / "evening.json"
    log.write_text(json.dumps({"game": "clue", "players": ["Ann", "Bob", "Cat"], "hand_sizes": [6, 6, 6], "me": "Ann",
                               "events": [{"type": "card_at", "card": "Knife", "at": "Bob"}]}))
    seen: dict[str, Any] = {}

    def fake_serve(assistant: GameAssistant, path: Path, **kwargs: Any) -> int:
        seen.update(assistant=assistant, path=path, **kwargs)
        return 0

    monkeypatch.setattr("deduce.apps.web.server.serve_table", fake_serve)
    assert main(["assist", "clue", "--web", "--log", str(log), "--no-browser", "--port", "0"]) == 0
    assert seen["path"] == log and seen["port"] == 0 and seen["browser"] is False and seen["host"] == "127.0.0.1"
    assert len(seen["assistant"].events) == 1
    seen["assistant"].handle("has cat rope")  # it saves to the same file
    assert len(json.loads(log.read_text())["events"]) == 2


def test_serve_refuses_a_folder_that_is_not_one(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--dir", str(tmp_path / "missing"), "--no-browser"]) == 2
    assert "is not a folder" in capsys.readouterr().err


def test_a_port_in_use_is_a_one_line_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert main(["serve", "--dir", str(tmp_path), "--no-browser", "--port", str(port)]) == 2
    assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err


def test_the_session_additions_the_page_reads() -> None:
    import solvers

    s = GameAssistant(adapter_for("clue"), solvers.get("auto"))
    assert s.setup_step == "players" and s.setup_answers == {}
    s.handle("Ann Bob Cat")
    assert s.setup_step == "deck" and s.setup_answers == {"players": ["Ann", "Bob", "Cat"]}
    for line in ("classic", "", "spectator"):
        s.handle(line)
    assert s.setup_step is None
    s.handle("has bob knife")
    assert s.list_events() == f"  0  {s.event_texts()[0]}"
    assert s.event_texts()[0].startswith("Bob")
    advice = s.advice()
    assert advice and advice[0].startswith("envelope:")
    assert s.status().endswith("\n".join(advice))


@pytest.mark.slow
def test_assist_web_really_serves_on_this_machine_with_the_printed_token(tmp_path: Path) -> None:
    import re
    import subprocess
    import sys
    import time
    import urllib.error
    import urllib.request

    log = tmp_path / "tonight.json"
    cmd = [sys.executable, "-m", "deduce", "assist", "clue", "--web", "--no-browser", "--port", "0", "--log", str(log),
           "--players", "ann,bob,cy", "--me", "ann", "--hand", "rope,hall,knife,scarlet,kitchen,study"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = None
        deadline = time.monotonic() + 120
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()  # type: ignore[union-attr]
            if not line:
                break
            found = re.search(r"the notebook is at (http://\S+)", line)
            url = found.group(1) if found else None
        assert url is not None and url.startswith("http://127.0.0.1:") and "?token=" in url
        with urllib.request.urlopen(url, timeout=30) as r:
            assert r.status == 200 and b'<table class="grid"' in r.read()
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(url.split("?")[0] + "/state", timeout=30)
        assert refused.value.code == 403
        assert json.loads(log.read_text())["events"][0]["cards"][0] == "Rope"
    finally:
        proc.terminate()
        proc.wait(timeout=30)
