"""The C greedy game kernel of Carousel (``_carousel.play_greedy_game``, wired into
``simulate_carousel`` as ``engine="auto"``): move for move and record for record the
Python engine with ``GreedyBot`` in every seat, every rule variant, and its errors."""
from __future__ import annotations

import argparse
import dataclasses

import numpy as np
import pytest

from rummy51 import _carousel
from rummy51.carousel import CarouselRules
from rummy51.carousel.actions import DrawRecord, KnockRecord, MeldRecord, PassRecord
from rummy51.carousel.bots import CarefulBot, GreedyBot, RandomBot
from rummy51.carousel.solver import GaveUp, reconstruction_error
from rummy51.cli.carousel_simulate import add_simulate_parser, run_simulate
from rummy51.studies import _carousel_plan as plan
from rummy51.studies._carousel_plan import (
    CHUNK_COLUMNS,
    DTYPES,
    kernel_rules,
    play_kernel_game,
    play_recorded,
    uses_kernel,
)
from rummy51.studies.carousel import simulate_carousel

_KIND = {DrawRecord: 0, MeldRecord: 1, KnockRecord: 2, PassRecord: 3}


def _python_game(rules: CarouselRules, seed, bots=None):
    """The records (int32 rows of CHUNK_COLUMNS), turns and moves of one game of the
    Python engine with GreedyBots, or ``bots`` (what play_chunk does for one game)."""
    if bots is None:
        bots = [GreedyBot() for _ in range(rules.players)]
    s, facts = play_recorded(bots, rules, seed)
    rows = len(s.rounds) * rules.players
    cols = {c: np.zeros(rows, DTYPES[c]) for c in CHUNK_COLUMNS}
    plan._game_rows(s, facts, 0, cols, 0)
    moves = []
    for rec in s.history:
        kind = _KIND.get(type(rec))
        if kind is None:
            continue
        a = {0: lambda r: -1 if r.card is None else r.card, 1: lambda r: len(r.played),
             2: lambda r: r.points, 3: lambda r: 0}[kind](rec)
        moves.append((rec.round, rec.player, kind, a))
    return (np.stack([cols[c].astype(np.int32) for c in CHUNK_COLUMNS], 1),
            sum(r.turns for r in s.rounds), moves)


def _same_game(rules: CarouselRules, seed, make_bots=None) -> None:
    """The kernel's game equals the engine's, move for move and record for record;
    ``make_bots()``: a fresh table of bots (each call the same seeds), or all greedy."""
    rows, turns, events = play_kernel_game(rules, seed, trace=True,
                                           bots=None if make_bots is None else make_bots())
    prows, pturns, pmoves = _python_game(rules, seed,
                                         None if make_bots is None else make_bots())
    kmoves = [tuple(int(x) for x in e[:4]) for e in events]
    assert kmoves == pmoves, f"seed {seed}: the moves differ"
    assert rows.shape == prows.shape, f"seed {seed}: {len(rows)} rows, not {len(prows)}"
    for k, c in enumerate(CHUNK_COLUMNS):
        assert (rows[:, k] == prows[:, k]).all(), f"seed {seed}: column {c} differs"
    assert turns == pturns


# --------------------------------------------------------------------------- move for move
@pytest.mark.parametrize("players, seeds", [(2, 40), (3, 25), (4, 25), (5, 20), (6, 10)])
def test_kernel_plays_the_engines_games(players, seeds):
    rules = CarouselRules.for_players(players)
    for seed in range(seeds):
        _same_game(rules, seed)


def test_kernel_records_equal_the_python_studys():
    """simulate_carousel: engine auto (the kernel) and python give the same records, the
    same turns and seeds over several chunks, for 2 and 4 players."""
    for players, games in ((2, 7), (4, 5)):
        kw = dict(players=players, games=games, seed=11, workers=1, chunk_size=3,
                  progress=False)
        c = simulate_carousel(**kw)
        py = simulate_carousel(engine="python", **kw)
        assert c.same_records(py)
        assert c.turns == py.turns and c.games_done == games


