"""The Alibi (Adlung) table log: faces in, canonical copies out, and the same knowledge as the engine."""

from fractions import Fraction

import numpy as np
import pytest

import solvers
from deduce.errors import LogError, TooLarge
from deduce.games.alibi_adlung.history import timeline
from deduce.games.alibi_adlung.log import TableEvent, branches, export, face_of, flat, parse
from deduce.games.alibi_adlung.rules import (
    AlibiAdlungGame,
    Bribed,
    Dealt,
    Drew,
    Exchanged,
    LaidAlibi,
    LaidEvidence,
    LaidEye,
    Reshuffled,
)
from deduce.logs import load_log, read_log
from solvers.timeline import TimelineCounter


def _play(players, seed, steps):
    """A seeded random game, yielding (step, state) after each action."""
    game = AlibiAdlungGame(num_players=players)
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    for step in range(steps):
        if state.is_terminal():
            return
        actions = state.legal_actions()
        state.apply(actions[int(rng.integers(len(actions)))])
        yield step, state


def _faces(game, cards):
    return sorted(face_of(game, c) for c in cards)


def _moves(events, me):
    """The card-naming events of a view in order, as (event, [cards in event order])."""
    out = []
    for e in events:
        if isinstance(e, Dealt) and e.player == me:
            out.append(sorted(e.cards))
        elif isinstance(e, LaidEvidence | LaidAlibi | LaidEye):
            out.append([e.card])
        elif isinstance(e, Bribed):
            out.append([e.card, e.target])
        elif isinstance(e, Exchanged):
            out.append(list(e.cards))
        elif isinstance(e, Drew) and e.cards:
            out.append(list(e.cards))
    return out


def _relabel(game, true_moves, log_moves, pi):
    """Extend ``pi`` (true card -> log card) so each named true card carries the copy the log
    named: a swap of two copies of one face, which the log's knowledge cannot tell apart."""
    assert len(true_moves) == len(log_moves)
    inverse = {v: k for k, v in pi.items()}
    for truth, named in zip(true_moves, log_moves, strict=True):
        if len(truth) > 1:  # several cards in one event: pair them face by face
            truth = sorted(truth, key=lambda c: face_of(game, c))
            named = sorted(named, key=lambda c: face_of(game, c))
        for t, c in zip(truth, named, strict=True):
            assert face_of(game, t) == face_of(game, c)
            if pi[t] != c:
                u = inverse[c]
                pi[u], pi[t] = pi[t], c
                inverse[pi[u]], inverse[c] = u, t
    return pi


def _check_view(state, me):
    """The log of ``me``'s view reads back to the same table, and the true world (copies of
    one face renamed as the log named them) is a world of the log's knowledge."""
    game, obs = state.game, state.observation(me)
    log_game, view = parse(export(game, obs))
    # the public table and my hand, face by face
    assert _faces(game, obs.hand) == _faces(log_game, view.hand)
    assert _faces(game, obs.discard) == _faces(log_game, view.discard)
    assert [_faces(game, t) for t in obs.tableaux] == [_faces(log_game, t) for t in view.tableaux]
    assert (obs.hand_sizes, obs.deck_size, obs.row) == (view.hand_sizes, view.deck_size, view.row)
    # the true world, with copies of one face renamed as the log named them, is a world of
    # the log's knowledge
    true_moves = _moves(obs.events, me)
    log_moves = _moves(flat(view).events, me)
    pi = _relabel(game, true_moves, log_moves, {c: c for c in range(len(game.deck))})
    world = state.world()
    named = np.empty_like(world)
    for t, c in pi.items():
        named[c] = world[t]
    kb = log_game.knowledge(view)
    assert kb.consistent_with(named), kb.violated(named)[:3]


@pytest.mark.parametrize("players,seed,me", [(3, 1, 0), (4, 2, 1), (5, 3, None), (2, 4, 1)])
def test_a_log_written_from_a_view_replays_to_the_same_table_and_the_true_world_fits(players, seed, me):
    checked = 0
    for step, state in _play(players, seed, 260):
        if step % 9 == 0:
            _check_view(state, me)
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize("seed,kind", [(24, "opening"), (1, "third_alibi")])  # 24: a redraw chosen (issue 20 B4)
def test_opening_redraws_and_third_alibi_convictions_replay(seed, kind):
    game = AlibiAdlungGame(num_players=3, num_alibi=12, num_eye=4, num_bribe=10)  # many special cards
    state = game.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(150):
        actions = state.legal_actions()
        state.apply(actions[int(rng.integers(len(actions)))])
    assert kind in {getattr(e, "reason", None) for e in state.events}
    for me in (0, 1, None):
        _check_view(state, me)


