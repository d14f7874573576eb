"""One text, one play: a Carousel candidate's move text names each joker's card where
the arrangement matters (``meld 7S JK(KC)``, ``meld 7D JK(7D->KC)``), and typed back (the
play command, ``--played``, the JSON door) it makes exactly the play whose table was
scored: the same naturals on the table, each joker standing for the same card."""
import numpy as np
import pytest

from rummy51 import _carousel
from rummy51.analysis.carousel import _rng, analyse_position, game_decisions
from rummy51.carousel.actions import IllegalMove, MeldRecord
from rummy51.carousel.bots import core_rules, game_rules, make_bot, play_game, table_counts
from rummy51.carousel.codec import ADD0
from rummy51.carousel.engine import GameState
from rummy51.carousel.notation import counts_meld_text, meld_text, parse_meld_play, split_meld_text
from rummy51.carousel.rules import CarouselRules
from rummy51.carousel.solver import play_cards, play_declared
from rummy51.envs.llm import carousel_apply_reply, new_carousel_game

R4 = CarouselRules.for_players(4)


def _typed_back_games(seeds):
    """``(candidates, of which with a joker named)``; asserts every meld candidate of
    every decision of the games typed back gives the kernel's scored arrangement."""
    n = named = 0
    for g in seeds:
        players = 2 + g % 3
        rules = CarouselRules.for_players(players)
        bots = [make_bot("greedy") if k % 2 else make_bot("careful", g) for k in range(players)]
        s = play_game(bots, rules, seed=g)
        for spot in game_decisions(s.to_dict()):
            res, _ = _carousel.search_analyse(
                core_rules(rules), game_rules(rules), _rng(1, g, spot.index), spot.decision,
                spot.H, spot.JH, spot.T, spot.D, spot.JT, spot.sizes, spot.player, spot.stock,
                spot.draws, spot.stock_out, spot.played_table, 1, 0.0)
            table = spot.info["table"].split(" | ") if spot.info["table"] else []
            for what, nT, nD, njt, *_ in res:
                if what != _carousel.ANALYSE_PLAY:
                    continue
                text = counts_meld_text(spot.T, spot.D, spot.JT, nT, nD, njt)
                play = parse_meld_play(text[len("meld "):], table, spot.info["hand"], rules)
                got = table_counts(play.melds)
                assert (bytes(got[0]), bytes(got[1]), got[2]) == (bytes(nT), bytes(nD), njt), \
                    (g, spot.index, text)
                assert meld_text(table, play.melds) == text
                n += 1
                named += "(" in text
    return n, named


def test_every_candidate_typed_back_is_the_arrangement_scored():
    n, named = _typed_back_games(range(8))
    assert n > 500 and named > 20, (n, named)


@pytest.mark.slow
def test_every_candidate_typed_back_is_the_arrangement_scored_many_games():
    n, named = _typed_back_games(range(8, 208))
    assert n > 10_000 and named > 1_000, (n, named)


def test_the_audit_case_meld_7s_jk(tmp_path):
    # the audit's decision: 'meld 7S JK' was scored with the joker as KC, but typed back
    # it laid the joker as 7D
    from rummy51.analysis.carousel import analyse_game
    from rummy51.studies.carousel import read_histories, simulate_carousel

    simulate_carousel(players=3, bots="greedy,greedy,greedy", games=1, seed=21, histories=True,
                      out=tmp_path / "h", workers=1, progress=False)
    h = next(iter(read_histories(tmp_path / "h")))
    d = analyse_game(h, decision=36, rollouts=4, seed=1).decisions[0]
    assert "meld 7S JK(KC)" in [c.move for c in d.candidates]
    s = GameState.from_dict(h)
    spot = game_decisions(h)[36]
    v = _view_at(s, spot)
    for text, card in (("7S JK(KC)", "KC"), ("7S JK(7D)", "7D")):
        p = parse_meld_play(text, list(v.table), list(v.hand), v.rules)
        assert [r for m in p.melds for r in m.jokers] == [_code(card)]
    # --played with the candidate's text is that very candidate; the other joker's card
    # is another play (a candidate of its own)
    e = analyse_position(v, rollouts=4, seed=1, played="meld 7S JK(KC)")
    assert e.played == "meld 7S JK(KC)"
    assert {c.move for c in e.candidates} == {c.move for c in d.candidates}
    f = analyse_position(v, rollouts=4, seed=1, played="meld 7S JK(7D)")
    assert f.played == "meld 7S JK(7D)" and "meld 7S JK(7D)" in [c.move for c in f.candidates]


