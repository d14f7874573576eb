"""Rummy 51's learned evaluator and the bots that use it: the features a player sees (the
same from a state and from its view; blind to the cards it cannot see), the learned and
search bots the same in the kernel and in Python, search-plain's games unchanged, a bad
model refused, and a small training run that repeats itself."""
from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

from rummy51 import (
    GameState,
    LearnedBot,
    LearnedSearchBot,
    PlainSearchBot,
    RuleSet,
    SearchBot,
    TacticianBot,
)
from rummy51.cli import main
from rummy51.learned import ModelError, load_model, train
from rummy51.r51 import fastgame
from rummy51.r51.bots import GreedyBot, RandomBot, play_deal
from rummy51.r51.learned import FEATURE_NAMES, FEATURE_VERSION, features
from rummy51.r51.search import known_cards

MODEL = load_model("r51")


def _states(n_deals=4, every=3, seed0=0):
    """Positions of a few deals (2-4 players) of tacticians with a random seat."""
    out = []
    for d in range(n_deals):
        players = 2 + d % 3
        s = GameState.new(RuleSet(), players=players, seed=seed0 + d, first=d % players)
        bots = [RandomBot(seed=d)] + [TacticianBot() for _ in range(players - 1)]
        k = 0
        while not s.over:
            if k % every == 0:
                out.append(s.copy())
            s.apply(bots[s.current].choose(s.view(s.current)))
            k += 1
    return out


def _resample_hidden(state: GameState, p: int, rng: np.random.Generator) -> GameState:
    """The same position as seat ``p`` sees it, with the cards it cannot see (the other
    hands less their known cards, and the stock) dealt again at random."""
    alt = state.copy()
    known = known_cards(state.view(p))
    pool: list[int] = list(state.stock)
    keep = {}
    for q in range(state.n_players):
        if q == p:
            continue
        rest = Counter(state.hands[q])
        rest.subtract(known[q])
        assert all(v >= 0 for v in rest.values())
        keep[q] = list(known[q].elements())
        pool += list(rest.elements())
    pool = [int(c) for c in rng.permutation(pool)]
    for q, kept in keep.items():
        k = len(state.hands[q]) - len(kept)
        alt.hands[q] = sorted(kept + pool[:k])
        pool = pool[k:]
    alt.replace_stock(pool)
    return alt


def test_the_shipped_model_fits_the_features():
    assert MODEL.game == "r51" and MODEL.feature_version == FEATURE_VERSION
    assert MODEL.n_features == len(FEATURE_NAMES) == 313
    tr = MODEL.meta["training"]
    assert tr["command"].startswith("rummy51 train r51 ") and tr["samples"] > 100_000
    assert MODEL.meta["feature_names"] == list(FEATURE_NAMES)


def test_features_of_a_state_are_those_of_its_players_view():
    for s in _states(3, every=2):
        for p in range(s.n_players):
            np.testing.assert_array_equal(features(s, p), features(s.view(p)))


def test_the_features_and_the_bots_never_read_hidden_cards():
    """Same information, different hidden cards: the same features, and the same move
    from each bot made in the kernel from the whole state, with the same seed."""
    rng = np.random.default_rng(5)
    checked = 0
    for s in _states(4, every=4, seed0=40):
        p = s.current
        alt = _resample_hidden(s, p, rng)
        if alt.hands == s.hands and alt.stock == s.stock:
            continue
        np.testing.assert_array_equal(features(s, p), features(alt, p))
        others = [TacticianBot() for _ in range(s.n_players)]
        for make in (lambda: LearnedBot(), lambda: LearnedSearchBot(seed=9, rollouts=48),
                     lambda: SearchBot(seed=9, rollouts=48)):
            moves = []
            for st in (s, alt):
                bots = list(others)
                bots[p] = make()
                # the first move of the rest of the deal is the bot's, made by the kernel
                # from the whole state (hands and stock)
                cont = fastgame.play_position(st, bots, np.random.default_rng(1), record=True)
                moves.append(cont.actions[0])
            assert moves[0] == moves[1], (make().__class__.__name__, p, moves)
        checked += 1
    assert checked >= 20


@pytest.mark.parametrize("seed", range(3))
def test_the_learned_bot_is_the_same_in_the_kernel_and_in_python(seed):
    bots = [LearnedBot(), GreedyBot()] if seed % 2 == 0 else [TacticianBot(), LearnedBot()]
    k = fastgame.play_kernel_deal(bots, RuleSet(), seed=seed, first=seed % 2, record=True)
    s = play_deal(bots, RuleSet(), seed=seed, first=seed % 2)
    assert list(k.actions) == [r.action for r in s.history if r.player >= 0]
    assert k.scores == s.result.scores


@pytest.mark.parametrize("seed", range(2))
def test_the_search_bot_with_the_model_is_the_same_in_the_kernel_and_in_python(seed):
    mk = [lambda: LearnedSearchBot(seed=3, rollouts=64), TacticianBot]
    k = fastgame.play_kernel_deal([mk[0](), mk[1]()], RuleSet(), seed=seed, record=True)
    s = play_deal([mk[0](), mk[1]()], RuleSet(), seed=seed)
    assert list(k.actions) == [r.action for r in s.history if r.player >= 0]


