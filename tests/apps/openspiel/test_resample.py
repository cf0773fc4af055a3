"""Exact resampling: a resampled state gives the player the same information, and its hidden
cards follow the exact posterior marginals of the player's knowledge base."""

from __future__ import annotations

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")
stats = pytest.importorskip("scipy.stats")

from deduce.apps.openspiel import load_game  # noqa: E402
from deduce.apps.openspiel.game import dealt  # noqa: E402
from deduce.apps.openspiel.resample import location_counts, resample, total_variation, walk  # noqa: E402
from deduce.games.clue.rules import Accuse, ViewExtra  # noqa: E402


def min_pvalue(worlds: list[np.ndarray], exact: np.ndarray) -> float:
    """The smallest chi-square p-value over the unsettled cards of ``worlds``' location counts
    against the ``exact`` marginals, Bonferroni-corrected (times the number of cards); asserts
    that no world puts a card where the marginals rule it out."""
    exact = exact[-1] if exact.ndim == 3 else exact
    counts = location_counts(worlds, exact.shape)
    unsettled = [c for c in range(len(exact)) if (exact[c] > 0).sum() > 1]
    assert unsettled
    pvalues = []
    for c in unsettled:
        live = exact[c] > 0
        assert counts[c][~live].sum() == 0  # never a location the player has ruled out
        pvalues.append(stats.chisquare(counts[c][live], len(worlds) * exact[c][live]).pvalue)
    return min(pvalues) * len(unsettled)


def midgame(moves: int, seed: int, players: int = 3):
    """A Clue game after ``moves`` random moves without accusations (seeded)."""
    game = load_game("clue", players=players)
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        outcomes = state.chance_outcomes()
        state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
    for _ in range(moves):
        legal = [a for a in state.legal_actions() if not isinstance(game.actions.decode(a), Accuse | ViewExtra)]
        state.apply_action(legal[int(rng.integers(len(legal)))])
    return game, state


@pytest.mark.slow
@pytest.mark.parametrize("seed", [3, 4])
def test_resampled_states_give_the_player_the_same_information(seed):
    game, state = midgame(24, seed)
    player = state.current_player()
    for p in {player, (player + 1) % 3}:
        want = state.information_state_string(p)
        hand = state.engine.hands[p]
        worlds = set()
        for k in range(6):
            new = resample(state, p, np.random.default_rng(k))
            assert new.information_state_string(p) == want
            assert new.engine.hands[p] == hand
            assert new.current_player() == state.current_player()
            worlds.add(tuple(new.engine.world()))
        assert len(worlds) > 1  # the hidden cards really are redrawn


def test_openspiel_resample_from_infostate_is_the_same_resampler():
    _, state = midgame(10, 5)
    p = state.current_player()
    new = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    assert new.information_state_string(p) == state.information_state_string(p)
    assert new.history() != state.history() or new.engine.world().tolist() == state.engine.world().tolist()


def sampled_midgame(name: str, moves: int, seed: int, deal: int | None = None):
    """A seeded-deal game (engine seed ``deal``, by default ``7 + seed``) after ``moves``
    seeded random moves (stopping before the end)."""
    game = load_game(name)
    state = dealt(game, 7 + seed if deal is None else deal)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        legal = state.legal_actions()
        nxt = state.clone()
        nxt.apply_action(legal[int(rng.integers(len(legal)))])
        if nxt.is_terminal():
            break
        state = nxt
    return game, state


def resamples(state, player: int, count: int):
    """``count`` resamples of ``state`` for ``player``: the first through OpenSpiel's
    ``resample_from_infostate``, the others by :func:`resample` with seeds 1, 2, ..."""
    yield state.resample_from_infostate(player, pyspiel.UniformProbabilitySampler(0.0, 1.0))
    for k in range(1, count):
        yield resample(state, player, np.random.default_rng(k))


#: per game: random moves into the game, and the seat other than the mover to resample for
SAMPLED = {"mafia-code": 20, "alibi": 30, "alibi-adlung": 30, "crime-hotel": 30, "checkpoint-charlie": 6}


