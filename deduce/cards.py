"""Cards and decks: immutable values; cards are small ints so solvers can index arrays."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from deduce.errors import InvalidConfig, UnknownName

__all__ = ["Card", "Deck", "normalise_name"]


@lru_cache(maxsize=8192)
def normalise_name(name: str) -> str:
    """Fold a name for lookups: case, spaces, punctuation and accents do not matter
    ("Mr. Green" = "mrgreen", "Émile" = "emile"), in any script ("김민수" keeps its letters).

    A name made only of punctuation or symbols ("!!!") folds to itself without spaces rather
    than to nothing, so it stays a usable, distinct name.
    """
    decomposed = unicodedata.normalize("NFKD", name.casefold())
    kept = "".join(ch for ch in decomposed if ch.isalnum() and not unicodedata.combining(ch))
    if kept:
        return unicodedata.normalize("NFC", kept)
    return "".join(decomposed.split())


@dataclass(frozen=True, slots=True)
class Card:
    """One card. ``id`` is its index in the deck; ``attributes`` are (key, value) pairs."""

    id: int
    name: str
    category: str
    attributes: tuple[tuple[str, object], ...] = ()

    def attribute(self, key: str, default: object = None) -> object:
        for k, v in self.attributes:
            if k == key:
                return v
        return default

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class Deck:
    """An ordered, immutable collection of cards with lookups by name and category."""

    cards: tuple[Card, ...]
    _by_name: Mapping[str, Card] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        by_name: dict[str, Card] = {}
        for i, card in enumerate(self.cards):
            if card.id != i:
                raise InvalidConfig(f"cards[{i}].id", card.id, f"card {card.name!r} has id {card.id}, expected {i}")
            key = normalise_name(card.name)
            if not key:
                raise InvalidConfig(f"cards[{i}].name", card.name, f"card name {card.name!r} has no letters or digits")
            if key in by_name:
                raise InvalidConfig(
                    f"cards[{i}].name",
                    card.name,
                    f"duplicate card name {card.name!r} (card {by_name[key].id} is {by_name[key].name!r})",
                )
            by_name[key] = card
        object.__setattr__(self, "_by_name", by_name)

    @classmethod
    def from_categories(cls, categories: Mapping[str, Iterable[str]]) -> Deck:
        """Build a deck from ``{category: [names...]}``, keeping the given order."""
        cards: list[Card] = []
        for category, names in categories.items():
            for name in names:
                cards.append(Card(len(cards), str(name), str(category)))
        return cls(tuple(cards))

    def __len__(self) -> int:
        return len(self.cards)

    def __iter__(self) -> Iterator[Card]:
        return iter(self.cards)

    def __getitem__(self, index: int) -> Card:
        return self.cards[index]

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and normalise_name(name) in self._by_name

    def card(self, name: str) -> Card:
        """The card called ``name`` (case, spaces and punctuation ignored)."""
        try:
            return self._by_name[normalise_name(name)]
        except (KeyError, TypeError, AttributeError):
            raise UnknownName(f"unknown card {name!r}") from None

    @property
    def categories(self) -> tuple[str, ...]:
        seen: dict[str, None] = {}
        for card in self.cards:
            seen.setdefault(card.category, None)
        return tuple(seen)

    def in_category(self, category: str) -> tuple[Card, ...]:
        found = tuple(c for c in self.cards if c.category == category)
        if not found:
            raise UnknownName(f"unknown category {category!r}")
        return found

    def with_attribute(self, key: str, value: object) -> tuple[Card, ...]:
        return tuple(c for c in self.cards if c.attribute(key) == value)

    def names(self, ids: Iterable[int]) -> tuple[str, ...]:
        return tuple(self.cards[i].name for i in ids)

    def to_json(self) -> dict:
        out: dict[str, list] = {}
        for card in self.cards:
            out.setdefault(card.category, []).append(card.name)
        if any(c.attributes for c in self.cards):
            return {"categories": out, "attributes": {c.name: dict(c.attributes) for c in self.cards}}
        return {"categories": out}

    @classmethod
    def from_json(cls, data: Mapping) -> Deck:
        cats = data["categories"]
        attrs = data.get("attributes", {})
        cards: list[Card] = []
        for category, names in cats.items():
            for name in names:
                a = tuple(sorted(attrs.get(name, {}).items()))
                cards.append(Card(len(cards), name, category, a))
        return cls(tuple(cards))
