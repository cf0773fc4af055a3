"""Crime Hotel's fixed action numbering (see :mod:`deduce.actions`): an exchange's given cards
ranked by the combinatorial number system; police moves from and to a space or nowhere (a
move from a space to nowhere is numbered but never legal)."""

from __future__ import annotations

from deduce.actions import ActionIndex, Block, Choice, Combos
from deduce.games.crime_hotel.rules import (
    Bonus,
    Check,
    CrimeHotelGame,
    Deduce,
    Double,
    Exchange,
    MovePolice,
    Play,
)


def action_index(game: CrimeHotelGame) -> ActionIndex:
    """Every action a Crime Hotel configuration can offer, numbered once."""
    cfg = game.config
    card = Choice(range(len(game.deck)))
    space = Choice(game.spaces)
    maybe_space = Choice((None, *game.spaces))
    seat = Choice(range(game.num_players))
    give = min(max(cfg.exchange_slots, default=0), cfg.hand_size)
    return ActionIndex([
        Block(Play, [card]),
        Block(Deduce, [space]),
        Block(MovePolice, [maybe_space, maybe_space]),
        Block(Exchange, [seat, Combos(range(len(game.deck)), range(give + 1))]),
        Block(Check, [seat]),
        Block(Double),
        Block(Bonus),
    ])