@pytest.mark.parametrize("name", sorted(SAMPLED))
def test_sampled_games_resample_within_the_information_set(name):
    """Every resample of a sampled game gives the player the same information state string,
    keeps the move history, redraws the hidden world at least once, and can be played on."""
    game, state = sampled_midgame(name, SAMPLED[name], 1)
    assert not state.is_terminal()
    p = (state.current_player() + 1) % game.num_players()
    want = state.information_state_string(p)
    worlds = set()
    for new in resamples(state, p, 4):
        assert new.information_state_string(p) == want
        assert new.history() == state.history()
        assert new.current_player() == state.current_player()
        worlds.add(new.engine.world().tobytes())
        new.apply_action(new.legal_actions()[0])  # the search goes on from it
    assert len(worlds) > 1
    assert state.information_state_string(p) == want  # the state resampled from is untouched


def test_resampling_names_each_game_exact_or_approximate():
    from deduce.apps.openspiel.resample import RESAMPLING
    from deduce.games.registry import game_names

    assert set(RESAMPLING) == set(game_names())
    assert {k for k, v in RESAMPLING.items() if v == "exact"} == {"clue", "mafia-code", "checkpoint-charlie", "crime-hotel"}
    from deduce.apps.openspiel import game_names as registered
    from deduce.apps.openspiel.resample import resampling

    methods = {name: resampling(pyspiel.load_game(name)) for name in registered()}
    assert {k for k, v in methods.items() if v == "approximate"} == {"python_deduce_alibi", "python_deduce_alibi_adlung"}


def test_resampling_before_the_deal_redraws_the_seed_bytes_drawn():
    """Before the deal is over nobody has seen anything: a resample has as many seed bytes
    drawn, each drawn anew."""
    game = load_game("mafia-code")
    state = game.new_initial_state()
    state.apply_action(7)
    state.apply_action(9)
    news = [resample(state, 0, np.random.default_rng(k)) for k in range(4)]
    assert all(new.is_chance_node() and len(new.history()) == 2 for new in news)
    assert len({tuple(new.history()) for new in news}) > 1


@pytest.mark.slow
def test_mafia_code_hands_follow_the_exact_marginals():
    """Mafia Code is resampled exactly: chi-square per unsettled card over 200 resamples against
    the exact counter's marginals (Bonferroni over the cards)."""
    import solvers

    game, state = sampled_midgame("mafia-code", 20, 1)
    p = (state.current_player() + 1) % game.num_players()
    kb = game.deduce.knowledge(state.deduce_observation(p))
    exact = solvers.get("exact").marginals(kb)
    worlds = [resample(state, p, np.random.default_rng(2000 + k)).engine.world() for k in range(200)]
    assert min_pvalue(worlds, exact) > 0.001


def test_mafia_code_resample_draws_new_future_dice():
    """The resampled state keeps the dice the player saw but not the true game's future ones."""
    game, state = sampled_midgame("mafia-code", 20, 1)
    p = state.current_player()
    new = resample(state, p, np.random.default_rng(5))
    assert new.engine.rng.bit_generator.state != state.engine.rng.bit_generator.state


@pytest.mark.slow
def test_hidden_cards_follow_the_exact_marginals():
    """Chi-square per unsettled card over 300 resamples against the exact counter's marginals
    (Bonferroni over the cards)."""
    import solvers

    game, state = midgame(18, 7)
    p = state.current_player()
    kb = game.deduce.knowledge(state.deduce_observation(p))
    exact = solvers.get("exact").marginals(kb)
    worlds = [resample(state, p, np.random.default_rng(1000 + k)).engine.world() for k in range(300)]
    assert min_pvalue(worlds, exact) > 0.001


@pytest.mark.slow
@pytest.mark.parametrize("name", ["crime-hotel", "checkpoint-charlie"])
def test_card_deal_games_follow_the_exact_marginals_where_the_walk_did_not(name):
    """Crime Hotel and Checkpoint Charlie are resampled exactly: chi-square per unsettled card
    over 200 resamples against the exact counter's marginals (of the last epoch for Crime
    Hotel's time-indexed knowledge base); the approximate walk they used before fails the same
    test at the same position, so the test can tell the two apart."""
    import solvers

    game, state = sampled_midgame(name, SAMPLED[name], 0)
    p = (state.current_player() + 1) % game.num_players()
    exact = solvers.get("auto").marginals(game.deduce.knowledge(state.deduce_observation(p)))
    worlds = [resample(state, p, np.random.default_rng(3000 + k)).engine.world() for k in range(200)]
    assert min_pvalue(worlds, exact) > 0.001
    walked = [walk(state, p, np.random.default_rng(3000 + k)).engine.world() for k in range(200)]
    assert min_pvalue(walked, exact) < 1e-6


