"""The readings on which Rummy 51 tables differ (issue 14): each option a scenario worked from
docs/rules.md, each preset played through the engine and (where it can) the C kernel, and the
solver core against the reference search under ``opening_run``."""
from __future__ import annotations

import numpy as np
import pytest

from rummy51 import RuleSet, reference, solver
from rummy51.r51.bots import GreedyBot, HandHunterBot, RandomBot, TacticianBot, play_deal, play_match
from rummy51.cards import JOKER, to_codes
from rummy51.cli import main
from rummy51.r51.engine import GameState, IllegalMove, LayDown, stacked_deck
from rummy51.r51.fastgame import play_greedy_deal, supported
from rummy51.r51.match import Match
from rummy51.r51.melds import MeldError, check_meld, lay_off, make_meld, opening_run
from rummy51.rules import PRESET_NOTES, PRESETS


# --------------------------------------------------------------------------- (a) joker limit
def test_joker_limit_binds_the_table_by_default():
    meld = make_meld("7S 8S JK", RuleSet())
    with pytest.raises(MeldError):
        lay_off(meld, JOKER, RuleSet())


def test_joker_limit_at_lay_down_only():
    rules = RuleSet(joker_limit_on_table=False)
    meld = lay_off(make_meld("7S 8S JK", rules), JOKER, rules)
    assert meld.jokers == 2
    check_meld(meld, rules)  # a valid table meld under this reading
    with pytest.raises(MeldError):  # ... but still not as laid down
        make_meld("7S 8S JK JK", rules)


# --------------------------------------------------------------------------- (b) free take
def _after_turns(rules, players, turns, seed=3):
    state = GameState.new(rules, players, seed=seed)
    for _ in range(turns):
        if state.phase.name == "DRAW":
            state.draw("stock")
        state.discard(state.hands[state.current][-1] if state.can_discard(
            state.hands[state.current][-1]) else state.hands[state.current][0])
    return state


@pytest.mark.parametrize("option, free", [(False, False), (True, True)])
def test_first_players_first_draw_counts_as_a_free_round(option, free):
    state = _after_turns(RuleSet(first_player_free_take=option), 3, 3)
    assert state.turn == 3 and state.current == state.first
    assert state.free_round() is free
    state.draw("stock")
    state.discard(state.hands[state.current][-1])
    assert not state.free_round()  # the next player's turn 4 is round 1 for them


# --------------------------------------------------------------------------- (c) doubling
@pytest.mark.parametrize("doubles_on, others", [("hand", 200), ("bottom", 100)])
def test_doubling_after_which_wins(doubles_on, others):
    rules = RuleSet(doubles_on=doubles_on)
    hand = "AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS 2C"
    state = GameState.new(rules, 3, deck=stacked_deck(rules, [hand], players=3))
    state.lay_down(["AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS"])
    state.discard("2C")
    assert state.result.how == "hand"
    assert state.scores()[1:] == (others, others)


def test_bottom_win_doubles_under_either_reading():
    state = GameState.new(RuleSet(doubles_on="bottom"), 2, seed=1)
    assert state._scores(0, "hand_bottom")[1] == 200  # unopened: 2 x 100


# --------------------------------------------------------------------------- (d) opening run
SETS_ONLY = "10D 10C 10H KS KH KD 9S 9H 9D 2C 4C"          # 30 + 30 + 27, no run
JOKER_RUN = "8S 9S JK KS KH KD 10D 10C 10H 2C"              # 27 (a joker run) + 30 + 30


def test_opening_must_hold_a_run():
    run = RuleSet(opening_run="run")
    assert solver.can_open(SETS_ONLY) and not solver.can_open(SETS_ONLY, run)
    assert solver.best_opening(SETS_ONLY, run).value == 0
    assert solver.can_open(JOKER_RUN, run)
    pure = RuleSet(opening_run="pure_run")
    assert not solver.can_open(JOKER_RUN, pure)
    assert solver.can_open("8S 9S 10S KS KH KD 10D 10C 10H 2C", pure)


def test_engine_refuses_an_opening_without_the_run():
    rules = RuleSet(opening_run="pure_run")
    state = GameState.new(rules, 2, deck=stacked_deck(rules, [JOKER_RUN], players=2))
    with pytest.raises(IllegalMove, match="run without a joker"):
        state.lay_down(["8S 9S JK", "KS KH KD", "10D 10C 10H"])
    open_run = RuleSet(opening_run="run")
    state = GameState.new(open_run, 2, deck=stacked_deck(open_run, [JOKER_RUN], players=2))
    state.lay_down(["8S 9S JK", "KS KH KD", "10D 10C 10H"])


def test_best_opening_keeps_the_jokerless_run_apart():
    # 4S 5S 6S + JK 8S 9S: laid as one run it would hold a joker; the solver keeps them apart
    rules = RuleSet(opening_run="pure_run")
    hand = "4S 5S 6S JK 8S 9S KH KD KC 2D"
    op = solver.best_opening(hand, rules)
    assert op.can_open and any(m.kind == "run" and not m.jokers for m in op.melds)
    state = GameState.new(rules, 2, deck=stacked_deck(rules, [hand], players=2))
    state.lay_down(LayDown.of(op.melds))


