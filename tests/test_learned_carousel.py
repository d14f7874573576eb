"""Carousel's learned evaluator and the bots that use it: the shipped model fits the
features; the learned bot and the search bot with the model are the same in the kernel
and in the Python engine; the recorder plays the kernel's rounds; a bad model is
refused in one line; a small training run repeats itself. (Information hygiene over
random states: tests/test_carousel_hygiene.py.)"""
from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest

from carousel_big import big_positions
from carousel_helpers import RandomChoices, random_position, random_rules
from rummy51 import _carousel
from rummy51.carousel import CarouselRules
from rummy51.carousel.bots import (
    GreedyBot,
    LearnedBot,
    LearnedSearchBot,
    PlainSearchBot,
    SearchBot,
    core_rules,
    game_rules,
    hand_counts,
    make_bot,
    play_game,
    table_counts,
)
from rummy51.carousel.engine import GameState
from rummy51.carousel.learned import FEATURE_NAMES, FEATURE_VERSION, PHASES, check_data, features
from rummy51.carousel.solver import best_play
from rummy51.carousel.table import parse_table
from rummy51.cli import main
from rummy51.learned import ModelError, load_model, train
from rummy51.studies._carousel_plan import CHUNK_COLUMNS, play_kernel_game
from test_carousel_kernel import _same_game

MODEL = load_model("carousel")


def test_the_shipped_model_fits_the_features():
    assert MODEL.game == "carousel" and MODEL.feature_version == FEATURE_VERSION
    assert MODEL.n_features == len(FEATURE_NAMES) == _carousel.LEARNED_FEATURES
    assert list(MODEL.meta["feature_names"]) == list(FEATURE_NAMES)
    tr = MODEL.meta["training"]
    assert tr["command"].startswith("rummy51 train carousel") and tr["samples"] > 10_000
    assert MODEL.path.endswith("carousel.npz")


def test_features_read_the_view():
    """A few features by hand: the hand, its points, the other hand's size, the stock,
    the phase; a state's features are its player's view's."""
    rules = CarouselRules.for_players(2)
    s = GameState.new(rules, seed=5)
    x = features(s)
    f = dict(zip(FEATURE_NAMES, x.tolist(), strict=True))
    v = s.view()
    assert f["hand_cards"] == 10 and f["hand_points"] == rules.hand_points(v.hand)
    assert f["seat1_hand"] == 10 and f["stock"] == v.stock_count == 33
    assert f["phase_draw1"] == 1 and f["players"] == 2 and f["table_cards"] == 0
    assert sum(f[n] for n in FEATURE_NAMES if n.startswith("hand_") and n != "hand_cards"
               and n != "hand_points" and n != "hand_jokers") == 10
    assert x.tolist() == features(s.view(s.current)).tolist()
    for k, ph in enumerate(PHASES):
        assert features(s, phase=k)[FEATURE_NAMES.index(f"phase_{ph}")] == 1
    with pytest.raises(ValueError, match="phase must be 0..4"):
        features(s, phase=7)
    with pytest.raises(TypeError, match="a Carousel GameState or PlayerView"):
        features("hello")


def test_value_of_states_and_views():
    s = GameState.new(CarouselRules.for_players(3), seed=2)
    m, p = MODEL.value(s)
    assert np.isfinite(m) and 0 < p < 1
    assert (m, p) == MODEL.value(s.view(s.current))
    ms, ps = MODEL.values([s.view(0), s.view(1), s.view(2)])
    assert ms.shape == (3,) and ps[s.current] == p


def _table(players, seats, kind):
    def make():
        out = []
        for i in range(players):
            if i not in seats:
                out.append(GreedyBot())
            elif kind == "learned":
                out.append(LearnedBot())
            else:
                out.append(LearnedSearchBot(seed=10 + i, rollouts=16))
        return out
    return make