def test_crime_hotel_resample_redraws_exchanges_the_player_did_not_see():
    """At a position where two exchanges happened between other seats, the resamples keep what
    the player saw (the same information state string) and redraw what moved in them."""
    from deduce.games.crime_hotel.rules import Exchange

    for deal in range(20):  # the first deal whose random play has such exchanges
        game, state = sampled_midgame("crime-hotel", 30, 0, deal)
        p = (state.current_player() + 1) % game.num_players()
        hidden = [i for i, s in enumerate(state.steps)
                  if isinstance(s.action, Exchange) and p not in (s.seat, s.action.target)]
        if len(hidden) >= 2:
            break
    assert len(hidden) >= 2
    want = state.information_state_string(p)
    gives = set()
    for k in range(12):
        new = resample(state, p, np.random.default_rng(k))
        assert new.information_state_string(p) == want
        assert sorted(new.engine.hands[p]) == sorted(state.engine.hands[p])
        gives.add(tuple(new.steps[i].events[-1].given for i in hidden))
    assert len(gives) > 1


def test_checkpoint_resample_redraws_unseen_sides_and_the_unflipped_deck():
    """The seats' sides the player did not see are redrawn (so the chief is too), and the deck's
    flipped part stays as everyone saw it while the rest is reshuffled."""
    game, state = sampled_midgame("checkpoint-charlie", 6, 0)
    p = (state.current_player() + 1) % game.num_players()
    engine = state.engine
    pos = engine.deck_pos
    sides, decks = set(), set()
    for k in range(20):
        new = resample(state, p, np.random.default_rng(k)).engine
        assert new.deal.deck[:pos] == engine.deal.deck[:pos]
        assert sorted(new.deal.deck) == sorted(engine.deal.deck)
        assert new.sides[p] == engine.sides[p] and new.deal.features[p] == engine.deal.features[p]
        sides.add(tuple(new.sides))
        decks.add(new.deal.deck[pos:])
    assert len(sides) > 1 and len(decks) > 1


def test_total_variation_of_exact_frequencies_is_zero_and_of_a_point_mass_is_large():
    exact = np.array([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0], [0.25, 0.25, 0.5]])
    worlds = [np.array(w) for w in ([0, 0, 0], [1, 0, 1], [0, 0, 2], [1, 0, 2])]
    mean, largest, cards = total_variation(worlds, exact)
    assert (mean, largest, cards) == (0.0, 0.0, 2)
    mean, largest, cards = total_variation([np.array([0, 0, 2])] * 4, exact)
    assert (mean, largest, cards) == (0.5, 0.5, 2)


def board_midgame(name: str, moves: int, seed: int):
    """Clue on the board after ``moves`` seeded random moves without accusations, a move into
    a room and a suggestion taken whenever there is one (so cards get shown)."""
    from deduce.games.clue.rules import Accuse, Move, Suggest, ViewExtra

    game = pyspiel.load_game(name, {"players": 3})
    board = game.deduce.board
    state = dealt(game, seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if state.is_chance_node():  # the dice
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[int(rng.integers(len(outcomes)))][0])
            continue
        legal = [a for a in state.legal_actions() if not isinstance(game.actions.decode(a), Accuse | ViewExtra)]
        acts = [game.actions.decode(a) for a in legal]
        eager = [a for a, x in zip(legal, acts, strict=True)
                 if isinstance(x, Suggest) or isinstance(x, Move) and board.is_room(x.to)]
        pool = eager or legal
        state.apply_action(pool[int(rng.integers(len(pool)))])
    return game, state


