"""Bad input to the Carousel engine (``rummy51.carousel.engine``): every public call fed
random types and values (hypothesis). None escapes as a bare Python error: a move or a
move check refuses with ``IllegalMove`` (the engine's error, a ``ValueError``), an
argument of ``GameState.new`` / ``view`` / ``replay`` / ``from_dict`` with a
``TypeError`` or ``ValueError`` naming it; every message is one line; and a refused
call leaves the state exactly as it was (its whole serialisation compared)."""
from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rummy51.cards import JOKER, card_text, parse_cards
from rummy51.carousel import CarouselRules
from rummy51.carousel.actions import Draw, IllegalMove, Knock, Meld, Pass, Phase
from rummy51.carousel.bots import RandomBot
from rummy51.carousel.engine import GameState, replay, rules_from_dict
from rummy51.carousel.table import TableMeld

# small decks: the stock runs out (NO_DRAW, last turns) and games end (OVER) quickly
RULES = [
    CarouselRules(players=3, decks=1, jokers=1, hand_size=14, target_score=40),
    CarouselRules(players=4, decks=1, jokers=2, hand_size=11, target_score=40,
                  knock_limit=12, last_turn_knock=True, stock_out="finder"),
    CarouselRules.for_players(2, target_score=40),
]


def _states() -> list[GameState]:
    """Positions in every phase: random bots play some moves from several seeds."""
    out = []
    for k, rules in enumerate(RULES):
        for seed in range(4):
            s = GameState.new(rules, seed=seed)
            bots = [RandomBot(seed=100 * seed + i) for i in range(rules.players)]
            for i in range(400):
                if i % 7 == 3 or s.phase is Phase.OVER:
                    out.append(s.copy())
                if s.phase is Phase.OVER:
                    break
                s.apply(bots[s.current].choose(s.view(s.current)))
    phases = {x.phase for x in out}
    assert phases == set(Phase), phases
    assert any(x.turn_info.last for x in out)
    return out


STATES = _states()


def snapshot(s: GameState):
    """Everything the state holds, its RNG included."""
    return (json.dumps(s.to_dict(), sort_keys=True), repr([list(h) for h in s.hands]),
            repr(s.table), s.phase, s.turn_info, s.current, s.turn, s.round, s.stock,
            s._stock_out_by, repr(s._last), len(s.history), len(s._public),
            tuple(s.totals), tuple(s.rounds_won), s.final, s.winners,
            None if s._rng is None else json.dumps(s._rng.bit_generator.state, default=str))


# --------------------------------------------------------------------------- junk
CARD_TEXTS = [card_text(c) for c in range(52)] + ["JK", "JK(7S)", "JK(JK)", "JK()", "1S",
                                                  "11H", "AX", "10", "S", "*", "♠A", "Q♥"]
scalars = st.one_of(
    st.none(), st.booleans(), st.integers(-2**70, 2**70), st.integers(-3, 60),
    st.integers(-3, 60).map(np.int64), st.integers(0, 60).map(np.uint8),
    st.floats(allow_nan=True, allow_infinity=True), st.just(np.float64(3.0)),
    st.text(max_size=12), st.sampled_from(CARD_TEXTS), st.binary(max_size=4),
    st.just(object()), st.just(Ellipsis), st.just(np.array([1, 2, 3])),
    st.just(Draw()), st.just(Knock()), st.just(Pass()),
)
junk = st.recursive(
    scalars,
    lambda inner: st.one_of(st.lists(inner, max_size=5), st.tuples(inner, inner),
                            st.dictionaries(st.text(max_size=3), inner, max_size=2),
                            st.frozensets(st.integers(0, 60), max_size=3)),
    max_leaves=12)


def _meld_text(cards) -> str:
    return " ".join(cards)


@st.composite
def plays(draw, s: GameState):
    """Meld plays that look right and mostly are not: the table kept or not, hand cards
    and cards not in the hand, a card twice, bare jokers, jokers declared anything,
    codes, text or TableMelds, a whole str split by '|'."""
    hand = [card_text(c) for c in s.hands[s.current]] or ["AS"]
    table = list(s.table)
    pool = st.sampled_from(hand + CARD_TEXTS[:52] + ["JK", "JK(5H)", "JK(AS)"])
    new = draw(st.lists(st.lists(pool, min_size=1, max_size=6), max_size=3))
    melds: list = []
    if table and draw(st.booleans()):
        melds += draw(st.permutations(table))[:draw(st.integers(0, len(table)))]
    if hand and draw(st.booleans()):   # a card twice
        c = draw(st.sampled_from(hand))
        new.append([c, c, c])
    form = draw(st.sampled_from(["text", "codes", "str", "meld", "tuple"]))
    for m in new:
        if form == "codes":
            melds.append([[JOKER, draw(st.integers(-1, 53))] if t.startswith("JK")
                          else CARD_TEXTS.index(t) for t in m])
        else:
            melds.append(_meld_text(m))
    if form == "str":
        return " | ".join(m if isinstance(m, str) else
                          " ".join(f"JK({card_text(r)})" if c == JOKER else card_text(c)
                                   for c, r in zip(m.cards, m.represents))
                          if isinstance(m, TableMeld) else str(m) for m in melds)
    if form == "meld":
        try:
            return Meld(melds)
        except IllegalMove:
            return melds
    return tuple(melds) if form == "tuple" else melds


