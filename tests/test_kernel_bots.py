"""The C game kernel plays every built-in bot (random, greedy, hand-hunter, tactician)
move for move as the Python bots: each bot alone and mixed tables, many seeds, many
rule sets; a random seat draws the same numbers from its generator; ``simulate_games``
gives the same records with either engine for mixed tables."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rummy51 import RuleSet
from rummy51.r51.bots import GreedyBot, HandHunterBot, RandomBot, TacticianBot, play_deal
from rummy51.r51.engine import GameState, LayDown, SwapJoker
from rummy51.r51.fastgame import BOT_CODES, bot_code, kernel_bots, play_kernel_deal
from rummy51.r51.learned import LearnedBot
from rummy51.r51.search import LearnedSearchBot, PlainSearchBot, SearchBot
from rummy51.studies.games import simulate_games, uses_kernel
from test_fastgame import CONFIGS, assert_same_deal

MAKE = {"random": lambda s: RandomBot(seed=s), "greedy": lambda s: GreedyBot(),
        "hand-hunter": lambda s: HandHunterBot(), "tactician": lambda s: TacticianBot(),
        "search": lambda s: SearchBot(seed=s, rollouts=16),
        "search-plain": lambda s: PlainSearchBot(seed=s, rollouts=16),
        "search-learned": lambda s: LearnedSearchBot(seed=s, rollouts=16),
        "learned": lambda s: LearnedBot()}
TABLES = [("tactician",) * 4, ("hand-hunter",) * 4, ("random",) * 4,
          ("tactician", "hand-hunter", "random", "greedy"),
          ("random", "tactician", "greedy", "hand-hunter")]


def both(table, rules, seed, first=None):
    """The Python deal and the kernel's, each with fresh bots seeded alike."""
    first = seed % len(table) if first is None else first
    seeds = [10_000 + 8 * seed + i for i in range(len(table))]
    state = play_deal([MAKE[b](s) for b, s in zip(table, seeds, strict=True)], rules, seed=seed, first=first)
    d = play_kernel_deal([MAKE[b](s) for b, s in zip(table, seeds, strict=True)], rules, seed=seed,
                         first=first, record=True)
    return state, d


@pytest.mark.parametrize("table", TABLES, ids=["-".join(t) for t in TABLES])
def test_kernel_plays_each_bot_and_mixed_tables(table):
    """40 default deals per table: the kernel's moves are the Python bots'."""
    for seed in range(40):
        assert_same_deal(*both(table, RuleSet(), seed))


@pytest.mark.parametrize("rules, players", CONFIGS,
                         ids=[f"cfg{i}-{p}p" for i, (_, p) in enumerate(CONFIGS)])
def test_kernel_plays_mixed_tables_under_every_rule_set(rules, players):
    """Every rule set of the greedy checks, 6 deals of a mixed table (the four bots in
    turn in the seats) and 2 of each bot alone."""
    bots = ("tactician", "hand-hunter", "random", "greedy")
    for seed in range(6):
        table = tuple(bots[(seed + i) % 4] for i in range(players))
        assert_same_deal(*both(table, rules, seed))
    for i, b in enumerate(bots):
        for seed in (100 + i, 200 + i):
            assert_same_deal(*both((b,) * players, rules, seed))


@pytest.mark.parametrize("rules", [RuleSet(), RuleSet(opening_run="run"), RuleSet(ace_high=False),
                                   RuleSet(jokers=0), RuleSet(max_jokers_per_meld=0),
                                   RuleSet(threshold=30), RuleSet(threshold=71)],
                         ids=["default", "opening-run", "ace-low", "no-jokers", "mj0", "t30", "t71"])
def test_tactician_discard_shortcuts_keep_its_choice(rules):
    """The tactician's unopened discard counts outs with exact shortcuts (candidates in
    order of a bound, unseen cards that make no meld with the rest skipped): four
    tacticians under rule sets that move those shortcuts' edges, move for move."""
    for seed in range(12):
        assert_same_deal(*both(("tactician",) * 4, rules, 3000 + seed))


def test_the_rare_moves_are_covered():
    """Across these deals the bots take the bottom card, win by hand, swap jokers and
    lay the freed joker, take discards: the kernel's branches for them are exercised."""
    seen = {"swap": 0, "hand": 0, "bottom": 0, "take": 0}
    for seed in range(120):
        table = ("tactician", "hand-hunter", "random", "random")
        state, d = both(table, RuleSet(), 500 + seed)
        assert_same_deal(state, d)
        seen["swap"] += any(isinstance(a, SwapJoker) for a in d.actions)
        seen["hand"] += d.how in ("hand", "hand_bottom")
        seen["bottom"] += any(getattr(a, "source", None) == "bottom" for a in d.actions)
        seen["take"] += any(getattr(a, "source", None) == "discard" for a in d.actions)
    assert seen["swap"] > 5 and seen["take"] > 20 and seen["hand"] >= 1, seen


def test_random_seat_draws_like_the_python_bot():
    """A RandomBot instance given to the kernel advances its generator as in Python."""
    a, b = RandomBot(seed=3), RandomBot(seed=3)
    play_deal([a, GreedyBot(), RandomBot(seed=4)], RuleSet(), seed=9)
    play_kernel_deal([b, GreedyBot(), RandomBot(seed=4)], RuleSet(), seed=9)
    assert a.rng.bit_generator.state == b.rng.bit_generator.state
    assert a.rng.integers(1 << 30) == b.rng.integers(1 << 30)


