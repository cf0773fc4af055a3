"""Tests of the PettingZoo wrapper: skipped (not failed) when the ``pettingzoo`` extra is absent."""

import importlib.util

import pytest

MISSING = [m for m in ("pettingzoo", "gymnasium") if importlib.util.find_spec(m) is None]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test in this folder skipped when the optional dependencies are missing."""
    if not MISSING:
        return
    skip = pytest.mark.skip(reason=f"needs the pettingzoo extra ({', '.join(MISSING)} not installed)")
    for item in items:
        if "tests/apps/pettingzoo/" in item.nodeid.replace("\\", "/"):
            item.add_marker(skip)
