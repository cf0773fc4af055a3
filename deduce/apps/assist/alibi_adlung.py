"""The table-side assistant's Alibi (Adlung) part: the event lines, their wording and the advice.

Lines (cards are faces: an evidence feature such as ``glasses`` or ``long_hair``, or ``alibi``,
``eye``, ``bribe``; prefixes will do, 'me' is you; ``got FACES`` lists what you drew, and only
on your own lines; the refill draw and a reshuffle are implied):

* ``lay WHO FACE [got FACES]``: evidence laid (the hand is refilled after it).
* ``alibi WHO SUSPECT [got ...]``, ``bribe WHO VICTIM FACE [got ...]``, ``eye WHO``, and
  ``stop WHO [got ...]`` when a Watchful Eye's extra plays end early.
* ``exchange WHO FACES [got ...]``: an exchange *instead* of a play (so WHO held no evidence
  for an uncovered suspect); ``swap WHO FACE [got ...]``: the optional single exchange;
  ``opening WHO FACES [got ...]``: a dealt hand of special cards redrawn.
* ``convict WHO SUSPECT [new SUSPECT]``: WHO named the culprit; the new suspect of the row.

The grid (one row per copy: which copy is which is the log's bookkeeping, see
:mod:`deduce.games.alibi_adlung.log`) shows where each card may be, from the static knowledge
base, a sound relaxation: a card marked certain or impossible is so (the relaxation may miss
some), and its spread is labelled approximate. Under it, the exact posterior
(``solvers.timeline`` on the time-indexed knowledge, summed over the readings of any
ambiguous reveal; labelled approximate, with the reason, when it cannot be counted; a warning
instead when the exact model finds the events contradict each other) of how many copies of
each face each opponent and the deck hold; the uncovered suspects with what they still lack
and where it is; and, for a seated player, the ``counting`` agent's best play and its value
(its expected points against the average opponent: a heuristic on exact marginals).

The counter and the agent are imported by name when first needed (the core imports no solver
or agent module); without them the face table is approximate and there is no best play.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np

from agents.alibi_adlung.counting import CountingAgent
from deduce.apps.assist.session import GameAdapter, GameAssistant, Marginals
from deduce.apps.assist.text import match_name, read_names, view_event_text, view_phrase
from deduce.errors import DeduceError, LogError, NotSupported, TooLarge
from deduce.explain import Phrase
from deduce.games.alibi_adlung.history import face_of, timeline
from deduce.games.alibi_adlung.log import (
    TableObservation,
    branches,
    faces,
    flat,
    parse,
    suspect_name,
)
from deduce.games.alibi_adlung.rules import (
    DECK,
    DISCARD,
    TABLE,
    AlibiAdlungConfig,
    AlibiAdlungGame,
    AlibiAdlungObservation,
    Exchange,
    PlayAlibi,
    PlayBribe,
    PlayEvidence,
    PlayEye,
    Special,
)
from deduce.games.base import Action, Game, Observation
from solvers.timeline import TimelineCounter

__all__ = ["AlibiAdlungAdapter", "ADAPTER", "Uncounted", "face_posterior"]

_LAYS = ("lay", "alibi", "bribe", "eye", "stop", "exchange", "swap", "opening", "convict")


@dataclass(frozen=True)
class Uncounted:
    """Why :func:`face_posterior` has no exact answer, in words (``reason``). ``contradiction``:
    the exact time-indexed model finds no deal at all, so the events contradict each other
    (the static check made when they were added missed it) and no numbers should be shown."""

    reason: str
    contradiction: bool = False


def face_posterior(game: AlibiAdlungGame, data: Mapping[str, Any], obs: TableObservation,
                   limit: int = 64) -> tuple[dict[str, np.ndarray], int] | Uncounted:
    """Exact expected copies of each face at each location now, and the number of readings
    summed; or why it cannot be counted (:class:`Uncounted`: too many readings of ambiguous
    reveals, too many states for the counter, or no deal at all).

    Each reading's worlds are counted by ``solvers.timeline`` and weighed by its
    multiplicity (:mod:`deduce.games.alibi_adlung.log`): P(x) = sum_b w_b N_b(x) / sum_b w_b N_b.
    """
    counter = TimelineCounter()
    if obs.ambiguous:
        try:
            readings = [b.observation for b in branches(data, limit=limit)]
        except TooLarge as exc:
            return Uncounted(str(exc))
        except LogError as exc:
            return Uncounted(f"no reading of the ambiguous reveals fits the rules ({exc})", contradiction=True)
    else:
        readings = [obs]
    locs = len(game.locations)
    num = {f: [0] * locs for f in faces(game)}
    den = 0
    for reading in readings:
        try:
            post = counter.posterior(timeline(game, flat(reading)))
        except TooLarge as exc:
            return Uncounted(f"the exact counter gave up ({exc})")
        den += reading.weight * post.total
        for c, row in enumerate(post.cells):
            acc = num[face_of(game, c)]
            for z, v in enumerate(row):
                acc[z] += reading.weight * v
    if den == 0:
        return Uncounted("no deal fits them when every draw, exchange and reshuffle is followed in order",
                         contradiction=True)
    return {f: np.array([float(Fraction(v, den)) for v in row]) for f, row in num.items()}, len(readings)


class _Advisor(CountingAgent):
    """The ``counting`` agent fed the assistant's marginals instead of its own count."""

    def __init__(self, marginals: np.ndarray) -> None:
        super().__init__()
        self._given = marginals

    def marginals(self, obs: AlibiAdlungObservation) -> np.ndarray:
        return self._given


