"""Alibi (Adlung 2001) rules (RULES.md §1′ and the seed): setup, matching and playing, draws,
exchanges, the optional single exchange, convictions (choice, the next player's right), the
third-Alibi rule, bribes, Watchful Eye, scoring, reshuffles, replacement suspects, the end,
illegal actions, and the knowledge base."""

from __future__ import annotations

import numpy as np
import pytest

import deduce
import solvers
from deduce.constraints import Count, Op
from deduce.errors import IllegalAction
from deduce.games.alibi_adlung.rules import (
    DECK,
    DISCARD,
    EVIDENCE_COUNTS,
    FEATURES,
    TABLE,
    AlibiAdlungConfig,
    AlibiAdlungGame,
    AlibiAdlungState,
    Bribed,
    Convicted,
    Dealt,
    Decline,
    Drew,
    Exchange,
    Exchanged,
    GameEnded,
    Name,
    Pass,
    Phase,
    PlayAlibi,
    PlayBribe,
    PlayEvidence,
    PlayEye,
    Reshuffled,
    SuspectDrawn,
    generate_suspects,
    void_records,
)

#: Row S0..S3 covers every feature but shopping_bag; S4 and S5 wait in the suspect deck.
SUSPECTS = (
    ("fat", "male", "long_hair", "plain", "revolver"),
    ("thin", "female", "short_hair", "striped", "knife"),
    ("fat", "female", "long_hair", "dotted", "umbrella", "glasses"),
    ("thin", "male", "short_hair", "plain", "newspaper"),
    ("fat", "male", "short_hair", "dotted", "shopping_bag"),
    ("thin", "female", "long_hair", "striped", "revolver", "knife"),
)


def game(n: int = 2, **cfg) -> AlibiAdlungGame:
    return AlibiAdlungGame(num_players=n, **{"suspects": SUSPECTS, **cfg})


def cid(g: AlibiAdlungGame, name: str) -> int:
    return g.deck.card(name).id


def deal(g: AlibiAdlungGame, hands: list[list[str]], top: list[str] = (), seed: int = 0) -> AlibiAdlungState:
    """Hands (card names) dealt seat by seat, then ``top`` on the deck, then the rest in id order."""
    named = [cid(g, c) for h in hands for c in h] + [cid(g, c) for c in top]
    rest = [c for c in range(len(g.deck)) if c not in named]
    return AlibiAdlungState.from_deal(g, named + rest, range(len(g.suspects)), seed=seed)


def lay(s: AlibiAdlungState, player: int, *names: str) -> None:
    """Put cards from the deck straight onto ``player``'s tableau (scenario set-up)."""
    for name in names:
        c = cid(s.game, name)
        s.deck.remove(c)
        s.tableaux[player].append(c)


def finish_turn(s: AlibiAdlungState) -> None:
    """Skip the optional exchange."""
    assert s.phase is Phase.SWAP
    s.apply(Pass())


# -- config and setup -------------------------------------------------------------------------
def test_defaults_follow_rules_md():
    cfg = AlibiAdlungConfig()
    assert cfg.num_evidence == 48 and cfg.num_cards == 56
    assert (cfg.num_alibi, cfg.num_eye, cfg.num_bribe) == (3, 2, 3)
    assert cfg.hand_size == 4 and cfg.row_size == 4 and cfg.convict_distinct == 5
    assert dict(EVIDENCE_COUNTS)["glasses"] == 4 and dict(EVIDENCE_COUNTS)["fat"] == 3
    assert len(FEATURES) == 15
    assert cfg.must_play_if_able and not cfg.pass_when_stuck and cfg.optional_exchange
    assert cfg.next_player_may_name and cfg.third_alibi_rule and cfg.redraw_all_special_hand
    assert not cfg.alibied_count_for_matching and not cfg.end_when_suspect_deck_empty
    table = cfg.suspect_table()
    assert len(table) == 12 and len(set(map(frozenset, table))) == 12
    assert all(5 <= len(s) <= 6 for s in table)
    assert table == generate_suspects(2001)  # fixed seed: every run sees the same suspects
    g = deduce.make("alibi-adlung", num_players=5)
    assert g.locations == ("p0", "p1", "p2", "p3", "p4", DECK, DISCARD, TABLE)