_SHORT = dict(target_score=60)
VARIANTS = [
    (2, dict(knock_limit=0)),
    (2, dict(knock_limit=15, **_SHORT)),
    (3, dict(knock_limit=10, **_SHORT)),
    (2, dict(target_score=300)),
    (4, dict(target_score=40)),
    (3, dict(max_jokers_per_meld=1, **_SHORT)),
    (4, dict(max_jokers_per_meld=0, **_SHORT)),
    (2, dict(ace_high=False, **_SHORT)),
    (4, dict(jokers=4, **_SHORT)),
    (3, dict(jokers=0, **_SHORT)),
    (3, dict(decks=1, jokers=1, hand_size=7, **_SHORT)),
    (2, dict(decks=2, jokers=2, hand_size=13, **_SHORT)),
    (2, dict(ace_value=11, face_value=5, joker_value=50, knock_limit=8, **_SHORT)),
    (3, dict(undercut_bonus=0, going_out_bonus=100, game_bonus=0, round_won_bonus=40,
             round_bonus_for_all=True, **_SHORT)),
    (3, dict(last_turn_knock=True, knock_limit=25, **_SHORT)),
    (4, dict(game_tie="play_on", **_SHORT)),
    (4, dict(stock_out="finder", **_SHORT)),
]


@pytest.mark.parametrize("players, kw", VARIANTS)
def test_kernel_plays_every_rule_variant(players, kw):
    rules = CarouselRules.for_players(players, **kw)
    assert uses_kernel(("greedy",) * players, rules, "c")
    for seed in range(6):
        _same_game(rules, 100 + seed)


def test_long_games_draw_more_decks(monkeypatch):
    """A game longer than the decks drawn at first goes on with more (the kernel's
    state): the decks come from the game's RNG in order, so nothing changes."""
    rules = CarouselRules.for_players(2)
    whole = play_kernel_game(rules, 5, trace=True)
    monkeypatch.setattr(plan, "_DECKS_FIRST", 1)
    monkeypatch.setattr(plan, "_DECKS_MORE", 1)
    again = play_kernel_game(rules, 5, trace=True)
    assert len(whole[0]) > 2 * 2   # the game has more than one round
    assert (whole[0] == again[0]).all() and whole[1] == again[1]
    assert (whole[2] == again[2]).all()


# --------------------------------------------------------------------------- the engine option
def test_engine_option():
    greedy = ("greedy",) * 3
    rules = CarouselRules.for_players(3)
    assert uses_kernel(greedy, rules) and uses_kernel(greedy, rules, "c")
    assert not uses_kernel(greedy, rules, "python")
    assert uses_kernel(("greedy", "careful", "greedy"), rules)
    assert not uses_kernel(("greedy", "random", "greedy"), rules)
    with pytest.raises(ValueError, match="engine c: the C game kernel plays tables where "
                                         "every seat is greedy, careful, search, search-plain, "
                                         "search-learned or learned, not random"):
        uses_kernel(("greedy", "random", "greedy"), rules, "c")
    with pytest.raises(ValueError, match="engine must be one of auto, python, c"):
        uses_kernel(greedy, rules, "fast")
    with pytest.raises(ValueError, match="engine c"):
        simulate_carousel(players=2, bots="greedy,random", games=1, seed=1, workers=1,
                          progress=False, engine="c")
    with pytest.raises(ValueError, match="engine must be one of"):
        simulate_carousel(players=2, games=1, seed=1, workers=1, progress=False, engine="C")
    # a mixed table runs in the Python engine under auto
    st = simulate_carousel(players=2, bots="greedy,random", games=1, seed=1, workers=1,
                           progress=False,
                           rules=CarouselRules.for_players(2, target_score=30))
    assert st.games_done == 1


def test_cli_engine_flag(tmp_path, capsys):
    top = argparse.ArgumentParser()
    sub = top.add_subparsers()
    add_simulate_parser(sub)
    outs = {}
    for engine in ("c", "python"):
        args = top.parse_args(["simulate", "--players", "2", "--games", "2", "--seed", "3",
                               "--target", "60", "--workers", "1", "--no-progress",
                               "--engine", engine, "--out", str(tmp_path / engine)])
        assert run_simulate(args) == 0
        outs[engine] = capsys.readouterr().out
    assert outs["c"].replace("/c\n", "/X\n") == outs["python"].replace("/python\n", "/X\n")
    with pytest.raises(SystemExit):
        top.parse_args(["simulate", "--engine", "fast"])


# --------------------------------------------------------------------------- bad input
def _args(rules=None, **kw):
    rules = rules or CarouselRules.for_players(2)
    rng = np.random.default_rng(0)
    a = dict(core=_carousel.CoreRules(rules), game_rules=kernel_rules(rules),
             decks=np.array([rng.permutation(rules.deck()) for _ in range(4)], np.uint8),
             first=0, game=0, out=np.zeros((4 * rules.players, 18), np.int32))
    a.update(kw)
    return a


