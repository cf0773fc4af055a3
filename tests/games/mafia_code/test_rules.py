"""Mafia Code rules (RULES.md §2 and the seed): deal, opening codes, rolls and rerolls, guess
loop, circling, end, scoring, the expert rule, illegal actions, and the knowledge base."""

import numpy as np
import pytest

import deduce
from deduce.errors import IllegalAction
from deduce.games.mafia_code.rules import (
    BOX,
    COLOURS,
    LETTERS,
    Circled,
    CodeWritten,
    Dealt,
    Guess,
    Guessed,
    MafiaCodeConfig,
    MafiaCodeGame,
    MafiaCodeState,
    Stop,
    TurnEnded,
)
from deduce.knowledge import propagate


def small(**cfg) -> MafiaCodeGame:
    """A 3x3 deck (9 cards) for hand-checked scenarios."""
    base = dict(num_players=2, colours=("red", "blue", "green"), letters=("A", "B", "C"), hand_size=3)
    base.update(cfg)
    return MafiaCodeGame(**base)


def miss_card(state: MafiaCodeState, target: int) -> int:
    """A card that ``target`` does not hold and nobody has revealed (a sure miss)."""
    revealed = {c for r in state.revealed for c in r}
    return next(c for c in range(state.game.config.num_cards) if c not in state.hands[target] and c not in revealed)


# -- config -----------------------------------------------------------------------------------
def test_defaults_follow_rules_md():
    cfg = MafiaCodeConfig()
    assert cfg.colours == COLOURS and len(cfg.colours) == 6
    assert cfg.letters == LETTERS == ("A", "B", "C", "D", "E", "F")
    assert cfg.num_cards == 36
    assert not cfg.expert and cfg.same_target_allowed and cfg.guess_mandatory
    assert cfg.reroll_duplicate_initial and cfg.auto_circling and cfg.ties_shared
    assert cfg.stop_allowed is False  # the basic rule: guess once more after a hit
    assert MafiaCodeConfig(expert=True).stop_allowed is True
    assert MafiaCodeConfig(expert=True, may_stop=False).stop_allowed is False
    assert deduce.make("mafia-code", num_players=4).config.hand_sizes() == (8,) * 4


def test_config_rejects_bad_values():
    with pytest.raises(ValueError, match="2 to 4 players"):
        MafiaCodeConfig(num_players=5)
    with pytest.raises(ValueError, match="need"):
        MafiaCodeConfig(num_players=4, hand_size=10)
    with pytest.raises(ValueError, match="distinct"):
        MafiaCodeConfig(letters=("A", "A"))
    with pytest.raises(ValueError, match="auto_circling"):
        MafiaCodeConfig(auto_circling=False)
    with pytest.raises(deduce.UnknownName):
        deduce.make("mafia-code", colour="red")


# -- deal and opening round -------------------------------------------------------------------
@pytest.mark.parametrize("n,hand,box", [(2, 12, 12), (3, 10, 6), (4, 8, 4)])
def test_deal_sizes_and_box(n, hand, box):
    g = MafiaCodeGame(num_players=n)
    s = g.new_initial_state(11)
    assert [len(h) for h in s.hands] == [hand] * n
    assert len(s.box) == box and g.config.box_size() == box
    everything = sorted([c for h in s.hands for c in h] + list(s.box))
    assert everything == list(range(36))
    assert g.locations == tuple(f"p{i}" for i in range(n)) + (BOX,)
    w = s.world()
    assert (w == n).sum() == box
    # a hand is private: each seat sees its own Dealt event only, a spectator none
    for p in range(n):
        dealt = [e for e in s.observation(p).events if isinstance(e, Dealt)]
        assert dealt == [Dealt(p, s.hands[p])]
    assert not [e for e in s.observation(None).events if isinstance(e, Dealt)]
    assert s.observation(None).hand == ()


