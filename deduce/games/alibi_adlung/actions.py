"""Alibi (Adlung)'s fixed action numbering (see :mod:`deduce.actions`): cards played by id,
an exchange's discarded cards ranked by the combinatorial number system."""

from __future__ import annotations

from deduce.actions import ActionIndex, Block, Choice, Combos
from deduce.games.alibi_adlung.rules import (
    AlibiAdlungGame,
    Decline,
    Exchange,
    Name,
    Pass,
    PlayAlibi,
    PlayBribe,
    PlayEvidence,
    PlayEye,
)


def action_index(game: AlibiAdlungGame) -> ActionIndex:
    """Every action an Alibi (Adlung) configuration can offer, numbered once."""
    card = Choice(range(len(game.deck)))
    suspect = Choice(range(len(game.suspects)))
    # An exchange discards 1..hand_size cards of one's hand, which never exceeds hand_size.
    return ActionIndex([
        Block(PlayEvidence, [card]),
        Block(PlayAlibi, [card, suspect]),
        Block(PlayBribe, [card, card]),
        Block(PlayEye, [card]),
        Block(Exchange, [Combos(range(len(game.deck)), range(1, game.config.hand_size + 1))]),
        Block(Pass),
        Block(Name, [suspect]),
        Block(Decline),
    ])