def test_bad_input_errors():
    play = _carousel.play_greedy_game
    r2 = CarouselRules.for_players(2)
    with pytest.raises(ValueError, match="game_rules must hold 13 ints"):
        play(**_args(game_rules=(2, 10)))
    with pytest.raises(ValueError, match="players must be 2..6"):
        play(**_args(game_rules=(7,) + kernel_rules(r2)[1:]))
    with pytest.raises(ValueError, match="deck_size 54 is not the rules' deck"):
        play(**_args(game_rules=kernel_rules(r2)[:2] + (54,) + kernel_rules(r2)[3:]))
    with pytest.raises(ValueError, match="hand_size 30 for 2 players"):
        play(**_args(game_rules=(2, 30) + kernel_rules(r2)[2:]))
    with pytest.raises(ValueError, match="decks must have 53 columns"):
        play(**_args(decks=np.zeros((2, 52), np.uint8)))
    bad = _args()["decks"].copy()
    bad[1, 7] = 60
    with pytest.raises(ValueError, match="decks row 1, column 7: 60 is not a card code"):
        play(**_args(decks=bad))
    with pytest.raises(ValueError, match="first must be a seat 0..1"):
        play(**_args(first=2))
    with pytest.raises(ValueError, match="out must have 18 columns"):
        play(**_args(out=np.zeros((8, 17), np.int32)))
    with pytest.raises(ValueError, match="trace must have 5 columns"):
        play(**_args(trace=np.zeros((8, 4), np.int32)))
    with pytest.raises(ValueError, match="state must hold 14 ints"):
        play(**_args(state=np.zeros(3, np.int64)))
    with pytest.raises(ValueError, match="is not a game's state"):
        play(**_args(state=np.array([1, 5] + [0] * 12, np.int64)))
    with pytest.raises((TypeError, ValueError)):
        play(**_args(decks=np.zeros((2, 53), np.int64)))
    with pytest.raises(TypeError):
        play(**_args(core=r2))
    # too few decks: the kernel says so (and how far it got); a short output: GAME_FULL
    st = play(**_args(decks=_args()["decks"][:1]))
    assert st[0] == _carousel.GAME_NEED_DECKS and st[2] == 1 and st[3] == 2
    st = play(**_args(out=np.zeros((1, 18), np.int32)))
    assert st[0] == _carousel.GAME_FULL
    # with a state, a game goes on from where the decks ran out
    a = _args()
    whole = play(**a)
    state = np.zeros(_carousel.GAME_STATE_SIZE, np.int64)
    out1, out2 = np.zeros((8, 18), np.int32), np.zeros((8, 18), np.int32)
    first = play(**_args(decks=a["decks"][:1], out=out1, state=state))
    assert first[0] == _carousel.GAME_NEED_DECKS and state[0] == 1
    rest = play(**_args(decks=a["decks"][1:], out=out2, state=state))
    assert rest[0] == whole[0] and rest[2] == whole[2]
    both = np.concatenate([out1[:first[3]], out2[:rest[3]]])
    assert (both == a["out"][:whole[3]]).all() and first[4] + rest[4] == whole[4]
    assert _carousel.GAME_COLUMNS == CHUNK_COLUMNS


def test_play_chunk_names_the_failing_game(monkeypatch):
    def boom(*a, **k):
        raise ValueError("bad")

    monkeypatch.setattr(plan, "_kernel_game", boom)
    spec = plan.Settings(
        players=2, bots=("greedy", "greedy"), games=1, chunk_size=1,
        rules=CarouselRules.for_players(2), entropy=1, spawn_key=()).plan()[0]
    with pytest.raises(RuntimeError, match=r"game 0 \(chunk 0\) failed: ValueError: bad"):
        plan.play_chunk(spec)


def test_reconstruction_errors_read_as_the_solvers():
    """The kernel reports a failed reconstruction as best_play would (never expected)."""
    e = reconstruction_error(3, 17)
    assert isinstance(e, GaveUp) and str(e) == "meld reconstruction found no meld for 17"
    assert str(reconstruction_error(1, 0)) == "meld reconstruction did not converge"
    assert str(reconstruction_error(9, 0)) == "meld reconstruction failed (9)"


