"""How an OpenSpiel state draws its chance: the deal and Clue's dice as explicit chance nodes.

Every registered game declares ``EXPLICIT_STOCHASTIC``: each chance node lists its outcomes with
their exact probabilities (``chance_outcomes()``), so OpenSpiel can enumerate, sample and
serialise them (a ``SAMPLED_STOCHASTIC`` Python game cannot be serialised: OpenSpiel asks the
game for its C++ random-generator state, which a Python game cannot provide).

- :class:`CardDeal` (the deal card by card): the deal of a game whose only randomness is one
  shuffle with one hidden card per category (Clue without the board): one chance node per
  category for the envelope (each of its cards with probability 1/k), then one node per
  remaining card, each unplaced card equally likely; the cards then go to the hands in seat
  order and the rest to the leftover pile, as the engine deals them. Every deal is equally
  likely, as with the engine's own shuffle.
- :class:`SeedDeal` (the deal by its seed): the other engines deal by a long chain of draws
  (Alibi's deck, Adlung's suspects, Checkpoint Charlie's rounds, Crime Hotel's hotel) and keep
  drawing during play from the same generator (reshuffles, new rounds and games, a pick from a
  hand, Mafia Code's dice with their rerolls, the intrigue deck). Their deal is
  :data:`SEED_BYTES` chance nodes of 256 equally likely outcomes each: the bytes of a uniform
  32-bit engine seed. The engine deals from that seed and makes every later draw from it, so
  those draws are exact functions of the declared chance outcomes (not hidden sampling), and
  the history replays the very same game. What is not a node of its own is the structure of the
  later draws (a reshuffle's order is decided by the seed, not offered as a node).
- :class:`Dice` (Clue on the board): every roll is its own chance node after the ``Roll``
  move, each ordered tuple of faces with probability ``6 ** -dice`` (ordered, because the
  intrigue edition's question die is the first die); the engine rolls exactly those faces.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from deduce.errors import IllegalAction
from deduce.games.base import Game, State
from deduce.games.clue.rules import ClueGame, ClueState

__all__ = ["CardDeal", "SeedDeal", "Dice", "SEED_BYTES", "SEED_OUTCOMES"]

#: how many chance nodes deal a seed (one byte each, most significant first)
SEED_BYTES = 4
#: the engine seeds a seed deal draws from (``0 .. SEED_OUTCOMES - 1``, uniformly)
SEED_OUTCOMES = 256**SEED_BYTES


class CardDeal:
    """A Clue-like deal as explicit chance nodes, one card each (see the module docstring)."""

    def __init__(self, game: ClueGame) -> None:
        self.game = game
        self.categories: tuple[tuple[int, ...], ...] = tuple(tuple(c) for c in game.categories)
        self.num_cards = len(game.deck)
        self.max_outcomes = self.num_cards

    def length(self) -> int:
        """How many chance nodes the deal takes."""
        return self.num_cards

    def outcomes(self, drawn: Sequence[int]) -> list[tuple[int, float]]:
        """The next node's outcomes after ``drawn`` cards: (card id, probability)."""
        k = len(drawn)
        if k < len(self.categories):
            cards = self.categories[k]
        else:
            taken = set(drawn)
            cards = tuple(c for c in range(self.num_cards) if c not in taken)
        p = 1.0 / len(cards)
        return [(c, p) for c in cards]

    def check(self, drawn: Sequence[int], outcome: int) -> None:
        """Refuse an outcome the next node cannot produce."""
        if outcome not in {c for c, _ in self.outcomes(drawn)}:
            raise IllegalAction(f"chance outcome {outcome} is not a card the deal can draw now")

    def state(self, drawn: Sequence[int], seed: int = 0) -> ClueState:
        """The engine's state of the finished deal ``drawn`` (envelope first, then the rest)."""
        k = len(self.categories)
        envelope, rest = list(drawn[:k]), list(drawn[k:])
        hands, pos = [], 0
        for size in self.game.config.hand_sizes():
            hands.append(rest[pos : pos + size])
            pos += size
        return ClueState.from_deal(self.game, envelope, hands, rest[pos:], seed=seed)

    def drawn_for(self, envelope: Sequence[int], hands: Sequence[Sequence[int]], extra: Sequence[int]) -> list[int]:
        """The chance outcomes that deal exactly this envelope, these hands and this pile."""
        return [*envelope, *(c for h in hands for c in h), *extra]

    def label(self, drawn: Sequence[int], outcome: int) -> str:
        """A chance outcome in words."""
        card = self.game.deck[outcome].name
        return f"envelope: {card}" if len(drawn) < len(self.categories) else f"deal: {card}"