def test_search_plain_plays_the_games_the_search_bot_played_before_the_model():
    """tests/data/search_plain_golden.json: seeded kernel deals of the search bot against
    tacticians recorded before the learned model existed (its moves' hash and scores)."""
    import hashlib
    from pathlib import Path

    golden = json.loads((Path(__file__).parent / "data" / "search_plain_golden.json").read_text())
    for g in golden:
        for make in (lambda g=g: PlainSearchBot(seed=g["bot_seed"]),
                     lambda g=g: SearchBot(seed=g["bot_seed"])):
            bots = [make()] + [TacticianBot() for _ in range(g["players"] - 1)]
            if g["seed"] % 2:
                bots = bots[::-1]
            assert fastgame.bot_code(bots[g["search_seat"]]) == 5
            r = fastgame.play_kernel_deal(bots, RuleSet(), seed=g["seed"], first=g["first"],
                                          record=True)
            h = hashlib.sha256(json.dumps([repr(a) for a in r.actions]).encode()).hexdigest()
            assert (h, list(r.scores)) == (g["sha256"], g["scores"])


def test_the_default_search_is_search_plain_and_search_learned_has_the_model():
    assert fastgame.BOT_CODES["search"] == fastgame.BOT_CODES["search-plain"] == 5
    assert fastgame.BOT_CODES["search-learned"] == 4
    assert SearchBot().model is None and PlainSearchBot().model is None
    assert LearnedSearchBot().model is not None
    assert SearchBot(model="r51").kernel_code == LearnedSearchBot().kernel_code == 4
    assert fastgame.kernel_params([5, 1])[0] == SearchBot.default_params()
    assert len(fastgame.kernel_params([4, 1])[0]) == 6


def test_value_of_states_and_views():
    s = GameState.new(RuleSet(), players=2, seed=7)
    m, p = MODEL.value(s)
    assert isinstance(m, float) and 0 < p < 1
    assert (m, p) == MODEL.value(s.view(0))
    ms, ps = MODEL.values([s.view(0), s.view(1), s], [None, None, 1])
    assert ms.shape == (3,) and ms[1] == ms[2] and ps[0] == p
    with pytest.raises(ValueError, match="a view of seat 0 gives that seat's features"):
        MODEL.value(s.view(0), 1)
    with pytest.raises(TypeError, match="a Rummy 51 GameState or PlayerView"):
        MODEL.value("hello")


@pytest.mark.parametrize("damage", ["missing", "corrupt"])
def test_the_bots_refuse_a_missing_or_corrupt_model(tmp_path, monkeypatch, capsys, damage):
    bad = tmp_path / "r51.npz"
    if damage == "corrupt":
        bad.write_bytes(b"PK\x03\x04 not really")
    monkeypatch.setenv("RUMMY51_MODEL_DIR", str(tmp_path))
    for make in (LearnedSearchBot, LearnedBot):
        with pytest.raises(ModelError, match=str(bad)):
            make()
    PlainSearchBot(seed=1)      # needs no model
    SearchBot(seed=1)           # nor does the default search
    for bots in ("search-learned,greedy", "learned,greedy"):
        code = main(["simulate", "games", "--players", "2", "--bots", bots, "--games", "2",
                     "--no-progress"])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and str(bad) in err, err
    with pytest.raises(ModelError):
        fastgame.play_kernel_deal(["learned", "greedy"], RuleSet(), seed=1)


def test_the_kernel_refuses_a_search_or_learned_seat_without_its_model():
    from rummy51 import _game

    k = fastgame.greedy_kernel(RuleSet())
    for code in (4, 6):
        with pytest.raises(ValueError, match="give its learned model"):
            _game.play_table(k, np.random.default_rng(0), 2, 0, [code, 1],
                             [np.random.default_rng(1), None], None)


def test_a_small_r51_training_run_repeats_itself(tmp_path):
    a = train("r51", out=tmp_path / "a", seed=3, games=30, chunk_size=10, epochs=2, hidden=8,
              progress=False)
    b = train("r51", out=tmp_path / "b", seed=3, games=30, chunk_size=10, epochs=2, hidden=8,
              progress=False, workers=2)
    assert a.samples == b.samples > 100 and a.model.sha256 == b.model.sha256
    m = load_model(a.path)
    assert m.meta["training"]["data"] == {"players": 2, "bots": "tactician,tactician",
                                          "rate": 0.1, "explore": 0.05, "rollouts": 0}
    c = train("r51", out=tmp_path / "c", seed=3, games=12, chunk_size=6, epochs=1, hidden=8,
              data={"rollouts": 2}, progress=False)
    assert c.samples > 20 and c.model.meta["training"]["data"]["rollouts"] == 2


@pytest.mark.parametrize("args, words", [
    (["--games", "0"], "games must be >= 1"),
    (["--players", "9"], "players must be 2..8"),
    (["--bots", "random"], "bots must be kernel bots"),
    (["--rate", "0"], "rate must be > 0"),
    (["--hidden", "0"], "hidden must be"),
])
def test_train_r51_refuses_nonsense_in_one_line(tmp_path, capsys, args, words):
    code = main(["train", "r51", "--out", str(tmp_path / "x"), *args])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and words in err, err


@pytest.mark.slow
def test_the_shipped_model_is_retrained_bit_for_bit_from_its_recorded_command(tmp_path):
    import shlex

    tr = MODEL.meta["training"]
    words = shlex.split(tr["command"])
    i = words.index("--out")
    words[i + 1] = str(tmp_path / "again")
    assert main(words[1:] + ["--no-progress", "--workers", "2"]) == 0
    again = load_model(tmp_path / "again" / "model.npz")
    assert again.sha256 == MODEL.sha256
