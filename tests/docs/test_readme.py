"""The README's Python examples run: every ```python block, in order, in one shared namespace
(as a reader pasting them into one session would), from the repository root."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FENCE = re.compile(r"^```python[ \t]*\n(.*?)^```[ \t]*$", re.DOTALL | re.MULTILINE)


def python_blocks(text: str) -> list[tuple[int, str]]:
    """``(first line number, code)`` of every fenced ```python block."""
    return [(text.count("\n", 0, m.start(1)) + 1, m.group(1)) for m in FENCE.finditer(text)]


def test_extracts_blocks():
    text = "intro\n```python\nx = 1\n```\n```sh\nls\n```\n```python\nprint(x)\n```\n"
    assert python_blocks(text) == [(3, "x = 1\n"), (9, "print(x)\n")]


def test_readme_python_examples_run(monkeypatch: pytest.MonkeyPatch) -> None:
    blocks = python_blocks((ROOT / "README.md").read_text(encoding="utf-8"))
    assert blocks, "README.md has no ```python examples"
    monkeypatch.chdir(ROOT)
    namespace: dict[str, object] = {"__name__": "__readme__"}
    for line, code in blocks:
        out = io.StringIO()
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, f"README.md:{line}", "exec"), namespace)
        except Exception as exc:  # name the block, keep the traceback
            raise AssertionError(f"README.md block at line {line} failed: {exc!r}") from exc