def one_line(e: BaseException) -> str:
    msg = str(e)
    assert msg and "\n" not in msg, f"{type(e).__name__} message is not one line: {msg!r}"
    return msg


def refuses_cleanly(s: GameState, call, *args, errors=(IllegalMove,)):
    """``call(*args)``: either it works, or it raises one of ``errors`` with a one-line
    message and the state is unchanged. Returns the error or None."""
    before = snapshot(s)
    try:
        call(*args)
    except errors as e:
        one_line(e)
        assert snapshot(s) == before, f"{call.__name__}{args!r} changed the state"
        return e
    except Exception as e:   # a bare Python error escaped
        raise AssertionError(f"{call.__name__}({args!r}) raised a bare "
                             f"{type(e).__name__}: {e}") from e
    s.check()
    return None


state_ix = st.integers(0, len(STATES) - 1)
FUZZ = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


# --------------------------------------------------------------------------- the named bugs
@pytest.mark.parametrize("bad", [None, 5, np.int64(5), 2.5, b"4S", {"4S": 1}, [None], [5],
                                 object()])
def test_meld_with_no_melds_is_the_engines_error(bad):
    """GameState.meld(None) and meld(5) raised a bare TypeError from deep inside."""
    s = next(x for x in STATES if x.phase is Phase.MELD).copy()
    e = refuses_cleanly(s, s.meld, bad)
    assert isinstance(e, IllegalMove) and e.rule == "engine"
    assert one_line(e).startswith("melds")
    for check in (s.verify_meld, s.view().verify_meld):
        with pytest.raises(IllegalMove, match="^melds"):
            check(bad)
    assert s.can_meld(bad) is False and s.view().can_meld(bad) is False
    with pytest.raises(IllegalMove, match="^melds"):
        Meld(bad)


def test_meld_as_one_string_is_the_whole_table():
    """A str is the whole new table, melds split by '|' (as Meld reads it), not a list
    of one-letter melds."""
    rules = CarouselRules.for_players(2)
    hand = parse_cards("4S 5S 6S 9H 9D 9C KD KC 2H 3C")
    rest = [c for c in rules.deck()]
    for c in hand:
        rest.remove(c)
    order = hand + rest     # the dealer's left (seat 1) is dealt the first ten cards
    for text, left in (("4S 5S 6S", 7), ("4S 5S 6S | 9H 9D 9C", 4)):
        s = GameState.new(rules, seed=1, dealer=0, decks=[order])
        s.draw()
        s.meld(text)
        assert [m.text() for m in s.table] == text.split(" | ")
        assert len(s.hands[1]) == left + 1 and s.actions[-1] == Meld(text)   # + the draw


@pytest.mark.parametrize("make, rule, words", [
    (lambda h: [[h[0], h[0], h[0]]], "2", "is not a meld"),              # a card three times
    (lambda h: ["JK 4S 5S"], "2", "needs its declared card"),              # a joker with no place
    (lambda h: ["JK(JK) 4S 5S"], "2", "declared as a natural card"),
])
def test_named_bad_plays(make, rule, words):
    s = next(x for x in STATES if x.phase is Phase.MELD).copy()
    e = refuses_cleanly(s, s.meld, make([card_text(c) for c in s.hands[s.current]]))
    assert e is not None and e.rule == rule and words in str(e), e


def test_knocking_above_the_limit_and_after_the_end():
    s = next(x for x in STATES if x.phase is Phase.END and x.hand_points() > x.rules.knock_limit
             and not x.turn_info.last).copy()
    e = refuses_cleanly(s, s.knock)
    assert e.rule == "3.4" and f"limit of {s.rules.knock_limit}" in str(e)
    over = next(x for x in STATES if x.phase is Phase.OVER).copy()
    for call in (over.draw, over.knock, over.pass_):
        assert refuses_cleanly(over, call).rule == "6"
    assert refuses_cleanly(over, over.meld, ["AS 2S 3S"]).rule == "6"
    assert over.legal_actions() == []


def test_out_of_turn_through_a_view():
    s = next(x for x in STATES if x.phase is Phase.MELD).copy()
    other = s.view((s.current + 1) % s.n_players)
    for call, args in ((other.verify_meld, (["AS 2S 3S"],)), (other.verify_knock, ()),
                       (other.best_play, ())):
        with pytest.raises(IllegalMove, match="turn") as e:
            call(*args)
        one_line(e.value)
    assert other.can_meld(["AS 2S 3S"]) is False and not other.my_turn