def test_kernel_plays_on_after_a_shared_total():
    """rules.game_tie "play_on": tables where a shared highest total is common (five
    players with four cards, a knock at 60, target 1, no bonuses): the kernel's games
    equal the engine's, and every game it ends has one winner, where "share" ends seeds
    11, 17 and 20 with several."""
    base = CarouselRules.for_players(5, target_score=1, undercut_bonus=0, going_out_bonus=0,
                                     game_bonus=0, round_won_bonus=0, knock_limit=60,
                                     hand_size=4)
    on = dataclasses.replace(base, game_tie="play_on")
    iw, il = CHUNK_COLUMNS.index("won_game"), CHUNK_COLUMNS.index("last_round")
    for seed in (11, 17, 20):
        shared, _, _ = play_kernel_game(base, seed, trace=True)
        assert shared[shared[:, il] == 1][:, iw].sum() > 1
        _same_game(base, seed)
        _same_game(on, seed)
        rows, _, _ = play_kernel_game(on, seed, trace=True)
        assert rows[rows[:, il] == 1][:, iw].sum() == 1
        assert len(rows) > len(shared)


def test_kernel_knocks_in_a_last_turn_with_the_option():
    """rules.last_turn_knock (under both stock_out orders): four players on one deck run
    the stock out; in seeds 101 and 112 a last-turn meld brings a hand to the limit and the
    knock changes the game (the option is exercised), and the kernel's games equal the
    engine's either way."""
    for stock_out in ("exhauster", "finder"):
        base = CarouselRules.for_players(4, decks=1, jokers=1, hand_size=11, target_score=60,
                                         stock_out=stock_out)
        on = dataclasses.replace(base, last_turn_knock=True)
        for seed in (101, 112):
            a, _, _ = play_kernel_game(base, seed, trace=True)
            b, _, _ = play_kernel_game(on, seed, trace=True)
            assert a.shape != b.shape or not (a == b).all()
            _same_game(base, seed)
            _same_game(on, seed)


# --------------------------------------------------------------------------- careful seats
@pytest.mark.parametrize("players, seats, seeds", [
    (2, "careful,greedy", 12), (3, "careful,careful,greedy", 8),
    (4, "greedy,careful,greedy,careful", 8), (5, "careful", 4),
])
def test_kernel_plays_the_careful_bot_move_for_move(players, seats, seeds):
    """The careful bot in the kernel (its undercut estimate on the bot's own generator)
    plays the Python CarefulBot's games, knocks and passes included."""
    names = seats.split(",") * (players if "," not in seats else 1)
    rules = CarouselRules.for_players(players)
    for seed in range(seeds):
        def make(seed=seed):
            return [CarefulBot(seed=1000 * seed + i) if b == "careful" else GreedyBot()
                    for i, b in enumerate(names)]
        _same_game(rules, seed, make)


def test_careful_knocks_differ_from_greedy_ones():
    """The careful seats' knocks are their own (the test above can fail): over a few
    4-player games some careful hand that may knock passes instead."""
    rules = CarouselRules.for_players(4)
    differ = 0
    for seed in range(6):
        bots = [CarefulBot(seed=seed * 10 + i, max_risk=0.05) for i in range(4)]
        a, _, _ = play_kernel_game(rules, seed, trace=True, bots=bots)
        b, _, _ = play_kernel_game(rules, seed, trace=True)
        differ += a.shape != b.shape or not (a == b).all()
    assert differ > 0


def test_simulate_mixed_careful_table_uses_the_kernel():
    kw = dict(players=3, bots="careful,greedy,careful", games=4, seed=3, workers=1,
              chunk_size=2, progress=False)
    assert uses_kernel(("careful", "greedy", "careful"), CarouselRules.for_players(3), "c")
    c = simulate_carousel(**kw)
    py = simulate_carousel(engine="python", **kw)
    assert c.same_records(py) and c.turns == py.turns


def test_kernel_bots_errors():
    rules = CarouselRules.for_players(2)
    with pytest.raises(ValueError,
                       match="plays GreedyBot, CarefulBot, SearchBot and LearnedBot, not RandomBot"):
        play_kernel_game(rules, 1, bots=[GreedyBot(), RandomBot(seed=1)])
    with pytest.raises(ValueError, match="one a seat, 2, got 1"):
        play_kernel_game(rules, 1, bots=[GreedyBot()])


# --------------------------------------------------------------------------- stock_out
# (seeds, rules) where greedy tables run the stock out, by how the last card went
# (carousel_helpers.stock_outs' kinds; test_kernel_stock_out_seeds checks the list)
_STOCK = dict(decks=1, jokers=1, target_score=60)
STOCK_SEEDS = [
    ("third", dict(players=5, hand_size=9, **_STOCK), (4, 20)),
    ("same", dict(players=5, hand_size=9, **_STOCK), (13, 14)),
    ("meld", dict(players=5, hand_size=9, **_STOCK), (0, 1)),
    ("third", dict(players=4, hand_size=12, **_STOCK), (17, 18)),
    ("same", dict(players=4, hand_size=12, **_STOCK), (21,)),
    ("deal", dict(players=4, hand_size=13, decks=1, jokers=0, target_score=60), (0, 1)),
]