def test_a_log_too_short_plays_the_deal_again_from_the_same_states(monkeypatch):
    """A recorded deal whose action log does not fit is played again with room, the deal's
    and each random seat's generator put back first: the same deal, the same draws."""
    from rummy51 import _game

    real = _game.play_table
    calls = []

    def short_log_once(*args):
        out = real(*args)
        calls.append(out)
        return out[:-1] + (len(args[-1]) + 1,) if len(calls) == 1 else out

    table = lambda: [RandomBot(seed=5), GreedyBot(), RandomBot(seed=6)]  # noqa: E731
    want_bots = table()
    want = play_kernel_deal(want_bots, RuleSet(), seed=11, record=True)
    monkeypatch.setattr(_game, "play_table", short_log_once)
    got_bots = table()
    got = play_kernel_deal(got_bots, RuleSet(), seed=11, record=True)
    assert len(calls) == 2
    assert got == want
    for a, b in zip(want_bots[::2], got_bots[::2], strict=True):
        assert a.rng.bit_generator.state == b.rng.bit_generator.state


def test_bot_parameters_are_read():
    """Non-default hand-hunter and tactician parameters play as in Python."""
    for seed in range(15):
        bots = lambda: [HandHunterBot(p_hold=0.05, max_round=9, min_opponent_cards=3),  # noqa: E731
                        TacticianBot(take_gain=2, feed_penalty=20), GreedyBot(),
                        HandHunterBot(p_hold=0.3)]
        state = play_deal(bots(), RuleSet(), seed=seed, first=seed % 4)
        assert_same_deal(state, play_kernel_deal(bots(), RuleSet(), seed=seed, first=seed % 4,
                                                 record=True))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), players=st.integers(2, 6),
       bots=st.lists(st.sampled_from(sorted(BOT_CODES)), min_size=6, max_size=6),
       jokers=st.sampled_from([0, 2, 4]), mj=st.sampled_from([0, 1]),
       threshold=st.sampled_from([30, 51, 71]), ace_high=st.booleans(),
       must_meld=st.booleans(), taken_ok=st.booleans(), bottom=st.booleans(),
       free=st.sampled_from([0, 1, 2]))
def test_any_table_and_rules_move_for_move(seed, players, bots, jokers, mj, threshold, ace_high,
                                           must_meld, taken_ok, bottom, free):
    """Any seats, seed and rule mix: the Python deal, move for move; each kernel move
    replays through the engine with ``GameState.check()`` after it."""
    rules = RuleSet(jokers=jokers, max_jokers_per_meld=mj, threshold=threshold,
                    ace_high=ace_high, discard_card_must_meld=must_meld,
                    discard_taken_card=taken_ok, bottom_card=bottom, free_discard_rounds=free,
                    max_turns=300)
    table = tuple(bots[:players])
    state, d = both(table, rules, seed % 100_000)
    assert_same_deal(state, d)
    s = GameState.new(rules, players=players, seed=d.seed, first=d.first)
    for a in d.actions:
        s.apply(a)
        s.check()
    assert s.result == state.result


def test_names_and_classes():
    assert [bot_code(b) for b in ("random", "greedy", "hand-hunter", "tactician")] == [0, 1, 2, 3]
    assert bot_code(TacticianBot()) == 3 and bot_code(HandHunterBot) == 2

    class Mine(GreedyBot):
        pass

    assert bot_code(Mine()) is None and bot_code("mine:Bot") is None
    assert kernel_bots(["tactician", RandomBot(1)]) and not kernel_bots([Mine()])
    with pytest.raises(ValueError, match="built-in bots"):
        play_kernel_deal([Mine(), GreedyBot()])
    with pytest.raises(ValueError, match="max_jokers_per_meld"):
        play_kernel_deal(["tactician"] * 4, RuleSet(max_jokers_per_meld=2))
    with pytest.raises(TypeError, match="Generator"):
        play_kernel_deal(["greedy"] * 2, seed=np.random.default_rng(1))
    # names: a random seat's generator is default_rng(bot_seeds[seat])
    a = play_kernel_deal(["random", "tactician"], seed=4, bot_seeds=[7, None], record=True)
    b = play_kernel_deal([RandomBot(seed=7), TacticianBot()], seed=4, record=True)
    assert a.actions == b.actions
    assert any(isinstance(x, LayDown) for x in a.actions) or a.how in ("capped", "stock_out")


# --------------------------------------------------------------------------- the batch runner
@pytest.mark.parametrize("bots", ["greedy,random,hand-hunter,tactician", "tactician",
                                  "random,random,tactician"])
def test_simulate_games_records_equal_with_either_engine(bots):
    kw = dict(bots=bots, games=16, chunk_size=8, seed=5, workers=1, progress=False)
    assert uses_kernel(tuple(bots.split(",")) if "," in bots else (bots,) * 4, RuleSet())
    c = simulate_games(**kw)
    py = simulate_games(**kw, engine="python")
    assert c.same_records(py)


@pytest.mark.slow
@pytest.mark.parametrize("table", TABLES, ids=["-".join(t) for t in TABLES])
def test_soak_500_deals_per_table(table):
    """The long soak (``pytest -m slow``): 500 default deals per table, and 100 under a
    few other rule sets."""
    for seed in range(500):
        assert_same_deal(*both(table, RuleSet(), 1000 + seed))
    for rules, players in CONFIGS[1:8]:
        for seed in range(100 // 7 + 1):
            assert_same_deal(*both(table[:players] if players <= 4 else table + table[:players - 4],
                                   rules, 3000 + seed))