def _meld_rich_hands(rng, n):
    pool = [c for c in range(52) if c % 13 in (0, 1, 2, 3, 4, 9, 10, 11, 12) and c // 13 < 3] * 2
    pool += [JOKER] * 4
    for _ in range(n):
        idx = rng.choice(len(pool), size=int(rng.integers(4, 16)), replace=False)
        yield [pool[i] for i in idx]


@pytest.mark.parametrize("reading", ["run", "pure_run"])
@pytest.mark.parametrize("mj", [1, 2])
def test_core_matches_reference_under_opening_run(reading, mj):
    rules = RuleSet(opening_run=reading, max_jokers_per_meld=mj, ace_low_value=1 + 9 * (mj == 1))
    rng = np.random.default_rng(14 + mj)
    for k, hand in enumerate(_meld_rich_hands(rng, 120)):
        must = hand[-1] if k % 3 == 0 else None
        op = solver.best_opening(hand, rules, must_use=must)
        assert op.value == reference.best_opening(hand, rules, must_use=must), hand
        assert solver.can_open(hand, rules, must_use=must) == reference.can_open(
            hand, rules, must_use=must), hand
        assert solver.can_go_out(hand, rules) == reference.can_go_out(hand, rules), hand
        if op.melds:
            assert sum(m.value for m in op.melds) == op.value
            built = [make_meld(m.cards, rules, stand_ins=[r for c, r in zip(m.cards, m.represents)
                                                          if c == JOKER]) for m in op.melds]
            assert any(opening_run(m, rules) for m in built), hand


def test_opening_run_batch_matches_single():
    rules = RuleSet(opening_run="run")
    hands = solver.deal(200, rules=rules, seed=4)
    values = solver.best_opening_values(hands, rules)
    assert [solver.best_opening(list(h), rules).value for h in hands] == list(values)


# --------------------------------------------------------------------------- (e) equal hands
def test_equal_hands_first_player_draws():
    rules = RuleSet(first_player_draws=True)
    state = GameState.new(rules, 4, seed=2)
    assert [len(h) for h in state.hands] == [14] * 4
    assert state.phase.name == "DRAW" and state.turn == 0
    assert not state.can_draw("discard")  # the pile is empty in turn 0
    state.draw("stock")
    assert len(state.hands[0]) == 15
    deck = stacked_deck(rules, ["AS 2S 3S"], players=2)
    assert sorted(GameState.new(rules, 2, deck=deck).hands[0])[:3] == sorted(to_codes("AS 2S 3S"))


# --------------------------------------------------------------------------- (f) elimination
def test_elimination_match():
    # the winner's negative points let totals fall, so a match of two strong players can run
    # long: match_deals caps it
    rules = RuleSet(match_elimination=101, match_deals=150)
    m = play_match([GreedyBot(), RandomBot(seed=1), GreedyBot()], rules, seed=5)
    assert m.over and (len(m.active) <= 1 or len(m.deals) == 150)
    out = [p for p in range(3) if p not in m.active]
    assert out and all(m.totals[p] > 101 for p in out)
    assert any(d.n_players < 3 for d in m.deals)  # deals after a drop-out have fewer players
    assert m.standings()[0] == m.winner
    again = Match.from_json(m.to_json())
    assert again.totals == m.totals and again.active == m.active


def test_elimination_passes_the_deal_among_those_left():
    m = Match(RuleSet(match_elimination=251), players=3, seed=1)
    m.totals = [0, 300, 0]
    m.active = [0, 2]
    d = m.new_deal()
    assert d.n_players == 2 and m.seats == (0, 2)


# --------------------------------------------------------------------------- presets
def test_presets_have_notes_and_sources():
    assert set(PRESET_NOTES) == set(PRESETS) and len(PRESETS) >= 6
    for name, note in PRESET_NOTES.items():
        assert RuleSet.preset(name) == PRESETS[name]
        assert note.description and note.source


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_preset_plays_in_the_engine_and_the_kernel(name):
    rules = PRESETS[name]
    players = 4
    for seed in range(2):
        state = play_deal([GreedyBot(), TacticianBot(), HandHunterBot(), RandomBot(seed=seed)],
                          rules, seed=seed)
        state.check()
        assert state.over
    why = supported(rules, players)
    if why is None:
        for seed in range(3):
            d = play_greedy_deal(rules, players, seed=seed, record=True)
            st = play_deal([GreedyBot()] * players, rules, seed=seed)
            assert list(d.actions) == list(st.actions)
    else:
        assert isinstance(why, str) and "=" in why


def test_kernel_refusals_name_the_option():
    assert "first_player_draws" in supported(PRESETS["kaluki"])
    assert "opening_run" in supported(PRESETS["remik"])
    assert supported(RuleSet(opening_run="run")) is None
    assert "joker_limit_on_table" in supported(RuleSet(joker_limit_on_table=False))
    assert "doubles_on" in supported(RuleSet(doubles_on="bottom"))
    assert "first_player_free_take" in supported(RuleSet(first_player_free_take=True))


def test_bad_option_values_are_refused():
    with pytest.raises(ValueError, match="opening_run"):
        RuleSet(opening_run="set")
    with pytest.raises(ValueError, match="doubles_on"):
        RuleSet(doubles_on="out")
    with pytest.raises(TypeError):
        RuleSet(first_player_draws=1)


# --------------------------------------------------------------------------- the command
def test_rules_command(capsys):
    assert main(["rules"]) == 0
    out = capsys.readouterr().out
    for name in PRESETS:
        assert name in out
    assert "CammyCodes/Remik" in out
    assert main(["rules", "remik"]) == 0
    out = capsys.readouterr().out
    assert "opening_run" in out and "pure_run" in out and "match_elimination" in out
    assert "decks" not in out  # only the fields that differ
    assert main(["rules", "nope"]) == 2
