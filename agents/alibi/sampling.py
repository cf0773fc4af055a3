"""Alibi (Mayfair 1992) agents: ``sampling`` (sampled worlds: information-gain questions,
expected-score accusations and sheets, leak-aware passing) and ``sampling-randq`` (the same
decisions except that it asks random questions: the ablation that isolates question choice).

Probabilities come from :class:`solvers.epoch.EpochSampler` (approximate, uniform over
worlds consistent with the agent's knowledge base). Information is public in Alibi (everyone
hears every answer), so question choice maximises information about the box for the asker,
which is also what its opponents learn; the asker's edge is that it chooses first and acts
on it first (the +7 bonus for accusing).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from agents.base import Agent
from deduce.games.alibi.rules import (
    Accuse,
    AlibiGame,
    AlibiObservation,
    Ask,
    Done,
    Family,
    Fill,
    PassCard,
    Passed,
)
from deduce.games.base import Action, Observation

__all__ = ["SamplingAgent", "RandomQuestionAgent", "best_sheet", "questions_of", "random_question", "QuestionAdvice", "recommend_question"]


def _mi(answers: np.ndarray, labels: np.ndarray, n_labels: int) -> float:
    """Plug-in mutual information (bits) with the Miller-Madow bias correction."""
    n = len(answers)
    a_vals, a_idx = np.unique(answers, return_inverse=True)
    joint = np.bincount(a_idx * n_labels + labels, minlength=len(a_vals) * n_labels).reshape(len(a_vals), n_labels)
    pj = joint / n
    pa = pj.sum(axis=1, keepdims=True)
    pb = pj.sum(axis=0, keepdims=True)
    nz = pj > 0
    mi = float((pj[nz] * np.log2(pj[nz] / (pa @ pb)[nz])).sum())
    ka, kb = len(a_vals), int((pb > 0).sum())
    return mi - (ka - 1) * (kb - 1) / (2 * n * np.log(2))


def best_sheet(game: AlibiGame, p_set: list[np.ndarray], p_card: list[np.ndarray], first: bool) -> tuple[float, list[tuple[int, int]]]:
    """The sheet with the highest expected points and its value (without the bonus).

    ``p_set[k][i]``: probability that set ``i`` of category ``k`` holds the box card;
    ``p_card[k][j]``: the same for card ``game.categories[k][j]``. A sub-blank is right only
    with its parent, so its probability is the card's. The first accuser must name a suspect
    and fill ``first_accuser_min_blanks`` more; a wrong blank costs ``first_accuser_penalty``
    times its value for it, once for the others.
    """
    cfg = game.config
    pen = cfg.first_accuser_penalty if first else 1
    options: list[list[tuple[float, list[tuple[int, int]]]]] = []
    for k in range(4):
        vp, vs = cfg.blank_values[2 * k], cfg.blank_values[2 * k + 1]
        i = int(np.argmax(p_set[k]))
        ps = float(p_set[k][i])
        set_id = game.category_sets[k][i]
        subs = game.set_cards[set_id]
        card_p = [float(p_card[k][game.categories[k].index(c)]) for c in subs]
        j = int(np.argmax(card_p))
        pc = card_p[j]
        ev_p = ps * vp - (1 - ps) * vp * pen
        ev_s = pc * vs - (1 - pc) * vs * pen
        opts = [(ev_p, [(2 * k, i)]), (ev_p + ev_s, [(2 * k, i), (2 * k + 1, j)])]
        if k > 0 or not first:
            opts.insert(0, (0.0, []))
        options.append(opts)
    best: tuple[float, list[tuple[int, int]]] = (-1e9, [])
    need = cfg.first_accuser_min_blanks if first else 0
    for combo in itertools.product(*options):
        blanks = [b for _, bs in combo for b in bs]
        if first and len(blanks) - 1 < need:
            continue
        value = sum(v for v, _ in combo)
        if value > best[0]:
            best = (value, blanks)
    return best


class SamplingAgent(Agent):
    """Samples consistent worlds and decides by expected information and expected score."""

    name = "sampling"

    def __init__(
        self,
        samples: int = 120,
        chains: int = 3,
        burn_in: int = 600,
        thin: int = 10,
        questions: str = "infogain",
        wait_cost: float = 1.0,
        accuse_at: float = 0.6,
        **params: Any,
    ) -> None:
        super().__init__(samples=samples, chains=chains, burn_in=burn_in, thin=thin, questions=questions,
                         wait_cost=wait_cost, accuse_at=accuse_at, **params)
        self.accuse_at = float(accuse_at)
        self.n_samples = int(samples)
        self.questions = questions
        self.wait_cost = float(wait_cost)
        from solvers.epoch import EpochSampler

        self.sampler = EpochSampler(chains=chains, burn_in=burn_in, thin=thin, samples=samples)
        self._cache: tuple[int, np.ndarray] | None = None
        self._plan: list[Action] = []

    def reset(self, game: Any, player: int, seed: Any = None) -> None:
        super().reset(game, player, seed)
        self._cache = None
        self._plan = []

    # -- beliefs -----------------------------------------------------------------------------
    def worlds(self, obs: AlibiObservation) -> np.ndarray:
        """``[sample, epoch, card]`` worlds consistent with what this player has seen."""
        key = len(obs.events)
        if self._cache is not None and self._cache[0] == key:
            return self._cache[1]
        game = self.game
        assert isinstance(game, AlibiGame)
        kb = game.knowledge(obs)
        ws = self.sampler.sample(kb, self.n_samples, self.rng)
        arr = np.stack(ws) if ws else np.zeros((0, kb.epochs, game.num_cards), dtype=np.int64)
        self._cache = (key, arr)
        return arr

    def box_beliefs(self, worlds: np.ndarray) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
        """Per category: P(set), P(card), and the box card index per sample ``[sample, 4]``."""
        game = self.game
        assert isinstance(game, AlibiGame)
        last = worlds[:, -1, :]
        p_set, p_card, labels = [], [], []
        for k in range(4):
            cards = np.asarray(game.categories[k])
            inbox = last[:, cards] == game.box_loc
            lab = inbox.argmax(axis=1)
            labels.append(lab)
            pc = inbox.mean(axis=0)
            p_card.append(pc)
            sets = game.category_sets[k]
            p_set.append(np.array([sum(pc[list(cards).index(c)] for c in game.set_cards[s]) for s in sets]))
        return p_set, p_card, np.stack(labels, axis=1)

    # -- decisions ---------------------------------------------------------------------------
    def act(self, observation: Observation) -> Action:
        obs = observation
        assert isinstance(obs, AlibiObservation) and isinstance(self.game, AlibiGame)
        legal = obs.legal_actions
        if self._plan and self._plan[0] in legal:
            return self._plan.pop(0)
        self._plan = []
        if obs.phase == "meld":
            return max(legal, key=lambda a: len(a.sets))  # type: ignore[attr-defined]
        if obs.phase == "pass":
            return self.pass_card(obs)
        if obs.phase == "sheet":
            return self.sheet(obs)
        if len(legal) == 1:
            return legal[0]
        return self.turn(obs)

    def turn(self, obs: AlibiObservation) -> Action:
        """Accuse when its expected score beats waiting a round, else ask the best question."""
        game = self.game
        assert isinstance(game, AlibiGame)
        worlds = self.worlds(obs)
        if len(worlds) == 0:
            return Accuse()
        p_set, p_card, labels = self.box_beliefs(worlds)
        now, _ = best_sheet(game, p_set, p_card, first=True)
        now += game.config.first_accuser_bonus
        questions = [a for a in obs.legal_actions if isinstance(a, Ask)]
        # the accusation test always looks ahead with the best question, so the random-question
        # ablation differs only in the question it asks, not in when it accuses
        q, later = self.best_question(obs, worlds, labels, questions)
        if self.questions == "random":
            q = random_question(obs.legal_actions, questions, self.rng)
        # A one-question lookahead undervalues waiting early (no blank crosses its threshold
        # after one answer), so waiting is judged over a round of n public answers, and only
        # once the sheet is worth ``accuse_at`` of its maximum (or nearly all of it).
        cfg = game.config
        top = sum(cfg.blank_values) + cfg.first_accuser_bonus
        gain_round = obs.num_players * max(0.0, later - now)
        if now >= 0.9 * top or (now >= self.accuse_at * top and gain_round <= self.wait_cost):
            return Accuse()
        return q

    def candidate_questions(self, obs: AlibiObservation, worlds: np.ndarray, questions: list[Ask]) -> list[Ask]:
        """The listed questions plus, per target and family, hypothesis questions (legal
        without being listed, out of about a million): the most likely box (4 cards), the
        seed's form without the emotion (suspect, place, weapon card), and the likeliest suspect
        card with the likeliest card of each other category."""
        game = self.game
        assert isinstance(game, AlibiGame)
        last = worlds[:, -1, :]
        inbox = (last == game.box_loc).mean(axis=0)
        top = [int(max(cat, key=lambda c: inbox[c])) for cat in game.categories]
        hypotheses = [tuple(top), tuple(top[:3]), *((top[0], top[k]) for k in range(1, len(top)))]
        extra = []
        for t in range(obs.num_players):
            if t != obs.player:
                for cards in dict.fromkeys(hypotheses):
                    extra += [Ask(t, Family.SEEN, cards), Ask(t, Family.HAND, cards)]
        listed = set(questions)
        return questions + [q for q in dict.fromkeys(extra) if q not in listed]

    def best_question(self, obs: AlibiObservation, worlds: np.ndarray, labels: np.ndarray, questions: list[Ask]) -> tuple[Ask, float]:
        """The question with the largest expected information about the box, and the expected
        first-accuser score after hearing its answer."""
        q, _, answers = self.scored_question(obs, worlds, labels, questions)
        return q, self._value_after(worlds, q, labels, answers)

    def scored_question(
        self, obs: AlibiObservation, worlds: np.ndarray, labels: np.ndarray, questions: list[Ask]
    ) -> tuple[Ask, float, np.ndarray]:
        """The question with the largest expected information about the box (sum over the
        four categories of the mutual information between answer and box card, in bits,
        estimated from ``worlds``; ties among the top five broken by the agent's generator),
        its information and its answer in each world."""
        game = self.game
        assert isinstance(game, AlibiGame)
        cands = self.candidate_questions(obs, worlds, questions)
        n_cards = game.num_cards
        seen_locs = {}
        scores = []
        sizes = [len(c) for c in game.categories]
        ans_cache: dict[tuple, np.ndarray] = {}
        for q in cands:
            key = (q.target, q.family, q.cards)
            if q.family is Family.HELD:
                a = (worlds == q.target).any(axis=1).sum(axis=1)
            else:
                if q.family is Family.HAND:
                    ind = worlds[:, -1, :] == q.target
                else:
                    if q.target not in seen_locs:
                        locs = [q.target, game.meld_loc] if game.config.seen_includes_melds else [q.target]
                        seen_locs[q.target] = np.isin(worlds, locs).any(axis=1)
                    ind = seen_locs[q.target]
                mask = np.zeros(n_cards, dtype=bool)
                mask[list(q.cards)] = True
                a = ind[:, mask].sum(axis=1)
            ans_cache[key] = a
            if np.all(a == a[0]):
                scores.append(0.0)
                continue
            scores.append(sum(_mi(a, labels[:, k], sizes[k]) for k in range(4)))
        order = np.argsort(scores)[::-1]
        top = [i for i in order[:5] if scores[i] >= scores[order[0]] - 1e-9]
        best = int(top[int(self.rng.integers(len(top)))])
        q = cands[best]
        return q, float(scores[best]), ans_cache[(q.target, q.family, q.cards)]

    def _value_after(self, worlds: np.ndarray, q: Ask, labels: np.ndarray, answers: np.ndarray | None = None) -> float:
        """Expected first-accuser score after hearing the answer to ``q`` (one-step lookahead)."""
        game = self.game
        assert isinstance(game, AlibiGame)
        if answers is None:
            answers = np.array([game.answer(w, q.target, q.family, q.cards) for w in worlds])
        total = 0.0
        for a in np.unique(answers):
            sub = worlds[answers == a]
            p_set, p_card, _ = self.box_beliefs(sub)
            v, _ = best_sheet(game, p_set, p_card, first=True)
            total += len(sub) / len(worlds) * v
        return total + game.config.first_accuser_bonus

    def sheet(self, obs: AlibiObservation) -> Action:
        game = self.game
        assert isinstance(game, AlibiGame)
        worlds = self.worlds(obs)
        first = obs.accuser == obs.player
        if len(worlds) == 0:
            plan: list[tuple[int, int]] = [(0, 0), (2, 0), (4, 0), (6, 0)] if first else []
        else:
            p_set, p_card, _ = self.box_beliefs(worlds)
            _, plan = best_sheet(game, p_set, p_card, first=first)
        done = dict(obs.sheet)
        self._plan = [Fill(b, v) for b, v in plan if b not in done] + [Done()]
        action = self._plan.pop(0)
        if action not in obs.legal_actions:  # defensive: fall back to a legal action
            self._plan = []
            legal = obs.legal_actions
            return Done() if Done() in legal else legal[0]
        return action

    def pass_card(self, obs: AlibiObservation) -> Action:
        """Keep cards of sets one is collecting (two or more in hand); pass first what the
        receiver has already held (no leak), then cards of the largest known-clean categories."""
        game = self.game
        assert isinstance(game, AlibiGame)
        me = obs.player
        assert me is not None
        known_to_receiver: set[int] = set()
        for e in obs.events:
            if isinstance(e, Passed) and e.cards[me] is not None:
                known_to_receiver.update(e.cards[me])
        hand = [a.card for a in obs.legal_actions if isinstance(a, PassCard)]
        held = set(obs.hand) | set(obs.passing)
        per_set: dict[int, int] = {}
        for c in held:
            per_set[game.card_set[c]] = per_set.get(game.card_set[c], 0) + 1

        def keep(c: int) -> float:
            score = 0.0
            if per_set[game.card_set[c]] >= 2:
                score += 10.0 * per_set[game.card_set[c]]
            if c not in known_to_receiver:
                score += 1.0
            return score + 0.01 * float(self.rng.random())

        return PassCard(min(hand, key=keep))


class RandomQuestionAgent(SamplingAgent):
    """The sampling agent with random questions (accusations, sheets, passes, melds unchanged)."""

    name = "sampling-randq"

    def __init__(self, **params: Any) -> None:
        params["questions"] = "random"
        super().__init__(**params)


def random_question(legal: Sequence[Action], listed: Sequence[Ask], rng: np.random.Generator) -> Ask:
    """A question drawn uniformly from every legal one: the ``listed`` questions of the menu and
    the structured blocks of questions legal without being listed (the hypotheses), so the
    ablation's questions are random over the whole question space, not the menu's corner."""
    blocks = [b for b in getattr(legal, "structured", ()) if b.size and isinstance(b.unrank(0), Ask)]
    index = int(rng.integers(len(listed) + sum(b.size for b in blocks)))
    if index < len(listed):
        return listed[index]
    index -= len(listed)
    for block in blocks:
        if index < block.size:
            question = block.unrank(index)
            assert isinstance(question, Ask)
            return question
        index -= block.size
    raise IndexError("no legal question to draw")


def questions_of(game: AlibiGame, asker: int) -> list[Ask]:
    """The questions ``asker`` may ask, in the order its legal actions list them (they depend
    on the game alone, not on the deal, so any state of the game lists the same ones)."""
    return game.new_initial_state(0).questions(asker)


@dataclass(frozen=True)
class QuestionAdvice:
    """The question the ``sampling`` agent would ask and its expected information about the box
    (bits, estimated from ``worlds`` sampled deals: approximate)."""

    question: Ask
    bits: float
    worlds: int


def recommend_question(game: AlibiGame, obs: AlibiObservation, seed: int = 0, **params: Any) -> QuestionAdvice | None:
    """The question :class:`SamplingAgent` (with ``params``, seeded with ``seed``) asks in
    ``obs.player``'s seat on this view, scored exactly as the agent scores it; ``None`` for a
    spectator or when no sampled deal fits the view. The agent's choice in the same seat, from
    the same seed and view, is this question (unless it accuses instead)."""
    if obs.player is None:
        return None
    agent = SamplingAgent(**params)
    agent.reset(game, obs.player, seed)
    worlds = agent.worlds(obs)
    if len(worlds) == 0:
        return None
    _, _, labels = agent.box_beliefs(worlds)
    question, bits, _ = agent.scored_question(obs, worlds, labels, questions_of(game, obs.player))
    return QuestionAdvice(question, bits, len(worlds))