@pytest.mark.parametrize("n,codes", [(2, 4), (3, 3), (4, 4)])
def test_opening_round_every_player_writes_every_code(n, codes):
    g = MafiaCodeGame(num_players=n)
    for seed in range(5):
        s = g.new_initial_state(seed)
        opening = [e for e in s.events if isinstance(e, CodeWritten) and e.opening]
        assert len(opening) == codes
        assert [e.roller for e in opening] == [i % n for i in range(codes)]
        assert len({(e.colour, e.letter) for e in opening}) == codes  # duplicates are rerolled
        for e in opening:
            assert e.writers == tuple(range(n))
            assert e.counts == tuple(s.count(p, e.colour, e.letter) for p in range(n))
        # then the first turn's roll: seat 0 alone writes
        first = [e for e in s.events if isinstance(e, CodeWritten) and not e.opening]
        assert len(first) == 1 and first[0].roller == 0 and first[0].writers == (0,)


def test_count_is_colour_or_letter_each_card_once():
    g = MafiaCodeGame(num_players=2)
    red, b = 0, 1  # colour index of red, letter index of B
    red_b = g.card_id(red, b)
    assert len(g.matching(red, b)) == 11 and red_b in g.matching(red, b)
    # the seed's example: two red cards and two B cards, none of them red B -> 4
    hand = [g.card_id(red, 0), g.card_id(red, 2), g.card_id(1, b), g.card_id(2, b)]
    rest = [c for c in range(36) if c not in hand and c not in g.matching(red, b)]
    s = MafiaCodeState.from_deal(g, [hand + rest[:8], rest[8:20]], seed=0)
    assert s.count(0, red, b) == 4
    # with red B itself it counts once: 5, not 6
    s2 = MafiaCodeState.from_deal(g, [hand + [red_b] + rest[:7], rest[8:20]], seed=0)
    assert s2.count(0, red, b) == 5


def test_same_seed_and_deal_replay_the_same_dice():
    g = MafiaCodeGame(num_players=3)
    a = g.new_initial_state(42)
    b = MafiaCodeState.from_deal(g, a.hands, seed=42)
    assert a.events == b.events
    with pytest.raises(ValueError):
        MafiaCodeState.from_deal(g, [a.hands[0], a.hands[0], a.hands[2]])


# -- rolls ------------------------------------------------------------------------------------
def test_turn_roll_rerolls_until_an_empty_cell_and_only_the_roller_writes():
    g = small()
    s = MafiaCodeState.from_deal(g, [(0, 1, 2), (3, 4, 5)], seed=3)
    # fill every cell of player 1's sheet but (2, 1), then end player 0's turn with a miss
    s.sheets[1] = {(c, k): s.count(1, c, k) for c in range(3) for k in range(3) if (c, k) != (2, 1)}
    before = dict(s.sheets[0])
    events = s.apply(Guess(1, miss_card(s, 1)))
    roll = [e for e in events if isinstance(e, CodeWritten)]
    assert len(roll) == 1
    e = roll[0]
    assert (e.roller, e.colour, e.letter, e.writers) == (1, 2, 1, (1,))
    assert e.counts == (s.count(1, 2, 1),)
    assert all(code in s.sheets[1] and code != (2, 1) for code in e.rerolled)
    assert s.sheets[0] == before  # nobody else writes on a turn roll


def test_roll_is_skipped_when_the_sheet_is_full():
    g = small()
    s = MafiaCodeState.from_deal(g, [(0, 1, 2), (3, 4, 5)], seed=3)
    s.sheets[1] = {(c, k): s.count(1, c, k) for c in range(3) for k in range(3)}
    events = s.apply(Guess(1, miss_card(s, 1)))
    assert not [e for e in events if isinstance(e, CodeWritten)]
    assert s.current_player == 1


def test_every_turn_roll_lands_on_an_empty_cell():
    g = MafiaCodeGame(num_players=3)
    rng = np.random.default_rng(0)
    s = g.new_initial_state(9)
    filled = [set() for _ in range(3)]
    for e in s.events:
        if isinstance(e, CodeWritten):
            for w in e.writers:
                filled[w].add((e.colour, e.letter))
    seen_turn_rolls = 0
    while not s.is_terminal():
        acts = s.legal_actions()
        for e in s.apply(acts[int(rng.integers(len(acts)))]):
            if isinstance(e, CodeWritten):
                assert (e.colour, e.letter) not in filled[e.roller]
                assert all(code in filled[e.roller] for code in e.rerolled)
                filled[e.roller].add((e.colour, e.letter))
                seen_turn_rolls += 1
    assert seen_turn_rolls > 5


