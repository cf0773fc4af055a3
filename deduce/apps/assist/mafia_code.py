"""The table-side assistant's Mafia Code part: the event lines, their wording and the advice.

Lines (names may be shortened to any unambiguous prefix; a card is its colour and letter,
"red b" or "r b"):

* ``code WHO COLOUR LETTER N``: WHO rolled a code on a turn and wrote N; with one number per
  player in seat order, it is the opening round and everyone wrote one.
* ``hit BY TARGET CARD`` / ``miss BY TARGET CARD``: a guess and how it went.
* ``hand WHO CARD...``: a whole hand (your own, from setup).

Under the grid: what each opponent may still hold, and the guess most likely to hit with its
probability (exact from the solver's card marginals, or labelled approximate).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from deduce.apps.assist.session import GameAdapter, GameAssistant, Marginals
from deduce.apps.assist.text import match_name, view_event_text, view_phrase
from deduce.cards import normalise_name
from deduce.errors import DeduceError
from deduce.explain import Phrase
from deduce.games.base import Game, Observation
from deduce.games.mafia_code.log import parse
from deduce.games.mafia_code.rules import (
    BOX,
    MafiaCodeConfig,
    MafiaCodeGame,
    MafiaCodeObservation,
)

__all__ = ["MafiaCodeAdapter", "ADAPTER", "best_guess"]

_HIT = {"hit", "right", "yes", "y", "correct"}
_MISS = {"miss", "wrong", "no", "n", "incorrect"}


def best_guess(game: MafiaCodeGame, obs: MafiaCodeObservation, p: np.ndarray) -> tuple[int, int, float] | None:
    """(target, card, P(hit)) of the guess most likely to hit for ``obs.player``: an unrevealed
    card at another player with cards left (ties: the earlier seat after the guesser, then card)."""
    me = obs.player
    if me is None:
        return None
    n, size = game.num_players, game.config.hand_sizes()[0]
    shown = {c for r in obs.revealed for c in r}
    best: tuple[int, int, float] | None = None
    for q in ((me + k) % n for k in range(1, n)):
        if len(obs.revealed[q]) >= size:
            continue
        for c in range(game.config.num_cards):
            if c not in shown and (best is None or p[c, q] > best[2]):
                best = (q, c, float(p[c, q]))
    return best


class MafiaCodeAdapter(GameAdapter):
    """Mafia Code at a real table: codes and counts written, hits and misses."""

    game: ClassVar[str] = "mafia-code"
    help: ClassVar[str] = """\
