"""The one-way data flow of docs/architecture.md, checked statically (ast) on every module.

A module's imports are its ``import`` statements (anywhere, also inside functions) and every
string it hands to ``importlib.import_module`` or ``__import__``; a string literal that names a
module of a forbidden layer (``"agents.clue.deduction:AGENTS"``) counts too, since a registry would load it.
Checked from the source, not from ``sys.modules`` after importing, so an import hidden in a
function that no test calls is still seen.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

#: layer -> module prefixes it may never import
FORBIDDEN: dict[str, tuple[str, ...]] = {
    "core": ("agents", "solvers", "deduce.apps", "deduce.cli"),
    "solvers": ("agents", "deduce.games", "deduce.apps", "deduce.cli"),
    "agents": ("deduce.apps", "deduce.cli"),
}

#: (module, imported name) pairs allowed anyway, each with why.
ALLOWED: dict[tuple[str, str], str] = {
    ("deduce", "deduce.apps.tournament"): "the package namespace re-exports deduce.Tournament, loaded on first use",
}

#: modules that may call import_module on a computed name: registries of user-supplied names
REGISTRIES = {
    "deduce": "deduce.Tournament, loaded on first use",
    "deduce.games.registry": "games by name",
    "solvers.registry": "backends by name",
    "agents.registry": "agents by name",
    "deduce.cli": "subcommands by name",
    "deduce.apps.assist.session": "assistant adapters by game name",
}

_MODULE_STRING = re.compile(r"^(agents|solvers|deduce)(\.[A-Za-z_]\w*)*(:[A-Za-z_]\w*)?$")


def layer_of(module: str) -> str | None:
    """Which layer a module of this repository belongs to (None: applications, above all)."""
    if module.startswith(("deduce.apps", "deduce.cli")) or module == "deduce.__main__":
        return None
    return module.split(".")[0].replace("deduce", "core")


def imports_of(source: str, module: str, is_package: bool = False) -> tuple[set[str], list[int]]:
    """Every module name ``source`` imports or names as a string, and the lines of its
    ``import_module`` calls on computed names."""
    tree = ast.parse(source)
    package = module if is_package else module.rpartition(".")[0]
    found: set[str] = set()
    computed: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in ("import_module", "__import__") and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.add(arg.value)
                else:
                    computed.append(node.lineno)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and _MODULE_STRING.match(node.value):
            if "." in node.value or ":" in node.value:
                found.add(node.value.partition(":")[0])
    return found, computed


def violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """What ``module`` (with this source) imports against the layering rules."""
    layer = layer_of(module)
    found, computed = imports_of(source, module, is_package)
    bad = []
    for name in sorted(found):
        for prefix in FORBIDDEN.get(layer or "", ()):
            if (name == prefix or name.startswith(prefix + ".")) and (module, name) not in ALLOWED:
                bad.append(f"{module} ({layer}) imports {name}")
    if computed and module not in REGISTRIES:
        bad.append(f"{module} calls import_module on a computed name (lines {computed}): only registries may")
    return bad


def all_modules() -> dict[str, Path]:
    out = {}
    for package in ("deduce", "solvers", "agents"):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def test_every_module_keeps_to_its_layer():
    modules = all_modules()
    assert {"deduce.logs", "deduce.games.registry", "deduce.apps.audit", "solvers.exact", "agents.registry"} <= set(modules)
    bad = [v for m, p in modules.items() for v in violations(p.read_text(), m, p.name == "__init__.py")]
    assert bad == []


def test_allowed_exceptions_are_still_needed():
    """An exception nobody uses any more is removed, so it cannot hide a future violation."""
    modules = all_modules()
    for module, name in ALLOWED:
        path = modules[module]
        assert name in imports_of(path.read_text(), module, path.name == "__init__.py")[0], (module, name)
    for module in REGISTRIES:
        path = modules[module]
        assert imports_of(path.read_text(), module, path.name == "__init__.py")[1], module


@pytest.mark.parametrize(
    ("module", "source", "expected"),
    [
        ("deduce.logs", "import solvers\n", "imports solvers"),
        ("deduce.logs", "def f():\n    from agents.clue.deduction import shown_to\n", "imports agents.clue.deduction"),
        ("deduce.games.clue.log", "from deduce.apps.assist import text\n", "imports deduce.apps.assist"),
        ("deduce.play", "import importlib\nimportlib.import_module('solvers.exact')\n", "imports solvers.exact"),
        ("deduce.replay", "import importlib\nM = 'agents'\nimportlib.import_module(M)\n", "computed name"),
        ("deduce.games.clue.rules", "REG = {'x': 'agents.clue.deduction:AGENTS'}\n", "imports agents.clue.deduction"),
        ("deduce.games.clue.rules", "from ...apps import audit\n", "imports deduce.apps.audit"),
        ("solvers.chain", "from deduce.games.crime_hotel import rules\n", "imports deduce.games.crime_hotel"),
        ("agents.clue.deduction", "from deduce.apps.tournament import stats\n", "imports deduce.apps.tournament"),
    ],
)
def test_a_planted_violation_is_caught(module, source, expected):
    assert any(expected in v for v in violations(source, module)), violations(source, module)


@pytest.mark.parametrize(
    ("module", "source"),
    [
        ("deduce.apps.audit", "import agents, solvers\n"),
        ("deduce.logs", "from deduce.games.registry import game_names\n"),
        ("agents.clue.deduction", "import solvers\nfrom deduce.games.clue import rules\n"),
        ("deduce.games.registry", "import importlib\ndef get(n):\n    return importlib.import_module(n)\n"),
    ],
)
def test_what_the_layers_allow_passes(module, source):
    assert violations(source, module) == []
