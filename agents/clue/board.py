"""Clue agents for the board (``board_mode="board"``): a movement policy wrapped around a
board-blind agent, which still does the deduction and chooses suspect and weapon.

* ``nearest`` policy (board-blind): head for the nearest room (other than the one just left)
  and suggest whatever the inner agent likes there;
* ``target`` policy (movement-aware): ask the inner agent where it would suggest if it could
  suggest anywhere, and head for that room (secret passages included);
* ``value`` policy (movement-aware planner): score every suggestion in every room by its exact
  expected information gain (:func:`agents.clue.questions.score_questions`, what ``infogain``
  maximises), value each room by its best suggestion, discounted by ``discount`` per extra turn
  the token expects to need to get there (shortest paths round occupied squares, the dice's
  distribution, secret passages and staying after being dragged included), and head for the
  best; in the room the inner agent still chooses suspect and weapon. With ``drag=True`` it
  also prefers, among equally informative suggestions, naming the suspect token of the
  opponent whose best room is nearest (dragging it away).

In the intrigue edition (``edition="intrigue"``) every policy walks to the pool once the inner
agent would accuse, plays "decline" rather than show a card the suggester has not seen from it
before, and plays "move to any room" when the room it wants is more than an average roll away.

Registered names: ``notebook-board``, ``deductive-board`` (nearest), ``deductive-target`` and
``infogain-board`` (target), ``infogain-nearest-board`` (nearest) and ``infogain-planner-board`` (value):
the last two differ only in movement, the clean movement ablation.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from agents.base import Agent
from deduce.games.base import Action, Game, Observation
from deduce.games.clue.intrigue import Decline, UseAnyRoom
from deduce.games.clue.rules import (
    ENVELOPE,
    Accuse,
    ClueGame,
    ClueObservation,
    EndTurn,
    Move,
    Roll,
    Show,
    Suggest,
    ViewExtra,
    refute_order,
    shown_to,
)

__all__ = [
    "BoardAgent",
    "NotebookBoardAgent",
    "DeductiveBoardAgent",
    "DeductiveTargetAgent",
    "InfogainBoardAgent",
    "InfogainNearestAgent",
    "InfogainPlannerAgent",
    "expected_turns",
]

POLICIES = ("nearest", "target", "value")


def expected_turns(dice: int, longest: int) -> list[float]:
    """``out[d]``: the expected number of turns (this one included) a token ``d`` steps from a
    room needs to enter it, rolling ``dice`` six-sided dice each turn and never blocked
    (``out[0] = 1``: it is there, or a passage away, this turn)."""
    faces = np.ones(1)
    for _ in range(dice):
        faces = np.convolve(faces, np.ones(6) / 6)
    prob = {k + dice: float(p) for k, p in enumerate(faces[: 5 * dice + 1])}
    out = [1.0]
    for d in range(1, longest + 1):
        # T(d) = 1 + sum over rolls k < d of P(k) T(d - k): a short roll leaves d - k to go
        out.append(1.0 + sum(p * out[d - k] for k, p in prob.items() if k < d))
    return out


class BoardAgent(Agent):
    """Moves on the board by ``policy`` and delegates everything else to the agent ``inner``
    (built with ``inner_params``); a suggestion is always made in the room the token is in."""

    name = "board"
    default_inner = "deductive"
    default_policy = "nearest"

    def __init__(
        self,
        inner: str | None = None,
        policy: str | None = None,
        discount: float = 0.5,
        drag: bool = False,
        **inner_params: Any,
    ) -> None:
        given = {k: v for k, v in (("inner", inner), ("policy", policy)) if v is not None}
        if discount != 0.5:
            given["discount"] = discount
        if drag:
            given["drag"] = drag
        super().__init__(**given, **inner_params)
        self.inner_name = inner or self.default_inner
        self.policy = policy or self.default_policy
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, not {self.policy!r}")
        if not 0.0 < discount <= 1.0:
            raise ValueError(f"discount must be in (0, 1], not {discount!r}")
        #: value policy: a room's worth is multiplied by this per extra turn needed to reach it
        self.discount = float(discount)
        #: value policy: among equally good suggestions, drag the most threatening opponent
        self.drag = bool(drag)
        self._limit = int(inner_params.get("limit") or 0) or None
        self._values: tuple[int, dict[int, float], dict[tuple[int, ...], float]] | None = None
        self._turns: list[float] = []
        from agents.registry import get  # lazy: the registry builds this module's agents

        self.inner: Agent = get(self.inner_name, game="clue", **inner_params)
        #: the room this agent is heading for (a board place), once chosen this turn
        self.target: int | None = None

    def reset(self, game: Game, player: int, seed: Any = None) -> None:
        super().reset(game, player, seed)
        if not isinstance(game, ClueGame) or game.board is None:
            raise ValueError(f"{self.name} plays Clue with board_mode='board'")
        self.inner.reset(game, player, int(self.rng.integers(2**63)))
        self.target = None
        self._values = None
        self._turns = expected_turns(game.config.dice, len(game.board.neighbours))

    def observe(self, observation: Observation) -> None:
        self.inner.observe(observation)

    # -- helpers -----------------------------------------------------------------------------
    def _ask(self, obs: ClueObservation, legal: list[Action]) -> Action:
        """The inner agent's choice when ``legal`` are the legal actions."""
        return self.inner.act(dataclasses.replace(obs, legal_actions=tuple(legal), barred_room=None))

    def _suggestions(self, rooms: list[int]) -> list[Action]:
        game = self.game
        assert isinstance(game, ClueGame)
        s, w, _ = game.categories
        return [Suggest((a, b, game.room_card[r])) for r in rooms for a in s for b in w]

    def _pick(self, options: list[Any]) -> Any:
        return options[int(self.rng.integers(len(options)))]

    # -- acting ------------------------------------------------------------------------------
    def act(self, observation: Observation) -> Action:
        obs = observation
        assert isinstance(obs, ClueObservation) and isinstance(self.game, ClueGame)
        board = self.game.board
        assert board is not None and obs.player is not None
        legal = list(obs.legal_actions)
        if obs.to_refute is not None:
            return self._refute(obs, legal)
        here = obs.positions[obs.player]
        if Roll() in legal:
            to_pool = self._to_pool(obs, legal)
            if to_pool is not None:
                return to_pool
            return self._start_value(obs, legal) if self.policy == "value" else self._start(obs, legal)
        moves = [a for a in legal if isinstance(a, Move)]
        if moves:
            if self.policy == "value" and (self.target is None or self.target != board.pool):
                return self._move_value(obs, moves)
            return self._move(obs, moves)
        suggestions = [a for a in legal if isinstance(a, Suggest)]
        if suggestions and self.policy == "value" and self.drag:
            self.target = None
            return self._dragging(obs, suggestions)
        if suggestions:  # in a room just entered: the inner agent picks suspect and weapon
            choice = self._ask(obs, suggestions)
            self.target = None
            if isinstance(choice, Suggest):
                room = self.game.room_card[here]
                return Suggest((choice.cards[0], choice.cards[1], room))
            return choice if choice in legal else suggestions[0]
        choice = self.inner.act(obs)  # after moving or suggesting: end the turn or accuse
        return choice if choice in legal else (EndTurn() if EndTurn() in legal else legal[0])

    # -- the intrigue edition -----------------------------------------------------------------
    def _refute(self, obs: ClueObservation, legal: list[Action]) -> Action:
        """The inner agent's card, unless a decline card spares showing a new one."""
        choice = self.inner.act(obs)
        if Decline() not in legal or not isinstance(choice, Show) or obs.to_refute is None:
            return choice

        seen = shown_to(obs, obs.to_refute[0]).get(obs.player, set())  # type: ignore[arg-type]
        return choice if choice.card in seen else Decline()

    def _to_pool(self, obs: ClueObservation, legal: list[Action]) -> Action | None:
        """Intrigue edition: accuse from the pool, or head there, once the inner agent would."""
        game = self.game
        assert isinstance(game, ClueGame) and game.board is not None and obs.player is not None
        board = game.board
        if board.pool is None or not game.config.accuse_in_pool:
            return None
        here = obs.positions[obs.player]
        probe = self._ask(obs, self._suggestions([here if board.is_room(here) else 0])[:1])
        if isinstance(probe, Accuse) and probe in legal:
            return probe
        if not isinstance(probe, Accuse) and not self._would_view_extra(obs):
            return None
        self.target = board.pool
        return Roll()

    def _would_view_extra(self, obs: ClueObservation) -> bool:
        """Whether the inner agent would look at the face-down leftover pile (and then accuse)
        if it stood in the pool: its chance of then being right reaches its threshold."""
        game = self.game
        assert isinstance(game, ClueGame)
        cfg = game.config
        if cfg.extra_size() == 0 or cfg.deal_mode != "equal_leftover" or not cfg.accuser_views_extra:
            return False
        if not getattr(self.inner, "views_extra", True):
            return False
        from agents.clue.deduction import win_chance_after_viewing_extra

        chance = win_chance_after_viewing_extra(game, dataclasses.replace(obs, legal_actions=(ViewExtra(),)))
        return chance >= float(getattr(self.inner, "view_extra_threshold", 1.0))

    def _any_room(self, obs: ClueObservation, legal: list[Action], room: int, steps: int | None) -> Action | None:
        """Play "move to any room" for ``room`` when it is more than an average roll away."""
        game = self.game
        assert isinstance(game, ClueGame)
        if UseAnyRoom(room) not in legal:
            return None
        if steps is not None and steps <= 3.5 * game.config.dice:
            return None
        self.target = room
        return UseAnyRoom(room)

    def _start(self, obs: ClueObservation, legal: list[Action]) -> Action:
        game = self.game
        assert isinstance(game, ClueGame) and game.board is not None and obs.player is not None
        board = game.board
        here = obs.positions[obs.player]
        may_stay = any(isinstance(a, Suggest) for a in legal)
        occupied = {p for p in obs.positions if p in board.cells}
        dist = board.room_distances(here, occupied - {here})
        if may_stay:
            dist[here] = 0
        if not dist:
            dist = {r: 0 for r in range(len(board.rooms)) if r != here}
        if self.policy == "nearest":
            best = min(dist.values())
            rooms = [self._pick(sorted(r for r, d in dist.items() if d == best))]
        else:
            rooms = sorted(dist)
        choice = self._ask(obs, self._suggestions(rooms))
        if isinstance(choice, Accuse):
            return choice
        if not isinstance(choice, Suggest):
            return choice if choice in legal else Roll()
        # the nearest policy keeps its room whatever the inner agent named (it may ignore `legal`)
        self.target = rooms[0] if self.policy == "nearest" else game.card_room[choice.cards[2]]
        choice = Suggest((choice.cards[0], choice.cards[1], game.room_card[self.target]))
        if self.target == here and choice in legal:
            return choice
        by_card = self._any_room(obs, legal, self.target, dist.get(self.target))
        if by_card is not None:
            return by_card
        if board.passages.get(here) == self.target and Move(self.target) in legal:
            return Move(self.target)
        return Roll()

    def _move(self, obs: ClueObservation, moves: list[Move]) -> Action:
        game = self.game
        assert isinstance(game, ClueGame) and game.board is not None and obs.player is not None
        board = game.board
        here = obs.positions[obs.player]
        occupied = {p for p in obs.positions if p in board.cells} - {here}
        rooms = [m for m in moves if board.is_room(m.to)]
        if self.target is not None and Move(self.target) in moves:
            return Move(self.target)
        if self.policy == "nearest" and rooms and (self.target is None or self.target != board.pool):
            return self._pick(rooms)
        targets = [self.target] if self.target is not None and self.target != here else [
            r for r in range(len(board.rooms)) if r != here
        ]
        far = 10**6
        maps = [board.distances(t, occupied) for t in targets]
        best_d, best = far, []
        for m in moves:
            d = min(dm.get(m.to, far) for dm in maps)
            if d < best_d:
                best_d, best = d, [m]
            elif d == best_d:
                best.append(m)
        return self._pick(best)


    # -- the value policy ----------------------------------------------------------------------
    def _room_values(self, obs: ClueObservation) -> tuple[dict[int, float], dict[tuple[int, ...], float]]:
        """Per room place, the expected information gain (bits) of the best suggestion there;
        and every suggestion's gain. Cached while no new event arrives."""
        key = len(obs.events)
        if self._values is not None and self._values[0] == key:
            return self._values[1], self._values[2]
        from agents.clue.questions import score_questions
        from solvers.exact_dp import DEFAULT_LIMIT

        game = self.game
        assert isinstance(game, ClueGame) and game.board is not None and obs.player is not None
        kb = game.knowledge(obs)
        n, me = obs.num_players, obs.player
        options = [a.cards for a in self._suggestions(list(range(len(game.board.rooms))))]
        scores = score_questions(
            kb, kb.loc(ENVELOPE), options, refute_order(me, n), shown_to(obs, me),
            getattr(self.inner, "limit", None) or self._limit or DEFAULT_LIMIT,
            float(getattr(self.inner, "leak_weight", 0.0)),
        )
        per_room: dict[int, float] = {}
        for q, v in scores.items():
            r = game.card_room[q[2]]
            per_room[r] = max(per_room.get(r, 0.0), v)
        self._values = (key, per_room, scores)
        return per_room, scores

    def _best(self, worth: dict[Any, tuple[float, float]]) -> Any:
        """The key of the largest (value, -turns), ties broken with ``self.rng``."""
        top = max(worth.values())
        return self._pick(sorted(k for k, v in worth.items() if v >= (top[0] - 1e-9, top[1] - 1e-9)))

    def _start_value(self, obs: ClueObservation, legal: list[Action]) -> Action:
        game = self.game
        assert isinstance(game, ClueGame) and game.board is not None and obs.player is not None
        board = game.board
        here = obs.positions[obs.player]
        # the inner agent decides whether to accuse; one option keeps that question cheap
        probe = self._ask(obs, self._suggestions([here if board.is_room(here) else 0])[:1])
        if not isinstance(probe, Suggest):
            return probe if probe in legal else Roll()
        may_stay = any(isinstance(a, Suggest) for a in legal)
        occupied = {p for p in obs.positions if p in board.cells} - {here}
        dist = board.room_distances(here, occupied)
        if may_stay:
            dist[here] = 0
        if not dist:
            return Roll()
        values, _ = self._room_values(obs)
        longest = len(self._turns) - 1
        worth: dict[int, tuple[float, float]] = {}
        for r, d in dist.items():
            turns = self._turns[min(d, longest)]
            worth[r] = (values.get(r, 0.0) * self.discount ** (turns - 1.0), -turns)
        self.target = self._best(worth)
        if any(isinstance(a, UseAnyRoom) for a in legal):  # the card reaches any room this turn
            card = {r: (v, -1.0) for r, v in values.items() if r != here}
            if card and max(card.values()) > worth[self.target]:
                best = self._best(card)
                by_card = self._any_room(obs, legal, best, dist.get(best))
                if by_card is not None:
                    return by_card
        if self.target == here and may_stay:
            return self.act(dataclasses.replace(obs, legal_actions=tuple(a for a in legal if isinstance(a, Suggest))))
        if board.passages.get(here) == self.target and Move(self.target) in legal:
            return Move(self.target)
        return Roll()

    def _move_value(self, obs: ClueObservation, moves: list[Move]) -> Action:
        game = self.game
        assert isinstance(game, ClueGame) and game.board is not None and obs.player is not None
        board = game.board
        here = obs.positions[obs.player]
        occupied = {p for p in obs.positions if p in board.cells} - {here}
        values, _ = self._room_values(obs)
        longest = len(self._turns) - 1
        maps = {r: board.distances(r, occupied) for r in range(len(board.rooms)) if values.get(r, 0.0) > 0.0}
        worth: dict[int, tuple[float, float]] = {}
        for m in moves:
            if board.is_room(m.to):
                worth[m.to] = (values.get(m.to, 0.0), -1.0)
                continue
            best = (0.0, -float(longest))
            for r, dm in maps.items():
                if m.to in dm:  # from a square, the room is reached on a later turn
                    turns = self._turns[min(dm[m.to], longest)]
                    best = max(best, (values[r] * self.discount**turns, -1.0 - turns))
            worth[m.to] = best
        return Move(self._best(worth))

    def _dragging(self, obs: ClueObservation, suggestions: list[Action]) -> Action:
        """The best suggestion here; among equals, name the suspect of the live opponent
        nearest to another room, dragging it away (suspects of nobody or oneself come last)."""
        game = self.game
        assert isinstance(game, ClueGame) and game.board is not None and obs.player is not None
        board = game.board
        choice = self._ask(obs, suggestions)
        if not isinstance(choice, Suggest):
            return choice
        _, scores = self._room_values(obs)
        here = obs.positions[obs.player]
        top = scores.get(choice.cards, 0.0)
        ties = [a for a in suggestions if isinstance(a, Suggest) and scores.get(a.cards, 0.0) >= top - 1e-9]
        occupied = {p for p in obs.positions if p in board.cells}
        seats = len(obs.names)

        def threat(a: Suggest) -> float:
            token = game.categories[0].index(a.cards[0])
            if token >= seats or token == obs.player or token in obs.eliminated or obs.positions[token] == here:
                return float("inf")
            dist = board.room_distances(obs.positions[token], occupied - {obs.positions[token]})
            return float(min((d for r, d in dist.items() if r != here), default=float("inf")))

        best = min(threat(a) for a in ties)  # type: ignore[arg-type]
        return choice if threat(choice) <= best else self._pick([a for a in ties if threat(a) <= best])  # type: ignore[arg-type]


class NotebookBoardAgent(BoardAgent):
    """The ``notebook`` agent, heading for the nearest room."""

    name = "notebook-board"
    default_inner = "notebook"


class DeductiveBoardAgent(BoardAgent):
    """The ``deductive`` agent, heading for the nearest room (board-blind movement)."""

    name = "deductive-board"


class DeductiveTargetAgent(BoardAgent):
    """The ``deductive`` agent, heading for the room it wants to suggest in."""

    name = "deductive-target"
    default_policy = "target"


class InfogainBoardAgent(BoardAgent):
    """The ``infogain`` agent, heading for the room of its most informative suggestion."""

    name = "infogain-board"
    default_inner = "infogain"
    default_policy = "target"


class InfogainNearestAgent(BoardAgent):
    """The ``infogain`` agent, heading for the nearest room: the board-blind half of the
    movement ablation (same deduction, same question choice in the room)."""

    name = "infogain-nearest-board"
    default_inner = "infogain"


class InfogainPlannerAgent(BoardAgent):
    """The ``infogain`` agent, heading for the room whose best suggestion is worth most after
    discounting the turns needed to get there (the ``value`` policy)."""

    name = "infogain-planner-board"
    default_inner = "infogain"
    default_policy = "value"