@pytest.mark.parametrize("name", ["python_deduce_clue_board", "python_deduce_clue_intrigue"])
def test_clue_on_the_board_resamples_within_the_information_set(name):
    """A resampled board game keeps the player's information (the same rolls and moves: the
    dice are the true game's) with the hidden cards redrawn, and play goes on from it."""
    from deduce.apps.openspiel.resample import resampling

    game, state = board_midgame(name, 120, 3)
    assert resampling(game) == "exact"
    for p in range(3):
        want = state.information_state_string(p)
        worlds = set()
        for new in resamples(state, p, 4):
            assert new.information_state_string(p) == want
            assert sorted(new.engine.hands[p]) == sorted(state.engine.hands[p])
            worlds.add(new.engine.world().tobytes())
            new.apply_action(new.legal_actions()[0])
        assert len(worlds) > 1


@pytest.mark.slow
def test_clue_on_the_board_follows_the_exact_marginals():
    """Chi-square per unsettled card over 200 resamples of a board game against the exact
    counter's marginals (Bonferroni over the cards)."""
    import solvers
    from deduce.games.clue.rules import Suggestion

    game, state = board_midgame("python_deduce_clue_board", 150, 2)
    p = (state.current_player() + 1) % 3
    obs = state.deduce_observation(p)
    assert sum(isinstance(e, Suggestion) for e in obs.events) >= 2
    exact = solvers.get("exact").marginals(game.deduce.knowledge(obs))
    worlds = [resample(state, p, np.random.default_rng(4000 + k)).engine.world() for k in range(200)]
    assert min_pvalue(worlds, exact) > 0.001


@pytest.mark.slow
def test_intrigue_cards_other_seats_hold_follow_the_exact_posterior():
    """The kinds of the bonus cards other seats drew unseen are redrawn: over 300 resamples the
    kind of each hidden draw follows the exact posterior, by enumerating every arrangement of
    the unseen bonus cards over the hidden draws and the deck left that lets each seat play the
    bonus cards it played (binomial test per hidden draw, Bonferroni)."""
    from collections import Counter
    from itertools import permutations

    from deduce.apps.openspiel.resample import resampling
    from deduce.games.clue.intrigue import CLOCK, DECLINE, Decline, IntrigueDrawn, UseAnyRoom

    game, state = board_midgame("python_deduce_clue_intrigue", 60, 0)
    p = 1
    assert resampling(game) == "exact"
    draws = [(i, e) for i, e in enumerate(state.engine.events) if isinstance(e, IntrigueDrawn) and e.card != CLOCK]
    hidden = [i for i, e in draws if e.player != p]
    assert hidden and all(e.view(p).card is None for i, e in draws if i in hidden)
    seen = Counter(e.card for i, e in draws if i not in hidden)
    pool = list((Counter(dict(game.deduce.config.bonus_cards)) - seen).elements())
    # when each bonus card was played: the number of events before it, from the steps' events
    at, plays_at = 0, []
    for s in state.steps:
        if isinstance(s.action, UseAnyRoom | Decline) and s.seat != p:
            plays_at.append((s.seat, "any_room" if isinstance(s.action, UseAnyRoom) else DECLINE, at))
        at += len(s.events)

    def fits(kinds: dict[int, str]) -> bool:
        for seat, kind, before in plays_at:
            drawn = sum(1 for i, e in draws if e.player == seat and i < before and kinds.get(i, e.card) == kind)
            played = sum(1 for q, k, b in plays_at if q == seat and k == kind and b <= before)
            if drawn < played:
                return False
        return True

    arrangements = {a[: len(hidden)] for a in permutations(pool)}
    weights = Counter()
    for a in set(permutations(pool)):
        kinds = dict(zip(hidden, a, strict=False))
        if fits(kinds):
            weights[a[: len(hidden)]] += 1
    assert arrangements and weights
    total = sum(weights.values())
    n = 300
    got = Counter()
    for k in range(n):
        new = resample(state, p, np.random.default_rng(5000 + k))
        kinds = [e.card for e in new.engine.events if isinstance(e, IntrigueDrawn) and e.card != CLOCK and e.player != p]
        got[tuple(kinds)] += 1
    pvalues = []
    for j in range(len(hidden)):
        exact = sum(w for a, w in weights.items() if a[j] == DECLINE) / total
        count = sum(c for a, c in got.items() if a[j] == DECLINE)
        pvalues.append(stats.binomtest(count, n, exact).pvalue if 0 < exact < 1 else float(count == n * exact))
    assert min(pvalues) * len(hidden) > 0.001, (pvalues, got, weights)


