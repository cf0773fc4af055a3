"""One seat's mirror of a Speed Clue game: protocol messages in, :class:`ClueObservation` out.

The client has no Speed Clue logic of its own: it rebuilds, from the messages, exactly the
observation our engine would give this seat (same events, same card ids, the protocol's rules
as a :class:`ClueConfig`), asks an ordinary Clue agent, and maps the agent's action back to a
reply. The mirror also knows the protocol's rules the engine does not enforce (no repeated
suggestion, no accusing a card one holds or was shown, the forced accusation, accusing only
after suggesting), so it offers the agent only actions that keep the bot in the contest, and
has a cheap, always-legal fallback when the agent's answer is late or not allowed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from deduce.apps.speedclue.protocol import (
    AccusationNotice,
    AccuseReply,
    AccuseRequest,
    CardCodes,
    DisproveRequest,
    ProtocolError,
    Reply,
    Reset,
    ShowReply,
    SuggestionNotice,
    SuggestReply,
    SuggestRequest,
    speedclue_config,
)
from deduce.games.base import Action, Event
from deduce.games.clue.rules import (
    Accusation,
    Accuse,
    ClueGame,
    ClueObservation,
    Dealt,
    EndTurn,
    Show,
    Suggest,
    Suggestion,
    refute_order,
)

__all__ = ["Mirror", "Request"]

Request = SuggestRequest | DisproveRequest | AccuseRequest
IdTriple = tuple[int, int, int]


class Mirror:
    """What seat ``reset.seat`` has seen of the current game, in our engine's terms."""

    def __init__(self, reset: Reset) -> None:
        self.game = ClueGame(speedclue_config(reset.players))
        self.codes = CardCodes(self.game)
        self.seat = reset.seat
        self.players = reset.players
        self.hand: tuple[int, ...] = tuple(sorted(self.codes.ids(reset.cards)))
        self.events: list[Event] = [Dealt(self.seat, self.hand)]
        self.eliminated: set[int] = set()
        #: every triple suggested in this game, by anyone: the client never repeats one (the
        #: contest forbids repeating a suggestion; avoiding others' too is the safe reading).
        self.suggested: set[IdTriple] = set()
        self.shown_to_me: set[int] = set()
        self.turn_player = 0
        self.finished = False
        #: my suggestion this turn, once its broadcast has arrived (the accuse step follows).
        self.last_own: Suggestion | None = None
        self._triples: tuple[IdTriple, ...] = tuple(self.game.triples())

    # -- updates from the broadcasts ------------------------------------------------------
    def update(self, message: SuggestionNotice | AccusationNotice) -> Event:
        """Record a broadcast; returns the engine event it stands for."""
        if isinstance(message, AccusationNotice):
            event: Event = Accusation(message.player, self.codes.ids(message.cards), message.correct)
            self._check_seat(message.player)
            if message.correct:
                self.finished = True
            else:
                self.eliminated.add(message.player)
            self.events.append(event)
            return event
        return self._suggestion(message)

    def _check_seat(self, seat: int) -> None:
        if not 0 <= seat < self.players:
            raise ProtocolError(f"seat {seat} does not exist in a {self.players}-player game")

    def _suggestion(self, message: SuggestionNotice) -> Suggestion:
        by, d = message.player, message.disprover
        self._check_seat(by)
        cards: IdTriple = self.codes.ids(message.cards)  # type: ignore[assignment]
        n = self.players
        order = refute_order(by, n)
        if d is None:
            passed, refuters, shown = tuple(order), (), ()
        else:
            if d not in order:
                raise ProtocolError(f"seat {d} cannot disprove its own or a missing seat's suggestion")
            passed = tuple(order[: order.index(d)])
            card = self.codes.id(message.shown) if message.shown is not None else None
            if d == self.seat:
                mine = [c for c in cards if c in self.hand]
                if card is None and len(mine) == 1:
                    card = mine[0]
                if card is None or card not in self.hand:
                    raise ProtocolError(f"I (seat {d}) am said to have disproved {message.cards} with a card I do not hold")
            if by == self.seat and card is None:
                raise ProtocolError("the card shown to me is missing from my own suggestion's broadcast")
            refuters, shown = (d,), (card,)
            if by == self.seat:
                self.shown_to_me.add(card)  # type: ignore[arg-type]
        if self.seat in passed and any(c in self.hand for c in cards):
            raise ProtocolError(f"I (seat {self.seat}) am said to have passed on {message.cards} but hold one of them")
        event = Suggestion(by, cards, passed, refuters, shown)
        self.suggested.add(cards)
        self.turn_player = by
        self.last_own = event if by == self.seat else None
        self.events.append(event)
        return event

    def turn_over(self) -> None:
        """My accuse step is answered: the turn in progress is over."""
        self.last_own = None

    # -- what the agent sees ----------------------------------------------------------------
    @property
    def turns(self) -> int:
        """Completed turns: suggestions so far, not counting the one of the turn in progress."""
        count = sum(1 for e in self.events if isinstance(e, Suggestion))
        return count - 1 if self.last_own is not None else count

    def known_cards(self) -> set[int]:
        """Cards I hold or was shown: never in the envelope, so never accused."""
        return set(self.hand) | self.shown_to_me

    def accusable(self) -> list[IdTriple]:
        known = self.known_cards()
        return [t for t in self._triples if not known.intersection(t)]

    def forced_accusation(self) -> IdTriple | None:
        """The triple I must accuse now: my suggestion was disproved by nobody and named no
        card I hold or was shown, so it is the envelope (answering ``-`` disqualifies)."""
        own = self.last_own
        if own is None or own.refuters or self.known_cards().intersection(own.cards):
            return None
        return own.cards  # type: ignore[return-value]

    def legal_actions(self, request: Request) -> tuple[Action, ...]:
        """The engine's actions the protocol allows now. On my turn these include accusations,
        as in the engine: the client then suggests that very triple and accuses after it."""
        if isinstance(request, DisproveRequest):
            named = self.codes.ids(request.cards)
            options = tuple(Show(c) for c in named if c in self.hand)
            if not options:
                raise ProtocolError(f"asked to disprove {request.cards} holding none of them")
            return options
        accusations: list[Action] = [Accuse(t) for t in self.accusable()]
        if isinstance(request, AccuseRequest):
            forced = self.forced_accusation()
            if forced is not None:
                return (Accuse(forced),)
            return (EndTurn(), *accusations)
        suggestions: list[Action] = [Suggest(t) for t in self._triples if t not in self.suggested]
        return (*suggestions, *accusations)

    def observation(self, request: Request | None = None) -> ClueObservation:
        """The engine's observation for this seat; acting (with legal actions) for a request."""
        cfg = self.game.config
        to_refute = None
        if isinstance(request, DisproveRequest):
            to_refute = (request.player, self.codes.ids(request.cards))
        return ClueObservation(
            game=self.game.name,
            player=self.seat,
            num_players=self.players,
            events=tuple(self.events),
            current_player=self.seat if request is not None else self.turn_player,
            legal_actions=self.legal_actions(request) if request is not None else (),
            terminal=self.finished,
            names=cfg.names,
            hand=self.hand,
            hand_sizes=cfg.hand_sizes(),
            extra_size=cfg.extra_size(),
            eliminated=tuple(sorted(self.eliminated)),
            to_refute=to_refute,
            barred_room=None,
            turn=self.turns,
        )

    # -- actions -> replies -----------------------------------------------------------------
    def reply(self, request: Request, action: Action, legal: Sequence[Action] | None = None) -> Reply | None:
        """The reply for the agent's ``action``, or ``None`` if the protocol does not allow it."""
        legal = self.legal_actions(request) if legal is None else legal
        if action not in legal:
            return None
        if isinstance(action, Show):
            return ShowReply(self.codes.code(action.card))
        if isinstance(action, EndTurn):
            return AccuseReply(None)
        if isinstance(action, Accuse) and isinstance(request, AccuseRequest):
            return AccuseReply(self._codes3(action.cards))
        if isinstance(action, Accuse):  # on my turn: suggest the triple, accuse right after
            if tuple(action.cards) in self.suggested:
                return None
            return SuggestReply(self._codes3(action.cards))
        if isinstance(action, Suggest):
            return SuggestReply(self._codes3(action.cards))
        return None

    def _codes3(self, cards: Sequence[int]) -> tuple[str, str, str]:
        a, b, c = self.codes.codes(tuple(cards))
        return (a, b, c)

    def fallback(self, request: Request, wanted: Action | None, rng: np.random.Generator) -> Reply:
        """A legal reply without the agent: the closest allowed suggestion to what it wanted,
        the card this suggester has already seen from me, or the forced accusation / ``-``."""
        if isinstance(request, DisproveRequest):
            options = [a.card for a in self.legal_actions(request) if isinstance(a, Show)]
            seen = {s for e in self.events if isinstance(e, Suggestion) and e.by == request.player
                    for r, s in zip(e.refuters, e.shown, strict=True) if r == self.seat and s is not None}
            pick = next((c for c in options if c in seen), options[0])
            return ShowReply(self.codes.code(pick))
        if isinstance(request, AccuseRequest):
            forced = self.forced_accusation()
            return AccuseReply(None if forced is None else self._codes3(forced))
        free = [t for t in self._triples if t not in self.suggested]
        if not free:
            raise ProtocolError("every suggestion has been made: none is left that is not a repeat")
        target = tuple(wanted.cards) if isinstance(wanted, Suggest | Accuse) else None
        if target is not None:
            best = max(sum(a == b for a, b in zip(t, target, strict=True)) for t in free)
            free = [t for t in free if sum(a == b for a, b in zip(t, target, strict=True)) == best]
        return SuggestReply(self._codes3(free[int(rng.integers(len(free)))]))