@pytest.mark.parametrize("players, seats, seeds", [(2, (0,), 3), (2, (0, 1), 2), (3, (1,), 2)])
def test_the_learned_bot_is_the_same_in_the_kernel_and_in_python(players, seats, seeds):
    rules = CarouselRules.for_players(players)
    for seed in range(seeds):
        _same_game(rules, seed, _table(players, seats, "learned"))


@pytest.mark.parametrize("players, seats, seeds", [(2, (0,), 2), (3, (0, 2), 1)])
def test_the_search_with_the_model_is_the_same_in_the_kernel_and_in_python(players, seats,
                                                                           seeds):
    rules = CarouselRules.for_players(players)
    for seed in range(seeds):
        _same_game(rules, seed, _table(players, seats, "search"))


def test_the_search_reads_its_model():
    """The model and the horizon change the search's games (a search seat without a
    model plays to the round's end), so the tests above could fail."""
    rules = CarouselRules.for_players(2)
    games = []
    for kw in ({}, {"model": None}, {"horizon": 3}):
        bots = [LearnedSearchBot(seed=4, rollouts=16, **kw), GreedyBot()]
        games.append(play_kernel_game(rules, 1, trace=True, bots=bots)[2].tobytes())
    assert len(set(games)) == 3
    assert SearchBot(model=None).kernel_spec()[0] == "search" and SearchBot(model=None).model is None
    assert SearchBot().kernel_spec()[0] == "search" and SearchBot().model.sha256 == MODEL.sha256
    spec = LearnedSearchBot().kernel_spec()
    assert spec[0] == "search-learned" and len(spec) == 7 and spec[-1] == 0
    assert PlainSearchBot().model is None


def test_the_recorder_plays_the_kernels_round():
    """With nothing explored, ``record_round``'s round is the kernel's first round of the
    same deck and dealer (the same scores), every recorded row is one of its positions,
    and the rollout targets (sums of that many margins) repeat from the same seed."""
    from rummy51.r51.engine import normalize_seed

    rules = CarouselRules.for_players(2)
    col = {c: k for k, c in enumerate(CHUNK_COLUMNS)}
    X = np.zeros((256, len(FEATURE_NAMES)), np.float32)
    who = np.zeros(256, np.int32)
    ph = np.zeros(256, np.int32)
    y = np.zeros(256, np.int64)
    for seed in range(4):
        rng, _ = normalize_seed(seed)
        dealer = int(rng.integers(2))
        deck = rng.permutation(np.asarray(rules.deck(), np.int64)).astype(np.uint8)
        n, scores, winners = _carousel.record_round(
            core_rules(rules), game_rules(rules), deck, dealer, None, np.random.default_rng(1),
            1.0, 0.0, X, who, ph, 3, y)
        rows, _ = play_kernel_game(rules, seed)
        r0 = rows[rows[:, col["round"]] == 0]
        r0 = r0[np.argsort(r0[:, col["seat"]])]
        assert scores == [int(v) for v in r0[:, col["score"]]]
        assert winners == [bool(v) for v in r0[:, col["won"]]]
        assert n > 5 and set(who[:n]) == {0, 1}
        assert np.abs(y[:n]).max() <= 3 * 200
        # the targets come from the recorder's own generator: the same seed, the same rows
        y2 = np.zeros_like(y)
        n2, _, _ = _carousel.record_round(
            core_rules(rules), game_rules(rules), deck, dealer, None, np.random.default_rng(1),
            1.0, 0.0, X.copy(), who.copy(), ph.copy(), 3, y2)
        assert n2 == n and (y2[:n] == y[:n]).all()


