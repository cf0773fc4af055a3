"""``racer-two-step``: racer that plans its next two questions, not one (issue 26).

``racer`` asks the suggestion with the largest one-step ``accuracy`` score: the expected rise,
once answered, of the chance that its most likely envelope is right. That score is myopic. Early
in a game most questions cannot move the best guess in one answer (a hundred or more tie at the
top, broken at random), and later a question that settles two of three categories can score
below one that nudges the best guess now but leaves nothing for the next turn. What wins the
race at three players is being right sooner, so ``racer-two-step`` values a question by the
best guess's exact expected chance after it *and* the best follow-up question:

``value(Q) = sum over answers a of P(a) * (top(a) + best accuracy gain of a next question | a)
- leak_weight * (what who refuted Q tells everyone, racer's term)``

The answers of ``Q`` (who shows, which card, or nobody) and their probabilities are exact
(:func:`agents.clue.questions.outcomes`); each answer's knowledge is the current knowledge with
that answer's passes and card added, scored for every legal next question (the room just used
is barred next turn) with racer's exact scorer. Only the ``width`` most promising questions are
planned this way (distinct symmetry classes by racer's score, then by ``infogain``'s entropy
fall, so broad questions that set up the next turn are among them). Gambles, the leftover pile
and refutations are racer's. ``plans`` records per suggestion: (turn, questions planned, the
chosen question's two-step value, racer's choice's two-step value).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from agents.clue.deduction import RacerAgent
from deduce.constraints import At, Constraint, NotAt
from deduce.games.base import Action
from deduce.games.clue.rules import ENVELOPE, ClueObservation, Suggest, refute_order, shown_to
from deduce.knowledge import KnowledgeBase

__all__ = ["answered_knowledge", "two_step_values", "TwoStepRacerAgent"]


def answered_knowledge(kb: KnowledgeBase, cards: Sequence[int], responders: Sequence[int],
                       answer: tuple[int, int] | None) -> KnowledgeBase:
    """``kb`` after the question ``cards`` got ``answer``: ``(responder, card shown)`` (every
    responder before it passed) or ``None`` (everyone passed)."""
    out = kb.copy()
    cs: list[Constraint] = []
    for r in responders:
        if answer is not None and r == answer[0]:
            cs.append(At(answer[1], r))
            break
        cs += [NotAt(c, r) for c in cards]
    out.extend(cs, source="planned answer", check=False)
    return out


def two_step_values(kb: KnowledgeBase, questions: Sequence[tuple[int, ...]], follow_ups: Mapping[tuple[int, ...],
                    Sequence[tuple[int, ...]]], responders: Sequence[int], shown: Mapping[int, set[int]],
                    limit: int) -> dict[tuple[int, ...], tuple[float, float]]:
    """Per question, the exact expected chance that the most likely envelope is right after it,
    and after it and then the best of ``follow_ups[question]`` (answered in turn)."""
    from agents.clue.questions import outcomes, score_questions

    env = kb.loc(ENVELOPE)
    out: dict[tuple[int, ...], tuple[float, float]] = {}
    for q in questions:
        o = outcomes(kb, env, q, responders, shown, limit)
        one = two = 0.0
        for answer, w in o.weights.items():
            mass = sum(w.values())
            if not mass:
                continue
            top = max(v / o.multiplicity[g] for g, v in w.items()) / mass
            nxt = 0.0
            if top < 1.0 - 1e-12 and follow_ups[q]:
                after = answered_knowledge(kb, q, responders, answer)
                pref = {r: set(c) for r, c in shown.items()}
                if answer is not None:
                    pref.setdefault(answer[0], set()).add(answer[1])
                gains = score_questions(after, env, follow_ups[q], responders, pref, limit, 0.0, "accuracy")
                nxt = max(gains.values())
            one += mass / o.total * top
            two += mass / o.total * min(1.0, top + nxt)
        out[q] = (one, two)
    return out


class TwoStepRacerAgent(RacerAgent):
    """``racer`` choosing among its ``width`` most promising questions by the expected best-guess
    chance after two questions (see the module docstring); everything else is racer's.
    ``follow_weight`` defaults to 0.1, the least bad measured: at 1 (the full two-step value) it
    lost 22.2 points per deal to racer over 30 deals at 3 players, at 0.1 it was level (-0.6,
    docs/benchmarks.md, "racer-two-step")."""

    name = "racer-two-step"

    def __init__(self, width: int = 6, broad: int = 2, follow_weight: float = 0.1, **params: Any) -> None:
        from deduce.errors import InvalidConfig

        if int(width) < 1:
            raise InvalidConfig("width", width, "at least one question planned")
        if int(broad) < 0:
            raise InvalidConfig("broad", broad, "a number of questions, at least 0")
        if not 0.0 <= float(follow_weight) <= 1.0:
            raise InvalidConfig("follow_weight", follow_weight, "a weight in [0, 1]")
        super().__init__(width=width, broad=broad, follow_weight=follow_weight, **params)
        self.follow_weight = float(follow_weight)
        self.width = int(width)
        self.broad = int(broad)
        self.plans: list[tuple[int, int, float, float]] = []

    def reset(self, game: Any, player: int, seed: Any = None) -> None:
        super().reset(game, player, seed)
        self.plans = []

    def suggest(self, obs: ClueObservation) -> Action:
        from agents.clue.questions import score_questions

        if self.deadline is not None or self.bluff:
            return super().suggest(obs)
        kb = self.game.knowledge(obs)  # type: ignore[union-attr]
        me = obs.player
        assert me is not None
        n = obs.num_players
        responders = refute_order(me, n)
        shown = shown_to(obs, me)
        env = kb.loc(ENVELOPE)
        options = [a.cards for a in obs.legal_actions if isinstance(a, Suggest)]
        racer = score_questions(kb, env, options, responders, shown, self.limit, self.leak_weight, self.measure)
        broad = score_questions(kb, env, options, responders, shown, self.limit, 0.0, "shannon") if self.broad else {}
        jitter = self.rng.random(len(options))
        order = sorted(range(len(options)), key=lambda i: (-racer[options[i]], jitter[i]))
        picked: list[tuple[int, ...]] = []
        seen: set[tuple[float, float]] = set()

        def take(ranked: Sequence[int], most: int) -> None:
            got = 0
            for i in ranked:
                q = options[i]
                key = (round(racer[q], 12), round(broad.get(q, 0.0), 12))
                if key in seen:
                    continue
                seen.add(key)
                picked.append(q)
                got += 1
                if got >= most:
                    return

        take(order, self.width)
        if broad:
            take(sorted(range(len(options)), key=lambda i: (-broad[options[i]], jitter[i])), self.broad)
        # the follow-up term is at most follow_weight: questions further below racer's best cannot win
        best = racer[picked[0]]
        picked = [q for q in picked if racer[q] >= best - self.follow_weight - 1e-12]
        if len(picked) == 1:
            self.plans.append((obs.turn, 1, float("nan"), float("nan")))
            return Suggest(picked[0])  # type: ignore[arg-type]
        every = list(self.game.triples())  # type: ignore[union-attr]
        barred = self.game.config.no_repeat_room and self.game.board is None  # type: ignore[union-attr]
        follow = {q: [t for t in every if not barred or t[2] != q[2]] for q in picked}
        values = two_step_values(kb, picked, follow, responders, shown, self.limit)
        value = {q: racer[q] + self.follow_weight * (values[q][1] - values[q][0]) for q in picked}
        choice = max(picked, key=lambda q: value[q])  # ties: racer's order (picked is in it)
        self.plans.append((obs.turn, len(picked), values[choice][1], values[picked[0]][1]))
        return Suggest(choice)  # type: ignore[arg-type]