# -- the guess loop, scoring and the end -------------------------------------------------------
def test_hit_reveals_scores_and_continues_miss_ends_turn():
    g = small()
    s = MafiaCodeState.from_deal(g, [(0, 1, 2), (3, 4, 5)], seed=1)
    assert s.current_player == 0
    with pytest.raises(IllegalAction, match="first guess"):
        s.apply(Stop())  # the first guess is mandatory
    events = s.apply(Guess(1, 3))
    assert events[0] == Guessed(0, 1, 3, True)
    assert s.revealed[1] == [3] and s.scores == [1, 0]
    assert s.current_player == 0  # a hit lets the guesser go on
    assert Stop() not in s.legal_actions()  # basic rule: no stopping
    with pytest.raises(IllegalAction, match="already revealed"):
        s.apply(Guess(1, 3))
    events = s.apply(Guess(1, 6))
    assert events[0] == Guessed(0, 1, 6, False)
    assert TurnEnded(0, "miss", 1, 0) in events
    assert s.crossed[1] == [6] and s.scores == [1, 0]  # a miss costs nothing by default
    assert s.current_player == 1 and s.turns == 1
    # the miss is public: every seat and a spectator see the same Guessed event
    for p in (0, 1, None):
        assert Guessed(0, 1, 6, False) in s.observation(p).events


def test_game_ends_the_moment_a_hand_is_fully_revealed():
    g = small()
    s = MafiaCodeState.from_deal(g, [(0, 1, 2), (3, 4, 5)], seed=1)
    s.apply(Guess(1, 3))
    s.apply(Guess(1, 4))
    assert not s.is_terminal()
    events = s.apply(Guess(1, 5))
    assert s.is_terminal() and s.current_player == MafiaCodeState.TERMINAL
    assert TurnEnded(0, "game_over", 3, 0) in events
    assert s.returns() == [3.0, 0.0] and s.winners() == (0,)
    assert s.legal_actions() == []
    with pytest.raises(IllegalAction, match="over"):
        s.apply(Guess(1, 0))


def test_ties_are_shared():
    g = small()
    s = MafiaCodeState.from_deal(g, [(0, 1, 2), (3, 4, 5)], seed=1)
    s.apply(Guess(1, 3))
    s.apply(Guess(1, miss_card(s, 1)))
    s.apply(Guess(0, 0))
    s.apply(Guess(0, miss_card(s, 0)))
    assert s.scores == [1, 1] and s.winners() == (0, 1)


def test_expert_rule_forfeits_the_turns_points_and_allows_stopping():
    g = small(expert=True)
    s = MafiaCodeState.from_deal(g, [(0, 1, 2), (3, 4, 5)], seed=1)
    s.apply(Guess(1, 3))
    s.apply(Guess(1, 4))
    assert s.scores == [2, 0] and Stop() in s.legal_actions()
    events = s.apply(Guess(1, miss_card(s, 1)))
    assert TurnEnded(0, "miss", 0, 2) in events
    assert s.scores == [0, 0] and s.revealed[1] == [3, 4]  # the cards stay revealed
    # player 1 hits once and stops: the point is kept
    s.apply(Guess(0, 0))
    events = s.apply(Stop())
    assert TurnEnded(1, "stop", 1, 0) in events
    assert s.scores == [0, 1] and s.current_player == 0


def test_next_target_must_differ_when_configured():
    g = small(num_players=3, hand_size=2, same_target_allowed=False)
    s = MafiaCodeState.from_deal(g, [(0, 1), (2, 3), (4, 5)], seed=1)
    s.apply(Guess(1, 2))
    assert all(a.target == 2 for a in s.legal_actions() if isinstance(a, Guess))
    with pytest.raises(IllegalAction, match="different player"):
        s.apply(Guess(1, 3))