def test_the_learned_bot_refuses_a_missing_or_corrupt_model(tmp_path, monkeypatch, capsys):
    for damage in ("missing", "corrupt"):
        bad = tmp_path / damage / "carousel.npz"
        bad.parent.mkdir()
        if damage == "corrupt":
            bad.write_bytes(b"PK\x03\x04 not a model")
        monkeypatch.setenv("RUMMY51_MODEL_DIR", str(bad.parent))
        for make in (SearchBot, LearnedSearchBot, LearnedBot, lambda: make_bot("learned"),
                     lambda: make_bot("search-learned:8")):
            with pytest.raises(ModelError, match=str(bad)):
                make()
        PlainSearchBot(seed=1)       # need no model
        SearchBot(seed=1, model=None)
        for bots in ("search,greedy", "search-learned,greedy", "learned,greedy"):
            code = main(["carousel", "simulate", "--players", "2", "--bots", bots, "--games",
                         "2", "--no-progress"])
            err = capsys.readouterr().err
            assert code == 2 and err.count("\n") == 1 and str(bad) in err, err


def test_the_kernel_refuses_a_learned_seat_without_a_fitting_model():
    from rummy51.learned import Model

    rules = CarouselRules.for_players(2)
    small = Model(game="carousel", feature_version=FEATURE_VERSION,
                  w1=np.zeros((3, 4), np.float32), b1=np.zeros(4, np.float32),
                  w2=np.zeros((2, 4), np.float32), b2=np.zeros(2, np.float32))
    decks = np.zeros((1, rules.deck_size), np.uint8)
    out = np.zeros((2, len(CHUNK_COLUMNS)), np.int32)
    for spec, words in ((("learned", None), "needs a model"),
                        (("learned", small), "reads 3 features"),
                        (("search", np.random.default_rng(), 8, 2.0, 1.0, small, 1),
                         "reads 3 features")):
        with pytest.raises(ValueError, match=words):
            _carousel.play_greedy_game(core_rules(rules), game_rules(rules), decks, 0, 0, out,
                                       bots=[spec, None])


def test_a_small_carousel_training_run_repeats_itself(tmp_path):
    kw = dict(seed=3, games=24, chunk_size=8, epochs=2, hidden=8, progress=False)
    a = train("carousel", out=tmp_path / "a", **kw)
    b = train("carousel", out=tmp_path / "b", workers=2, **kw)
    assert a.samples == b.samples > 100 and a.model.sha256 == b.model.sha256
    assert load_model(a.path).meta["training"]["data"] == check_data({})
    c = train("carousel", out=tmp_path / "c", seed=3, games=6, chunk_size=3, epochs=1, hidden=8,
              data={"rollouts": 2, "bots": "learned,greedy"}, progress=False)
    assert c.samples > 10 and c.model.meta["training"]["data"]["rollouts"] == 2


@pytest.mark.parametrize("args, words", [
    (["--games", "0"], "games must be >= 1"),
    (["--players", "9"], "players must be 2..6"),
    (["--bots", "random"], "bots must be kernel bots"),
    (["--bots", "greedy,greedy,greedy"], "3 bots for 2 players"),
    (["--rate", "0"], "rate must be > 0"),
    (["--explore", "1"], "explore must be 0..1"),
    (["--rollouts", "-1"], "rollouts must be 0..1000"),
])
def test_train_carousel_refuses_nonsense_in_one_line(tmp_path, capsys, args, words):
    code = main(["train", "carousel", "--out", str(tmp_path / "x"), *args])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and words in err, err
    assert not (tmp_path / "x").exists()


def test_the_learned_bot_plays_whole_games():
    rules = CarouselRules.for_players(3)
    s = play_game([LearnedBot(), GreedyBot(), LearnedBot()], rules, seed=8, check=True)
    assert s.over


@pytest.mark.slow
def test_the_shipped_model_is_retrained_from_its_recorded_command(tmp_path):
    import shlex

    words = shlex.split(MODEL.meta["training"]["command"])
    i = words.index("--out")
    words[i + 1] = str(tmp_path / "again")
    assert main(words[1:] + ["--no-progress", "--workers", "2"]) == 0
    again = load_model(tmp_path / "again" / "model.npz")
    assert again.meta["training"]["samples"] == MODEL.meta["training"]["samples"]
    # bit for bit, or within float32 rounding (a retrain on the VM that trained it gave
    # w1 within 7.5e-9 of the shipped one and the other arrays bit for bit)
    for k in ("w1", "b1", "w2", "b2"):
        np.testing.assert_allclose(getattr(again, k), getattr(MODEL, k), rtol=1e-6, atol=1e-7)


