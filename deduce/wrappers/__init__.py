"""Adapters from deduce games to other libraries' interfaces.

``deduce.wrappers.pettingzoo`` wraps every registered game as a PettingZoo AEC environment
(``pip install 'deduce[pettingzoo]'``). Nothing here is imported by ``import deduce``, so the
optional dependencies are only needed by code that asks for a wrapper.
"""

from __future__ import annotations

__all__: list[str] = []