# -- circling ---------------------------------------------------------------------------------
def test_circling_is_automatic_public_and_derived_by_the_knowledge_base():
    g = small()
    # player 1 holds red A (0), red B (1) and blue C (5); cell (red, A) counts red x or x A
    s = MafiaCodeState.from_deal(g, [(4, 7, 8), (0, 1, 5)], seed=1)
    s.sheets[1][(0, 0)] = s.count(1, 0, 0)
    assert s.count(1, 0, 0) == 2
    s.apply(Guess(1, 0))
    events = s.apply(Guess(1, 1))
    circ = [e for e in events if isinstance(e, Circled)]
    assert circ and circ[0].player == 1 and (0, 0) in circ[0].cells
    assert set(circ[0].cards) >= set(g.matching(0, 0)) - {0, 1}
    # the knowledge base is told the count and the reveals, never the circling, and finds it
    kb = g.base_knowledge()
    kb.extend(g.event_constraints(kb, CodeWritten(1, 0, 0, (1,), (2,))))
    for e in s.observation(0).events:
        if isinstance(e, Guessed):
            kb.extend(g.event_constraints(kb, e))
    assert g.event_constraints(kb, circ[0]) == []
    possible = propagate(kb).possible[0]
    for card in set(g.matching(0, 0)) - {0, 1}:
        assert not possible[card, 1]
    # and the full knowledge base of either seat rules out every card the circling crossed
    for seat in (0, 1):
        possible = propagate(g.knowledge(s.observation(seat))).possible[0]
        for card in circ[0].cards:
            assert not possible[card, 1]


def test_zero_cells_are_circled_when_written():
    g = MafiaCodeGame(num_players=2)
    for seed in range(40):
        s = g.new_initial_state(seed)
        for i, e in enumerate(s.events):
            if isinstance(e, CodeWritten):
                for w, k in zip(e.writers, e.counts, strict=True):
                    if k == 0:
                        after = s.events[i + 1 :]
                        assert any(
                            isinstance(x, Circled) and x.player == w and (e.colour, e.letter) in x.cells
                            for x in after
                        )
                        return
    pytest.skip("no zero cell in 40 deals")


# -- illegal actions --------------------------------------------------------------------------
def test_illegal_guesses_say_why():
    g = small(num_players=3, hand_size=2)
    s = MafiaCodeState.from_deal(g, [(0, 1), (2, 3), (4, 5)], seed=1)
    with pytest.raises(IllegalAction, match="own cards"):
        s.apply(Guess(0, 2))
    with pytest.raises(IllegalAction, match="no player 7"):
        s.apply(Guess(7, 2))
    with pytest.raises(IllegalAction, match="no card 99"):
        s.apply(Guess(1, 99))
    s.apply(Guess(1, 2))
    with pytest.raises(IllegalAction, match="already revealed"):
        s.apply(Guess(2, 2))
    s.apply(Guess(1, 3))  # player 1 has now revealed everything: the game is over
    assert s.is_terminal()


def test_a_target_with_nothing_left_cannot_be_named():
    g = small(num_players=3, hand_size=2)
    s = MafiaCodeState.from_deal(g, [(0, 1), (2, 3), (4, 5)], seed=1)
    s.revealed[2] = [4, 5]  # as if revealed earlier (the engine would have ended the game)
    with pytest.raises(IllegalAction, match="no unrevealed cards"):
        s.apply(Guess(2, 6))


# -- knowledge --------------------------------------------------------------------------------
def test_knowledge_holds_counts_facts_and_the_truth():
    g = MafiaCodeGame(num_players=3)
    rng = np.random.default_rng(4)
    s = g.new_initial_state(4)
    for _ in range(30):
        if s.is_terminal():
            break
        acts = s.legal_actions()
        s.apply(acts[int(rng.integers(len(acts)))])
    obs = s.observation(1)
    kb = g.knowledge(obs)
    assert kb.consistent_with(s.world())
    kinds = {type(c).__name__ for c in kb.constraints}
    assert kinds == {"At", "NotAt", "Count"} or kinds == {"At", "Count"}
    n_cells = sum(len(e.writers) for e in obs.events if isinstance(e, CodeWritten))
    counts = [c for c in kb.constraints if type(c).__name__ == "Count" and len(c.cards) == 11]
    assert len(counts) == n_cells
    # the observer's own hand is fixed; a wrong guess is a NotAt for everyone
    possible = propagate(kb).possible[0]
    for c in obs.hand:
        assert possible[c].tolist() == [z == 1 for z in range(4)]
    for q, crossed in enumerate(obs.crossed):
        for c in crossed:
            assert not possible[c, q]