@pytest.mark.parametrize("players,seed", [(3, 0), (4, 1)])
def test_before_a_reshuffle_the_face_posterior_is_the_engines(players, seed):
    counter = TimelineCounter()

    def by_face(game, obs):
        post = counter.posterior(timeline(game, flat(obs)))
        out = {}
        for c, row in enumerate(post.cells):
            for z, v in enumerate(row):
                out[face_of(game, c), z] = out.get((face_of(game, c), z), 0) + v
        return {k: Fraction(v, post.total) for k, v in out.items()}

    checked = 0
    for step, state in _play(players, seed, 200):
        if any(isinstance(e, Reshuffled) for e in state.events):
            break
        if step % 6:
            continue
        obs = state.observation(1)
        game, view = parse(export(state.game, obs))
        assert not view.ambiguous and len(branches(export(state.game, obs))) == 1
        assert by_face(state.game, obs) == by_face(game, view)
        checked += 1
    assert checked >= 4


def test_after_a_reshuffle_every_reading_is_a_weighted_branch():
    """Seed 0 reshuffles by event 120: the view is ambiguous, and its readings are distinct,
    weighted, each possible under the exact model, and together they allow the real deal."""
    for _, state in _play(3, 0, 400):
        if any(isinstance(e, Reshuffled) for e in state.events) and len(state.events) > 120:
            break
    assert any(isinstance(e, Reshuffled) for e in state.events)
    log = export(state.game, state.observation(0))
    game, view = parse(log)
    readings = branches(log, limit=64)
    assert view.ambiguous and len(readings) == len({b.choices for b in readings}) == 4
    assert all(b.weight > 0 for b in readings) and len({b.weight for b in readings}) == 2
    counter = TimelineCounter()
    mass = {}
    for b in readings:
        post = counter.posterior(timeline(game, flat(b.observation)))
        assert post.total > 0
        for c, row in enumerate(post.cells):
            for z, v in enumerate(row):
                mass[face_of(game, c), z] = mass.get((face_of(game, c), z), 0) + b.weight * v
    hidden = {1: state.hands[1], 2: state.hands[2], 3: state.deck}  # bob, cy and the deck
    for z, cards in hidden.items():
        assert cards and all(mass[face_of(state.game, c), z] > 0 for c in cards)


def test_branches_say_which_bound_stopped_them():
    for _, state in _play(3, 0, 400):
        if any(isinstance(e, Reshuffled) for e in state.events) and len(state.events) > 120:
            break
    log = export(state.game, state.observation(0))
    with pytest.raises(TooLarge, match=r"^more than 2 readings of the log's ambiguous reveals$"):
        branches(log, limit=2)
    with pytest.raises(TooLarge, match=r"took more than its work budget \(50 events read\) after 0 readings") as err:
        branches(log, limit=64, work=50)
    assert "more than 64 readings" not in str(err.value)


HEADER = {"game": "alibi-adlung", "players": ["ann", "bob", "cy"], "me": "ann", "row": ["s1", "s2", "s3", "s4"]}
HAND = {"type": "hand", "cards": ["glasses", "knife", "bribe", "fat"]}