class AlibiAdlungAdapter(GameAdapter):
    """Alibi (Adlung) at a real table: lays, special cards, exchanges and convictions, in faces."""

    game: ClassVar[str] = "alibi-adlung"
    help: ClassVar[str] = """\
events (cards are faces - glasses, long_hair, alibi, eye, bribe ...; prefixes will do; 'me' is you;
'got FACES' says what you drew, on your own lines only; refills and reshuffles are implied):
  lay WHO FACE [got FACES]           WHO laid evidence
  alibi WHO SUSPECT [got FACES]      WHO covered a suspect (s1 ... s12, or fat+male+...)
  bribe WHO VICTIM FACE [got FACES]  WHO bribed away VICTIM's evidence
  eye WHO                            a Watchful Eye; 'stop WHO [got FACES]' if it ends early
  exchange WHO FACES [got FACES]     an exchange instead of a play (WHO held no evidence)
  swap WHO FACE [got FACES]          the optional single exchange
  opening WHO FACES [got FACES]      an opening hand of special cards redrawn
  convict WHO SUSPECT [new SUSPECT]  WHO named the culprit; the suspect who joins the row"""
    rules: ClassVar[str] = "the copies of each card, the hand sizes and the exchanges instead of a play"
    words: ClassVar[tuple[str, ...]] = (*_LAYS, "got", "new", *faces(AlibiAdlungGame()))
    seats: ClassVar[tuple[int, int]] = (2, 5)
    places: ClassVar[Mapping[str, str]] = {DECK: "the deck", DISCARD: "the discard pile", TABLE: "the table"}
    #: the grid's knowledge base is a relaxation: its count would be exact for it but not the
    #: posterior, so the grid shows where cards may be; the exact posterior is under it.
    countable: ClassVar[bool] = False
    approximate: ClassVar[str] = (
        "the grid: places still possible, spread evenly; a sound simplification that forgets when cards moved"
    )

    def parse(self, log: Mapping[str, Any]) -> tuple[Game, Observation]:
        return parse(log)

    # -- setup -------------------------------------------------------------------------------
    def steps(self, me: str | None) -> tuple[str, ...]:
        return ("row",) if me is None else ("row", "hand")

    def prompt(self, step: str, players: list[str], me: str | None) -> str:
        cfg = AlibiAdlungConfig(num_players=max(2, len(players)))
        if step == "row":
            return (f"the {cfg.row_size} face-up suspects (s1 to s{len(cfg.suspect_table())}, or a card's features "
                    "joined by '+', e.g. 's1 s5 thin+female+short+dotted+knife s12'):")
        return f"your {cfg.hand_size} cards (faces, e.g. 'glasses knife bribe fat'):"

    def answer(self, step: str, line: str, players: list[str], me: str | None) -> Any:
        game = AlibiAdlungGame(num_players=max(2, len(players)))
        tokens = [t for t in line.replace(",", " ").split() if t]
        if step == "row":
            row = [read_suspect(game, t) for t in tokens]
            if len(set(row)) != game.config.row_size or len(row) != game.config.row_size:
                raise DeduceError(f"the row is {game.config.row_size} different suspects; got {len(set(row))}")
            return row
        hand = read_names(tokens, faces(game), "card")
        if len(hand) != game.config.hand_size:
            raise DeduceError(f"your hand is {game.config.hand_size} cards; got {len(hand)}")
        return hand

    def new_log(self, players: list[str], me: str | None, answers: Mapping[str, Any]) -> dict[str, Any]:
        log = {**self.header(players, me), "row": list(answers["row"])}
        log["events"] = [] if me is None else [{"type": "hand", "cards": list(answers["hand"])}]
        return log

    # -- lines -------------------------------------------------------------------------------
    def read(self, session: GameAssistant, word: str, rest: list[str]) -> list[dict[str, Any]] | None:
        game = session.game
        assert isinstance(game, AlibiAdlungGame)
        if word not in _LAYS:
            return None
        who, i = session.player(rest, 0)
        tail = rest[i:]
        lower = [t.lower() for t in tail]
        extra = "new" if word == "convict" else "got"
        cut = lower.index(extra) if extra in lower else len(tail)
        body, after = tail[:cut], tail[cut + 1:]
        card_names = faces(game)
        event: dict[str, Any] = {"type": word, "player": who}
        if word == "convict":
            if len(body) != 1 or (extra in lower and len(after) != 1):
                raise DeduceError("usage: convict WHO SUSPECT [new SUSPECT]")
            event["suspect"] = read_suspect(game, body[0])
            if extra in lower:
                event["new"] = read_suspect(game, after[0])
            return [event]
        if extra in lower:
            if not after:
                raise DeduceError("'got' needs the faces you drew")
            event["got"] = read_names(after, card_names, "card")
        if word in ("eye", "stop"):
            if body:
                raise DeduceError(f"usage: {word} WHO" + (" [got FACES]" if word == "stop" else ""))
        elif word == "alibi":
            if len(body) != 1:
                raise DeduceError("usage: alibi WHO SUSPECT [got FACES]")
            event["suspect"] = read_suspect(game, body[0])
        elif word == "bribe":
            if not body:
                raise DeduceError("usage: bribe WHO VICTIM FACE [got FACES]")
            victim, j = session.player(body, 0)
            event["victim"] = victim
            event["card"] = _one(body[j:], card_names, "bribe WHO VICTIM FACE [got FACES]")
        elif word in ("lay", "swap"):
            event["card"] = _one(body, card_names, f"{word} WHO FACE [got FACES]")
        else:  # exchange, opening
            if not body:
                raise DeduceError(f"usage: {word} WHO FACES [got FACES]")
            event["type"] = "exchange"
            event["reason"] = "instead" if word == "exchange" else "opening"
            event["cards"] = read_names(body, card_names, "card")
        return [event]

    def event_text(self, game: Game, obs: Observation, index: int) -> str:
        """The event in the game's own words (its text module, as ``deduce play`` says it)."""
        return view_event_text(game, obs, index)

    def phrase(self, game: Game, obs: Observation) -> Phrase | None:
        """``why``'s words: the game's text module, citing each event as it is said."""
        return view_phrase(game, obs)

    # -- advice ------------------------------------------------------------------------------
    def answer_lines(self, session: GameAssistant, marginals: Marginals) -> list[str]:
        game, obs = session.game, session.obs
        assert isinstance(game, AlibiAdlungGame) and isinstance(obs, TableObservation)
        n = game.num_players
        view = flat(obs)
        counted = face_posterior(game, session.log(), obs)
        if isinstance(counted, Uncounted) and counted.contradiction:
            return [f"warning: these events contradict each other under the exact model: {counted.reason}. "
                    "The grid's check, a simplification, missed it; no numbers are shown. Undo the event "
                    "that is wrong ('events' lists them)."]
        if isinstance(counted, Uncounted):
            expect, label = self._relaxed(session, marginals, counted.reason)
        else:
            expect, readings = counted
            label = "exact" + (f", summed over {readings} readings of ambiguous reveals" if readings > 1 else "")
        hidden = [q for q in range(n) if q != obs.player] + [n]
        heads = [game.locations[z] for z in hidden]
        lines = [f"copies of each face not yet seen ({label}):",
                 "  " + " " * 13 + "".join(f"{h[:6]:>7}" for h in heads)]
        for f in faces(game):
            row = expect[f][hidden]
            if row.sum() > 1e-9:
                lines.append(f"  {f:<13}" + "".join(f"{v:7.2f}" for v in row))
        lines += self._suspect_lines(game, view, expect, hidden)
        if obs.player is not None and obs.hand and not obs.terminal:
            lines += self._advice(game, view, expect)
        return lines

    @staticmethod
    def _relaxed(session: GameAssistant, marginals: Marginals, reason: str) -> tuple[dict[str, np.ndarray], str]:
        """Expected copies from the grid's knowledge base (without the reshuffle cohorts once a
        reveal was ambiguous: sound, but a relaxation), counted if the solver can, else its
        spread over the places still possible; the label says why it is not exact."""
        game = session.game
        assert isinstance(game, AlibiAdlungGame)
        try:
            p = np.asarray(session.solver.tallies(session.kb).marginals(), dtype=float)
            label = f"approximate: counted on a sound relaxation, as {reason}"
        except (NotSupported, NotImplementedError, TooLarge):
            p = marginals.p
            label = f"approximate: spread over the places still possible, as {reason}"
        expect = {f: np.zeros(len(game.locations)) for f in faces(game)}
        for c in range(len(game.deck)):
            expect[face_of(game, c)] += p[c]
        return expect, label

    @staticmethod
    def _suspect_lines(game: AlibiAdlungGame, obs: AlibiAdlungObservation, expect: Mapping[str, np.ndarray],
                       hidden: Sequence[int]) -> list[str]:
        """Each row suspect: its features, how many lie on the table, where the missing ones are."""
        need = game.config.convict_distinct
        on_table = {game.feature_of[c] for t in obs.tableaux for c in t}
        covered = {s for s, _ in obs.alibis}
        names = game.locations
        lines = ["suspects:"]
        provable = []
        for s in obs.row:
            feats = sorted(game.suspects[s])
            have = len(set(feats) & on_table)
            if s in covered:
                lines.append(f"  {suspect_name(s)} ({' '.join(feats)}): covered by an Alibi")
                continue
            if have >= need:
                provable.append(suspect_name(s))
            missing = [f for f in feats if f not in on_table]
            where = "; ".join(
                f"{f} " + ", ".join(f"{names[z]} {expect[f][z]:.2f}" for z in hidden if expect[f][z] > 0.005)
                for f in missing)
            lines.append(f"  {suspect_name(s)} ({' '.join(feats)}): {have}/{need} on the table"
                         + (f"; missing {where}" if missing else ""))
        if provable:
            lines.append(f"provable now: {', '.join(provable)} (the player who laid the last evidence names one)")
        return lines

    @staticmethod
    def _advice(game: AlibiAdlungGame, obs: AlibiAdlungObservation, expect: Mapping[str, np.ndarray]) -> list[str]:
        """The ``counting`` agent's best play (or exchange) from my hand, with its value."""
        me = obs.player
        assert me is not None
        n = game.num_players
        m = np.zeros((len(game.deck), len(game.locations)))
        known = {c: me for c in obs.hand} | {c: n + 1 for c in obs.discard}
        known |= {c: n + 2 for t in obs.tableaux for c in t} | {c: n + 2 for _, c in obs.alibis}
        known |= {c: n + 2 for _, c in obs.eyes}
        unseen: dict[str, list[int]] = {}
        for c in range(len(game.deck)):
            if c in known:
                m[c, known[c]] = 1.0
            else:
                unseen.setdefault(face_of(game, c), []).append(c)
        for f, cards in unseen.items():  # a face's expected copies, spread over its unseen copies
            for z in range(len(game.locations)):
                if z not in (me, n + 1, n + 2):
                    m[cards, z] = expect[f][z] / len(cards)
        agent = _Advisor(m)
        agent.reset(game, me, 0)
        pos = agent.position(obs)
        uncovered = [s for s in obs.row if s not in {a for a, _ in obs.alibis}]
        pool = obs.row if game.config.alibied_count_for_matching else uncovered
        playable = {f for s in pool for f in game.suspects[s]}
        options: list[Action] = [PlayEvidence(c) for c in obs.hand if game.feature_of[c] in playable]
        evidence_playable = bool(options)
        for c in obs.hand:
            kind = game.special_of[c]
            if kind is Special.ALIBI and len(uncovered) > 1:
                options += [PlayAlibi(c, s) for s in uncovered]
            elif kind is Special.BRIBE:
                options += [PlayBribe(c, t) for q, tab in enumerate(obs.tableaux) if q != me for t in tab]
            elif kind is Special.EYE:
                options.append(PlayEye(c))
        now = agent.value(obs, pos)
        lines = []
        if options:
            scored = sorted(((agent.value(obs, agent.after(pos, a)), i) for i, a in enumerate(options)), reverse=True)
            value, best = scored[0][0], options[scored[0][1]]
            lines.append(f"best play (counting agent): {_action_text(game, best, obs.tableaux)}, value {value:+.2f} "
                         f"(now {now:+.2f}; expected points against the average opponent, a heuristic)")
        if not evidence_playable:
            values = agent.card_values(obs, pos)
            _, deck_p = agent.beliefs(obs)
            draw = float(sum(deck_p[c] * v for c, v in values.items()) / max(float(deck_p.sum()), 1e-12))
            worse = sorted(c for c in obs.hand if values[c] < draw) or [min(obs.hand, key=lambda c: values[c])]
            lines.append(f"no evidence to play: exchange {_action_text(game, Exchange(tuple(worse)))} "
                         f"(each worth less than an average draw, {draw:.2f})")
        return lines