class SeedDeal:
    """The engine's own deal from a uniform seed, one byte per chance node (module docstring)."""

    max_outcomes = 256

    def __init__(self, game: Game) -> None:
        self.game = game

    def length(self) -> int:
        """How many chance nodes the deal takes."""
        return SEED_BYTES

    def outcomes(self, drawn: Sequence[int]) -> list[tuple[int, float]]:
        """Every byte, equally likely."""
        return [(b, 1.0 / 256) for b in range(256)]

    @staticmethod
    def draw(rng: np.random.Generator) -> int:
        """A uniform engine seed (what the chance nodes would deal)."""
        return int(rng.integers(SEED_OUTCOMES))

    @staticmethod
    def outcomes_of(seed: int) -> list[int]:
        """The chance outcomes that deal engine seed ``seed``."""
        if not 0 <= seed < SEED_OUTCOMES:
            raise IllegalAction(f"seed {seed} is not in 0..{SEED_OUTCOMES - 1}")
        return list(int(seed).to_bytes(SEED_BYTES, "big"))

    @staticmethod
    def seed_of(drawn: Sequence[int]) -> int:
        """The engine seed the chance outcomes ``drawn`` (all of them) deal."""
        return int.from_bytes(bytes(int(b) for b in drawn[:SEED_BYTES]), "big")

    def check(self, drawn: Sequence[int], outcome: int) -> None:
        """Refuse an outcome that is not a byte."""
        if not 0 <= outcome < 256:
            raise IllegalAction(f"chance outcome {outcome} is not a seed byte in 0..255")

    def state(self, drawn: Sequence[int], seed: int = 0) -> State:
        """The engine's state dealt from the seed ``drawn`` spells."""
        return self.game.new_initial_state(self.seed_of(drawn))

    def label(self, drawn: Sequence[int], outcome: int) -> str:
        """A chance outcome in words."""
        return f"deal: seed byte {len(drawn) + 1} of {SEED_BYTES} is {outcome}"


class Dice:
    """Clue on the board's roll as one explicit chance node (module docstring)."""

    def __init__(self, dice: int) -> None:
        self.dice = dice
        self.max_outcomes = 6**dice

    def outcomes(self) -> list[tuple[int, float]]:
        """Every ordered tuple of faces, equally likely."""
        p = 1.0 / self.max_outcomes
        return [(i, p) for i in range(self.max_outcomes)]

    def faces(self, outcome: int) -> tuple[int, ...]:
        """The faces an outcome rolls, first die first."""
        if not 0 <= outcome < self.max_outcomes:
            raise IllegalAction(f"chance outcome {outcome} is not a roll of {self.dice} dice")
        out = []
        for _ in range(self.dice):
            outcome, face = divmod(outcome, 6)
            out.append(face + 1)
        return tuple(out)

    def outcome_of(self, faces: Sequence[int]) -> int:
        """The chance outcome that rolls ``faces``."""
        return sum((int(f) - 1) * 6**i for i, f in enumerate(faces))

    def label(self, outcome: int) -> str:
        """A roll in words."""
        faces = self.faces(outcome)
        return f"roll: {' and '.join(map(str, faces))} ({sum(faces)})"


class Rolled:
    """Stands in for a board engine's generator during one roll: its dice give ``faces`` (the
    chance node's outcome); every other draw (the intrigue deck's shuffle) is the engine's own.
    A roll asked for in another shape is refused, so an engine change cannot go unnoticed."""

    def __init__(self, rng: np.random.Generator, faces: tuple[int, ...]) -> None:
        self.rng = rng
        self.faces = faces

    def integers(self, low: int, high: int | None = None, size: int | None = None) -> np.ndarray:
        if (low, high, size) != (1, 7, len(self.faces)):
            raise IllegalAction(f"the engine rolled integers({low}, {high}, size={size}), not {len(self.faces)} dice")
        return np.array(self.faces, dtype=np.int64)

    def __getattr__(self, name: str) -> object:
        return getattr(self.rng, name)
