"""The table-side assistant's Alibi (Mayfair) part: the event lines, their wording and the advice.

Lines (names may be shortened to prefixes of their words, "slim slant morn" for Slim Slant /
Morning; 'me' is you):

* ``ask ASKER TARGET hand|seen|held [NAMES...] N``: a question and its answer N. NAMES are
  cards, sets ("rage"), sub-icons ("morning") or categories ("weapon"); the question is about
  all of their cards together. ``held`` (distinct cards ever held) names none.
* ``pass gave CARDS got CARDS``: the round's pass (your cards out and in; just ``pass`` as a
  spectator).
* ``meld WHO SET``, ``accuse WHO``, ``reveal CARDS`` (the four box cards), ``hand WHO CARDS``.

Cards move between epochs (passes, melds). Through the first pass ``frontier`` counts the
deals exactly (:meth:`AlibiAdapter.exact_grid`, about 0.1 s), so the grid is exact. Later
views are past every exact counter here: the grid's chances come from ``epoch-gibbs``
(:meth:`AlibiAdapter.sampled_grid`: block Gibbs with exact conditionals, 4 chains) when its
chains agree and its stated error is small within a counted budget, labelled with that error
("sampled: each chance within ±0.02 of the exact one (95%) ..."); otherwise each card is spread
over the places it may still be (labelled approximate). Which cards may still be in the box is exact either way. Under the grid: the box's candidates per category,
whether an accusation is safe, and the question the ``sampling`` agent (``agents.alibi.sampling``) would
ask in your seat with its expected information about the box, estimated from sampled deals
(so labelled approximate; seeded, so the same view always gets the same advice).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from agents.alibi.sampling import recommend_question
from deduce.apps.assist.session import GameAdapter, GameAssistant, Marginals
from deduce.apps.assist.text import match_name, read_names, view_event_text, view_phrase
from deduce.errors import DeduceError, NotSupported, TooLarge
from deduce.explain import Phrase
from deduce.games.alibi.log import parse, set_name
from deduce.games.alibi.rules import (
    BOX,
    CATEGORIES,
    MELDS,
    AlibiConfig,
    AlibiGame,
    Ask,
)
from deduce.games.alibi.text import action_text as _action_text
from deduce.games.base import Game, Observation
from deduce.knowledge import KnowledgeBase

__all__ = ["AlibiAdapter", "ADAPTER", "SampledGrid"]


@dataclass(frozen=True)
class SampledGrid:
    """The grid from ``epoch-gibbs``: ``marginals`` (``exact`` False, probabilities scaled as
    the session's approximations are), the stated 95% bound on the largest cell error, the
    largest split R-hat over 4 chains, the sweeps recorded over all chains, and ``label``,
    the words shown with the grid."""

    marginals: Marginals
    error: float
    rhat: float
    sweeps: int
    label: str


def sampled_label(error: float, rhat: float, chains: int) -> str:
    """The grid's label in words for people: the stated error rounded up to two places."""
    shown = max(0.01, math.ceil(error * 100 - 1e-9) / 100)
    return (f"sampled: each chance within \u00b1{shown:.2f} of the exact one (95%); {chains} chains agree "
            f"(split R-hat {rhat:.3f})")

_FAMILIES = {"hand": "hand", "h": "hand", "seen": "seen", "s": "seen", "held": "held"}


class AlibiAdapter(GameAdapter):
    """Mayfair Alibi at a real table: numeric questions, passes, melds and the accusation."""

    game: ClassVar[str] = "alibi"
    help: ClassVar[str] = """\
events (names may be shortened to prefixes of their words; 'me' is you):
  ask ASKER TARGET hand|seen|held [NAMES...] N   a question and its answer N; NAMES are cards,
                          sets, sub-icons or categories (held: none); one card alone: its words
                          joined ('slimslantmorning'), as 'slim slant morning' is a set and a time
  pass gave CARDS got CARDS    the round's pass (your cards out and in; 'pass' as a spectator)
  meld WHO SET                 WHO laid down a set
  accuse WHO                   WHO accused (the game ends)
  reveal CARDS                 the four box cards
  hand WHO CARDS               a whole hand"""
    rules: ClassVar[str] = "the hand sizes, the passes and one box card per category"
    words: ClassVar[tuple[str, ...]] = ("ask", "pass", "gave", "got", "meld", "accuse", "reveal", "hand",
                                        "seen", "held")
    seats: ClassVar[tuple[int, int]] = (3, 6)
    places: ClassVar[Mapping[str, str]] = {BOX: "the box", MELDS: "the melds"}
    #: 78 cards moving between epochs: no exact counter finishes (the grid is approximate).
    countable: ClassVar[bool] = False
    #: the time-indexed CP-SAT backend answers in well under a second; the default order tries
    #: a counter first that does not finish on Alibi's transfers.
    backends: ClassVar[tuple[str, ...] | None] = ("epoch", "cpsat")
    #: the seed of the recommendation's sampled deals and of the grid's chains (one view, one answer).
    seed: ClassVar[int] = 0
    #: the grid's sampler (``epoch-gibbs``) and its counted budget: recorded sweeps per chain at
    #: most (doubling from 50 until the targets are met; given up when the stated error, shrunk
    #: as 1/sqrt(sweeps) to the most, would still be over 1.5 times the target), every block's
    #: DP work metered; the grid is used only when the stated 95% error is at most
    #: ``error_target`` and the split R-hat at most ``rhat_target`` within it (else the even
    #: spread, labelled approximate).
    grid_sampler: ClassVar[Mapping[str, Any]] = {"chains": 4, "samples": 50, "max_samples": 400, "give_up": 1.5}
    #: counted steps the grid's sampler may spend (its block DPs' transitions, swap proposals),
    #: within any budget already running: measured 30M for a full 4-player round-2 view that
    #: converges (5 s on a quiet 2-core machine); past it the even spread stays
    grid_budget: ClassVar[int] = 40_000_000
    error_target: ClassVar[float] = 0.02
    rhat_target: ClassVar[float] = 1.01
    #: on the full deck (78 cards) the session's grid tries the sampler only on views of at most
    #: this many epochs (None: always). Measured at 4 players (seed 0, seat 0): within
    #: :attr:`grid_budget` it converged at rounds 1-2 (1-2 epochs) and at none of rounds 3-10,
    #: where each view spent 3-7 s on it before the even spread (the benchmark's round-4 views
    #: need 800 sweeps per chain, about 100M steps); other player counts are not measured
    grid_max_epochs: ClassVar[int | None] = 2
    #: the deck size :attr:`grid_max_epochs` applies from: the full deck (``AlibiGame``'s 78
    #: cards), where it was measured; reduced decks (the benchmark's enumerable positions) are
    #: small enough for the sampler at any epoch count
    grid_gate_cards: ClassVar[int] = 78
    #: transitions the exact grid's count (``frontier``) may examine, where its default refuses
    #: at 1M: measured on the 185 two-epoch views (after the first pass) of seeded 4-player games
    #: 0-15 at most 2.6M (0.9 s on a quiet 2-core machine), where the sampler took 3 s to give up;
    #: within it all 185 count exactly
    grid_exact_work: ClassVar[int | None] = 4_000_000

    def __init__(self) -> None:
        self._advice: tuple[str, Any] | None = None  # (the view's events as JSON, the advice)

    def parse(self, log: Mapping[str, Any]) -> tuple[Game, Observation]:
        return parse(log)

    def steps(self, me: str | None) -> tuple[str, ...]:
        return () if me is None else ("hand",)

    def prompt(self, step: str, players: list[str], me: str | None) -> str:
        size = AlibiConfig(num_players=len(players)).hand_sizes()[players.index(me or players[0])]
        return f"your hand ({size} cards, e.g. 'slim slant morn, rage m1'):"

    def answer(self, step: str, line: str, players: list[str], me: str | None) -> Any:
        game = AlibiGame(num_players=len(players))
        size = game.config.hand_sizes()[players.index(me or players[0])]
        cards = _cards(game, [t for part in line.split(",") for t in [part.strip()] if t])
        if len(set(cards)) != size:
            raise DeduceError(f"your hand is {size} different cards; got {len(set(cards))}")
        return cards

    def new_log(self, players: list[str], me: str | None, answers: Mapping[str, Any]) -> dict[str, Any]:
        events = [] if me is None else [{"type": "hand", "player": me, "cards": list(answers["hand"])}]
        return {**self.header(players, me), "events": events}

    # -- lines -------------------------------------------------------------------------------
    def read(self, session: GameAssistant, word: str, rest: list[str]) -> list[dict[str, Any]] | None:
        game = session.game
        assert isinstance(game, AlibiGame)
        deck = game.deck
        if word == "pass":
            if session.me is None:
                if rest:
                    raise DeduceError("a spectator's pass line is just 'pass'")
                return [{"type": "pass"}]
            words = [t.lower() for t in rest]
            if "gave" not in words or "got" not in words or words.index("gave") > words.index("got"):
                raise DeduceError("usage: pass gave CARDS got CARDS")
            cut = words.index("got")
            gave = read_names(rest[words.index("gave") + 1 : cut], [c.name for c in deck], "card")
            got = read_names(rest[cut + 1 :], [c.name for c in deck], "card")
            return [{"type": "pass", "gave": gave, "got": got}]
        if word == "reveal":
            return [{"type": "reveal", "box": read_names(rest, [c.name for c in deck], "card")}]
        if word not in ("ask", "meld", "accuse", "hand"):
            return None
        who, i = session.player(rest, 0)
        tail = rest[i:]
        if word == "accuse":
            if tail:
                raise DeduceError("usage: accuse WHO")
            return [{"type": "accuse", "player": who}]
        if word == "meld":
            sets = [set_name(game, s) for s in range(len(game.set_cards))]
            return [{"type": "meld", "player": who, "set": match_name(tail, sets, "set")}]
        if word == "hand":
            return [{"type": "hand", "player": who, "cards": read_names(tail, [c.name for c in deck], "card")}]
        target, j = session.player(rest, i)
        tail = rest[j:]
        if len(tail) < 2 or tail[0].lower() not in _FAMILIES or not tail[-1].isdigit():
            raise DeduceError("usage: ask ASKER TARGET hand|seen|held [NAMES...] N")
        family = _FAMILIES[tail[0].lower()]
        labels = game.canonical_sets()
        named = read_names(tail[1:-1], [label for label, _ in labels], "name") if tail[1:-1] else []
        cards = sorted({c for label, ids in labels if label in named for c in ids})
        return [{"type": "ask", "asker": who, "target": target, "family": family,
                 "cards": [deck[c].name for c in cards], "answer": int(tail[-1])}]

    def event_text(self, game: Game, obs: Observation, index: int) -> str:
        """The event in the game's own words (its text module, as ``deduce play`` says it)."""
        return view_event_text(game, obs, index)

    def phrase(self, game: Game, obs: Observation) -> Phrase | None:
        """``why``'s words: the game's text module, citing each event as it is said."""
        return view_phrase(game, obs)

    # -- the grid ----------------------------------------------------------------------------
    def sampled_grid(self, kb: KnowledgeBase, possible: np.ndarray | None = None) -> SampledGrid | None:
        """The grid's chances from ``epoch-gibbs`` with the adapter's seed and budget
        (:attr:`grid_sampler`, :attr:`grid_budget`), or ``None`` when its chains do not meet
        :attr:`error_target` and :attr:`rhat_target` within them, the sampler cannot take this
        view, or the budget (its own or the active meter's) runs out. ``possible`` (the exact possible places, ``[card, loc]``): cells outside
        it are set to 0 and a card with one place left to 1, so 'certain' and 'impossible' stay
        exact."""
        from solvers.block_sampler import BlockGibbs  # lazy: the assistant starts without numba
        from solvers.budget import active, allowance, metered

        g = BlockGibbs(seed=self.seed, rhat_target=self.rhat_target, error_target=self.error_target,
                       **dict(self.grid_sampler))
        try:
            with allowance(self.grid_budget) if active() is not None else metered(self.grid_budget):
                est = g.estimate(kb)
        except (NotSupported, TooLarge, ValueError):
            return None
        d = est.diagnostics
        if not (d.converged and d.rhat <= self.rhat_target and d.error <= self.error_target):
            return None
        p = np.array(est.marginals, dtype=float)
        if possible is not None:
            allowed = np.asarray(possible) > 0
            p[~allowed] = 0.0
            one = allowed.sum(axis=1) == 1
            p[one] = allowed[one].astype(float)
        rows = p.sum(axis=1, keepdims=True)
        if not bool((rows > 0).all()):
            return None
        label = sampled_label(d.error, d.rhat, d.chains)
        return SampledGrid(Marginals.approximated(p / rows, label), d.error, d.rhat, d.samples, label)

    def exact_grid(self, kb: KnowledgeBase) -> Marginals | None:
        """The exact grid from ``frontier`` where it takes the view (up to 160 cards times
        epochs: the full deck through the first pass, counted in 0.03-0.9 s, see
        :attr:`grid_exact_work`), else None (it refuses larger views before any work, or the
        active meter runs out)."""
        from solvers.frontier import FrontierSolver

        try:
            tally = FrontierSolver(max_work=self.grid_exact_work).tallies(kb)
        except (NotSupported, TooLarge):
            return None
        return Marginals.counted(tally) if tally.total else None

    def grid(self, kb: KnowledgeBase, possible: Callable[[], np.ndarray]) -> Marginals | None:
        """Exact where ``frontier`` counts the view (:meth:`exact_grid`), else ``epoch-gibbs``'s
        grid with its label when :meth:`sampled_grid` gives one within the epochs it converges
        in (:attr:`grid_max_epochs`), else None (the session spreads each card evenly)."""
        exact = self.exact_grid(kb)
        if exact is not None:
            return exact
        if self.grid_max_epochs is not None and kb.epochs > self.grid_max_epochs and kb.num_cards >= self.grid_gate_cards:
            return None  # out of reach within the budget (grid_max_epochs)
        grid = self.sampled_grid(kb, possible())
        return None if grid is None else grid.marginals

    # -- advice ------------------------------------------------------------------------------
    def answer_lines(self, session: GameAssistant, marginals: Marginals) -> list[str]:
        game, kb = session.game, session.kb
        assert isinstance(game, AlibiGame) and kb is not None
        box = marginals.p[:, kb.loc(BOX)]
        lines = ["box (cards that may still be there, exact):"]
        sure = []
        for k, cat in enumerate(CATEGORIES):
            possible = [c for c in game.categories[k] if box[c] > 0]
            shown = ", ".join(game.deck[c].name for c in possible[:6]) + (", ..." if len(possible) > 6 else "")
            lines.append(f"  {cat}: {len(possible)} - {shown}")
            if len(possible) == 1:
                sure.append(game.deck[possible[0]].name)
        if len(sure) == len(CATEGORIES):
            lines.append(f"accuse: SAFE - the box is {', '.join(sure)}")
        else:
            lines.append(f"accuse: not safe yet ({len(sure)} of {len(CATEGORIES)} categories are certain)")
        advice = self.advice(session) if len(sure) < len(CATEGORIES) else None  # else: accuse
        if advice is not None:
            q = advice.question
            lines.append(
                f"ask: {question_words(game, q, session.obs)} - about {advice.bits:.2f} bits expected about the box "
                f"(approximate: the sampling agent's question, scored on {advice.worlds} sampled deals)"
            )
        return lines

    def advice(self, session: GameAssistant) -> Any:
        """The ``sampling`` agent's question in the logging player's seat and its value
        (``agents.alibi.sampling.QuestionAdvice``); ``None`` for a spectator, once the game is over (or
        past its last round). Kept for the view it was
        computed on."""
        obs, game = session.obs, session.game
        if obs is None or obs.player is None or getattr(obs, "phase", "") not in ("meld", "ask"):
            return None
        if isinstance(game, AlibiGame) and getattr(obs, "round", 1) > game.config.max_rounds:
            return None  # past the last round the first player must accuse: no question is legal
        key = json.dumps(session.log(), sort_keys=True)
        if self._advice is None or self._advice[0] != key:
            self._advice = (key, recommend_question(session.game, obs, seed=self.seed))
        return self._advice[1]


def _cards(game: AlibiGame, parts: list[str]) -> list[str]:
    """Cards from comma-separated names (a prefix of each word will do)."""
    return [match_name(part, [c.name for c in game.deck], "card") for part in parts]


#: the adapter ``deduce assist alibi`` uses (:func:`deduce.apps.assist.session.adapter_for`).
ADAPTER = AlibiAdapter()


def question_words(game: AlibiGame, question: Ask, obs: Observation | None = None) -> str:
    """The question as the game's text module words it, after "ask: " ("bob has seen Rage")."""
    return _action_text(game, question, obs).removeprefix("ask ")
