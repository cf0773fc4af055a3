"""Checkpoint Charlie agents on the exact posterior: ``bayesian`` (arrests by expected score) and
``patient`` (arrests only when certain).
"""

#: this game's agents by name: ``"module:class"``, imported when first built
AGENTS: dict[str, str] = {
    "bayesian": "agents.checkpoint_charlie.posterior:BayesianAgent",
    "patient": "agents.checkpoint_charlie.posterior:PatientAgent",
}

__all__ = ["AGENTS"]
