"""Alibi's fixed action numbering (see :mod:`deduce.actions`): a meld is a set of complete
sets, ranked by the combinatorial number system; questions, passed cards and sheet entries
by their fields."""

from __future__ import annotations

from deduce.actions import ActionIndex, Block, Choice, Combos
from deduce.games.alibi.rules import (
    BLANKS,
    Accuse,
    AlibiGame,
    Ask,
    Done,
    Family,
    Fill,
    Meld,
    PassCard,
)


def action_index(game: AlibiGame) -> ActionIndex:
    """Every action an Alibi configuration can offer, numbered once."""
    # A player melds only complete sets from its hand, and a hand never outgrows its deal
    # (passing gives and takes the same number of cards; melding only removes): a meld holds
    # at most as many sets as the smallest sets that fit in the largest dealt hand.
    sizes = sorted(len(ids) for ids in game.set_cards)
    room = max(game.config.hand_sizes())
    most = 0
    while most < len(sizes) and sum(sizes[: most + 1]) <= room:
        most += 1
    questions = [()] + [tuple(sorted(set(ids))) for _, ids in game.canonical_sets()]
    values = max(
        max(len(sets) for sets in game.category_sets),
        max(len(ids) for ids in game.set_cards),
    )
    return ActionIndex([
        Block(Meld, [Combos(range(len(game.set_cards)), range(most + 1))]),
        Block(Ask, [Choice(range(game.num_players)), Choice(tuple(Family)), Choice(dict.fromkeys(questions))]),
        Block(Accuse),
        Block(PassCard, [Choice(range(len(game.deck)))]),
        Block(Fill, [Choice(range(len(BLANKS))), Choice(range(values))]),
        Block(Done),
    ])