# -- agents -----------------------------------------------------------------------------------
def test_direct_exclusions_are_sound_and_facts_respects_them():
    from agents.mafia_code.guessing import FactsAgent, direct_exclusions

    g = MafiaCodeGame(num_players=3)
    s = g.new_initial_state(8)
    agent = FactsAgent()
    agent.reset(g, 0, 1)
    rng = np.random.default_rng(8)
    checked = 0
    while not s.is_terminal() and checked < 60:
        obs = s.observation(s.current_player)
        excluded = direct_exclusions(g, obs)
        truth = s.world()
        for c in range(36):
            if truth[c] < 3:
                assert not excluded[c, truth[c]]
        agent.player = s.current_player
        action = agent.act(obs)
        if isinstance(action, Guess) and not excluded[:, action.target].all():
            assert not excluded[action.card, action.target]
        s.apply(action if rng.random() < 0.5 else obs.legal_actions[int(rng.integers(len(obs.legal_actions)))])
        checked += 1
    assert checked > 10


def test_chain_value():
    from agents.mafia_code.guessing import chain_value

    assert chain_value(0.0, 5) == 0.0
    assert chain_value(1.0, 4) == 4.0
    assert chain_value(0.5, 1) == 0.5
    assert abs(chain_value(0.5, 100) - 1.0) < 1e-9  # p / (1 - p) in the long run


def test_solver_takes_a_certain_hit_and_stops_under_the_expert_rule():
    from agents.mafia_code.guessing import GuessChainAgent

    g = small(expert=True)
    s = MafiaCodeState.from_deal(g, [(0, 1, 2), (3, 4, 5)], seed=2)
    agent = GuessChainAgent()
    agent.reset(g, 0, 0)
    obs = s.observation(0)
    marg = solvers_marginals(g, obs)
    action = agent.act(obs)
    assert isinstance(action, Guess) and action.target == 1
    assert marg[action.card, 1] == marg[[c for c in range(9) if c not in (0, 1, 2)], 1].max()
    # after two hits with 2 points at stake the rule is: guess only if it pays for the risk
    s.apply(Guess(1, 3))
    s.apply(Guess(1, 4))
    obs2 = s.observation(0)
    assert obs2.turn_gain == 2
    for p_hit, expected in ((0.3, Stop), (0.95, Guess)):

        class Fixed(GuessChainAgent):
            def marginals(self, kb, hand_left, p_hit=p_hit):
                m = np.zeros((9, 3))
                m[:, 1] = p_hit
                return m

        fixed = Fixed()
        fixed.reset(g, 0, 0)
        assert isinstance(fixed.act(obs2), expected)


def solvers_marginals(g: MafiaCodeGame, obs) -> np.ndarray:
    import solvers

    return solvers.get("brute").marginals(g.knowledge(obs))


def test_solver_beats_random_and_facts_at_two_players():
    import agents
    from deduce.play import play_game

    g = MafiaCodeGame(num_players=2)
    wins = 0
    for seed in range(4):
        table = ["guess-chain", "facts" if seed % 2 else "random"]
        seat = seed % 2  # alternate who starts
        names = table if seat == 0 else table[::-1]
        record = play_game(g, [agents.get(n, game="mafia-code") for n in names], seed=seed)
        assert record.failure is None
        wins += names.index("guess-chain") in record.winners
    assert wins == 4


# -- exact marginals on crossing counts (issue #14) ---------------------------------------------


