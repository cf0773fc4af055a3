"""Clue agents for the board (``board_mode="board"``): a movement policy wrapped around a
board-blind agent, which still does the deduction and chooses suspect and weapon.

* ``nearest`` policy (board-blind): head for the nearest room (other than the one just left)
  and suggest whatever the inner agent likes there;
* ``target`` policy (movement-aware): ask the inner agent where it would suggest if it could
  suggest anywhere, and head for that room (secret passages included).

Registered names: ``notebook-board``, ``deductive-board`` (nearest), ``deductive-target`` and
``infogain-board`` (target).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from agents.base import Agent
from deduce.games.base import Action, Game, Observation
from deduce.games.clue import Accuse, ClueGame, ClueObservation, EndTurn, Move, Roll, Suggest

__all__ = [
    "BoardAgent",
    "NotebookBoardAgent",
    "DeductiveBoardAgent",
    "DeductiveTargetAgent",
    "InfogainBoardAgent",
    "AGENTS",
]

POLICIES = ("nearest", "target")


class BoardAgent(Agent):
    """Moves on the board by ``policy`` and delegates everything else to the agent ``inner``
    (built with ``inner_params``); a suggestion is always made in the room the token is in."""

    name = "board"
    default_inner = "deductive"
    default_policy = "nearest"

    def __init__(self, inner: str | None = None, policy: str | None = None, **inner_params: Any) -> None:
        given = {k: v for k, v in (("inner", inner), ("policy", policy)) if v is not None}
        super().__init__(**given, **inner_params)
        self.inner_name = inner or self.default_inner
        self.policy = policy or self.default_policy
        if self.policy not in POLICIES:
            raise ValueError(f"policy must be one of {POLICIES}, not {self.policy!r}")
        import agents

        self.inner: Agent = agents.get(self.inner_name, game="clue", **inner_params)
        #: the room this agent is heading for (a board place), once chosen this turn
        self.target: int | None = None

    def reset(self, game: Game, player: int, seed: Any = None) -> None:
        super().reset(game, player, seed)
        if not isinstance(game, ClueGame) or game.board is None:
            raise ValueError(f"{self.name} plays Clue with board_mode='board'")
        self.inner.reset(game, player, int(self.rng.integers(2**63)))
        self.target = None

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
            return self.inner.act(obs)
        here = obs.positions[obs.player]
        if Roll() in legal:
            return self._start(obs, legal)
        moves = [a for a in legal if isinstance(a, Move)]
        if moves:
            return self._move(obs, moves)
        suggestions = [a for a in legal if isinstance(a, Suggest)]
        if suggestions:  # in a room just entered: the inner agent picks suspect and weapon
            choice = self._ask(obs, suggestions)
            self.target = None
            if isinstance(choice, Suggest):
                room = self.game.room_card[here]
                return Suggest((choice.cards[0], choice.cards[1], room))
            return choice if choice in legal else suggestions[0]
        choice = self.inner.act(obs)  # after moving or suggesting: end the turn or accuse
        return choice if choice in legal else (EndTurn() if EndTurn() in legal else legal[0])

    def _start(self, obs: ClueObservation, legal: list[Action]) -> Action:
        game = self.game
        assert isinstance(game, ClueGame) and game.board is not None and obs.player is not None
        board = game.board
        here = obs.positions[obs.player]
        may_stay = any(isinstance(a, Suggest) for a in legal)
        occupied = {p for p in obs.positions if not board.is_room(p)}
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
        if board.passages.get(here) == self.target and Move(self.target) in legal:
            return Move(self.target)
        return Roll()

    def _move(self, obs: ClueObservation, moves: list[Move]) -> Action:
        game = self.game
        assert isinstance(game, ClueGame) and game.board is not None and obs.player is not None
        board = game.board
        here = obs.positions[obs.player]
        occupied = {p for p in obs.positions if not board.is_room(p)} - {here}
        rooms = [m for m in moves if board.is_room(m.to)]
        if self.target is not None and Move(self.target) in moves:
            return Move(self.target)
        if self.policy == "nearest" and rooms:
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


AGENTS: dict[str, type[Agent]] = {
    "notebook-board": NotebookBoardAgent,
    "deductive-board": DeductiveBoardAgent,
    "deductive-target": DeductiveTargetAgent,
    "infogain-board": InfogainBoardAgent,
}
