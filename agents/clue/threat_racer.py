"""``racer-threat``: racer whose gamble floor falls as the closest opponent nears a right
accusation (issue 26 item 2).

``racer`` never gambles on a chance below a fixed floor (one over the number of opponents, 0.5
at three players), however close the opponents are: the floor keeps it from losing to its own
long shots when nobody else is near, but when an opponent will accuse right on its next turn,
waiting is worth nothing and any chance beats it. ``racer-watch`` rebuilt each opponent's view
but kept the fixed floor, so at three players its timing changed no result. Here the floor
itself is scaled by the threat: ``floor = min_gamble * (1 - t)``, ``t`` the largest chance that
one opponent accuses right before this agent's next turn; and the wait is valued against every
opponent's own threat, as ``racer-lap`` does (:func:`agents.clue.race_timing.lap_value`).

An opponent's threat, per world sampled exactly from this agent's knowledge (``samples``) and in
that world's rebuild of its view (:func:`agents.clue.lookahead.opponent_view`): 1 if it is
certain; otherwise the chance that asking its most likely envelope settles it (the question an
accuser asks, one exact score), and, when its best chance reaches ``opponent_gamble`` (the floor
the league's accusers and racer use at three players), the chance its gamble is right after
that answer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.clue.deduction import RacerAgent
from deduce.games.clue.rules import ENVELOPE, ClueGame, ClueObservation

__all__ = ["opponent_threats", "ThreatRacerAgent"]


def _threat_in(kb: Any, env: int, who: int, players: int, limit: int, opponent_gamble: float) -> float:
    """One opponent's chance of accusing right on its next turn, from its knowledge ``kb``."""
    from agents.clue.lookahead import _envelope_counts
    from agents.clue.questions import certainty_chance

    counts = _envelope_counts(kb, limit)
    total = sum(counts.values())
    best, top = max(counts.items(), key=lambda kv: (kv[1], kv[0]))
    if top == total:
        return 1.0
    responders = [(who + k) % players for k in range(1, players)]
    settle = certainty_chance(kb, env, best, responders, None, limit)
    chance = top / total
    if chance < opponent_gamble:
        return settle
    return settle + (1.0 - settle) * chance


def opponent_threats(game: ClueGame, obs: ClueObservation, samples: int, rng: np.random.Generator, limit: int,
                     opponent_gamble: float = 0.5) -> dict[int, float]:
    """Every live opponent's mean chance, over ``samples`` worlds drawn exactly from this
    player's knowledge, of accusing right on its next turn (see the module docstring)."""
    from agents.clue.lookahead import opponent_view
    from solvers.exact import ExactSolver

    me = obs.player
    live = [j for j in range(obs.num_players) if j != me and j not in obs.eliminated]
    if not live or samples <= 0:
        return {}
    worlds = ExactSolver(limit=limit).sample(game.knowledge(obs), samples, rng)
    out: dict[int, float] = {}
    for j in live:
        total = 0.0
        for w in worlds:
            kb = opponent_view(game, obs, j, w, rng)
            total += _threat_in(kb, kb.loc(ENVELOPE), j, obs.num_players, limit, opponent_gamble)
        out[j] = total / len(worlds)
    return out


class ThreatRacerAgent(RacerAgent):
    """``racer`` with a gamble floor scaled by the closest opponent's threat, and the wait valued
    against each opponent's own threat (see the module docstring). ``min_gamble`` is the floor
    when nobody threatens (default one over the number of opponents); ``watch_from`` the chance
    below which it does not look at the opponents at all (saves the sampling on hopeless
    guesses); ``samples`` worlds per look. ``threat_log`` records, per look: (turn, p, floor,
    waiting value, {opponent: threat})."""

    name = "racer-threat"

    def __init__(self, samples: int = 8, watch_from: float = 0.15, opponent_gamble: float = 0.5,
                 **params: Any) -> None:
        from deduce.errors import InvalidConfig

        if int(samples) < 1:
            raise InvalidConfig("samples", samples, "at least one sampled world")
        if not 0.0 <= float(watch_from) <= 1.0:
            raise InvalidConfig("watch_from", watch_from, "a chance in [0, 1]")
        if not 0.0 <= float(opponent_gamble) <= 1.0:
            raise InvalidConfig("opponent_gamble", opponent_gamble, "a chance in [0, 1]")
        super().__init__(samples=samples, watch_from=watch_from, opponent_gamble=opponent_gamble, **params)
        self.samples = int(samples)
        self.watch_from = float(watch_from)
        self.opponent_gamble = float(opponent_gamble)
        self.threat_log: list[tuple[int, float, float, float, dict[int, float]]] = []

    def reset(self, game: Any, player: int, seed: Any = None) -> None:
        super().reset(game, player, seed)
        self.threat_log = []

    def act(self, observation: Any) -> Any:
        from deduce.games.clue.rules import EndTurn, ViewExtra

        obs = observation
        if not self.gamble or obs.to_refute is not None or EndTurn() not in obs.legal_actions:
            return super().act(obs)  # refuting, or before its suggestion: racer's turn
        dist = self.envelope_distribution(obs)
        total = sum(dist.values())
        best, top = max(dist.items(), key=lambda kv: (kv[1], kv[0]))
        p = top / total
        view = self.win_chance_after_viewing_extra(obs)
        if top >= self.accuse_threshold * total or view >= self.view_extra_threshold or max(p, view) < self.watch_from:
            return super().act(obs)  # certain, sure to settle it by the pile, or hopeless
        wait, floor = self.weigh(obs, p)
        if max(p, view) >= floor:
            if p > wait and p >= view:
                return self._accuse(obs, best, top, total)
            if view > wait:
                return ViewExtra()
        return EndTurn()

    def weigh(self, obs: ClueObservation, p: float) -> tuple[float, float]:
        """(waiting value, gamble floor) at best accusation chance ``p``."""
        from agents.clue.questions import certainty_chance, score_questions
        from agents.clue.race_timing import lap_value

        view = self.race_view(obs)
        gains = score_questions(view.kb, view.env, view.options, view.responders, view.shown, self.limit, 0.0,
                                "accuracy")
        question = max(gains, key=lambda q: (gains[q], q))
        c = certainty_chance(view.kb, view.env, question, view.responders, view.shown, self.limit)
        threats = opponent_threats(self.game, obs, self.samples, self.rng, self.limit,  # type: ignore[arg-type]
                                   self.opponent_gamble)
        base = 1.0 / (obs.num_players - 1) if self.min_gamble is None else self.min_gamble
        closest = max(threats.values(), default=0.0)
        floor = base * (1.0 - closest)
        wait = lap_value(c, list(threats.values()), p, p + gains[question])
        self.threat_log.append((obs.turn, p, floor, wait, threats))
        return wait, floor