@pytest.mark.slow
def test_alibi_adlung_draws_exactly_where_its_rejection_accepts():
    """Alibi (Adlung), 30 moves in: every resample is an exact draw (none falls back to the
    walk), and over 200 of them the cards follow the exact posterior's marginals (the
    time-indexed knowledge base, counted exactly)."""
    import solvers
    from deduce.apps.openspiel import resample as module

    game, state = sampled_midgame("alibi-adlung", 30, 0)
    p = (state.current_player() + 1) % game.num_players()
    exact = solvers.get("auto").marginals(game.deduce.knowledge(state.deduce_observation(p), exact_time=True))
    walked = []
    real_walk = module.walk
    module.walk = lambda *args: walked.append(1) or real_walk(*args)
    try:
        worlds = [resample(state, p, np.random.default_rng(6000 + k)).engine.world() for k in range(200)]
    finally:
        module.walk = real_walk
    assert not walked
    assert min_pvalue(worlds, exact) > 0.001


def test_alibi_adlung_falls_back_to_the_walk_and_keeps_the_information_set():
    """Deeper in, where no proposed history is accepted within ADLUNG_TRIES, the resample is
    the walk's: still within the player's information set."""
    game, state = sampled_midgame("alibi-adlung", 60, 0)
    p = (state.current_player() + 1) % game.num_players()
    want = state.information_state_string(p)
    for new in resamples(state, p, 3):
        assert new.information_state_string(p) == want and new.history() == state.history()


def test_mayfair_alibi_resamples_exactly_where_frontier_counts(monkeypatch):
    """Early in Mayfair Alibi (the deal and one pass: frontier counts the time-indexed
    knowledge base) the resample is a whole history drawn by frontier, not the walk: the same
    information state string, the hidden deal redrawn, and play goes on from it."""
    import deduce.apps.openspiel.resample as R

    def no_walk(*args, **kwargs):
        raise AssertionError("the walk was used where frontier counts")

    game, state = sampled_midgame("alibi", 20, 1)
    assert state.engine.round == 2  # past the first pass
    monkeypatch.setattr(R, "walk", no_walk)
    p = (state.current_player() + 1) % game.num_players()
    want = state.information_state_string(p)
    worlds = set()
    for k in range(3):
        new = resample(state, p, np.random.default_rng(k))
        assert new.information_state_string(p) == want
        assert new.history() == state.history()
        worlds.add(new.engine.world().tobytes())
        new.apply_action(new.legal_actions()[0])
    assert len(worlds) == 3


def test_mayfair_alibi_falls_back_to_the_walk_where_frontier_refuses(monkeypatch):
    import deduce.apps.openspiel.resample as R

    game, state = sampled_midgame("alibi", 30, 1)
    assert state.engine.round >= 3
    walked = []
    real = R.walk
    monkeypatch.setattr(R, "walk", lambda *a: walked.append(1) or real(*a))
    p = (state.current_player() + 1) % game.num_players()
    new = resample(state, p, np.random.default_rng(0))
    assert walked and new.information_state_string(p) == state.information_state_string(p)


@pytest.mark.slow
def test_mayfair_alibi_follows_frontiers_exact_marginals():
    """Chi-square per unsettled card over 150 resamples against frontier's exact marginals of
    the time-indexed knowledge base (its last epoch); the walk fails the same test."""
    from solvers.frontier import FrontierSolver

    game, state = sampled_midgame("alibi", 20, 1)
    p = (state.current_player() + 1) % game.num_players()
    exact = FrontierSolver().marginals(game.deduce.knowledge(state.deduce_observation(p)))
    worlds = [resample(state, p, np.random.default_rng(5000 + k)).engine.world() for k in range(150)]
    assert min_pvalue(worlds, exact) > 0.001
    walked = [walk(state, p, np.random.default_rng(5000 + k)).engine.world() for k in range(150)]
    assert min_pvalue(walked, exact) < 1e-6
