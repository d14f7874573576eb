"""Regression tests of the silent wrong answers and faults of the fault audit (issue 10):
numpy integers in rule sets, capped histograms, searches that give up, C-int overflow,
decks too large for the core's buffers."""
import math
import warnings

import numpy as np
import pytest

import rummy51
from rummy51 import RuleSet, _core
from rummy51.cli import main
from rummy51.solver import pack_hands
from rummy51.studies._openings_plan import hist_bins, value_bound


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --------------------------------------------------------------------------- 1. numpy ints
@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8])
def test_numpy_integer_fields_become_python_ints(dtype):
    r = RuleSet(ace_value=dtype(100), threshold=dtype(40), jokers=dtype(2))
    for f in ("ace_value", "threshold", "jokers"):
        assert type(getattr(r, f)) is int
    assert r == RuleSet(ace_value=100, threshold=40, jokers=2)
    assert hash(r) == hash(RuleSet(ace_value=100, threshold=40, jokers=2))


def test_numpy_int8_rule_set_computes_exactly_and_does_not_poison_the_cache():
    hand = "AS AH AD 2C"
    np_rules = RuleSet(ace_value=np.int8(100))
    assert rummy51.best_opening(hand, np_rules).value == 300
    assert rummy51.can_open(hand, np_rules)
    # the equal plain rule set shares the cache entry: it must hold the right answer
    assert rummy51.best_opening(hand, RuleSet(ace_value=100)).value == 300


def test_numpy_bool_fields_become_bools():
    r = RuleSet(ace_high=np.bool_(False), bottom_card=np.bool_(True))
    assert type(r.ace_high) is bool and type(r.bottom_card) is bool


def test_numpy_rule_set_serialises_to_json():
    import json

    r = RuleSet(jokers=np.int64(2), max_turns=np.int32(500), ace_high=np.bool_(True))
    json.dumps(rummy51.rules.rules_to_dict(r, full=True))
    s = rummy51.GameState.new(r, players=2, seed=1)
    json.loads(s.to_json())


# --------------------------------------------------------------------------- 2. histogram cap
def test_histogram_is_sized_from_the_rules():
    assert hist_bins([("default", RuleSet())]) == 256      # the default rules: unchanged
    big = RuleSet(hand_size=45)
    assert value_bound(big) + 2 == hist_bins([("x", big)]) > 256
    assert hist_bins([("a", RuleSet()), ("b", RuleSet(ace_value=100))]) > 1000


def test_big_hands_mean_is_not_capped():
    """hand_size=45 once reported a mean best value of 252.95 (true about 296.7) because
    values were capped at 255. Compare with an independent estimate: random 46-card
    hands from the deck solved one by one."""
    rules = RuleSet(hand_size=45)
    n = 600
    study = rummy51.simulate_openings(rules=rules, deals=n, seed=11, players=(), hands=("first",),
                                      progress=False, workers=1)
    row = study.summary(by_jokers=False).iloc[0]
    assert row.gave_up == 0 and row.hands == n
    rng = np.random.default_rng(12)
    deck = rules.deck()
    hands = np.stack([rng.permutation(deck)[:46] for _ in range(n)])
    vals = rummy51.best_opening_values(hands, rules)
    assert vals.max() > 255                   # the old cap would have bitten
    se = math.hypot(row.mean_best_se, vals.std(ddof=1) / math.sqrt(n))
    assert abs(row.mean_best - vals.mean()) < 5 * se


# --------------------------------------------------------------------------- 3. give-ups
@pytest.fixture
def tiny_budget():
    old = _core._py_node_limit(30)
    yield
    _core._py_node_limit(old)


def test_deal_study_never_counts_a_give_up(tiny_budget):
    with pytest.warns(RuntimeWarning, match="gave up"):
        study = rummy51.simulate_openings(deals=3000, seed=1, players=(4,), turns=4,
                                          turn_deals=300, progress=False, workers=2)
    s = study.summary(by_jokers=False)
    assert (s.gave_up > 0).any()
    assert ((s.hands + s.gave_up) == 3000).all()
    by_j = study.summary(by_jokers=True)
    allrows = by_j[by_j.jokers == "all"].set_index("hand")
    parts = by_j[by_j.jokers != "all"].groupby("hand")[["hands", "gave_up"]].sum()
    assert (parts.hands == allrows.hands).all() and (parts.gave_up == allrows.gave_up).all()
    assert study.gave_up() == int(s.gave_up.sum()) + int(
        study.by_turn()[lambda d: (d.turn == 1) & (d.jokers == "all")].gave_up.sum())
    bt = study.by_turn()
    last = bt[(bt.turn == 4) & (bt.jokers == "all")]
    assert ((last.deals + last.gave_up) == 300).all()
    assert (last.opened <= last.deals).all()