def _solver_features(table, hand, rules):
    """The solver's fields of the features (the kernel's round solver, ``_cg_solve``)
    of seat 0's view holding ``hand`` with ``table`` on the table."""
    H, jh = hand_counts(hand)
    T, D, jt = table_counts(parse_table(table, rules))
    x = _carousel.learned_features(core_rules(rules), game_rules(rules), H, jh, T, D, jt,
                                   (len(hand),) + (10,) * (rules.players - 1), 0, 20, 0,
                                   False, 0)
    f = dict(zip(FEATURE_NAMES, x.tolist(), strict=True))
    return (f["can_meld"], f["best_points_left"], f["best_cards_left"], f["best_goes_out"],
            f["best_may_knock"])


@pytest.mark.parametrize("seed", [1, 2])
def test_the_features_solver_fields_are_the_best_plays(seed):
    """The features' solver fields (the game kernel's value of the best play, on big
    positions by bounds first) equal ``best_play``'s, on big tables (50-100 cards) and on
    random and dense positions of random rules (the solver's property tests')."""
    rng = random.Random(seed)
    positions = list(big_positions(16, seed))
    for k in range(200):
        pick = RandomChoices(rng)
        rules = random_rules(pick)
        positions.append((*random_position(pick, rules, k % 2 == 1, 8), rules))
    for table, hand, rules in positions:
        if not hand:
            continue
        play = best_play(table, hand, rules)
        left = len(hand) - play.cards_played
        want = (1.0 if play.can_meld else 0.0, play.points_left, left, 1.0 if left == 0 else 0.0,
                1.0 if play.points_left <= rules.knock_limit else 0.0)
        assert _solver_features(table, hand, rules) == want, (table, hand, rules)


def test_a_decision_does_not_depend_on_the_calls_before_it():
    """The bots' single decisions (``learned_decide``, ``search_decide``: what the
    Python engine's bots call every turn) keep their game context per thread between
    calls, its round memo of exact values emptied and its candidate melds forgotten:
    the same decisions as from a fresh context, whatever the thread decided before,
    under other rules (the same cards valued otherwise) or the same."""
    rng = random.Random(5)
    calls = []
    for k in range(120):
        pick = RandomChoices(rng)
        rules = random_rules(pick)
        table, hand = random_position(pick, rules, k % 2 == 1, 8)
        if not hand:
            continue
        other = dataclasses.replace(rules, face_value=22 - rules.face_value,
                                    joker_value=29 - rules.joker_value,
                                    ace_value=12 - rules.ace_value)
        H, jh = hand_counts(hand)
        T, D, jt = table_counts(parse_table(table, rules))
        # the cards not seen: the other hands and the stock
        unseen = 52 * rules.decks + rules.jokers - len(hand) - sum(T) - jt
        size = min(10, unseen // rules.players)
        for r in (rules, other):
            calls.append((core_rules(r), game_rules(r), H, jh, T, D, jt,
                          (len(hand),) + (size,) * (r.players - 1), 0,
                          unseen - size * (r.players - 1), 1, False))

    def learned(c):
        return _carousel.learned_decide(c[0], c[1], MODEL, _carousel.SEARCH_MELD, *c[2:])

    def search(c):
        return _carousel.search_decide(c[0], c[1], np.random.default_rng(3),
                                       _carousel.SEARCH_MELD, *c[2:], 16, 2.0, 2.0, True,
                                       MODEL, 0)

    for decide, calls_of in ((learned, calls), (search, calls[:60])):
        fresh = []
        for c in calls_of:
            _carousel._drop_kept_cache()
            fresh.append(decide(c))
        assert [decide(c) for c in calls_of] == fresh
        assert [decide(c) for c in reversed(calls_of)] == fresh[::-1]
