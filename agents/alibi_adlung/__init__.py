"""Alibi (Adlung 2001) agents: ``counting`` (expected points from exact card-location marginals).
"""

#: this game's agents by name: ``"module:class"``, imported when first built
AGENTS: dict[str, str] = {
    "counting": "agents.alibi_adlung.counting:CountingAgent",
}

__all__ = ["AGENTS"]