def test_config_rejects_bad_values():
    with pytest.raises(ValueError, match="2 to 5 players"):
        AlibiAdlungConfig(num_players=6)
    with pytest.raises(ValueError, match="without evidence"):
        AlibiAdlungConfig(suspects=(("fat", "wings"), ("thin",), ("male",), ("female",)))
    with pytest.raises(ValueError, match="distinct"):
        AlibiAdlungConfig(suspects=(("fat",),) * 4)
    with pytest.raises(deduce.UnknownName):
        deduce.make("alibi-adlung", players=3)


@pytest.mark.parametrize("n", [2, 3, 5])
def test_setup(n):
    g = deduce.make("alibi-adlung", num_players=n)
    s = g.new_initial_state(7)
    assert all(len(h) == 4 for h in s.hands)
    assert len(s.row) == 4 and len(s.suspect_deck) == 8
    assert len(s.deck) + len(s.discard) == 56 - 4 * n
    o = s.observation(0)
    assert o.hand == tuple(sorted(s.hands[0])) and o.hand_sizes == (4,) * n
    assert o.row == tuple(s.row) and o.suspects_left == 8
    # hands are private: seat 1 sees that seat 0 was dealt four cards, not which
    dealt = [e for e in s.observation(1).events if isinstance(e, Dealt) and e.player == 0]
    assert dealt[0].cards == () and dealt[0].size == 4
    assert s.current_player == 0 and o.phase == "main"


def test_a_hand_of_special_cards_is_redrawn():
    g = game(redraw_automatic=True)
    s = deal(g, [["alibi#1", "alibi#2", "eye#1", "bribe#1"], ["fat#1", "thin#1", "male#1", "female#1"]])
    assert not any(g.special_of[c] for c in s.hands[0])
    ex = [e for e in s.events if isinstance(e, Exchanged)]
    assert ex and ex[0].reason == "opening" and ex[0].player == 0
    assert sorted(s.discard) == sorted(cid(g, c) for c in ("alibi#1", "alibi#2", "eye#1", "bribe#1"))
    assert not deal(game(redraw_all_special_hand=False),
                    [["alibi#1", "alibi#2", "eye#1", "bribe#1"], ["fat#1"] * 0 + ["thin#1", "male#1", "female#1", "fat#1"]]).discard


def test_the_opening_redraw_is_the_players_choice():
    """Issue 20 B4 (seed: a player dealt four special cards *may* exchange all four): by
    default the player decides before the first turn: Exchange(the whole hand) or Pass (keep)."""
    specials = ["alibi#1", "alibi#2", "eye#1", "bribe#1"]
    g = game()
    assert g.config.redraw_automatic is False
    s = deal(g, [["fat#1", "thin#1", "male#1", "female#1"], specials])
    assert s.phase is Phase.OPENING and s.current_player == 1 and s.observation(1).phase == "opening"
    whole = Exchange(tuple(sorted(cid(g, c) for c in specials)))
    assert s.legal_actions() == [whole, Pass()] and s.legal_actions(0) == []
    with pytest.raises(IllegalAction, match="redraw all four special cards .* or keep them"):
        s.apply(Exchange((cid(g, "alibi#1"),)))
    s.apply(Pass())  # kept: nothing is discarded, the first turn begins
    assert s.phase is Phase.MAIN and s.current_player == 0 and not s.discard
    assert sorted(s.hands[1]) == sorted(whole.cards)
    s = deal(g, [["fat#1", "thin#1", "male#1", "female#1"], specials])
    events = s.apply(whole)
    assert [e.reason for e in events if isinstance(e, Exchanged)] == ["opening"]
    assert s.phase is Phase.MAIN and s.current_player == 0 and sorted(s.discard) == sorted(whole.cards)
    # a kept all-special hand proves nothing to the others: no "not all special" constraint
    s = deal(g, [["fat#1", "thin#1", "male#1", "female#1"], ["fat#2", "thin#2", "male#2", "female#2"]])
    assert s.phase is Phase.MAIN
    kb = g.knowledge(s.observation(0), exact_time=True)
    assert not [c for c in kb.constraints if isinstance(c, Count) and c.op is Op.LE]
    auto = game(redraw_automatic=True)
    kb = auto.knowledge(deal(auto, [["fat#1", "thin#1", "male#1", "female#1"],
                                    ["fat#2", "thin#2", "male#2", "female#2"]]).observation(0), exact_time=True)
    assert [c for c in kb.constraints if isinstance(c, Count) and c.op is Op.LE]


