"""Tests of the OpenSpiel adapter: skipped (not failed) when the ``openspiel`` extra is absent."""

import importlib.util

import pytest

MISSING = importlib.util.find_spec("pyspiel") is None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark every test in this folder skipped when OpenSpiel is not installed."""
    if not MISSING:
        return
    skip = pytest.mark.skip(reason="needs the openspiel extra (pyspiel not installed)")
    for item in items:
        if "tests/apps/openspiel/" in item.nodeid.replace("\\", "/"):
            item.add_marker(skip)
