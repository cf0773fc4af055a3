"""Alibi's hypothesis questions (issue 20 B2): the seed's "Slim Slant, Morning, Front Seat,
Pillow: how many have you seen?" is a legal action, offered as a structured block of legal
actions (never listed one by one), and sampled by the random agent."""

from __future__ import annotations

import itertools
import pickle

import numpy as np
import pytest

import agents
from deduce.games.alibi.rules import Accuse, AlibiGame, AlibiState, Ask, Family, Hypotheses, Meld
from deduce.games.base import LegalActions, sample_action

SMALL = dict(
    suspects=("A", "B"),
    places=(("P", ("p1", "p2", "p3")),),
    weapons=(("W", ("w1", "w2", "w3")),),
    emotions=(("E", ("e1", "e2", "e3")),),
    dealer=2,
)


def _to_ask(state: AlibiState) -> AlibiState:
    """Decline every meld until the first question of the round."""
    while state.phase != "ask":
        state.apply(Meld(()))
    return state


def _card(game: AlibiGame, name: str) -> int:
    return game.deck.card(name).id


def test_the_seeds_hypothesis_is_a_legal_action():
    game = AlibiGame(num_players=4)
    state = _to_ask(game.new_initial_state(1))
    asker = state.current_player
    target = (asker + 1) % 4
    cards = tuple(_card(game, n) for n in ("Slim Slant / Morning", "Auto / Front Seat", "Smothering / Pillow"))
    question = Ask(target, Family.SEEN, cards)
    legal = state.legal_actions()
    assert question in legal
    assert question in state.observation(asker).legal_actions
    assert Ask(asker, Family.SEEN, cards) not in legal  # never of oneself
    assert isinstance(legal, LegalActions) and legal.total > 900_000
    assert len(legal) < 1000  # the listed menu stays small
    event = state.apply(question)[0]
    assert event.cards == tuple(sorted(cards)) and event.target == target


def test_the_structured_block_enumerates_each_hypothesis_once():
    game = AlibiGame(num_players=3, **SMALL)
    state = _to_ask(game.new_initial_state(0))
    legal = state.legal_actions()
    (block,) = legal.structured
    suspects, places, weapons, emotions = game.categories
    brute = {
        Ask(t, f, tuple(c for c in (s, p, w, e) if c is not None))
        for t in range(3) if t != state.current_player
        for f in (Family.HAND, Family.SEEN)
        for s, p, w, e in itertools.product(suspects, (None, *places), (None, *weapons), (None, *emotions))
        if (p, w, e) != (None, None, None)
    }
    listed = [block.unrank(i) for i in range(block.size)]
    assert len(listed) == block.size == len(brute) and set(listed) == brute
    assert not set(listed) & set(legal)  # no question both listed and structured
    assert legal.total == len(legal) + block.size
    assert list(legal.every()) == [*legal, *listed]
    for ask in listed[:: max(1, block.size // 50)]:
        assert state.why_illegal(ask) is None
        parts = block.of(ask.cards)
        assert block.build((block.targets.index(ask.target), block.families.index(ask.family), *parts)) == ask
    with pytest.raises(IndexError):
        block.unrank(block.size)


def test_other_phases_have_no_structured_part():
    game = AlibiGame(num_players=3, **SMALL)
    state = game.new_initial_state(0)
    assert state.phase == "meld"
    legal = state.legal_actions()
    assert legal == [Meld(())] or all(isinstance(a, Meld) for a in legal)
    assert not getattr(legal, "structured", ())


def test_legal_actions_compare_pickle_and_sample():
    game = AlibiGame(num_players=4)
    state = _to_ask(game.new_initial_state(2))
    obs = state.observation(state.current_player)
    back = pickle.loads(pickle.dumps(obs))
    assert back == obs and back.legal_actions.structured == obs.legal_actions.structured
    assert obs.legal_actions != list(obs.legal_actions)  # the structured part makes them differ
    plain = LegalActions([Accuse()])
    assert plain == [Accuse()] and plain == (Accuse(),) and hash(plain) == hash((Accuse(),))
    rng = np.random.default_rng(0)
    draws = [obs.legal_actions.sample(rng) for _ in range(200)]
    assert all(d in obs.legal_actions for d in draws)
    structured = [d for d in draws if d not in set(obs.legal_actions)]
    assert len(structured) > 190  # about a million structured against ~700 listed
    only = LegalActions((), obs.legal_actions.structured)
    assert only and len(only) == 0 and only.sample(rng) in only  # a decision with nothing listed
    assert not LegalActions()
    # no structured part: the draw every agent made on a list
    a, b = np.random.default_rng(5), np.random.default_rng(5)
    menu = LegalActions([Accuse(), Meld(()), Meld((1,))])
    assert [sample_action(menu, a) for _ in range(20)] == [menu[int(b.integers(3))] for _ in range(20)]


def test_the_random_agent_asks_hypotheses():
    game = AlibiGame(num_players=4)
    state = _to_ask(game.new_initial_state(4))
    agent = agents.get("random", game="alibi")
    agent.reset(game, state.current_player, 9)
    asked = [agent.act(state.observation(state.current_player)) for _ in range(20)]
    block = state.legal_actions().structured[0]
    assert sum(a in block and block.of(a.cards) is not None and len(a.cards) > 1 for a in asked) >= 18


def test_a_hypothesis_needs_a_suspect_card():
    game = AlibiGame(num_players=4)
    state = _to_ask(game.new_initial_state(1))
    block: Hypotheses = state.legal_actions().structured[0]
    place, weapon = game.categories[1][0], game.categories[2][0]
    assert block.of((place, weapon)) is None
    assert block.of((game.categories[0][0], game.categories[0][1])) is None  # two suspect cards