# -- playing, drawing, exchanging -------------------------------------------------------------
def test_play_matching_evidence_then_draw_then_optional_exchange():
    g = game()
    s = deal(g, [["fat#1", "shopping_bag#1", "thin#1", "bribe#1"], ["male#1", "female#1", "plain#1", "knife#1"]],
             top=["dotted#1", "glasses#1"])
    legal = s.legal_actions()
    assert PlayEvidence(cid(g, "fat#1")) in legal and PlayEvidence(cid(g, "thin#1")) in legal
    assert PlayEvidence(cid(g, "shopping_bag#1")) not in legal  # matches no row suspect
    assert not any(isinstance(a, Exchange) for a in legal)  # must play when able
    assert not any(isinstance(a, PlayBribe) for a in legal)  # no opposing evidence to bribe
    events = s.apply(PlayEvidence(cid(g, "fat#1")))
    assert s.tableaux[0] == [cid(g, "fat#1")]
    drew = [e for e in events if isinstance(e, Drew)]
    assert drew[0].cards == (cid(g, "dotted#1"),) and len(s.hands[0]) == 4
    assert drew[0].view(1) == Drew(0, (), 1)  # the opponent sees a draw, not the card
    assert s.phase is Phase.SWAP
    legal = s.legal_actions()
    assert set(legal) == {Exchange((c,)) for c in s.hands[0]} | {Pass()}
    with pytest.raises(IllegalAction, match="exactly one card"):
        s.apply(Exchange((cid(g, "thin#1"), cid(g, "bribe#1"))))
    s.apply(Exchange((cid(g, "shopping_bag#1"),)))
    assert cid(g, "shopping_bag#1") in s.discard and cid(g, "glasses#1") in s.hands[0]
    assert s.current_player == 1 and s.phase is Phase.MAIN


def test_exchange_when_nothing_matches_and_drawn_cards_are_not_playable():
    g = game()
    s = deal(g, [["shopping_bag#1", "shopping_bag#2", "shopping_bag#3", "bribe#1"], ["male#1", "female#1", "plain#1", "knife#1"]],
             top=["fat#1", "thin#1"])
    legal = s.legal_actions()
    assert not any(isinstance(a, PlayEvidence) for a in legal)
    assert Exchange((cid(g, "shopping_bag#1"),)) in legal
    assert len([a for a in legal if isinstance(a, Exchange)]) == 15  # every non-empty subset of 4
    assert Pass() not in legal  # default: one must exchange (Keirat "muß")
    events = s.apply(Exchange((cid(g, "shopping_bag#1"), cid(g, "shopping_bag#2"))))
    ex = [e for e in events if isinstance(e, Exchanged)][0]
    assert ex.reason == "instead" and "shopping_bag" not in ex.void and "fat" in ex.void
    assert cid(g, "fat#1") in s.hands[0]
    # the turn's action is spent: the drawn fat cannot be laid now, only the single exchange
    assert s.phase is Phase.SWAP and PlayEvidence(cid(g, "fat#1")) not in s.legal_actions()
    with pytest.raises(IllegalAction):
        s.apply(PlayEvidence(cid(g, "fat#1")))
    # the exchange proves the void: the knowledge base of seat 1 says so
    kb = g.knowledge(s.observation(1))
    voids = [c for c in kb.constraints if isinstance(c, Count) and c.op is Op.LE]
    assert voids and voids[0].loc == 0 and voids[0].n == 2  # two of four were replaced
    assert kb.consistent_with(s.world())


def test_pass_when_stuck_is_a_variant():
    g = game(pass_when_stuck=True)
    s = deal(g, [["shopping_bag#1", "shopping_bag#2", "shopping_bag#3", "bribe#1"], ["male#1", "female#1", "plain#1", "knife#1"]])
    assert Pass() in s.legal_actions()
    s.apply(Pass())
    assert s.phase is Phase.SWAP
    (v,) = void_records(s.events, [4, 4], g.feature_of)
    assert v.player == 0 and v.limit == 0 and "fat" in v.features