def _code(card):
    from rummy51.cards import parse_card

    return parse_card(card)


def _view_at(s, spot):
    t = GameState.from_dict(dict(s.to_dict(), actions=[], rounds=[], final=None))
    for a in s.actions[:spot.info["action"]]:
        t.apply(a)
    return t.view()


def test_stand_ins_choose_the_play():
    table, hand = ["6S 7S 8S"], "9S JK 2C"
    for text, want in (("9S JK(5S)", "JK(5S) 6S 7S 8S 9S"), ("9S JK(10S)", "6S 7S 8S 9S JK(10S)")):
        p = parse_meld_play(text, table, hand, R4)
        assert [m.text() for m in p.melds] == [want]
        assert meld_text(table, p.melds) == "meld " + text
    # a table joker freed by its natural, with its new card
    p = parse_meld_play("8S JK(8S->9S)", ["6S 7S JK(8S)"], "8S 2C", R4)
    assert [m.text() for m in p.melds] == ["6S 7S 8S JK(9S)"]
    assert parse_meld_play("8S JK(8S>9S)", ["6S 7S JK(8S)"], "8S 2C", R4).melds == p.melds
    assert meld_text(["6S 7S JK(8S)"], p.melds) == "meld 8S JK(8S->9S)"
    # no joker named: the hand's jokers where the solver puts them (as play_cards)
    assert parse_meld_play("9S JK", table, hand, R4).melds == play_cards(table, "9S JK", hand,
                                                                          R4).melds


@pytest.mark.parametrize("text, match", [
    ("9S JK(5S) JK", "name the card of every joker you play"),
    ("9S JK(JK)", "a joker stands for a natural card"),
    ("9S JK(5Z)", "'5Z' is not a card"),
])
def test_bad_stand_ins_are_one_line_errors(text, match):
    with pytest.raises(ValueError, match=match):
        parse_meld_play(text, ["6S 7S 8S"], "9S JK JK 2C", R4)


def test_impossible_stand_ins_are_refused():
    with pytest.raises(IllegalMove, match="no arrangement of the table places 9S JK"):
        parse_meld_play("9S JK(2C)", ["6S 7S 8S"], "9S JK 2C", R4)
    with pytest.raises(IllegalMove, match="no joker on the table stands for 7D"):
        parse_meld_play("8S JK(7D->9S)", ["6S 7S JK(8S)"], "8S 2C", R4)
    with pytest.raises(IllegalMove, match="keeps that card"):
        play_declared(["6S 7S JK(8S)"], "2C", "9S", "2C 3C", R4)
    with pytest.raises(ValueError, match="2 cards named for 1 joker"):
        play_declared(["6S 7S JK(8S)"], "9S", "8S 5S", "9S", R4)


def test_split_meld_text():
    assert split_meld_text("7S JK(KC) JK(7D->5H)") == ([6, 52], [51], [(32, 17)])
    assert split_meld_text("7S JK") == ([6, 52], None, [])
    assert split_meld_text("7S") == ([6], [], [])


def test_the_json_door_reads_a_canonical_text_as_that_play():
    from rummy51.carousel.solver import best_play

    rng = np.random.default_rng(5)
    named = 0
    for seed in range(30):
        state = new_carousel_game(players=2, seed=seed)
        for _ in range(400):
            if state.is_terminal():
                break
            g = state.game
            legal = state.legal_actions()
            if not state.chosen and any(a >= ADD0 for a in legal) and g.phase.value in (
                    "meld", "no draw"):
                table, hand = list(g.table), list(g.hands[g.current])
                play = best_play(table, hand, state.rules)
                text = meld_text(table, play.melds)
                trial = state.copy()
                carousel_apply_reply(trial, text)
                rec = [r for r in trial.game.history if isinstance(r, MeldRecord)][-1]
                got = table_counts(rec.table)
                assert got == table_counts(play.melds), text
                named += "JK(" in text
            state.apply_action(int(rng.choice(legal)))
        if named >= 3:
            return
    pytest.fail(f"only {named} plays with a joker named in 30 games")