def _random_state(players: int, seed: int, steps: int) -> MafiaCodeState:
    """The state after ``steps`` random legal actions (the benchmark's corpus: game ``seed``)."""
    g = MafiaCodeGame(num_players=players)
    s = g.new_initial_state(seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        legal = s.observation(s.current_player).legal_actions
        s.apply(legal[int(rng.integers(len(legal)))])
    return s


def test_split_counts_a_4_player_state_the_plain_counter_refuses():
    """Benchmark corpus state 139 (game 1, step 11): ``exact`` refuses it after 20M transitions;
    ``split`` counts it by joining the locations' possible hands (and, with the join off, by
    branching), finding exactly the worlds cpsat enumerates, the truth among them."""
    import solvers
    from solvers.split import SplitSolver

    s = _random_state(4, 1, 11)
    kb = s.game.knowledge(s.observation(s.current_player))
    split = solvers.get("split")
    assert isinstance(split, SplitSolver)
    tally = split.tallies(kb)
    assert split.joins > 0 and tally.total == 1248
    branching = SplitSolver(join=False)
    assert branching.tallies(kb) == tally and branching.splits > 0 and branching.joins == 0
    assert tally == solvers.get("cpsat").tallies(kb)
    truth = s.world()
    assert all(tally.cells[c][truth[c]] > 0 for c in range(36))


def test_split_pins_a_single_world_and_solver_agent_never_falls_back():
    """Corpus state 480 (game 4, step 22) has one consistent world: ``split`` finds it, and the
    guess-chain agent decides on exact marginals there (no possible-location approximation)."""
    import solvers
    from agents.mafia_code.guessing import GuessChainAgent

    s = _random_state(4, 4, 22)
    p = s.current_player
    kb = s.game.knowledge(s.observation(p))
    tally = solvers.get("split").tallies(kb)
    assert tally.total == 1
    truth = s.world()
    assert all(tally.cells[c][truth[c]] == 1 for c in range(36))
    agent = GuessChainAgent()
    agent.reset(s.game, p, 0)
    action = agent.act(s.observation(p))
    assert isinstance(action, Guess) and action.card in s.hands[action.target]  # one world: a sure hit
    assert agent.queries >= 1 and agent.fallbacks == 0


def test_split_rejects_bad_limits_and_refuses_past_its_budget():
    import solvers
    from deduce.errors import TooLarge
    from solvers.split import SplitSolver

    with pytest.raises(ValueError, match="branch_limit"):
        SplitSolver(branch_limit=0)
    with pytest.raises(ValueError, match="wide_budget"):
        SplitSolver(wide_budget=-1)
    s = _random_state(4, 1, 11)
    kb = s.game.knowledge(s.observation(s.current_player))
    with pytest.raises(TooLarge, match="split"):
        SplitSolver(limit=1_000).tallies(kb)  # the count by classes answers within 10,000
    assert solvers.get("split").count(kb) == 1248  # a refusal leaves nothing behind


def test_auto_sends_knowledge_too_wide_for_the_class_dp_to_split_first():
    """``exact`` would spend its budget before refusing this state; ``auto`` asks ``split``
    first, and keeps ``exact`` first where its DP is narrow (a 2-player state, any Clue state)."""
    import solvers
    from deduce.games.clue.rules import ClueGame

    auto = solvers.get("auto")
    s = _random_state(4, 1, 11)
    wide = s.game.knowledge(s.observation(s.current_player))
    order = [b.name for b in auto._pick(wide)]
    assert order.index("split") < order.index("exact")
    assert auto.tallies(wide) == solvers.get("split").tallies(wide)
    narrow = _random_state(2, 1, 11)
    clue = ClueGame(num_players=6)
    for kb in (narrow.game.knowledge(narrow.observation(0)), clue.knowledge(clue.new_initial_state(1).observation(0))):
        order = [b.name for b in auto._pick(kb)]
        assert order.index("exact") < order.index("split")


def test_guess_mandatory_decides_whether_a_turn_may_end_before_its_first_guess():
    """Issue 20 B5: ``guess_mandatory`` is read by legal_actions and apply, not only by the
    error message; the message about stopping after a hit is given only after a hit."""
    s = MafiaCodeState.from_deal(small(), [(0, 1, 2), (3, 4, 5)], seed=1)
    assert Stop() not in s.legal_actions()
    with pytest.raises(IllegalAction, match="first guess"):
        s.apply(Stop())
    s.apply(Guess(1, 3))  # a hit; stopping is still not allowed by default (no expert rule)
    with pytest.raises(IllegalAction, match="after a hit"):
        s.apply(Stop())
    free = MafiaCodeState.from_deal(small(guess_mandatory=False), [(0, 1, 2), (3, 4, 5)], seed=1)
    assert Stop() in free.legal_actions()
    events = free.apply(Stop())
    assert TurnEnded(0, "stop", 0, 0) in events and free.current_player == 1 and free.scores == [0, 0]
    free.apply(Guess(0, 0))  # a hit, and stopping after a hit is not allowed here
    assert Stop() not in free.legal_actions()
    with pytest.raises(IllegalAction, match="may not stop guessing after a hit"):
        free.apply(Stop())