def test_illegal_actions_say_why():
    g = game()
    s = deal(g, [["fat#1", "shopping_bag#1", "thin#1", "bribe#1"], ["male#1", "female#1", "plain#1", "knife#1"]])
    with pytest.raises(IllegalAction, match="matches no uncovered suspect"):
        s.apply(PlayEvidence(cid(g, "shopping_bag#1")))
    with pytest.raises(IllegalAction, match="must play instead of exchanging"):
        s.apply(Exchange((cid(g, "shopping_bag#1"),)))
    with pytest.raises(IllegalAction, match="does not hold"):
        s.apply(PlayEvidence(cid(g, "male#1")))
    with pytest.raises(IllegalAction, match="no culprit to name"):
        s.apply(Name(0))
    with pytest.raises(IllegalAction, match="not a alibi card"):
        s.apply(PlayAlibi(cid(g, "bribe#1"), 0))
    with pytest.raises(IllegalAction, match="must play or exchange"):
        s.apply(Pass())
    s.apply(PlayEvidence(cid(g, "fat#1")))
    s.apply(Pass())
    s.apply(PlayEvidence(cid(g, "male#1")))
    s.apply(Pass())
    with pytest.raises(IllegalAction, match="not on any tableau"):
        s.apply(PlayBribe(cid(g, "bribe#1"), cid(g, "knife#1")))
    with pytest.raises(IllegalAction, match="not one's own"):
        s.apply(PlayBribe(cid(g, "bribe#1"), cid(g, "fat#1")))
    with pytest.raises(IllegalAction, match="exactly one card"):
        s.apply(PlayEvidence(cid(g, "thin#1")))
        s.apply(Exchange((cid(g, "shopping_bag#1"), cid(g, "bribe#1"))))


# -- convictions and scoring ------------------------------------------------------------------
def test_five_different_features_convict_and_score():
    g = game()
    s = deal(g, [["revolver#1", "thin#1", "female#1", "bribe#1"], ["male#1", "female#2", "plain#1", "knife#1"]])
    lay(s, 0, "fat#1", "fat#2", "knife#2")  # duplicates score; knife does not match S0
    lay(s, 1, "male#2", "long_hair#1", "plain#2")
    assert s.provable() == []
    s.apply(PlayEvidence(cid(g, "revolver#1")))  # fifth different feature of S0
    finish_turn(s)
    assert s.phase is Phase.NAME and s.current_player == 0
    assert set(s.legal_actions()) == {Name(0), Decline()}
    events = s.apply(Name(0))
    conv = [e for e in events if isinstance(e, Convicted)][0]
    # seat 0: fat, fat, revolver = 3 (+1 bonus); seat 1: male, long_hair, plain = 3
    assert conv.points == (4, 3) and s.scores == [4, 3] and conv.reason == "evidence"
    assert s.row[0] == 4 and s.convicted == [0]  # S4 replaced S0 in the same slot
    assert any(isinstance(e, SuspectDrawn) and e.suspect == 4 and e.slot == 0 for e in events)
    assert s.tableaux == [[], []] and cid(g, "knife#2") in s.discard
    assert s.current_player == 1 and s.phase is Phase.MAIN  # left of the convictor starts


def test_namer_chooses_among_several_provable_suspects():
    g = game()
    s = deal(g, [["fat#1", "thin#1", "female#1", "bribe#1"], ["male#1", "female#2", "plain#1", "knife#1"]])
    lay(s, 1, "male#2", "long_hair#1", "plain#2", "revolver#1")  # S0 needs fat
    lay(s, 1, "female#3", "dotted#1", "umbrella#1")  # S2 (fat, female, long, dotted, umbrella) needs fat
    s.apply(PlayEvidence(cid(g, "fat#1")))
    finish_turn(s)
    assert set(s.legal_actions()) == {Name(0), Name(2), Decline()}
    s.apply(Name(2))
    assert s.scores == [1 + 1, 4] and 2 in s.convicted


def test_the_next_player_may_name_after_a_decline():
    g = game()
    s = deal(g, [["revolver#1", "thin#1", "female#1", "bribe#1"], ["male#1", "female#2", "plain#1", "knife#1"]])
    lay(s, 1, "fat#1", "male#2", "long_hair#1", "plain#2")
    s.apply(PlayEvidence(cid(g, "revolver#1")))
    finish_turn(s)
    s.apply(Decline())
    assert s.current_player == 1 and s.phase is Phase.NAME
    assert set(s.legal_actions()) == {Name(0), Decline()}
    s.apply(Name(0))
    assert s.scores == [1, 4 + 1]  # seat 1 becomes the convictor and gets the bonus
    assert s.current_player == 0  # the next round starts left of seat 1