def _one(tokens: Sequence[str], names: Sequence[str], usage: str) -> str:
    """Exactly one card name from ``tokens`` (else the usage)."""
    if not tokens:
        raise DeduceError(f"usage: {usage}")
    found = read_names(tokens, names, "card")
    if len(found) != 1:
        raise DeduceError(f"usage: {usage} (one card)")
    return found[0]


def _faces(game: AlibiAdlungGame, cards: Sequence[int]) -> str:
    """Cards as their faces, in words."""
    return ", ".join(face_of(game, c) for c in cards)


def _action_text(game: AlibiAdlungGame, action: Action, tableaux: Sequence[Sequence[int]] = ()) -> str:
    """An action as the line that would log it (without WHO)."""
    if isinstance(action, PlayEvidence):
        return f"lay {face_of(game, action.card)}"
    if isinstance(action, PlayAlibi):
        return f"alibi {suspect_name(action.suspect)}"
    if isinstance(action, PlayBribe):
        victim = next((q for q, t in enumerate(tableaux) if action.target in t), None)
        whose = f"{game.config.names[victim]}'s " if victim is not None else ""
        return f"bribe {whose}{face_of(game, action.target)}"
    if isinstance(action, PlayEye):
        return "eye"
    if isinstance(action, Exchange):
        return _faces(game, action.cards)
    return repr(action)


def read_suspect(game: AlibiAdlungGame, token: str) -> str:
    """A suspect as a person names it: ``s3``, or the features printed on its card joined by
    '+' in any order ("thin+female+short+dotted+knife"; prefixes will do), the card one sees
    at a real table. Refused, naming the input, when no suspect (or several) has them."""
    names = [suspect_name(s) for s in range(len(game.suspects))]
    if "+" not in token:
        return match_name(token, names, "suspect")
    features = sorted({f for s in game.suspects for f in s})
    given = frozenset(match_name(part, features, "feature") for part in token.split("+") if part)
    found = [names[s] for s, feats in enumerate(game.suspects) if given <= feats]
    exact = [names[s] for s, feats in enumerate(game.suspects) if given == feats]
    if len(exact) == 1 or len(found) == 1:
        return (exact or found)[0]
    if not found:
        raise DeduceError(f"no suspect has the features {', '.join(sorted(given))} ({token!r})")
    raise DeduceError(f"suspect {token!r} is ambiguous: it could be {', '.join(found)}; give more features")


#: the adapter ``deduce assist alibi-adlung`` uses (:func:`deduce.apps.assist.session.adapter_for`).
ADAPTER = AlibiAdlungAdapter()
