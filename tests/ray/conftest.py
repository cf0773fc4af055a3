"""Tests that need Ray: CI runs them in their own step (``pytest tests/ray``); they skip when
Ray is not installed. One small local Ray instance serves the whole directory."""

import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "ray: needs the optional Ray dependency")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "tests/ray/" in str(item.fspath).replace("\\", "/"):
            item.add_marker(pytest.mark.ray)


@pytest.fixture(scope="session")
def ray_local():
    ray = pytest.importorskip("ray")
    if not ray.is_initialized():
        ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()