def test_the_right_to_name_lapses_after_two_declines():
    g = game()
    s = deal(g, [["revolver#1", "thin#1", "female#1", "bribe#1"], ["male#1", "female#2", "plain#1", "knife#1"]])
    lay(s, 1, "fat#1", "male#2", "long_hair#1", "plain#2")
    s.apply(PlayEvidence(cid(g, "revolver#1")))
    finish_turn(s)
    s.apply(Decline())
    s.apply(Decline())
    assert s.current_player == 1 and s.phase is Phase.MAIN
    # without the variant the right does not pass
    g2 = game(next_player_may_name=False)
    t = deal(g2, [["revolver#1", "thin#1", "female#1", "bribe#1"], ["male#1", "female#2", "plain#1", "knife#1"]])
    lay(t, 1, "fat#1", "male#2", "long_hair#1", "plain#2")
    t.apply(PlayEvidence(cid(g2, "revolver#1")))
    finish_turn(t)
    t.apply(Decline())
    assert t.current_player == 1 and t.phase is Phase.MAIN


def test_third_alibi_names_the_last_uncovered_suspect():
    g = game()
    s = deal(g, [["alibi#1", "thin#1", "female#1", "bribe#1"], ["male#1", "female#2", "plain#1", "knife#1"]])
    for sus, name in ((0, "alibi#2"), (1, "alibi#3")):
        c = cid(g, name)
        s.deck.remove(c)
        s.alibis[sus] = c
    lay(s, 0, "thin#2", "short_hair#1")  # match S3 (thin, male, short, plain, newspaper)
    lay(s, 1, "plain#2", "dotted#1")  # plain matches S3; dotted matches S2 only
    assert PlayEvidence(cid(g, "female#1")) in s.legal_actions()  # S2 is uncovered: female matches
    s.apply(PlayAlibi(cid(g, "alibi#1"), 2))
    assert s.uncovered() == [3]
    finish_turn(s)
    assert set(s.legal_actions()) == {Name(3), Decline()}  # fewer than five, still nameable
    events = s.apply(Name(3))
    conv = [e for e in events if isinstance(e, Convicted)][0]
    assert conv.reason == "third_alibi" and conv.points == (2 + 1, 1)
    assert not s.alibis and all(cid(g, f"alibi#{i}") in s.discard for i in (1, 2, 3))
    assert s.row == [0, 1, 2, 4]


def test_an_alibi_makes_a_suspect_unprovable_and_its_cards_unplayable():
    g = game()
    s = deal(g, [["alibi#1", "shopping_bag#1", "newspaper#1", "bribe#1"], ["male#1", "female#2", "plain#1", "knife#1"]])
    assert PlayEvidence(cid(g, "newspaper#1")) in s.legal_actions()
    s.apply(PlayAlibi(cid(g, "alibi#1"), 3))  # newspaper only matches S3
    assert s.alibis == {3: cid(g, "alibi#1")} and len(s.hands[0]) == 4
    assert PlayAlibi(cid(g, "alibi#1"), 3) not in s.legal_actions()
    finish_turn(s)
    s.apply(PlayEvidence(cid(g, "male#1")))
    finish_turn(s)
    assert PlayEvidence(cid(g, "newspaper#1")) not in s.legal_actions()


def test_bribe_discards_an_opponents_card_with_itself():
    g = game()
    s = deal(g, [["bribe#1", "thin#1", "female#1", "fat#1"], ["male#1", "female#2", "plain#1", "knife#1"]])
    lay(s, 1, "male#2", "plain#2")
    assert PlayBribe(cid(g, "bribe#1"), cid(g, "male#2")) in s.legal_actions()
    events = s.apply(PlayBribe(cid(g, "bribe#1"), cid(g, "male#2")))
    assert events[0] == Bribed(0, cid(g, "bribe#1"), 1, cid(g, "male#2"))
    assert s.tableaux[1] == [cid(g, "plain#2")]
    assert {cid(g, "bribe#1"), cid(g, "male#2")} <= set(s.discard)
    assert len(s.hands[0]) == 4


def test_watchful_eye_plays_two_more_then_refills():
    g = game()
    s = deal(g, [["eye#1", "thin#1", "female#1", "fat#1"], ["male#1", "female#2", "plain#1", "knife#1"]])
    s.apply(PlayEye(cid(g, "eye#1")))
    assert s.phase is Phase.EYE and s.eye_left == 2 and Pass() in s.legal_actions()
    s.apply(PlayEvidence(cid(g, "thin#1")))
    assert s.phase is Phase.EYE
    events = s.apply(PlayEvidence(cid(g, "fat#1")))
    drew = [e for e in events if isinstance(e, Drew)]
    assert drew and drew[0].count == 3 and len(s.hands[0]) == 4  # refilled to four
    assert s.phase is Phase.SWAP and s.eyes == [(0, cid(g, "eye#1"))]
    assert len(s.tableaux[0]) == 2


