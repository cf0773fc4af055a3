"""A busy loop on another core, for tests that a result does not depend on machine load."""

from __future__ import annotations

import contextlib
import subprocess
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def busy_core() -> Iterator[subprocess.Popen]:
    """A subprocess spinning at full speed until the block ends (then it is killed and reaped)."""
    spinner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        yield spinner
    finally:
        spinner.kill()
        spinner.wait()
