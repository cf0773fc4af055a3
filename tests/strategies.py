"""Hypothesis strategies shared by the property tests."""

from __future__ import annotations

from hypothesis import strategies as st

from deduce import At, AtLeastOne, Count, Deck, KnowledgeBase, NotAll, NotAt


@st.composite
def small_kbs(draw, max_cards: int = 7, max_locations: int = 4, max_constraints: int = 6) -> KnowledgeBase:
    """Random static knowledge bases small enough for ``brute`` (≤ 4^7 worlds)."""
    n_cards = draw(st.integers(2, max_cards))
    n_locs = draw(st.integers(2, max_locations))
    deck = Deck.from_categories({"k": [f"c{i}" for i in range(n_cards)]})
    kb = KnowledgeBase(deck, [f"z{i}" for i in range(n_locs)])
    card = st.integers(0, n_cards - 1)
    loc = st.integers(0, n_locs - 1)
    cards = st.lists(card, min_size=1, max_size=n_cards, unique=True)
    constraint = st.one_of(
        st.builds(At, card, loc),
        st.builds(NotAt, card, loc),
        st.builds(AtLeastOne, cards, loc),
        st.builds(Count, cards, loc, st.integers(0, 4), st.sampled_from(["==", "<=", ">="])),
        st.builds(NotAll, st.lists(st.tuples(card, loc), min_size=1, max_size=3)),
    )
    for c in draw(st.lists(constraint, max_size=max_constraints)):
        kb.extend([c], check=False)  # unchecked: contradictory knowledge bases are tested too
    return kb