def test_watchful_eye_extra_plays_are_optional():
    g = game()
    s = deal(g, [["eye#1", "thin#1", "female#1", "fat#1"], ["male#1", "female#2", "plain#1", "knife#1"]])
    s.apply(PlayEye(cid(g, "eye#1")))
    s.apply(PlayEvidence(cid(g, "thin#1")))
    s.apply(Pass())
    assert s.phase is Phase.SWAP and len(s.hands[0]) == 4 and len(s.tableaux[0]) == 1


def test_reshuffle_when_the_deck_runs_out():
    g = game()
    s = deal(g, [["fat#1", "thin#1", "female#1", "bribe#1"], ["male#1", "female#2", "plain#1", "knife#1"]])
    s.discard.extend(s.deck)
    s.deck.clear()
    pile = sorted(s.discard)
    events = s.apply(PlayEvidence(cid(g, "fat#1")))
    shuffle = [e for e in events if isinstance(e, Reshuffled)]
    assert shuffle and shuffle[0].cards == tuple(pile)
    assert len(s.deck) == len(pile) - 1 and not s.discard
    assert sorted(s.deck + [c for c in s.hands[0] if c in pile]) == pile
    # the scenario emptied the deck behind the events' back, so the reshuffle facts (which
    # follow the public deck size) do not apply; natural reshuffles: test_alibi_adlung_time
    kb = g.knowledge(s.observation(1), cohorts=False)
    assert kb.consistent_with(s.world())


def test_replacement_suspects_and_the_end():
    g = game(suspects=SUSPECTS[:5])  # one suspect in reserve
    s = deal(g, [["revolver#1", "thin#1", "female#1", "bribe#1"], ["newspaper#1", "female#2", "plain#1", "knife#1"]])
    lay(s, 1, "fat#1", "male#2", "long_hair#1", "plain#2")
    s.apply(PlayEvidence(cid(g, "revolver#1")))
    finish_turn(s)
    s.apply(Name(0))
    assert s.row == [4, 1, 2, 3] and s.suspect_deck == [] and not s.is_terminal()
    lay(s, 0, "thin#2", "male#3", "short_hair#1", "plain#3")  # S3 needs newspaper
    assert s.current_player == 1
    s.apply(PlayEvidence(cid(g, "newspaper#1")))
    finish_turn(s)
    events = s.apply(Name(3))
    assert s.is_terminal() and isinstance(events[-1], GameEnded)
    assert s.end_reason == "no replacement suspect" and s.legal_actions() == []
    assert s.returns() == [2 + 4.0, 4 + 2.0]  # seat 1 laid the newspaper and named
    with pytest.raises(IllegalAction, match="over"):
        s.apply(Pass())


def test_variant_ends_when_the_suspect_deck_is_empty():
    g = game(suspects=SUSPECTS[:5], end_when_suspect_deck_empty=True)
    s = deal(g, [["revolver#1", "thin#1", "female#1", "bribe#1"], ["newspaper#1", "female#2", "plain#1", "knife#1"]])
    lay(s, 1, "fat#1", "male#2", "long_hair#1", "plain#2")
    s.apply(PlayEvidence(cid(g, "revolver#1")))
    finish_turn(s)
    s.apply(Name(0))
    assert s.is_terminal() and s.end_reason == "suspect deck empty"


def test_full_games_end_after_nine_convictions_and_replay_identically():
    g = deduce.make("alibi-adlung", num_players=3)
    s = g.new_initial_state(3)
    rng = np.random.default_rng(3)
    actions = []
    while not s.is_terminal():
        legal = s.legal_actions()
        a = legal[int(rng.integers(len(legal)))]
        actions.append(a)
        s.apply(a)
    assert len(s.convicted) == 9 and len(s.row) == 3
    assert sum(s.scores) == sum(sum(e.points) for e in s.events if isinstance(e, Convicted))
    t = g.new_initial_state(3)
    for a in actions:
        t.apply(a)
    assert t.observation(None) == s.observation(None) and t.scores == s.scores


