"""Checkpoint Charlie rules (RULES.md §3): setup, hounds, flips, arrests, round end,
verification, scoring with the slowest investigator's exception, end conditions, tie-breaks,
illegal actions, and the knowledge base."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import deduce
from deduce.errors import IllegalAction, InvalidConfig
from deduce.games.checkpoint_charlie.rules import (
    HOUND,
    NUM_CATS,
    Arrest,
    Arrested,
    CatFlipped,
    CheckpointCharlieConfig,
    CheckpointCharlieGame,
    CheckpointCharlieState,
    ChooseSide,
    ClueDrawn,
    Colour,
    GameEnded,
    HoundFlipped,
    Pass,
    RoundDeal,
    Scored,
    SideChosen,
    Verified,
    cat_sides,
    chief_from_down,
    chief_from_sides,
    matches,
)
from solvers.tokens import TokenSolver


def deck_with(*top: int, hounds: int = 2) -> tuple[int, ...]:
    """A deck starting with ``top`` (cats or HOUND); the other cats and hounds follow."""
    rest = [c for c in range(NUM_CATS) if c not in top]
    return tuple(top) + tuple(rest) + (HOUND,) * (hounds - list(top).count(HOUND))


def three_player(deck: tuple[int, ...], **config: object) -> CheckpointCharlieState:
    """3 players: p0 ears, p1 eyes, p2 fur; bag clothes then hands, both tossed to side 0."""
    game = CheckpointCharlieGame(num_players=3, **config)
    state = game.new_initial_state(7)
    return state.redeal(RoundDeal((0, 1, 2), (3, 4), (0, 0), deck))


def choose_all(state: CheckpointCharlieState, side: int = 0) -> None:
    while state.phase == "choose" and not state.is_terminal():
        state.apply(ChooseSide(side))


def new_events(state: CheckpointCharlieState, mark: int) -> list:
    return list(state.events[mark:])


# -- config and setup -------------------------------------------------------------------------
def test_config_defaults_match_rules() -> None:
    cfg = CheckpointCharlieConfig()
    assert len(cfg.gold_values) + len(cfg.white_values) + len(cfg.black_values) == 25
    assert sorted(set(cfg.gold_values)) == [3, 4, 5]
    assert sorted(set(cfg.white_values)) == [1, 2]
    assert sorted(set(cfg.black_values)) == [-2, -1, 0]
    assert (cfg.target_score, cfg.max_rounds) == (10, 5)
    assert cfg.hound_placement == "upper_half" and cfg.discard_memory == "perfect"
    assert cfg.arrest_own_row and cfg.unrevealed_chief_white
    assert not cfg.stasi_variant and not cfg.cafe_adler_variant


@pytest.mark.parametrize("bad", [{"num_players": 2}, {"num_players": 6}, {"hound_placement": "x"},
                                 {"stasi_variant": True}, {"player_names": ("a", "bag", "c")}])
def test_config_rejects_bad_values(bad: dict) -> None:
    with pytest.raises(ValueError):
        CheckpointCharlieConfig(**{"num_players": 3, **bad})


def test_registered_by_name() -> None:
    game = deduce.make("checkpoint-charlie", num_players=5)
    assert isinstance(game, CheckpointCharlieGame) and game.num_players == 5


@pytest.mark.parametrize("n", [3, 4, 5])
def test_setup_tokens_and_deck(n: int) -> None:
    game = CheckpointCharlieGame(num_players=n)
    for seed in range(20):
        state = game.new_initial_state(seed)
        deal = state.deal
        deal.validate(n)
        assert len(deal.deck) == NUM_CATS + 5 - n
        # hounds only in the upper half: the 16 top cats plus the hounds
        top = NUM_CATS // 2 + (5 - n)
        assert all(c != HOUND for c in deal.deck[top:])
        assert deal.deck[:top].count(HOUND) == 5 - n
    obs = state.observation(1)
    assert obs.my_feature == deal.features[1] and obs.my_side is None
    drawn = [e for e in obs.events if isinstance(e, ClueDrawn)]
    assert {e.player for e in drawn} == set(range(n))
    assert all(e.feature is None for e in drawn if e.player != 1)
    assert obs.deck_size == NUM_CATS + 5 - n and obs.hounds_left == 5 - n


def test_hounds_anywhere_variant_can_reach_lower_half() -> None:
    game = CheckpointCharlieGame(num_players=3, hound_placement="anywhere")
    low = [game.new_initial_state(s).deal.deck.index(HOUND) for s in range(60)]
    assert max(low) >= NUM_CATS // 2 + 2


def test_side_choice_is_private() -> None:
    state = three_player(deck_with(28, 0))
    state.apply(ChooseSide(1))
    mine = state.observation(0)
    theirs = state.observation(1)
    assert mine.my_side == 1
    assert [e for e in mine.events if isinstance(e, SideChosen)] == [SideChosen(0, 0, 1)]
    assert [e for e in theirs.events if isinstance(e, SideChosen)] == [SideChosen(0, None, None)]


# -- flips ------------------------------------------------------------------------------------
def test_flip_keeps_matching_cat_and_discards_the_rest() -> None:
    # p0 has ears side 0: cat 28 (ears 0) is kept; p1 (eyes 0) then flips cat 2 (eyes 1): discarded
    state = three_player(deck_with(28, 2))
    choose_all(state)
    assert state.kept[0] == [28]
    assert state.current_player == 0 and state.legal_actions() == [Pass(), Arrest(28)]
    for _ in range(3):
        state.apply(Pass())
    assert state.discarded[1] == [2] and state.kept[1] == []
    flips = [e for e in state.events if isinstance(e, CatFlipped)]
    assert flips == [CatFlipped(0, 28, True), CatFlipped(1, 2, False)]
    assert matches(28, 0, 0) and not matches(2, 1, 0)


def test_hound_tosses_a_bag_token_publicly_and_ends_the_turn() -> None:
    state = three_player(deck_with(HOUND, 28))
    choose_all(state)
    hound = [e for e in state.events if isinstance(e, HoundFlipped)]
    assert hound == [HoundFlipped(0, 3, 0)]
    # nobody had a cat to arrest, so p1 flipped next (not p0 again)
    assert [e for e in state.events if isinstance(e, CatFlipped)][0].player == 1
    obs = state.observation(2)
    assert obs.revealed == ((3, 0),) and obs.hounds_left == 1


def test_discard_memory_none_hides_discarded_cats() -> None:
    state = three_player(deck_with(28, 2), discard_memory="none")
    choose_all(state)
    for _ in range(3):
        state.apply(Pass())
    obs = state.observation(1)
    assert obs.discarded[1] == (None,) and obs.kept[0] == (28,)
    assert 2 in obs.unseen_cats


# -- arrests, round end, verification and scoring ---------------------------------------------
def play_scenario(second: int, **config: object) -> CheckpointCharlieState:
    """p0 keeps 28 and arrests it; p1 keeps ``second`` and arrests it, ending the round.

    Everyone chose side 0 and both bag tokens toss 0, so the chief is cat 0."""
    state = three_player(deck_with(28, second), **config)
    choose_all(state)
    state.apply(Arrest(28))          # p0 (black: 28 shares only ears and eyes with cat 0)
    # p1 and p2 have nothing left to arrest, so p1 flips ``second`` and is polled
    assert state.kept[1] == [second] and state.current_player == 1
    state.apply(Arrest(second))      # p1: two arrests, one investigator left: round over
    return state


def scored(state: CheckpointCharlieState, round_no: int = 1) -> dict[int, Colour]:
    return {e.player: e.colour for e in state.events if isinstance(e, Scored) and e.round == round_no}


def test_chief_gold_innocent_black_and_slowest_black_when_chief_revealed() -> None:
    state = play_scenario(0)
    verified = [e for e in state.events if isinstance(e, Verified)]
    assert verified == [Verified(1, ((0, 0), (1, 0), (2, 0)), ((3, 0), (4, 0)), 0, 0)]
    assert scored(state) == {0: Colour.BLACK, 1: Colour.GOLD, 2: Colour.BLACK}
    assert state.round == 2 and state.starter == 1  # the chief's captor starts the next round
    gold = state.tokens[1][0]
    assert gold[0] is Colour.GOLD and gold[1] in state.game.config.gold_values


def test_minion_white_and_slowest_white_when_chief_still_in_deck() -> None:
    state = play_scenario(1)  # cat 1 differs from the chief only in ears
    assert scored(state) == {0: Colour.BLACK, 1: Colour.WHITE, 2: Colour.WHITE}
    assert state.starter == 0  # nobody caught the chief: the same starter again


def test_slowest_exception_can_be_switched_off() -> None:
    state = play_scenario(1, unrevealed_chief_white=False)
    assert scored(state)[2] is Colour.BLACK


def test_score_values_are_private_colours_public() -> None:
    state = play_scenario(0)
    mine = [e for e in state.observation(1).events if isinstance(e, Scored) and e.player == 1]
    theirs = [e for e in state.observation(0).events if isinstance(e, Scored) and e.player == 1]
    assert mine[0].value is not None and theirs[0].value is None
    assert theirs[0].colour is Colour.GOLD
    assert state.observation(1).my_tokens == (state.tokens[1][0],)


def test_round_ends_only_when_one_investigator_is_left() -> None:
    game = CheckpointCharlieGame(num_players=5)
    state = game.new_initial_state(3)
    choose_all(state)
    arrested = 0
    while state.round == 1:
        legal = state.legal_actions()
        arrests = [a for a in legal if isinstance(a, Arrest)]
        if arrests:
            state.apply(arrests[0])
            arrested += 1
        else:  # pragma: no cover - a poll always has a cat to offer
            state.apply(Pass())
    assert arrested == 4
    assert len({e.player for e in state.events if isinstance(e, Arrested)}) == 4


def test_an_arrested_investigator_is_not_polled_but_keeps_flipping() -> None:
    state = three_player(deck_with(28, 2, 5, 8))
    choose_all(state)
    state.apply(Arrest(28))
    # nobody else had a cat to arrest: p1 discarded 2, p2 discarded 5, p0 kept 8, and the poll
    # after that flip skips p0 (already arrested) and starts with p1
    flips = [e for e in state.events if isinstance(e, CatFlipped)]
    assert flips[-3:] == [CatFlipped(1, 2, False), CatFlipped(2, 5, False), CatFlipped(0, 8, True)]
    assert state.arrests[0] == 28 and state.current_player == 1
    assert state.legal_actions() == [Pass(), Arrest(8)]


def test_deck_exhaustion_ends_the_round_with_everyone_slowest() -> None:
    state = three_player(deck_with(28))
    choose_all(state)
    while state.round == 1:
        state.apply(Pass())
    assert sum(1 for e in state.events if isinstance(e, (CatFlipped, HoundFlipped))) == NUM_CATS + 2
    # the chief was flipped (and kept), so no exception: all three are black
    assert scored(state) == {0: Colour.BLACK, 1: Colour.BLACK, 2: Colour.BLACK}


# -- game end and tie-breaks ------------------------------------------------------------------
@pytest.mark.parametrize(
    ("config", "reason"),
    [({"target_score": 3}, "target"), ({"gold_values": (4,)}, "colour_exhausted"),
     ({"max_rounds": 1}, "max_rounds")],
)
def test_end_conditions(config: dict, reason: str) -> None:
    state = play_scenario(0, **config)
    assert state.is_terminal() and reason in state.end_reasons
    ended = state.events[-1]
    assert isinstance(ended, GameEnded) and reason in ended.reasons
    assert list(ended.totals) == state.totals()
    assert state.returns() == [float(t) for t in state.totals()]
    assert state.observation(0).final_totals == ended.totals
    with pytest.raises(IllegalAction, match="over"):
        state.apply(Pass())


def test_empty_colour_gives_no_token_in_seat_order_when_configured() -> None:
    state = play_scenario(0, black_values=(0,), short_colour="seat_order")
    events = [e for e in state.events if isinstance(e, Scored)]
    assert [(e.player, e.colour, e.received) for e in events] == [
        (0, Colour.BLACK, True), (1, Colour.GOLD, True), (2, Colour.BLACK, False)]
    assert state.is_terminal() and "colour_exhausted" in state.end_reasons


def _short_black(**config: object) -> set[int]:
    """p0 and p2 are owed black with one black token left: who got it."""
    state = play_scenario(0, black_values=(0,), **config)
    assert state.is_terminal() and "colour_exhausted" in state.end_reasons
    got = {e.player for e in state.events if isinstance(e, Scored) and e.colour is Colour.BLACK and e.received}
    owed = {e.player for e in state.events if isinstance(e, Scored) and e.colour is Colour.BLACK}
    assert owed == {0, 2}
    return got


def test_a_colour_running_out_during_scoring_is_not_decided_by_seat_order() -> None:
    """Issue 20 B6 (the seed scores everyone at once from a random token of the right colour):
    by default the tokens left go to owed players drawn at random, from the game's generator;
    "none" gives the short colour to nobody owed it. Same seed, same result."""
    winners = {frozenset(_short_black(short_colour="lottery", first_player=0)) for _ in range(2)}
    assert len(winners) == 1 and len(next(iter(winners))) == 1  # reproducible, one token handed out
    drawn = set()
    for seed in range(12):
        game = CheckpointCharlieGame(num_players=3, black_values=(0,))
        assert game.config.short_colour == "lottery"
        state = game.new_initial_state(seed).redeal(RoundDeal((0, 1, 2), (3, 4), (0, 0), deck_with(28, 0)))
        choose_all(state)
        state.apply(Arrest(28))
        state.apply(Arrest(0))
        drawn |= {e.player for e in state.events if isinstance(e, Scored) and e.colour is Colour.BLACK and e.received}
    assert drawn == {0, 2}  # either owed player may be the one served
    assert _short_black(short_colour="none") == set()
    with pytest.raises(InvalidConfig, match="short_colour"):
        CheckpointCharlieGame(num_players=3, short_colour="first")


def test_tie_breaks_more_gold_then_shared() -> None:
    state = CheckpointCharlieGame(num_players=3).new_initial_state(0)
    state.tokens = [[(Colour.GOLD, 3)], [(Colour.WHITE, 1), (Colour.WHITE, 2)], [(Colour.BLACK, 0)]]
    assert state.returns() == [3.0, 3.0, 0.0] and state.winners() == (0,)
    state.tokens = [[(Colour.GOLD, 3)], [(Colour.GOLD, 3)], [(Colour.WHITE, 2)]]
    assert state.winners() == (0, 1)


def test_random_games_finish_within_five_rounds() -> None:
    for n in (3, 4, 5):
        game = CheckpointCharlieGame(num_players=n)
        for seed in range(10):
            state = game.new_initial_state(seed)
            rng = np.random.default_rng(seed)
            while not state.is_terminal():
                legal = state.legal_actions()
                state.apply(legal[int(rng.integers(len(legal)))])
            assert 1 <= state.round <= 5 and state.end_reasons
            pools = {c: len(state.game.config.pool(c)) for c in Colour}
            used = sum(len(t) for t in state.tokens)
            assert used <= sum(pools.values())


# -- illegal actions --------------------------------------------------------------------------
def test_illegal_actions_say_why() -> None:
    state = three_player(deck_with(28, 1, 0))
    with pytest.raises(IllegalAction, match="choose the side"):
        state.apply(Arrest(28))
    with pytest.raises(IllegalAction, match="sides 0 and 1"):
        state.apply(ChooseSide(2))
    choose_all(state)
    with pytest.raises(IllegalAction, match="not now"):
        state.apply(ChooseSide(0))
    with pytest.raises(IllegalAction, match="not face up"):
        state.apply(Arrest(5))
    state.apply(Arrest(28))
    # p1 and p2 had nothing to arrest; p1 flipped cat 1 (eyes 0: kept) and is polled
    assert state.current_player == 1 and state.kept[1] == [1]
    with pytest.raises(IllegalAction, match="already arrested by p0"):
        state.apply(Arrest(28))
    assert state.arrests == [28, None, None]


def test_own_row_arrests_can_be_forbidden() -> None:
    state = three_player(deck_with(28), arrest_own_row=False)
    choose_all(state)
    # p0 may not arrest its own cat 28, so its turn in the poll is skipped
    assert state.current_player == 1 and Arrest(28) in state.legal_actions()
    assert "own row" in state.explain_illegal(Arrest(28)) or state.current_player == 1


# -- knowledge --------------------------------------------------------------------------------
def test_knowledge_identifies_a_clue_from_kept_cards() -> None:
    # p0 (ears 0) keeps 28 and 0, which share only ears 0 and eyes 0; hounds reveal clothes 0
    # and hands 0. p1 holds eyes, so p0 must hold ears 0: the chief is 0 or 4 (fur unknown).
    state = three_player(deck_with(28, HOUND, HOUND, 0))
    choose_all(state)
    for _ in range(9):
        state.apply(Pass())
    assert state.kept[0] == [28, 0]
    kb = state.game.knowledge(state.observation(1))
    solver = TokenSolver()
    assert any((w == state.world()).all() for w in solver.world_array(kb))
    chiefs: dict[int, int] = {}
    for down, n in solver.solution_counts(kb, "down").items():
        chief = chief_from_down(down)
        chiefs[chief] = chiefs.get(chief, 0) + n
    assert chiefs == {0: 1, 4: 1}


def test_verification_pins_everything() -> None:
    state = play_scenario(1, max_rounds=1)
    game = state.game
    obs = state.observation(2)
    # the game is over; the knowledge base is still that of round 1, fully revealed
    kb = game.knowledge(obs)
    worlds = TokenSolver().world_array(kb)
    assert len(worlds) == 1 and (worlds[0] == state.world()).all()
    assert chief_from_sides([0] * 5) == 0 and cat_sides(1) == (1, 0, 0, 0, 0)


def test_observation_is_a_snapshot() -> None:
    state = three_player(deck_with(28, 2, 5, 8))
    choose_all(state)
    obs = state.observation(1)
    again = dataclasses.replace(obs)
    state.apply(state.legal_actions()[-1])
    assert obs == again and obs.arrests == (None, None, None)


# -- agents -----------------------------------------------------------------------------------
def test_agents_registered_and_play_full_games() -> None:
    import agents
    from deduce.play import play_game

    assert {"bayesian", "patient", "random"} <= set(agents.available("checkpoint-charlie"))
    for n in (3, 5):
        game = CheckpointCharlieGame(num_players=n)
        names = ["bayesian", "patient", "random", "bayesian", "patient"][:n]
        record = play_game(game, [agents.get(a, game="checkpoint-charlie") for a in names], seed=n)
        assert record.failure is None and len(record.returns) == n


def test_patient_waits_and_bayesian_posterior_is_exact() -> None:
    from agents.checkpoint_charlie.posterior import BayesianAgent, PatientAgent, posterior

    # as in test_knowledge_identifies_a_clue_from_kept_cards: p1 knows the chief is 0 or 4
    state = three_player(deck_with(28, HOUND, HOUND, 0))
    choose_all(state)
    for _ in range(9):
        state.apply(Pass())
    for _ in range(2):
        state.apply(Pass())  # p0 and p1 pass after p0 kept cat 0; p2 is polled
    assert state.current_player == 2
    obs = state.observation(2)
    post = posterior(state.game, obs)
    assert post.p_chief.sum() == pytest.approx(1.0)
    assert post.p_chief[state.chief()] > 0
    patient = PatientAgent()
    patient.reset(state.game, 2, 0)
    sure = [c for c in (28, 0) if post.p_chief[c] == 1.0]
    assert patient.act(obs) == (Arrest(sure[0]) if sure else Pass())
    bayes = BayesianAgent()
    bayes.reset(state.game, 2, 0)
    assert bayes.act(obs) in state.legal_actions()


def test_both_agents_arrest_a_certain_chief() -> None:
    from agents.checkpoint_charlie.posterior import BayesianAgent, PatientAgent

    # hounds reveal clothes 0 and hands 0; p2 (fur 0) discards 4; p0 keeps 0 and p1 discards 3,
    # so whichever of ears/eyes each holds, both sides are 0: p2 is sure the chief is cat 0
    state = three_player(deck_with(HOUND, HOUND, 4, 0, 3))
    choose_all(state)
    assert state.kept[0] == [0] and state.current_player == 0
    for _ in range(4):
        state.apply(Pass())  # p0, p1, p2, then p1 after flipping 3
    assert state.discarded[1] == [3] and state.current_player == 2
    obs = state.observation(2)
    for agent in (BayesianAgent(), PatientAgent()):
        agent.reset(state.game, 2, 0)
        assert agent.act(obs) == Arrest(0)
