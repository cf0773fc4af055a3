"""The "new game" checklist (docs/architecture.md), checked for every registered game.

Each game declares what it provides in one record (``INFO``, a ``GameInfo``); the applications
list it in their tables. A capability a game still lacks is listed in ``KNOWN_GAPS`` with the
issue that brings it, and the test fails both when a game lacks an unlisted capability and when
a listed gap has been filled (so the list cannot go stale).
"""

from __future__ import annotations

from pathlib import Path

import pytest

import agents
from agents.registry import GAME_AGENTS
from deduce.apps.assist.session import ADAPTERS
from deduce.games.base import Game
from deduce.games.registry import BUILTIN_GAMES, game_info, game_names

ROOT = Path(__file__).resolve().parents[2]

#: (game, capability) -> why it is missing for now
KNOWN_GAPS: dict[tuple[str, str], str] = {}


def _provides(name: str, capability: str) -> bool:
    info = game_info(name)
    stem = name.replace("-", "_")
    checks = {
        "folder": (ROOT / "deduce" / "games" / stem / "__init__.py").is_file()
        and (ROOT / "deduce" / "games" / stem / "rules.py").is_file(),
        "log format": info.log is not None and callable(info.log.parse) and callable(info.log.export),
        "wording": info.wording is not None,
        "action numbering": info.actions is not None,
        "agents": name in GAME_AGENTS and any(a != "random" for a in agents.available(name)),
        "assistant": name in ADAPTERS,
        "tests": all((ROOT / "tests" / "games" / stem / f"test_{part}.py").is_file() for part in ("rules", "log", "props")),
        "example log": any(ROOT.glob(f"examples/{name}*.json")),
    }
    return checks[capability]


CAPABILITIES = ("folder", "log format", "wording", "action numbering", "agents", "assistant", "tests", "example log")


@pytest.mark.parametrize("name", game_names())
@pytest.mark.parametrize("capability", CAPABILITIES)
def test_every_game_declares_every_capability(name, capability):
    gap = KNOWN_GAPS.get((name, capability))
    if gap is None:
        assert _provides(name, capability), f"{name} lacks {capability}"
    else:
        assert not _provides(name, capability), f"{name} has {capability} now: remove its KNOWN_GAPS entry ({gap})"


@pytest.mark.parametrize("name", game_names())
def test_the_record_says_the_truth(name):
    info = game_info(name)
    assert info.name == name and issubclass(info.game, Game) and info.game.name == name
    overrides = info.game.event_constraints is not Game.event_constraints
    assert info.incremental == overrides, "incremental knowledge <=> the game gives event_constraints"


def test_every_table_names_exactly_the_registered_games():
    assert set(BUILTIN_GAMES) == set(GAME_AGENTS) == set(ADAPTERS)
