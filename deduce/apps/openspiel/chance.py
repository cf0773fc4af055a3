"""How an OpenSpiel state reaches its first decision: the deal as chance nodes.

Two kinds, declared in each registered game's ``GameType.chance_mode``:

- :class:`CardDeal` (explicit chance, exact probabilities): the deal of a game whose only
  randomness is one shuffle with one hidden card per category (Clue without the board): one
  chance node per category for the envelope (each of its cards with probability 1/k), then one
  node per remaining card, each unplaced card equally likely; the cards then go to the hands in
  seat order and the rest to the leftover pile, as the engine deals them. Every deal is equally
  likely, as with the engine's own shuffle.
- :class:`SeedDeal` (sampled chance): games whose engines draw again during play (dice,
  draws, reshuffles, new rounds) get one chance node whose single outcome is a seed drawn from
  the game's ``rng_seed``-seeded generator; the engine deals with it and draws everything later
  from it. The outcome is the seed, so the history replays the very same game.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from deduce.errors import IllegalAction
from deduce.games.base import Game, State
from deduce.games.clue.rules import ClueGame, ClueState

__all__ = ["CardDeal", "SeedDeal", "SEED_OUTCOMES"]

#: the seeds a sampled chance node draws from (``0 .. SEED_OUTCOMES - 1``)
SEED_OUTCOMES = 2**31 - 1


class CardDeal:
    """A Clue-like deal as explicit chance nodes, one card each (see the module docstring)."""

    sampled = False

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
    """The engine's own deal from one sampled seed (see the module docstring)."""

    sampled = True
    max_outcomes = SEED_OUTCOMES

    def __init__(self, game: Game) -> None:
        self.game = game

    def length(self) -> int:
        return 1

    @staticmethod
    def draw(rng: np.random.Generator) -> int:
        """A fresh seed for a new game's chance node."""
        return int(rng.integers(SEED_OUTCOMES))

    def check(self, drawn: Sequence[int], outcome: int) -> None:
        if not 0 <= outcome < SEED_OUTCOMES:
            raise IllegalAction(f"chance outcome {outcome} is not a seed in 0..{SEED_OUTCOMES - 1}")

    def state(self, drawn: Sequence[int], seed: int = 0) -> State:
        return self.game.new_initial_state(int(drawn[0]))

    def label(self, drawn: Sequence[int], outcome: int) -> str:
        return f"deal with seed {outcome}"