@pytest.mark.parametrize("event,message", [
    ({"type": "lay", "player": "bob", "card": "tophat"}, "event 1 ({\"type\": \"lay\", \"player\": \"bob\", \"card\": \"tophat\"}): unknown card 'tophat'"),
    ({"type": "lay", "player": "me", "card": "glasses"}, "unknown player 'me'"),
    ({"type": "lay", "player": "ann", "card": "glasses"}, "you drew 1 card(s): say which with 'got'"),
    ({"type": "lay", "player": "bob", "card": "glasses", "got": ["fat"]}, "'got' is for your own draws only"),
    ({"type": "lay", "player": "bob", "card": "bribe"}, "bribe is a special card, not evidence"),
    ({"type": "alibi", "player": "bob", "suspect": "s9"}, "s9 is not an uncovered suspect in the row"),
    ({"type": "convict", "player": "bob", "suspect": "s1", "new": "s5"}, "s1 cannot be convicted"),
    ({"type": "exchange", "player": "ann", "cards": ["bribe"], "got": ["thin"]}, "you hold playable evidence"),
    ({"type": "frobnicate", "player": "bob"}, "unknown event type 'frobnicate'"),
    ({"player": "bob"}, "an event must be an object with a 'type'"),
])
def test_bad_events_name_the_event(event, message):
    with pytest.raises(LogError) as info:
        parse({**HEADER, "events": [HAND, event]})
    assert str(info.value).startswith("event 1 (") and message in str(info.value)
    assert info.value.index == 1


def test_a_copy_that_cannot_be_held_is_refused():
    events = [HAND] + [{"type": "lay", "player": p, "card": "knife"} for p in ("bob", "cy", "bob")]
    with pytest.raises(LogError, match="event 3 .*bob cannot hold a knife: every copy"):
        parse({**HEADER, "events": events})  # three knives: one is mine, two laid


#: few cards outside the row's features and no special cards: an exchange instead of a play
#: proves that the three cards kept are among very few
SCARCE = {**HEADER, "specials": {"alibi": 0, "eye": 0, "bribe": 0},
          "evidence": {"fat": 3, "thin": 3, "male": 3, "female": 3, "long_hair": 3, "short_hair": 1, "plain": 3,
                       "striped": 3, "dotted": 3, "revolver": 1, "knife": 3, "umbrella": 3, "glasses": 3,
                       "newspaper": 2, "shopping_bag": 2}}
SCARCE_HAND = {"type": "hand", "cards": ["newspaper", "shopping_bag", "fat", "glasses"]}


def test_the_log_loads_through_the_common_reader_and_a_contradiction_names_its_event():
    *_, (_, state) = _play(3, 5, 60)
    log = export(state.game, state.observation(2))
    game, view = read_log(log)
    assert all(isinstance(e, TableEvent) for e in view.events) and len(view.events) == len(log["events"])
    load_log(log, check=solvers.get("cpsat"))
    fine = {**SCARCE, "events": [SCARCE_HAND, {"type": "exchange", "player": "cy", "cards": ["newspaper"]}]}
    load_log(fine, check=solvers.get("cpsat"))  # cy kept short_hair, revolver and the last shopping_bag
    swap = {"type": "swap", "player": "bob", "card": "revolver"}
    bad = {**SCARCE, "events": [SCARCE_HAND, swap, {"type": "exchange", "player": "cy", "cards": ["newspaper"]}]}
    with pytest.raises(LogError, match=r"event 2 \(.*\) contradicts event 0, event 1"):
        load_log(bad, check=solvers.get("cpsat"))


def test_the_weighted_readings_count_what_every_copy_would():
    """The symmetry argument of the module docstring, checked: at an ambiguous reveal, one
    reading per class weighted by its size gives the face posterior of one reading per copy
    (and the weights matter: unweighted, the answer differs)."""
    from deduce.games.alibi_adlung.log import _walk

    counter = TimelineCounter()

    def mixture(game, readings, weighted=True):
        num, den = {}, 0
        for obs in readings:
            w = obs.weight if weighted else 1
            post = counter.posterior(timeline(game, flat(obs)))
            den += w * post.total
            for c, row in enumerate(post.cells):
                for z, v in enumerate(row):
                    key = (face_of(game, c), z)
                    num[key] = num.get(key, 0) + w * v
        return {k: Fraction(v, den) for k, v in num.items()}

    for seed, steps in ((0, 59), (3, 53)):  # 2 players, just after the first ambiguous reveal
        *_, (_, state) = _play(2, seed, steps)
        log = export(state.game, state.observation(0))
        log_game, view = parse(log)
        by_class = [b.observation for b in branches(log)]
        _, by_copy = _walk(log, True, 64, 20_000, every_copy=True)
        assert view.ambiguous and len(by_copy) > len(by_class) > 1
        assert len({obs.weight for obs in by_class}) > 1
        assert mixture(log_game, by_class) == mixture(log_game, by_copy)
        assert mixture(log_game, by_class, weighted=False) != mixture(log_game, by_copy)
