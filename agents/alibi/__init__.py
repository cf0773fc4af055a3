"""Alibi (Mayfair 1992) agents: ``sampling`` (decisions on sampled worlds) and ``sampling-randq``
(the same with random questions, the ablation of question choice).
"""

#: this game's agents by name: ``"module:class"``, imported when first built
AGENTS: dict[str, str] = {
    "sampling": "agents.alibi.sampling:SamplingAgent",
    "sampling-randq": "agents.alibi.sampling:RandomQuestionAgent",
}

__all__ = ["AGENTS"]