def test_odds_never_count_a_give_up(tiny_budget):
    _core._py_node_limit(2)
    with pytest.warns(RuntimeWarning, match="gave up"):
        o = rummy51.opening_odds("2C 5D KH 9S 3H 7D JC 4S 6H QD 8C", draws=4, samples=3000,
                                 seed=3, workers=2)
    assert 0 < o.gave_up < 3000
    t = o.table()
    assert (t.samples == 3000 - o.gave_up).all()
    assert int(o.first_open.sum()) == o.answered
    assert (t.p_open <= 1).all()


def test_discard_policy_hook_refuses_a_give_up(tiny_budget):
    from rummy51.solver import compiled_rules

    _core._py_node_limit(2)
    hand = np.array(rummy51.cards.to_codes("2C 3C 4C 5C 6C 7C 8C 2D 3D 4D 5D 6D 7D 8D JK"),
                    np.uint8)
    with pytest.raises(ValueError, match="gave up"):
        _core._py_choose_discard(compiled_rules(RuleSet()), hand)


# --------------------------------------------------------------------------- 4. C ints
@pytest.mark.parametrize("call, match", [
    (lambda: rummy51.best_opening("AS AH AD 2C", keep=2**40), r"keep must be 0\.\.120"),
    (lambda: rummy51.can_open("AS AH AD 2C", keep=2**31), r"keep must be 0\.\.120"),
    (lambda: RuleSet(max_turns=2**31), r"rules\.max_turns must be at most 10000000, got 2147483648"),
    (lambda: RuleSet(match_deals=2**40), r"rules\.match_deals must be"),
    (lambda: rummy51.opening_odds("AS 2S 3S", draws=2**31), r"draws must be at most"),
    (lambda: rummy51.opening_odds("AS 2S 3S", samples=2**63), r"samples must be"),
    (lambda: rummy51.simulate_openings(deals=2**62, progress=False), r"deals must be"),
    (lambda: rummy51.simulate_games(games=2**62, progress=False), r"games must be"),
    (lambda: rummy51.simulate_games(games=10, chunk_size=2**40, progress=False), r"chunk_size"),
])
def test_integers_past_the_c_types_are_refused(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_cli_keep_past_a_c_int_is_one_line(capsys):
    code, out, err = run(capsys, "best", "--keep", "3000000000", "6S 7S 8S 10D 10C 10H 2C")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "keep" in err and "Traceback" not in err


# --------------------------------------------------------------------------- 7. deck size
def test_sixteen_jokers_run_every_study(capsys, tmp_path):
    """``--jokers 16`` (a 120-card deck) once ran the deal chunks, then failed in the
    by-turn study ("deck too large for the discard pile buffer"), and on every resume."""
    out_dir = tmp_path / "run"
    code, out, err = run(capsys, "simulate", "openings", "--jokers", "16", "--deals", "200",
                         "--turn-deals", "50", "--turns", "30", "--players", "6",
                         "--out", str(out_dir), "--no-progress", "--seed", "1")
    assert code == 0, err
    study = rummy51.OpeningStudy.load(out_dir)
    assert study.complete and int(study.dealt.sum()) == 6 * 50


# --------------------------------------------------------------------------- 9. small ones
def test_pack_hands_width_must_be_a_whole_number():
    for bad in ("15", 2.7, True, np.float64(3)):
        with pytest.raises(TypeError, match="width must be a whole number"):
            pack_hands(["AS"], width=bad)
    assert pack_hands(["AS 2S"], width=np.int64(4)).shape == (1, 4)


def test_batch_errors_name_the_row():
    with pytest.raises(ValueError, match=r"hands\[2\]: 'XX' is not a card"):
        rummy51.best_opening_values([["AS"], ["2S"], ["XX"]])
    with pytest.raises(ValueError, match=r"hands\[1\]"):
        pack_hands(["AS", "ZZ"])


def test_warnings_are_quiet_on_normal_runs():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rummy51.simulate_openings(deals=500, seed=1, players=(), progress=False)


# --------------------------------------------------------------------------- 8. JSON
def test_numpy_arguments_give_json_outputs(tmp_path):
    import json

    s = rummy51.simulate_openings(deals=np.int64(500), seed=np.int64(5), players=(np.int64(2),),
                                  turns=np.int32(3), turn_deals=np.int64(20), progress=False,
                                  out=tmp_path / "o")
    g = rummy51.simulate_games(games=np.int64(10), seed=np.uint32(3), players=np.int8(2),
                               chunk_size=np.int16(5), progress=False, out=tmp_path / "g")
    for study in (s, g):
        json.dumps(study.to_dict())
    assert json.loads((tmp_path / "g" / "manifest.json").read_text())["status"] == "finished"


def test_a_manifest_that_cannot_be_json_leaves_no_directory(tmp_path):
    from rummy51.runs import RunDir

    with pytest.raises(TypeError):
        RunDir.create(tmp_path / "run", {"kind": "games", "bad": object()})
    assert not (tmp_path / "run").exists()
