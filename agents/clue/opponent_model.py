"""How close each opponent is to solving, from this player's view, and an agent that times its
accusations on it (issue 26 item 2).

``racer`` and ``infogain`` decide whether to gamble with a *mirror* race model: every opponent
is taken to be exactly as close to solving as the agent itself. Here each opponent's own
knowledge is rebuilt instead: worlds are sampled from this player's exact knowledge, and in
each the opponent's knowledge base is what that opponent would then know
(:func:`agents.clue.lookahead.opponent_view`: its hand, the cards shown to it, every public
pass, refutation and accusation), giving that opponent's chance of accusing right.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.clue.deduction import RacerAgent
from deduce.games.clue.rules import ENVELOPE, ClueGame, ClueObservation, refute_order, shown_to

__all__ = ["Closeness", "opponent_closeness", "race_value", "RaceWatchAgent"]

#: per opponent: (mean chance its best accusation is right, share of sampled worlds in which it
#: is certain)
Closeness = dict[int, tuple[float, float]]


def opponent_closeness(game: ClueGame, obs: ClueObservation, samples: int, rng: np.random.Generator,
                       limit: int) -> Closeness:
    """Every live opponent's closeness to solving, over ``samples`` worlds drawn uniformly from
    this player's knowledge (exact sampler, seeded by ``rng``)."""
    from agents.clue.lookahead import _envelope_counts, opponent_view
    from solvers.exact import ExactSolver

    me = obs.player
    live = [j for j in range(obs.num_players) if j != me and j not in obs.eliminated]
    if not live or samples <= 0:
        return {}
    worlds = ExactSolver(limit=limit).sample(game.knowledge(obs), samples, rng)
    out: Closeness = {}
    for j in live:
        best, certain = 0.0, 0
        for w in worlds:
            counts = _envelope_counts(opponent_view(game, obs, j, w, rng), limit)
            total = sum(counts.values())
            top = max(counts.values())
            best += top / total
            certain += top == total
        out[j] = (best / len(worlds), certain / len(worlds))
    return out


def race_value(c: float, threats: list[float], p: float) -> float:
    """The chance of winning by ending the turn instead of accusing with chance ``p``, when this
    agent settles the envelope on a lap with chance ``c`` and opponent ``k`` with chance
    ``threats[k]``: the larger of racing to certainty, ``S c / (1 - S (1 - c))``
    with ``S`` the chance no opponent solves in a lap, and waiting one lap then gambling,
    ``S (c + (1 - c) p)``. With every threat equal to ``c`` it is
    :func:`agents.clue.deduction.waiting_value`."""
    survive = float(np.prod([1.0 - t for t in threats])) if threats else 1.0
    one_lap = survive * (c + (1.0 - c) * p)
    if c <= 0.0:  # never settled by this agent: a fair share if nobody else settles it either
        race = 1.0 / (len(threats) + 1) if all(t <= 0.0 for t in threats) else 0.0
    else:
        race = survive * c / (1.0 - survive * (1.0 - c))
    return max(race, one_lap)


class RaceWatchAgent(RacerAgent):
    """``racer`` with an opponent model for accusation timing: when it weighs a gamble, each
    opponent's chance of solving on its next turn is taken from that opponent's own view
    (:func:`opponent_closeness`, ``samples`` worlds, default 8) instead of the mirror model's
    "as close as I am": an opponent certain in a share ``s`` of the worlds solves with chance
    ``s``; otherwise with this agent's own certainty chance ``c`` scaled by how its best guess
    compares with this agent's, ``c * min(1, p_opp / p)``. Everything else is ``racer``'s."""

    name = "racer-watch"

    def __init__(self, samples: int = 8, **params: Any) -> None:
        if int(samples) < 1:
            from deduce.errors import InvalidConfig

            raise InvalidConfig("samples", samples, "at least one sampled world")
        super().__init__(samples=samples, **params)
        self.samples = int(samples)
        #: per gamble considered: (turn, p, waiting value, {opponent: its solve chance})
        self.threat_log: list[tuple[int, float, float, dict[int, float]]] = []

    def reset(self, game: Any, player: int, seed: Any = None) -> None:
        super().reset(game, player, seed)
        self.threat_log = []

    def certainty_chance(self, obs: ClueObservation) -> float:
        """The chance this agent's best next question (by its own measure) settles the envelope."""
        from agents.clue.questions import certainty_chance

        kb = self.game.knowledge(obs)  # type: ignore[union-attr]
        me = obs.player
        assert me is not None
        n = obs.num_players
        responders = refute_order(me, n)
        shown = shown_to(obs, me)
        scores = self._scores(kb, list(self.game.triples()), responders, shown)  # type: ignore[union-attr]
        question = max(scores, key=lambda q: (scores[q], q))
        return certainty_chance(kb, kb.loc(ENVELOPE), question, responders, shown, self.limit)

    def waiting_value(self, obs: ClueObservation, p: float) -> float:
        c = self.certainty_chance(obs)
        closeness = opponent_closeness(self.game, obs, self.samples, self.rng, self.limit)  # type: ignore[arg-type]
        threats = {j: certain + (1.0 - certain) * c * min(1.0, best / p) if p > 0 else certain
                   for j, (best, certain) in closeness.items()}
        wait = race_value(c, list(threats.values()), p)
        self.threat_log.append((obs.turn, p, wait, threats))
        return wait
