"""Time-indexed knowledge for Alibi (Adlung): the game as a sequence of epochs.

Why: the static knowledge base of :meth:`AlibiAdlungGame.knowledge` turns a void ("held no
card matching these suspects *then*") into a bound on the *current* hand, a sound relaxation
that is not the exact posterior. Here every draw, lay, exchange, bribe, conviction and reshuffle
is one epoch step (a :class:`~deduce.constraints.Transfer` with the frame rule), each void is a
``Count(..., 0)`` at the epoch it was proven, and a hand dealt without the all-special redraw
is a ``Count(specials, p, <= hand_size - 1)`` at epoch 0. A uniform measure on the worlds of
this knowledge base is the exact posterior (every card order equally likely; the players'
choices among legal actions carry no weight).

Three views of one walk over the events (:func:`history`):

* :func:`timed_knowledge`: the knowledge base (for ``cpsat`` and ``chain``);
* :func:`true_history`: the real world of every epoch (what the property tests check);
* :func:`timeline`: the same facts arranged per hidden hand (draws, reveals, voids, by
  reshuffle cohort) for the dedicated exact counter ``solvers.timeline``, which counts
  the worlds of :func:`timed_knowledge` without enumerating them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from math import factorial
from typing import TYPE_CHECKING

import numpy as np

from deduce.constraints import At, Constraint, Count, NotAt, Op, Transfer
from deduce.games.base import Event, Observation, own_observation
from deduce.histories import Timeline
from deduce.knowledge import KnowledgeBase

if TYPE_CHECKING:
    from deduce.games.alibi_adlung.rules import AlibiAdlungGame, AlibiAdlungState

__all__ = ["Move", "History", "Timeline", "history", "timed_knowledge", "true_history", "timeline", "cohort_facts",
           "face_of"]


@dataclass(frozen=True)
class Move:
    """``count`` cards go from ``src`` to ``dst`` in one epoch step; ``cards`` when the
    observer knows which (``None``: a hidden draw)."""

    src: int
    dst: int
    count: int
    cards: tuple[int, ...] | None = None


@dataclass(frozen=True)
class History:
    """The epoch structure of a game so far (public: the same for every observer).

    ``steps[e]``: the moves between epochs ``e`` and ``e + 1``; ``voids``: ``(epoch, player,
    features)``, the player held none of ``features`` at that epoch; ``openers``: players whose
    dealt hand was all special cards and redrawn; ``sizes0``/``deck0``: hand and deck sizes at
    epoch 0 (after the deal); ``known0``: ``(card, seat)`` of the dealt cards the events show.
    """

    steps: tuple[tuple[Move, ...], ...]
    voids: tuple[tuple[int, int, frozenset[str]], ...]
    openers: frozenset[int]
    sizes0: tuple[int, ...]
    deck0: int
    known0: tuple[tuple[int, int], ...]

    @property
    def epochs(self) -> int:
        """Epoch 0 is the deal; one more per step."""
        return len(self.steps) + 1


def history(game: AlibiAdlungGame, events: Iterable[Event]) -> History:
    """Walk ``events`` (any player's view, or the full log) into epoch steps.

    A reshuffle happens inside a draw (the deck ran out): the cards drawn before it come from
    the old deck, so the draw is split around the reshuffle step.
    """
    from deduce.games.alibi_adlung.rules import (
        Bribed,
        Convicted,
        Dealt,
        Drew,
        Exchanged,
        LaidAlibi,
        LaidEvidence,
        LaidEye,
        Passed,
        Reshuffled,
    )

    n = game.num_players
    deck_loc, discard_loc, table_loc = n, n + 1, n + 2
    sizes0 = [0] * n
    known0: list[tuple[int, int]] = []
    steps: list[tuple[Move, ...]] = []
    voids: list[tuple[int, int, frozenset[str]]] = []
    openers: set[int] = set()
    deck_size = game.config.num_cards
    table: list[int] = []
    pending: tuple[int, tuple[int, ...]] | None = None  # (old deck left, reshuffled pile)
    for e in events:
        if isinstance(e, Dealt):
            sizes0[e.player] = e.size or len(e.cards)
            deck_size -= sizes0[e.player]
            known0 += [(int(c), e.player) for c in e.cards]
            continue
        if isinstance(e, Reshuffled):
            pending = (deck_size, tuple(e.cards))
        elif isinstance(e, Drew):
            cards = tuple(e.cards) if e.cards else None
            first = e.count
            if pending is not None:
                first = min(pending[0], e.count)
            if first:
                steps.append((Move(deck_loc, e.player, first, cards[:first] if cards else None),))
                deck_size -= first
            if pending is not None:
                pile = pending[1]
                steps.append((Move(discard_loc, deck_loc, len(pile), pile),))
                deck_size = len(pile)
                pending = None
                rest = e.count - first
                if rest:
                    steps.append((Move(deck_loc, e.player, rest, cards[first:] if cards else None),))
                    deck_size -= rest
        elif isinstance(e, Exchanged):
            if e.reason == "instead" and e.void:
                voids.append((len(steps), e.player, frozenset(e.void)))
            if e.reason == "opening":
                openers.add(e.player)
            steps.append((Move(e.player, discard_loc, len(e.cards), tuple(e.cards)),))
        elif isinstance(e, Passed):
            if e.void:
                voids.append((len(steps), e.player, frozenset(e.void)))
        elif isinstance(e, LaidEvidence | LaidAlibi | LaidEye):
            steps.append((Move(e.player, table_loc, 1, (e.card,)),))
            table.append(e.card)
        elif isinstance(e, Bribed):
            steps.append((Move(e.player, discard_loc, 1, (e.card,)), Move(table_loc, discard_loc, 1, (e.target,))))
            table.remove(e.target)
        elif isinstance(e, Convicted):
            if table:
                steps.append((Move(table_loc, discard_loc, len(table), tuple(sorted(table))),))
            table = []
    deck0 = game.config.num_cards - sum(sizes0)
    return History(tuple(steps), tuple(voids), frozenset(openers), tuple(sizes0), deck0, tuple(known0))


def face_of(game: AlibiAdlungGame, card: int) -> str:
    """A card's face (its feature, or its special kind): what a table log names it by, and what
    copies of one card share."""
    f = game.feature_of[card]
    if f is not None:
        return f
    s = game.special_of[card]
    assert s is not None
    return s.value


def _special_cards(game: AlibiAdlungGame) -> list[int]:
    return [c for c in range(len(game.deck)) if game.special_of[c] is not None]


def timed_knowledge(game: AlibiAdlungGame, observation: Observation, check: object = False) -> KnowledgeBase:
    """The observing player's time-indexed knowledge base (module docstring); the last epoch
    is now."""
    h = history(game, observation.events)
    me = observation.player
    n = game.num_players
    deck_loc, discard_loc, table_loc = n, n + 1, n + 2
    kb = KnowledgeBase(game.deck, game.locations, epochs=h.epochs)
    everything = range(len(game.deck))
    cons: list[Constraint] = [Count(everything, q, size, epoch=0) for q, size in enumerate(h.sizes0)]
    cons += [Count(everything, deck_loc, h.deck0, epoch=0), Count(everything, discard_loc, 0, epoch=0),
             Count(everything, table_loc, 0, epoch=0)]
    cons += [At(c, z, epoch=0) for c, z in h.known0]
    for e, moves in enumerate(h.steps):
        cons.append(Transfer(e, [(m.src, m.dst, m.count) for m in moves]))
        for m in moves:
            for c in m.cards or ():
                cons += [At(c, m.src, epoch=e), At(c, m.dst, epoch=e + 1)]
    for e, p, feats in h.voids:
        if p != me:
            cards = [c for f in sorted(feats) for c in game.cards_of_feature.get(f, ())]
            if cards:
                cons.append(Count(cards, p, 0, epoch=e))
    for p in _redraw_checked(game, h, me):
        cons.append(Count(_special_cards(game), p, game.config.hand_size - 1, Op.LE, epoch=0))
    kb.extend(cons, source="observation", check=check)
    return kb


def _redraw_checked(game: AlibiAdlungGame, h: History, me: int | None) -> list[int]:
    """Players other than ``me`` whose full dealt hand was kept: it was not all special cards
    (only where the engine redraws such a hand itself; a player's choice proves nothing)."""
    cfg = game.config
    if not (cfg.redraw_all_special_hand and cfg.redraw_automatic) or len(_special_cards(game)) < cfg.hand_size:
        return []
    return [p for p in range(game.num_players)
            if p != me and p not in h.openers and h.sizes0[p] == cfg.hand_size]


def true_history(state: AlibiAdlungState) -> np.ndarray:
    """``[epoch, card] -> location`` of the real game (the full event log)."""
    game = state.game
    h = history(game, state.events)
    n = game.num_players
    w = np.full(len(game.deck), n, dtype=np.int64)  # everything not dealt is in the deck
    for c, p in h.known0:
        w[c] = p
    rows = [w.copy()]
    for moves in h.steps:
        for m in moves:
            assert m.cards is not None, "the full log names every moved card"
            w[list(m.cards)] = m.dst
        rows.append(w.copy())
    return np.array(rows)


def timeline(game: AlibiAdlungGame, observation: Observation) -> Timeline:
    """The observer's :class:`Timeline` (see :func:`timed_knowledge` for what is known)."""
    from deduce.games.alibi_adlung.rules import AlibiAdlungObservation

    obs = own_observation(observation, AlibiAdlungObservation, "timeline")
    h = history(game, obs.events)
    me = obs.player
    n = game.num_players
    deck_loc, discard_loc = n, n + 1
    seats = tuple(q for q in range(n) if q != me)
    per: dict[int, list[tuple[object, ...]]] = {q: [("draw", h.sizes0[q], 0)] for q in seats}
    for q in _redraw_checked(game, h, me):
        per[q].append(("notall", frozenset(face_of(game, c) for c in _special_cards(game))))
    voids_at: dict[int, list[tuple[int, frozenset[str]]]] = {}
    for e, p, feats in h.voids:
        if p != me:
            voids_at.setdefault(e, []).append((p, feats))
    cohort = 0
    card_cohort: dict[int, int] = {}
    order = 1
    for e, moves in enumerate(h.steps):
        for p, feats in voids_at.get(e, ()):
            per[p].append(("void", feats))
        for m in moves:
            if m.src == deck_loc and m.dst in per:
                per[m.dst].append(("draw", m.count, cohort))
                order *= factorial(m.count)
            elif m.src == discard_loc and m.dst == deck_loc:
                cohort += 1
                for c in m.cards or ():
                    card_cohort[c] = cohort
            elif m.src in per:
                for c in m.cards or ():
                    per[m.src].append(("reveal", face_of(game, c), card_cohort.get(c, 0)))
    for p, feats in voids_at.get(len(h.steps), ()):
        per[p].append(("void", feats))
    for q in seats:
        order *= factorial(h.sizes0[q])
    table = [c for t in obs.tableaux for c in t] + [c for _, c in obs.alibis] + [c for _, c in obs.eyes]
    known = [(c, me) for c in obs.hand] if me is not None else []
    known += [(c, discard_loc) for c in obs.discard] + [(c, n + 2) for c in table]
    placed = {c for c, _ in known}
    groups: dict[tuple[int, str], list[int]] = {}
    for c in range(len(game.deck)):
        if c not in placed:
            groups.setdefault((card_cohort.get(c, 0), face_of(game, c)), []).append(c)
    keys = sorted(groups)
    types = frozenset(face_of(game, c) for c in range(len(game.deck)))
    return Timeline(
        num_cards=len(game.deck),
        num_locations=len(game.locations),
        deck_loc=deck_loc,
        seats=seats,
        steps=tuple(tuple(per[q]) for q in seats),
        classes=tuple(keys),
        class_cards=tuple(tuple(groups[k]) for k in keys),
        current_cohort=cohort,
        known=tuple(sorted(known)),
        types=types,
        order_factor=order,
    )


def cohort_facts(game: AlibiAdlungGame, observation: Observation) -> list[Constraint]:
    """What the reshuffles prove about the present, for the static knowledge base: each hidden
    hand holds exactly as many cards of each cohort (deal deck or reshuffled pile) as it drew
    from it minus those it showed since, and a hidden card not in the last pile is not in the
    deck. Sound, and most of what the static knowledge base otherwise misses (see
    ``benchmarks.alibi_adlung``'s bias table).
    """
    tl = timeline(game, observation)
    by_cohort: dict[int, list[int]] = {}
    for (cohort, _), cards in zip(tl.classes, tl.class_cards, strict=True):
        by_cohort.setdefault(cohort, []).extend(cards)
    out: list[Constraint] = [NotAt(c, tl.deck_loc) for cohort, cards in sorted(by_cohort.items())
                             if cohort != tl.current_cohort for c in cards]
    for seat, steps in zip(tl.seats, tl.steps, strict=True):
        held: dict[int, int] = {}
        for step in steps:
            if step[0] == "draw":
                held[int(step[2])] = held.get(int(step[2]), 0) + int(step[1])
            elif step[0] == "reveal":
                held[int(step[2])] -= 1
        for cohort, cards in sorted(by_cohort.items()):
            out.append(Count(cards, seat, held.get(cohort, 0)))
    return out
