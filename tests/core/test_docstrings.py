"""Every public name (each package's ``__all__``) has a docstring, so the API reference is complete.

Classes, functions and modules need a ``__doc__`` of their own (a dataclass's generated
signature does not count). Constants cannot carry ``__doc__``; they need a ``#:`` comment on the
line above their assignment or a string literal right after it (both read by documentation
tools), found in the module that assigns them.

``KNOWN_MISSING`` lists the names reported to their owners and not yet documented; the test
fails on any other undocumented name, so the list can only shrink.
"""

from __future__ import annotations

import ast
import dataclasses
import importlib
import inspect
import pkgutil
import types
from typing import Any

import pytest

ROOTS = ("deduce", "solvers", "agents")

KNOWN_MISSING: dict[str, set[str]] = {}


def _packages() -> list[str]:
    out = []
    for root in ROOTS:
        module = importlib.import_module(root)
        out.append(root)
        out += [i.name for i in pkgutil.walk_packages(module.__path__, root + ".") if i.ispkg]
    return out


def _has_own_doc(obj: Any) -> bool:
    doc = obj.__doc__
    if not doc or not doc.strip():
        return False
    if isinstance(obj, type) and dataclasses.is_dataclass(obj):
        try:
            generated = obj.__name__ + str(inspect.signature(obj)).replace(" -> None", "")
        except (TypeError, ValueError):
            return True
        return doc != generated
    return True


def _assignment_doc(module: types.ModuleType, name: str, depth: int = 0) -> bool:
    """Whether ``module`` (or the module it imports ``name`` from) documents the assignment."""
    try:
        source = inspect.getsource(module)
    except (OSError, TypeError):
        return False
    lines = source.splitlines()
    body = ast.parse(source).body
    for i, node in enumerate(body):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module and depth < 5:
            if any((alias.asname or alias.name) == name for alias in node.names):
                return _assignment_doc(importlib.import_module(node.module), name, depth + 1)
        targets: list[str] = []
        if isinstance(node, ast.Assign):
            targets = [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            targets = [node.target.id]
        if name in targets:
            above = lines[node.lineno - 2].strip() if node.lineno >= 2 else ""
            after = body[i + 1] if i + 1 < len(body) else None
            literal = (
                isinstance(after, ast.Expr)
                and isinstance(after.value, ast.Constant)
                and isinstance(after.value.value, str)
            )
            return above.startswith("#:") or literal
    return False


def undocumented(package: str) -> list[str]:
    """The names in ``package.__all__`` without documentation."""
    module = importlib.import_module(package)
    missing = []
    for name in getattr(module, "__all__", ()):
        obj = getattr(module, name)
        if isinstance(obj, type | types.FunctionType | types.ModuleType) or inspect.isroutine(obj):
            ok = _has_own_doc(obj)
        else:
            ok = _assignment_doc(module, name)
        if not ok:
            missing.append(name)
    return missing


@pytest.mark.parametrize("package", _packages())
def test_every_public_name_is_documented(package):
    module = importlib.import_module(package)
    assert module.__doc__ and module.__doc__.strip(), f"{package} has no module docstring"
    assert hasattr(module, "__all__"), f"{package} has no __all__"
    new = sorted(set(undocumented(package)) - KNOWN_MISSING.get(package, set()))
    assert new == [], f"{package}: undocumented public names {new}"


def test_the_audit_sees_missing_documentation():
    fake = types.ModuleType("fake", "A module.")

    @dataclasses.dataclass
    class Plain:
        x: int

    def bare() -> None:
        pass

    def good() -> None:
        """Documented."""

    fake.Plain, fake.bare, fake.good = Plain, bare, good
    fake.__all__ = ["Plain", "bare", "good"]
    import sys

    sys.modules["fake"] = fake
    try:
        assert undocumented("fake") == ["Plain", "bare"]
    finally:
        del sys.modules["fake"]
