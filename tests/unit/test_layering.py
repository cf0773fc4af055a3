"""DESIGN.md's one-way data flow: the core (``deduce``) never imports ``agents`` or ``solvers``.

Checked in a fresh interpreter, so modules another test imported do not hide a violation."""

import subprocess
import sys

#: packages that sit above the core and may import agents and solvers: the command line (and
#: ``python -m deduce``, which runs it), the tournament harness, the Speed Clue server and the
#: environment wrappers.
ABOVE_THE_CORE = ("deduce.cli", "deduce.__main__", "deduce.tournament", "deduce.speedclue", "deduce.wrappers")

#: core modules that import agents or solvers anyway, each with why (none today).
KNOWN_EXCEPTIONS: tuple[str, ...] = ()

_SCRIPT = """
import importlib, pkgutil, sys
import deduce
skip = tuple(sys.argv[1].split(",")) + tuple(m for m in sys.argv[2].split(",") if m)
names = sorted(m.name for m in pkgutil.walk_packages(deduce.__path__, "deduce.")
               if not m.name.startswith(skip))
for name in names:
    importlib.import_module(name)
leaked = sorted(m for m in sys.modules if m.split(".")[0] in ("agents", "solvers"))
print(" ".join(names))
print(" ".join(leaked))
"""


def test_the_core_imports_no_agent_or_solver():
    proc = subprocess.run(
        [sys.executable, "-c", _SCRIPT, ",".join(ABOVE_THE_CORE), ",".join(KNOWN_EXCEPTIONS)],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    names, leaked = proc.stdout.split("\n")[:2]
    assert {"deduce.assist_alibi_adlung", "deduce.games.alibi_adlung_log", "deduce.play"} <= set(names.split())
    assert not any(n.startswith(ABOVE_THE_CORE) for n in names.split())
    assert leaked == "", f"the core imported {leaked}"