events (names may be shortened to any unambiguous prefix; 'me' is you; a card is 'red b'):
  code WHO COLOUR LETTER N        WHO rolled a code on a turn and wrote N
  code WHO COLOUR LETTER N N N    the opening round: everyone's count, in seat order
  hit BY TARGET CARD              BY guessed TARGET holds CARD, and was right
  miss BY TARGET CARD             ... and was wrong
  hand WHO CARD...                WHO's whole hand"""
    rules: ClassVar[str] = "the hand sizes and the boxed cards"
    words: ClassVar[tuple[str, ...]] = ("code", "hit", "miss", "hand")
    seats: ClassVar[tuple[int, int]] = (2, 4)
    places: ClassVar[Mapping[str, str]] = {BOX: "the box"}

    def parse(self, log: Mapping[str, Any]) -> tuple[Game, Observation]:
        return parse(log)

    def steps(self, me: str | None) -> tuple[str, ...]:
        return () if me is None else ("hand",)

    def prompt(self, step: str, players: list[str], me: str | None) -> str:
        size = MafiaCodeConfig(num_players=len(players)).hand_sizes()[0]
        return f"your hand ({size} cards, e.g. 'red a, blue f'):"

    def answer(self, step: str, line: str, players: list[str], me: str | None) -> Any:
        game = MafiaCodeGame(num_players=len(players))
        cards = _read_cards(game, [t for t in line.replace(",", " ").split() if t])
        size = game.config.hand_sizes()[0]
        if len(cards) != size or len(set(cards)) != size:
            raise DeduceError(f"a hand is {size} different cards; got {len(set(cards))}")
        return cards

    def new_log(self, players: list[str], me: str | None, answers: Mapping[str, Any]) -> dict[str, Any]:
        events = [] if me is None else [{"type": "hand", "player": me, "cards": list(answers["hand"])}]
        return {**self.header(players, me), "events": events}

    # -- lines -------------------------------------------------------------------------------
    def read(self, session: GameAssistant, word: str, rest: list[str]) -> list[dict[str, Any]] | None:
        game = session.game
        assert isinstance(game, MafiaCodeGame)
        cfg = game.config
        if word in ("code", "roll", "c"):
            roller, i = session.player(rest, 0)
            if len(rest) < i + 3:
                raise DeduceError("usage: code WHO COLOUR LETTER N (or one count per player)")
            colour = match_name(rest[i], cfg.colours, "colour")
            letter = match_name(rest[i + 1], cfg.letters, "letter")
            numbers = rest[i + 2 :]
            if not all(t.isdigit() for t in numbers):
                raise DeduceError(f"counts are whole numbers, not {' '.join(numbers)!r}")
            counts = [int(t) for t in numbers]
            if len(counts) == 1:
                written = {roller: counts[0]}
            elif len(counts) == cfg.num_players:
                written = dict(zip(cfg.names, counts, strict=True))
            else:
                raise DeduceError(
                    f"give the roller's count, or one count per player ({cfg.num_players}); got {len(counts)}"
                )
            return [{"type": "code", "roller": roller, "colour": colour, "letter": letter, "counts": written}]
        if word in ("hit", "miss", "guess"):
            by, i = session.player(rest, 0)
            target, j = session.player(rest, i)
            tail = rest[j:]
            if word == "guess":
                if not tail or tail[-1].lower() not in _HIT | _MISS:
                    raise DeduceError("usage: guess BY TARGET CARD hit|miss")
                hit, tail = tail[-1].lower() in _HIT, tail[:-1]
            else:
                hit = word == "hit"
            cards = _read_cards(game, tail)
            if len(cards) != 1:
                raise DeduceError(f"a guess names one card, got {len(cards)}")
            return [{"type": "guess", "by": by, "target": target, "card": cards[0], "hit": hit}]
        if word == "hand":
            who, i = session.player(rest, 0)
            return [{"type": "hand", "player": who, "cards": _read_cards(game, rest[i:])}]
        return None

    def event_text(self, game: Game, obs: Observation, index: int) -> str:
        """The event in the game's own words (its text module, as ``deduce play`` says it)."""
        return view_event_text(game, obs, index)

    def phrase(self, game: Game, obs: Observation) -> Phrase | None:
        """``why``'s words: the game's text module, citing each event as it is said."""
        return view_phrase(game, obs)

    # -- advice ------------------------------------------------------------------------------
    def answer_lines(self, session: GameAssistant, marginals: Marginals) -> list[str]:
        game, obs = session.game, session.obs
        assert isinstance(game, MafiaCodeGame) and isinstance(obs, MafiaCodeObservation)
        p, deck, names = marginals.p, game.deck, game.config.names
        size = game.config.hand_sizes()[0]
        lines = []
        for q in range(game.num_players):
            if q == obs.player:
                continue
            shown = set(obs.revealed[q])
            sure = [c for c in range(len(deck)) if p[c, q] == 1.0 and c not in shown]
            maybe = int(np.count_nonzero((p[:, q] > 0) & (p[:, q] < 1)))
            left = size - len(shown) - len(sure)
            known = f"certainly {', '.join(deck.names(sure))}; " if sure else ""
            lines.append(
                f"{names[q]}: {len(shown)} revealed; {known}{left} more among {maybe} possible card{'s' * (maybe != 1)}"
            )
        guess = best_guess(game, obs, p)
        if guess is not None:
            q, c, hit = guess
            how = "exact" if marginals.exact else "approximate"
            safe = "SAFE - certain hit" if hit == 1.0 else f"hits {100 * hit:.1f}% of the time ({how})"
            lines.append(f"guess: {names[q]} holds {deck[c].name} - {safe}")
        return lines


def _read_cards(game: MafiaCodeGame, tokens: Sequence[str]) -> list[str]:
    """Cards as colour-letter pairs of tokens ("red b", "r b"), or one token naming a card whole
    ("redb"). Pairs are read by die face, so "blu e" is blue E, not any card starting "blue"."""
    cfg = game.config
    whole = {normalise_name(c.name): c.name for c in game.deck}
    out: list[str] = []
    i = 0
    while i < len(tokens):
        if normalise_name(tokens[i]) in whole:
            out.append(whole[normalise_name(tokens[i])])
            i += 1
            continue
        if i + 1 >= len(tokens):
            raise DeduceError(f"a card is a colour and a letter, e.g. 'red b'; {tokens[i]!r} has no letter")
        colour = match_name(tokens[i], cfg.colours, "colour")
        letter = match_name(tokens[i + 1], cfg.letters, "letter")
        out.append(game.deck[game.card_id(cfg.colours.index(colour), cfg.letters.index(letter))].name)
        i += 2
    return out


#: the adapter ``deduce assist mafia-code`` uses (:func:`deduce.apps.assist.session.adapter_for`).
ADAPTER = MafiaCodeAdapter()
