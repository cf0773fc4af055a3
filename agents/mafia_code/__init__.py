"""Mafia Code agents: ``facts`` (a careful human's sheet reading), ``guess-chain`` (exact marginals
and the value of a guess chain) and ``greedy`` (``guess-chain`` without the chain's continuation).
"""

#: this game's agents by name: ``"module:class"``, imported when first built
AGENTS: dict[str, str] = {
    "facts": "agents.mafia_code.guessing:FactsAgent",
    "guess-chain": "agents.mafia_code.guessing:GuessChainAgent",
    "greedy": "agents.mafia_code.guessing:GreedyAgent",
}

__all__ = ["AGENTS"]
