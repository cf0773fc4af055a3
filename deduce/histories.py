"""Hand histories: a declared second form of knowledge, beside the constraints of a KnowledgeBase.

Why: in a game where every card that leaves a hidden hand is shown (laid, exchanged, bribed:
Alibi by Adlung), what an observer knows is a *history per hidden hand* (cards drawn, cards
shown, types the hand was proven not to hold then) rather than a set of constraints on card
locations. A :class:`Timeline` says exactly what the time-indexed knowledge base of the same
observation says (the property tests compare their counts); an exact counter
(:class:`solvers.timeline.TimelineCounter`) reads it without enumerating worlds. A game
produces one from an observation; a solver never needs to know which game it came from.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Timeline"]


@dataclass(frozen=True)
class Timeline:
    """The facts of :func:`timed_knowledge` arranged for an exact counter, per hidden hand.

    A *cohort* is one filling of the draw deck: 0 the shuffled deck of the deal, ``k`` the
    ``k``-th reshuffled discard pile. A hidden card's *class* is its cohort (when it last went
    into the deck) and its type (feature or special kind): cards of one class are
    interchangeable to the observer. ``seats``: the hands the observer cannot see;
    ``steps[i]``: seat ``seats[i]``'s history as ``("draw", m, cohort)``, ``("reveal", type,
    cohort)``, ``("void", types)`` (held none of them) and ``("notall", types)`` (its hand
    then was not all of them). ``known``: ``(card, location)`` of every card the observer can
    place now. ``order_factor``: the product of ``m!`` over the hidden draws (a counter that
    tells apart the cards of one draw by order divides by it).
    """

    num_cards: int
    num_locations: int
    deck_loc: int
    seats: tuple[int, ...]
    steps: tuple[tuple[tuple[object, ...], ...], ...]
    classes: tuple[tuple[int, str], ...]
    class_cards: tuple[tuple[int, ...], ...]
    current_cohort: int
    known: tuple[tuple[int, int], ...]
    types: frozenset[str]
    order_factor: int