# -- knowledge --------------------------------------------------------------------------------
def test_knowledge_places_public_cards_and_counts_hidden_ones():
    g = game()
    s = deal(g, [["fat#1", "thin#1", "female#1", "bribe#1"], ["male#1", "female#2", "plain#1", "knife#1"]])
    s.apply(PlayEvidence(cid(g, "fat#1")))
    s.apply(Exchange((cid(g, "bribe#1"),)))
    kb = g.knowledge(s.observation(1))
    p = solvers.get("exact").possible(kb)
    assert p[cid(g, "fat#1"), g.loc(TABLE)] and p[cid(g, "fat#1")].sum() == 1
    assert p[cid(g, "bribe#1"), g.loc(DISCARD)] and p[cid(g, "bribe#1")].sum() == 1
    assert p[cid(g, "male#1"), 1] and p[cid(g, "male#1")].sum() == 1
    assert p[cid(g, "thin#1")].tolist() == [True, False, True, False, False]
    m = solvers.get("exact").marginals(kb)
    assert np.isclose(m[:, 0].sum(), 4) and np.isclose(m[:, g.loc(DECK)].sum(), len(s.deck))


# -- agents -----------------------------------------------------------------------------------
def counting(g: AlibiAdlungGame, seat: int = 0):
    from agents.alibi_adlung.counting import CountingAgent

    a = CountingAgent()
    a.reset(g, seat, 0)
    return a


def test_counting_names_the_culprit_that_pays_most():
    g = game()
    s = deal(g, [["fat#1", "thin#1", "female#1", "bribe#1"], ["male#1", "female#2", "plain#1", "knife#1"]])
    lay(s, 1, "male#2", "long_hair#1", "plain#2", "revolver#1", "female#3", "dotted#1", "umbrella#1")
    lay(s, 0, "umbrella#2")
    s.apply(PlayEvidence(cid(g, "fat#1")))
    finish_turn(s)
    assert counting(g).act(s.observation(0)) == Name(2)  # S2: fat + umbrella are mine


def test_counting_finishes_a_conviction_it_profits_from():
    g = game()
    s = deal(g, [["revolver#1", "thin#1", "female#1", "knife#1"], ["male#1", "female#2", "plain#1", "knife#2"]])
    lay(s, 0, "fat#1", "male#2", "long_hair#1", "plain#2")
    assert counting(g).act(s.observation(0)) == PlayEvidence(cid(g, "revolver#1"))


def test_counting_uses_a_watchful_eye_to_finish_a_conviction():
    g = game()
    s = deal(g, [["eye#1", "revolver#1", "plain#1", "striped#1"], ["male#1", "female#2", "thin#1", "knife#2"]])
    lay(s, 0, "fat#1", "male#2", "long_hair#1")
    agent = counting(g)
    assert agent.act(s.observation(0)) == PlayEye(cid(g, "eye#1"))
    s.apply(PlayEye(cid(g, "eye#1")))
    s.apply(agent.act(s.observation(0)))
    s.apply(agent.act(s.observation(0)))
    assert s.provable() == [0]


def test_counting_bribes_the_card_that_matters():
    g = game()
    s = deal(g, [["bribe#1", "thin#1", "female#1", "knife#1"], ["male#1", "female#2", "striped#1", "knife#2"]])
    lay(s, 1, "fat#1", "male#2", "long_hair#1", "plain#1")  # S0 needs only a revolver, all seat 1's
    a = counting(g).act(s.observation(0))
    assert isinstance(a, PlayBribe) and a.target in s.tableaux[1]


def test_counting_exchanges_dead_cards_and_keeps_a_special():
    g = game()
    s = deal(g, [["shopping_bag#1", "shopping_bag#2", "shopping_bag#3", "alibi#1"], ["male#1", "female#1", "plain#1", "knife#1"]])
    a = counting(g).act(s.observation(0))
    bags = {cid(g, f"shopping_bag#{i}") for i in (1, 2, 3)}
    assert isinstance(a, Exchange) and set(a.cards) == bags


@pytest.mark.parametrize("n", [2, 5])
def test_counting_plays_whole_games_against_random(n):
    import agents as registry
    from deduce.play import play_game

    g = deduce.make("alibi-adlung", num_players=n)
    agents = [registry.get("counting", game="alibi-adlung")] + [registry.get("random") for _ in range(n - 1)]
    record = play_game(g, agents, seed=n)
    assert record.failure is None and record.returns[0] > 0
