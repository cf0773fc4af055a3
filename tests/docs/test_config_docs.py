"""Every game's config field is documented in docs/games.md, in that game's own section."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from deduce.games.registry import game_class, game_names

DOC = Path(__file__).resolve().parents[2] / "docs" / "games.md"


def _sections(text: str) -> dict[str, str]:
    """``### `GAME` configuration`` heading -> the text up to the next heading."""
    parts = re.split(r"^(#{2,3} .*)$", text, flags=re.M)
    out = {}
    for heading, body in zip(parts[1::2], parts[2::2], strict=True):
        found = re.fullmatch(r"### `([a-z-]+)` configuration", heading.strip())
        if found:
            out[found.group(1)] = body
    return out


def _documented(body: str) -> set[str]:
    """Field names in the first column of the section's table rows."""
    names: set[str] = set()
    for line in body.splitlines():
        if line.startswith("| `"):
            names.update(re.findall(r"`([a-z_]+)`", line.split("|")[1]))
    return names


SECTIONS = _sections(DOC.read_text(encoding="utf-8"))


@pytest.mark.parametrize("game", list(game_names()))
def test_every_config_field_is_documented(game: str) -> None:
    assert game in SECTIONS, f"docs/games.md has no '### `{game}` configuration' section"
    fields = {f.name for f in dataclasses.fields(game_class(game).config_class)}
    documented = _documented(SECTIONS[game])
    assert fields - documented == set(), f"{game}: fields missing from docs/games.md"
    assert documented - fields == set(), f"{game}: docs/games.md names fields the game does not have"


def test_the_check_sees_a_missing_field() -> None:
    body = "| field | default | meaning |\n|---|---|---|\n| `a`, `b` | 1 | x |\n| `c` | 2 | y |\n"
    assert _documented(body) == {"a", "b", "c"}
    assert _documented(body.replace("| `c` | 2 | y |\n", "")) == {"a", "b"}
