"""A Griffe extension for this site: reST roles in docstrings become inline code.

The library's docstrings use Sphinx roles (``:class:`~deduce.errors.Contradiction```); Markdown
would show the role literally, so ``:role:`~a.b.C``` becomes `` `C` `` and ``:role:`a.b.C```
becomes `` `a.b.C` ``.
"""

from __future__ import annotations

import re
from typing import Any

from griffe import Extension, Object

__all__ = ["SphinxRoles", "strip_roles"]

_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|exc|data|obj|const|term|ref):`(~?)([^`]+)`")


def strip_roles(text: str) -> str:
    """``:class:`~a.b.C``` -> ```C```; ``:func:`a.b```-> ```a.b```."""

    def code(match: re.Match[str]) -> str:
        target = match.group(2).strip()
        if match.group(1):
            target = target.rsplit(".", 1)[-1]
        return f"`{target}`"

    return _ROLE.sub(code, text)


class SphinxRoles(Extension):
    """Rewrite the roles of every docstring as it is loaded."""

    def on_instance(self, *, obj: Object, **kwargs: Any) -> None:
        """Called for every module, class, function and attribute Griffe loads."""
        if obj.docstring is not None:
            obj.docstring.value = strip_roles(obj.docstring.value)
