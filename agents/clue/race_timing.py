"""``racer-lap``: racer whose wait-or-accuse choice counts what the next question is worth
(issue 26 item 2).

``racer`` weighs a gamble on chance ``p`` against waiting a lap, and values the lap as if its next
question either settles the envelope (chance ``c``) or leaves ``p`` where it is:
``S (c + (1 - c) p)``, ``S`` the chance no opponent solves first. But the next answer usually
raises the best guess's chance without settling it, and its exact expected value after the
answer is known: it is the ``accuracy`` score of the best question, ``E[p'] = p + gain``
(:func:`agents.clue.questions.score_questions` with ``measure="accuracy"``). ``racer-lap`` values
the lap as ``S E[p']`` (``lap="expected"``, the default; ``lap="mirror"`` is racer's rule), so it
gambles only when the question it would ask next is worth less than the risk of waiting.

Who may solve first during the lap (``threat``): ``mirror`` takes every opponent to settle the
envelope with this agent's own chance ``c``; ``views`` (the default) rebuilds each opponent's
own knowledge in ``samples`` worlds drawn exactly from this agent's
(:func:`agents.clue.opponent_model.opponent_closeness`: its hand, the cards shown to it, every
public pass and refutation) and takes its threat from there, as ``racer-watch`` does.
"""

from __future__ import annotations

from typing import Any

from agents.clue.deduction import RacerAgent
from deduce.games.clue.rules import ClueObservation

__all__ = ["LAPS", "THREATS", "lap_value", "LapRacerAgent"]

#: how a lap of waiting is valued: ``expected`` (the next answer's exact expected best chance)
#: or ``mirror`` (racer's: settled with chance c, else unchanged)
LAPS = ("expected", "mirror")
#: who may solve during the lap: ``views`` (each opponent's own view, sampled) or ``mirror``
THREATS = ("views", "mirror")


def lap_value(c: float, opponents: int | list[float], p: float, expected: float) -> float:
    """The chance of winning by waiting a lap, with this agent's next question settling the
    envelope with chance ``c`` and raising the best guess's chance to ``expected`` on average
    (``p`` now). ``opponents``: their number, each taken to settle it with chance ``c`` first
    (the mirror threat), or each one's own chance of settling it on its turn. The larger of
    racing to certainty and ``S max(expected, c + (1-c) p)``, ``S`` the chance nobody settles
    it first."""
    threats = [c] * opponents if isinstance(opponents, int) else list(opponents)
    survive = 1.0
    for t in threats:
        survive *= 1.0 - t
    one_lap = survive * max(expected, c + (1.0 - c) * p)
    if c <= 0.0:  # never settled by this agent: a fair share if nobody else settles it either
        race = 1.0 / (len(threats) + 1) if all(t <= 0.0 for t in threats) else 0.0
    else:
        race = survive * c / (1.0 - survive * (1.0 - c))
    return max(race, min(1.0, one_lap))


class LapRacerAgent(RacerAgent):
    """``racer`` valuing a lap of waiting by the exact expected chance of its best guess after
    its next question, racing opponents modelled from their own views (see the module docstring);
    ``lap="mirror",threat="mirror"`` plays exactly as ``racer``.
    ``laps`` records, per gamble weighed: (turn, p, c, expected, waiting value)."""

    name = "racer-lap"

    def __init__(self, lap: str = "expected", threat: str = "views", samples: int = 8, **params: Any) -> None:
        from deduce.errors import InvalidConfig

        if lap not in LAPS:
            raise InvalidConfig("lap", lap, f"one of {', '.join(LAPS)}")
        if threat not in THREATS:
            raise InvalidConfig("threat", threat, f"one of {', '.join(THREATS)}")
        if int(samples) < 1:
            raise InvalidConfig("samples", samples, "at least one sampled world")
        super().__init__(lap=lap, threat=threat, samples=samples, **params)
        self.lap, self.threat, self.samples = lap, threat, int(samples)
        self.laps: list[tuple[int, float, float, float, float]] = []

    def reset(self, game: Any, player: int, seed: Any = None) -> None:
        super().reset(game, player, seed)
        self.laps = []

    def waiting_value(self, obs: ClueObservation, p: float) -> float:
        if self.lap == "mirror" and self.threat == "mirror":
            return super().waiting_value(obs, p)
        from agents.clue.questions import certainty_chance, score_questions

        view = self.race_view(obs)
        kb, env, responders, opponents, shown = view.kb, view.env, view.responders, view.opponents, view.shown
        gains = score_questions(kb, env, view.options, responders, shown, self.limit, 0.0, "accuracy")
        question = max(gains, key=lambda q: (gains[q], q))
        c = certainty_chance(kb, env, question, responders, shown, self.limit)
        expected = p + gains[question] if self.lap == "expected" else 0.0
        if self.threat == "views":
            from agents.clue.opponent_model import opponent_closeness

            close = opponent_closeness(self.game, obs, self.samples, self.rng, self.limit)  # type: ignore[arg-type]
            # certain in a share s of the worlds: solves now; otherwise as fast as this agent,
            # scaled by how its best guess compares with this agent's
            threats = [s + (1.0 - s) * c * min(1.0, best / p) if p > 0 else s for best, s in close.values()]
            wait = lap_value(c, threats, p, expected)
        else:
            wait = lap_value(c, opponents, p, expected)
        self.laps.append((obs.turn, p, c, expected, wait))
        return wait