# --------------------------------------------------------------------------- fuzz
MOVES = ("draw", "knock", "pass_", "legal_actions", "can_draw", "can_knock", "can_pass",
         "verify_draw", "verify_knock", "verify_pass", "hand_points")


@FUZZ
@given(ix=state_ix, data=st.data())
def test_fuzz_meld_plays(ix, data):
    """Plausible plays (cards not in hand, twice, bare jokers, a table left out...) and
    junk of every type: legal and made, or refused with IllegalMove, state unchanged."""
    s = STATES[ix].copy()
    arg = data.draw(st.one_of(plays(s), junk), label="melds")
    for call in (s.verify_meld, s.can_meld, s.view().verify_meld, s.view().can_meld):
        refuses_cleanly(s, call, arg)
    refuses_cleanly(s, s.meld, arg)


@FUZZ
@given(ix=state_ix, arg=junk, name=st.sampled_from(["apply", "verify", "is_legal"]))
def test_fuzz_actions(ix, arg, name):
    s = STATES[ix].copy()
    refuses_cleanly(s, getattr(s, name), arg)


@FUZZ
@given(ix=state_ix, names=st.lists(st.sampled_from(MOVES), min_size=1, max_size=6))
def test_fuzz_moves_in_any_order(ix, names):
    """Moves in any order, in any phase (out of order, after the end): each either
    legal or refused with IllegalMove and the state unchanged."""
    s = STATES[ix].copy()
    for name in names:
        refuses_cleanly(s, getattr(s, name))


@FUZZ
@given(ix=state_ix, player=junk)
def test_fuzz_view_player(ix, player):
    s = STATES[ix].copy()
    e = refuses_cleanly(s, s.view, player, errors=(TypeError, ValueError))
    if e is not None:
        assert "player" in str(e)


@FUZZ
@given(rules=st.one_of(junk, st.sampled_from(RULES)), players=st.one_of(st.none(), junk),
       seed=st.one_of(st.integers(0, 5), junk), dealer=st.one_of(st.none(), junk),
       decks=st.one_of(st.just(()), junk))
def test_fuzz_new_game(rules, players, seed, dealer, decks):
    """GameState.new with anything: a game, or a TypeError / ValueError of one line."""
    try:
        s = GameState.new(rules, players, seed, dealer=dealer, decks=decks)
    except (TypeError, ValueError) as e:
        one_line(e)
        return
    except Exception as e:
        raise AssertionError(f"GameState.new raised a bare {type(e).__name__}: {e}") from e
    s.check()


@FUZZ
@given(actions=st.lists(st.one_of(junk, st.sampled_from([Draw(), Knock(), Pass()])),
                        max_size=6))
def test_fuzz_replay(actions):
    try:
        replay(RULES[0], 3, actions)
    except IllegalMove as e:
        one_line(e)


@FUZZ
@given(d=st.one_of(junk, st.dictionaries(st.sampled_from(
    ["format", "version", "rules", "seed", "first_dealer", "decks", "actions", "rounds",
     "final", "players", "stock_out"]), junk, max_size=8)))
def test_fuzz_history_and_rules_dicts(d):
    """from_dict / rules_from_dict with anything: a ValueError or TypeError of one line."""
    for call in (GameState.from_dict, rules_from_dict):
        try:
            call(d)
        except (TypeError, ValueError) as e:
            one_line(e)
        except Exception as e:
            raise AssertionError(f"{call.__name__} raised a bare {type(e).__name__}: {e}")


@FUZZ
@given(ix=state_ix, data=st.data())
def test_fuzz_mutilated_histories(ix, data):
    """A real history with one field replaced by junk: rebuilt, or refused in one line."""
    d = STATES[ix].to_dict()
    key = data.draw(st.sampled_from(sorted(d)))
    d[key] = data.draw(junk)
    try:
        GameState.from_dict(d)
    except (TypeError, ValueError) as e:
        one_line(e)
    except Exception as e:
        raise AssertionError(f"from_dict with {key} = {d[key]!r}: bare "
                             f"{type(e).__name__}: {e}") from e


def test_the_fuzz_can_fail():
    """refuses_cleanly does catch a bare error and a changed state."""
    s = STATES[0].copy()

    def bare(_):
        raise TypeError("boom")

    with pytest.raises(AssertionError, match="bare TypeError"):
        refuses_cleanly(s, bare, 1)

    def mutate():
        s.totals[0] += 1
        raise IllegalMove("engine", "refused after a change")

    with pytest.raises(AssertionError, match="changed the state"):
        refuses_cleanly(s, mutate)
    assert dataclasses.is_dataclass(s.rules)