@pytest.mark.parametrize("stock_out", ["exhauster", "finder"])
@pytest.mark.parametrize("kind, table, seeds", STOCK_SEEDS)
def test_kernel_stock_out_seeds(kind, table, seeds, stock_out):
    """rules.stock_out: on seeds where the stock runs out after a third draw, a draw and
    a meld, a draw and an empty draw, or at the deal, the kernel plays the engine's
    games move for move under both readings (and the seeds do exercise that kind)."""
    from carousel_helpers import stock_outs

    rules = CarouselRules(stock_out=stock_out, **table)
    for seed in seeds:
        # the seeds were found under "exhauster" (the games part at the first such round)
        s, _ = play_recorded([GreedyBot() for _ in range(rules.players)],
                             dataclasses.replace(rules, stock_out="exhauster"), seed)
        assert kind in {so["kind"] for so in stock_outs(s)}, (kind, seed)
        _same_game(rules, seed)


def test_kernel_stock_out_readings_differ():
    """The two readings give other games on these seeds (the option is exercised: a
    third-draw or meld exhauster hands the finder's extra turn to their left)."""
    differ = 0
    for _kind, table, seeds in STOCK_SEEDS:
        for seed in seeds:
            a, ta, _ = play_kernel_game(CarouselRules(stock_out="exhauster", **table), seed,
                                        trace=True)
            b, tb, _ = play_kernel_game(CarouselRules(stock_out="finder", **table), seed,
                                        trace=True)
            differ += a.shape != b.shape or not (a == b).all() or ta != tb
    assert differ >= 4, differ


@pytest.mark.parametrize("stock_out", ["exhauster", "finder"])
def test_kernel_careful_seats_run_the_stock_out(stock_out):
    """Careful seats (they hold back knocks, so more rounds reach the stock) under both
    readings: the kernel's games equal the engine's."""
    rules = CarouselRules(players=5, hand_size=9, stock_out=stock_out, **_STOCK)
    for seed in range(6):
        def make(seed=seed):
            return [CarefulBot(seed=100 * seed + i) if i % 2 == 0 else GreedyBot()
                    for i in range(5)]
        _same_game(rules, seed, make)


def test_cli_stock_out_flag(tmp_path, capsys):
    """--stock-out names rules.stock_out; the run's manifest records it; a bad value is
    argparse's one-line refusal (exit 2) naming the flag."""
    from rummy51.cli.carousel_options import rules_from_args

    top = argparse.ArgumentParser()
    sub = top.add_subparsers()
    add_simulate_parser(sub)
    base = ["simulate", "--players", "2", "--games", "1", "--seed", "3", "--target", "30",
            "--workers", "1", "--no-progress"]
    args = top.parse_args(base + ["--stock-out", "finder", "--out", str(tmp_path / "f")])
    assert rules_from_args(args, 2).stock_out == "finder"
    assert run_simulate(args) == 0
    manifest = (tmp_path / "f" / "manifest.json").read_text()
    assert '"stock_out": "finder"' in manifest
    args = top.parse_args(base + ["--out", str(tmp_path / "e")])
    assert rules_from_args(args, 2).stock_out == "exhauster"   # the default
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        top.parse_args(base + ["--stock-out", "last"])
    assert e.value.code == 2
    assert "--stock-out: invalid choice: 'last'" in capsys.readouterr().err


def test_run_manifest_without_stock_out_reads_as_finder():
    """A run's settings written before rules.stock_out existed were played "finder":
    they load so, with the hash they were written with (the run stays resumable)."""
    st = plan.Settings(players=2, bots=("greedy", "greedy"), games=1, chunk_size=1,
                       rules=CarouselRules.for_players(2, stock_out="finder"), entropy=1,
                       spawn_key=())
    old = st.to_json()
    del old["rules"]["stock_out"]
    back = plan.Settings.from_json(old)
    assert back.rules.stock_out == "finder" and back.config_hash == st.config_hash
    new = dataclasses.replace(st, rules=CarouselRules.for_players(2))
    assert new.config_hash != st.config_hash
    assert plan.Settings.from_json(new.to_json()) == new
