"""The rollout analysis of Carousel decisions and whole Carousel games.

A **decision** is one the search bot faces (``carousel.bots.SearchBot``): after a first
or second draw with a legal play, meld (which play) or draw again (``kind`` "meld");
with no draw left (the player found the stock empty in this turn), meld, pass, or knock
when the hand may (``kind`` "no draw"); at the end of a turn whose hand may knock,
knock or pass (``kind`` "knock"). A decision with one legal move (no play and no knock)
is not analysed, nor are the last turns after the stock ran out (the rollouts do not
know which of them is being played; the search bot plays them as the greedy bot).

Its **candidates** are the search bot's (the solver's best play, the best play with the
jokers or the highest card kept back, the smallest play, no play; knock or pass), plus
the move played when none plays the same cards. Each is played on the same
determinizations (the cards the player has not seen dealt at random to the other hands
and the stock: common random numbers) and from there every seat plays the greedy bot's
moves to the end of the round (``_carousel.search_analyse``, in C). A candidate's
**equity** is the mean **margin**, the player's round score less the mean round score of
the others (the search bot's margin); its ``win`` the share of rollouts in which the
player won the round (was one of ``moves.score_round``'s winners: the lowest hand, a
knocker tied for it losing).

Moves are written as ``rummy51 carousel play`` reads them: ``meld 7S 9H JK(10H)`` (the
hand cards played, sorted, each joker with the card it stands for, and a table joker a
natural frees with its old and new card: ``JK(7D->KC)``; ``carousel.notation``),
``draw``, ``pass``, ``knock``. Typed back (``play``, ``--played``) a candidate's text
makes exactly the play whose table was scored.

Every decision draws its determinizations from ``SeedSequence(seed, spawn_key=(game,
index))``: the same seed gives the same numbers, whatever ``workers``. With ``time`` (a
budget in seconds per decision) the number of rollouts depends on the machine's speed,
and so do the numbers.

The API is Rummy 51's (``rummy51.analysis.rummy51``) name for name: ``analyse_position``,
``analyse_game``, ``analyse_games``, ``read_histories``, ``DEFAULT_ROLLOUTS``,
``HINT_ROLLOUTS``, ``MAX_ROLLOUTS`` and ``fresh_seed``, the same budget and keywords.
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from numbers import Integral
from typing import Any

import numpy as np

from .. import _carousel
from .._checks import int_arg
from ..cards import cards_text
from ..carousel.actions import Draw, Knock, Meld, Pass, Phase, TurnInfo
from ..carousel.bots import check_search_rules, core_rules, game_rules, hand_counts, table_counts
from ..carousel.engine import GameState, PlayerView, rules_from_dict, rules_to_dict
from ..carousel.notation import counts_meld_text, parse_meld_play
from ..carousel.rules import CarouselRules
from ..carousel.solver import can_meld
from ..carousel.table import parse_hand, parse_table
from . import _common
from ._common import MAX_ROLLOUTS, Candidate, Decision, GameAnalysis, fresh_seed
from ._common import read_histories as _read_histories

__all__ = ["analyse_position", "analyse_game", "analyse_games", "position_view", "game_decisions",
           "read_histories", "read_carousel_histories", "CarouselSpot", "DEFAULT_ROLLOUTS",
           "HINT_ROLLOUTS", "HINT_SECONDS", "MAX_ROLLOUTS", "fresh_seed"]

#: rollouts per candidate of a decision by default (``rummy51 carousel analyse``)
DEFAULT_ROLLOUTS = 200
#: the budget of ``hint`` in ``rummy51 carousel play``: rollouts per candidate, seconds
HINT_ROLLOUTS = 2000
HINT_SECONDS = 0.8

_KINDS = {_carousel.SEARCH_MELD: "meld", _carousel.SEARCH_NODRAW: "no draw",
          _carousel.SEARCH_KNOCK: "knock"}


# --------------------------------------------------------------------------- seeds
def _rng(seed: int, game: int, index: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(game, index)))


# --------------------------------------------------------------------------- one decision
@dataclass(frozen=True)
class CarouselSpot:
    """One decision to analyse, as plain data (picklable): what the player saw (the
    search bot's view arguments), the decision (``_carousel.SEARCH_*``), the move
    played (its move text, and for a meld the table after it as counts)."""

    index: int
    player: int
    decision: int
    rules: CarouselRules
    H: bytes
    JH: int
    T: bytes
    D: bytes
    JT: int
    sizes: tuple[int, ...]
    stock: int
    draws: int
    stock_out: bool
    played: str | None = None
    played_table: tuple[bytes, bytes, int] | None = None
    info: Mapping[str, Any] | None = None


def _play_text(T: bytes, D: bytes, JT: int, nT: bytes, nD: bytes, nJT: int) -> str:
    """The canonical text of a play (``carousel.notation``): typed back, it makes the
    play whose table was scored, each joker standing for the same card."""
    return counts_meld_text(T, D, JT, nT, nD, nJT)


def _spot_of_view(view: PlayerView, index: int = 0, played: Any = None,
                  info: Mapping[str, Any] | None = None) -> CarouselSpot:
    """The decision ``view`` faces (ValueError when it is none the analysis covers)."""
    if not isinstance(view, PlayerView):
        raise TypeError(f"view must be a carousel PlayerView, got {type(view).__name__}")
    if view.player != view.current:
        raise ValueError(f"it is not player {view.player}'s turn (player {view.current} is on turn)")
    ph = view.phase
    if view.turn_info.last:
        raise ValueError("a last turn after the stock ran out is not analysed (the rollouts do "
                         "not know how many last turns are left)")
    if ph is Phase.MELD:
        decision = _carousel.SEARCH_MELD
    elif ph is Phase.NO_DRAW:
        decision = _carousel.SEARCH_NODRAW
    elif ph is Phase.END:
        if not view.can_knock():
            pts = view.rules.hand_points(view.hand)
            raise ValueError(f"no decision to analyse: at the end of the turn a hand of {pts} "
                             f"points may not knock (limit {view.rules.knock_limit}); the only "
                             "move is pass")
        decision = _carousel.SEARCH_KNOCK
    else:
        raise ValueError(f"no decision to analyse in the phase {ph.value!r} (a decision comes "
                         "after a draw: meld or not, or at the end of the turn: knock or not)")
    H, jh = hand_counts(view.hand)
    T, D, jt = table_counts(view.table)
    text, table = _played(played, decision, view, T, D, jt)
    return CarouselSpot(index, view.player, decision, view.rules, H, jh, T, D, jt,
                        tuple(view.hand_sizes), view.stock_count, view.turn_info.draws,
                        bool(view.stock_out), text, table, info)


def _played(played: Any, decision: int, view: PlayerView, T: bytes, D: bytes,
            JT: int) -> tuple[str | None, tuple[bytes, bytes, int] | None]:
    """The played move's text (and table after a meld) from an action or a move text."""
    if played is None:
        return None, None
    if isinstance(played, str):
        words = played.split()
        if not words:
            raise ValueError("played is empty: give a move like 'meld 7S 9H JK', 'draw', 'pass'")
        w = words[0].lower()
        if w in ("draw", "pass", "knock") and len(words) == 1:
            played = {"draw": Draw(), "pass": Pass(), "knock": Knock()}[w]
        elif w == "meld" and len(words) > 1:
            played = Meld(parse_meld_play(played.split(None, 1)[1], list(view.table),
                                          list(view.hand), view.rules, name="played").melds)
        else:
            raise ValueError(f"played {played!r} is not a move: meld CARDS, draw, pass or knock")
    if isinstance(played, Draw):
        if decision != _carousel.SEARCH_MELD:
            raise ValueError("played draw: there is no draw left in this decision")
        return "draw", None
    if isinstance(played, Knock):
        if not view.can_knock():
            raise ValueError("played knock: the player may not knock here")
        return "knock", None
    if isinstance(played, Pass):
        if decision == _carousel.SEARCH_MELD:
            raise ValueError("played pass: after a first or second draw the player melds or draws")
        return "pass", None
    if isinstance(played, Meld):
        if decision == _carousel.SEARCH_KNOCK:
            raise ValueError("played meld: the player has melded in this turn already")
        nT, nD, njt = table_counts(view.verify_meld(played)[0])
        return _play_text(T, D, JT, nT, nD, njt), (nT, nD, njt)
    raise TypeError(f"played must be a move text or a carousel action, got {played!r}")


def _analyse_spot(spot: CarouselSpot, seed: int, game: int, rollouts: int,
                  seconds: float) -> Decision:
    rules = spot.rules
    res, played_at = _carousel.search_analyse(
        core_rules(rules), game_rules(rules), _rng(seed, game, spot.index), spot.decision,
        spot.H, spot.JH, spot.T, spot.D, spot.JT, spot.sizes, spot.player, spot.stock,
        spot.draws, spot.stock_out, spot.played_table, rollouts, seconds)
    cands: list[Candidate] = []
    for what, nT, nD, njt, n, total, total_sq, wins in res:
        if what == _carousel.ANALYSE_PLAY:
            assert nT is not None and nD is not None
            move = _play_text(spot.T, spot.D, spot.JT, nT, nD, njt)
        else:
            move = {_carousel.ANALYSE_DRAW: "draw", _carousel.ANALYSE_PASS: "pass",
                    _carousel.ANALYSE_KNOCK: "knock"}[what]
        cands.append(_common.candidate_from_sums(move, n, total, total_sq, wins))
    played = spot.played
    if played_at >= 0:
        played = cands[played_at].move
    info = dict(spot.info or {})
    return Decision(spot.index, spot.player, played, tuple(cands), _KINDS[spot.decision], info)


def position_view(rules: CarouselRules, hand: Any, table: Any = None, *,  # noqa: C901  one check per option, each a pinned one-line error, in the order they are read
                  sizes: Sequence[int] | None = None, stock: int | None = None, player: int = 0,
                  phase: str = "meld", draws: int | None = None,
                  stock_out: bool = False) -> PlayerView:
    """The view of a position given directly (a hint): ``hand`` and ``table`` (texts as
    ``carousel best`` reads them, or codes / melds); ``sizes``: every hand's size (the
    player's included; default: the player's hand and ``hand_size`` cards for the
    others); ``stock``: the stock's size (default: the cards left); ``phase``: "meld"
    (after a draw: meld or draw again; ``draws`` 1 by default), "no draw" (the player
    found the stock empty in this turn) or "end" (the end of the turn: knock or pass).
    ValueError (one line) for impossible card counts."""
    if not isinstance(rules, CarouselRules):
        raise TypeError(f"rules must be a CarouselRules, got {type(rules).__name__}")
    n = rules.players
    if isinstance(player, bool) or not isinstance(player, Integral) or not 0 <= player < n:
        raise ValueError(f"player must be a seat 0..{n - 1}, got {player!r}")
    h = tuple(sorted(parse_hand(hand)))
    melds = tuple(parse_table(table, rules)) if table is not None else ()
    if not h:
        raise ValueError("hand is empty: a player in a round holds a card at least")
    if sizes is None:
        sizes = [rules.hand_size] * n
        sizes[player] = len(h)
    sizes = tuple(int(s) for s in sizes)
    if len(sizes) != n:
        raise ValueError(f"sizes must give {n} hand sizes (one per player), got {len(sizes)}")
    if sizes[player] != len(h):
        raise ValueError(f"sizes gives the player's hand {sizes[player]} cards, but the hand "
                         f"holds {len(h)}")
    if any(s < 1 for s in sizes):
        raise ValueError(f"sizes must be 1 or more cards each, got {list(sizes)}")
    on_table = sum(len(m.cards) for m in melds)
    left = rules.deck_size - on_table - sum(sizes)
    if stock is None:
        stock = left
    if stock != left or stock < 0:
        raise ValueError(f"impossible card counts: the deck's {rules.deck_size} cards are not the "
                         f"table ({on_table}), the hands ({sum(sizes)}) and the stock ({stock})")
    full: dict[int, int] = {}
    for c in rules.deck():
        full[c] = full.get(c, 0) + 1
    seen: dict[int, int] = {}
    for c in list(h) + [c for m in melds for c in m.cards]:
        seen[c] = seen.get(c, 0) + 1
    for c, k in seen.items():
        if k > full.get(c, 0):
            raise ValueError(f"impossible card counts: {k} of {cards_text([c])} in the hand and "
                             f"on the table, the deck holds {full.get(c, 0)}")
    phases = {"meld": Phase.MELD, "no draw": Phase.NO_DRAW, "nodraw": Phase.NO_DRAW,
              "end": Phase.END}
    if phase not in phases:
        raise ValueError(f"phase must be 'meld', 'no draw' or 'end', got {phase!r}")
    ph = phases[phase]
    if draws is None:
        draws = 1 if ph is Phase.MELD else (1 if ph is Phase.NO_DRAW else 3)
    if ph is Phase.MELD and not 1 <= draws <= 2:
        raise ValueError(f"draws must be 1 or 2 in the meld phase, got {draws}")
    if ph is Phase.NO_DRAW:
        if stock != 0:
            raise ValueError(f"the phase 'no draw' is for a stock found empty, but the stock "
                             f"holds {stock} cards")
        stock_out = True
    return PlayerView(
        player=player, rules=rules, n_players=n, round=0, dealer=(player - 1) % n,
        phase=ph, turn=0, current=player, hand=h, hand_sizes=sizes, table=melds,
        stock_count=stock, turn_info=TurnInfo(draws=int(draws), melded=ph is Phase.END),
        totals=(0,) * n, rounds_won=(0,) * n, stock_out=bool(stock_out))


@_common.keyword_only("rules")
def analyse_position(view: PlayerView | None = None, *, rollouts: int | None = None,
                     time: float | None = None, seed: int | None = None, played: Any = None,
                     index: int = 0, rules: CarouselRules | None = None, hand: Any = None,
                     table: Any = None, sizes: Sequence[int] | None = None,
                     stock: int | None = None, player: int = 0, phase: str = "meld",
                     draws: int | None = None) -> Decision:
    """Every candidate move of the decision ``view`` faces, by rollouts (module
    docstring): a :class:`Decision` (best first; ``played``, a move text like ``meld 7S
    9H JK`` / ``draw`` / ``pass`` / ``knock`` or an action, is among the candidates and
    its ``loss`` measured; without it ``loss`` is None).

    Budget: ``rollouts`` per candidate (default 200), or ``time`` seconds for the
    decision (``rollouts`` then caps it, ``MAX_ROLLOUTS`` when not given); ``seed`` an int
    (None: fresh); the determinizations come from ``SeedSequence(seed, spawn_key=(0,
    index))``.

    A position given directly: no ``view`` but ``rules`` (default: two players) and
    ``hand``, ``table``, ``sizes``, ``stock``, ``player``, ``phase``, ``draws``, as
    :func:`position_view` takes them."""
    if view is None:
        if hand is None:
            raise TypeError("analyse_position needs a view, or a hand (and table, ...)")
        view = position_view(CarouselRules.for_players(2) if rules is None else rules, hand,
                             table, sizes=sizes, stock=stock, player=player, phase=phase,
                             draws=draws)
    elif hand is not None or table is not None or rules is not None:
        raise TypeError("analyse_position takes a view, or a position (rules, hand, table, "
                        "...), not both")
    n, sec = _common.budget(rollouts, time, DEFAULT_ROLLOUTS)
    index = int_arg("index", index, 0)
    spot = _spot_of_view(view, index, played)
    check_search_rules(view.rules)
    return _analyse_spot(spot, _common.seed_of(seed), 0, n, sec)


# --------------------------------------------------------------------------- whole games
def read_histories(source: Any) -> list[dict]:
    """The games of ``source``: a history dict, a ``GameState``, a JSON text of one game
    or JSON Lines (one game a line), a path to such a file (``.gz`` too), or a Carousel run
    directory made with histories (its chunks' games in order, every chunk's file
    verified against its chunk file: a missing or damaged one is refused, naming it, so
    the games never shift). (Rummy 51's reader is the same.)"""
    return _read_histories(source, "carousel")


#: Deprecated: ``read_histories`` (the same reader as Rummy 51's; kept for one release).
read_carousel_histories = _common.deprecated_alias(
    read_histories, "rummy51.analysis.carousel.read_carousel_histories",
    "rummy51.analysis.carousel.read_histories")


def _replayed(history: Mapping, rules: CarouselRules | None) -> tuple[GameState, list]:
    """A history's start and its actions, checked: the whole history replays under
    ``rules`` (default: its own) to its recorded results."""
    from ..carousel.actions import action_from_json

    if not isinstance(history, Mapping):
        raise ValueError("not a Carousel history (a JSON object)")
    d = dict(history)
    if rules is not None:
        d["rules"] = rules_to_dict(rules)
        d.pop("rounds", None)   # other rules score other rounds; the actions must replay
        d.pop("final", None)
        d.pop("winners", None)
    try:
        GameState.from_dict(d)
        start = GameState.from_dict(dict(d, actions=[], rounds=[], final=None))
        actions = [action_from_json(a) for a in d.get("actions", [])]
    except (ValueError, TypeError, KeyError) as e:
        under = "the given rules" if rules is not None else "its rules"
        raise ValueError(f"the history does not replay under {under}: {' '.join(str(e).split())}"
                         ) from None
    return start, actions


def game_decisions(history: Any, rules: CarouselRules | None = None) -> list[CarouselSpot]:
    """The decisions of a game (one history, see :func:`read_histories`) that the
    analysis covers, in order (``index`` 0, 1, ...), each with the move played."""
    s, actions = _replayed(_common.one_history(history), rules)
    check_search_rules(s.rules)
    spots: list[CarouselSpot] = []
    for i, a in enumerate(actions):
        v = s.view()
        decision = None
        if not v.turn_info.last:
            if v.phase is Phase.MELD:
                if can_meld(list(v.table), list(v.hand), s.rules):
                    decision = _carousel.SEARCH_MELD
            elif v.phase is Phase.NO_DRAW:
                if v.can_knock() or can_meld(list(v.table), list(v.hand), s.rules):
                    decision = _carousel.SEARCH_NODRAW
            elif v.phase is Phase.END and v.can_knock():
                decision = _carousel.SEARCH_KNOCK
        if decision is not None:
            info = {"round": s.round, "turn": s.turn, "action": i,
                    "hand": cards_text(v.hand), "table": " | ".join(m.text() for m in v.table)}
            spots.append(_spot_of_view(v, len(spots), a, info))
        s.apply(a)
    return spots


def analyse_game(history: Any, rules: CarouselRules | None = None, *,
                 rollouts: int | None = None, time: float | None = None, seed: Any = None,
                 workers: int = 1, decision: int | None = None, progress: Any = None,
                 on_decision: Callable[[Decision], None] | None = None,
                 game: int = 0) -> GameAnalysis:
    """Every decision of one Carousel game (a history: ``GameState.to_json()``, a line
    of ``--histories``; see :func:`read_histories`), replayed under ``rules`` (default:
    its own), analysed as :func:`analyse_position` does, the move played among the
    candidates and its loss measured. ``decision``: only that index (of the decisions
    analysed, 0-based). ``workers`` threads (the rollouts run without the GIL); decision
    ``i`` draws its rollouts from ``SeedSequence(seed, spawn_key=(game, i))``, so the
    numbers do not depend on ``workers``. ``progress`` shows a bar on stderr (None: when
    stderr is a terminal; a callable ``progress(done, total)`` is deprecated);
    ``on_decision(d)`` is called as each decision is done."""
    n, sec = _common.budget(rollouts, time, DEFAULT_ROLLOUTS)
    sd = _common.seed_of(seed)
    game = int_arg("game", game, 0)
    history = _common.one_history(history)
    spots = game_decisions(history, rules)
    if decision is not None:
        if isinstance(decision, bool) or not isinstance(decision, Integral):
            raise TypeError(f"decision must be an int, got {decision!r}")
        if not spots:
            raise ValueError(f"decision {decision} is out of range: the game has no decision "
                             "to analyse (every move was forced)")
        if not 0 <= decision < len(spots):
            raise ValueError(f"decision {decision} is out of range: the game has {len(spots)} "
                             f"decisions analysed (0..{len(spots) - 1})")
        spots = [spots[int(decision)]]
    rules_used = spots[0].rules if spots else (
        rules or rules_from_dict(history["rules"], recorded=True))
    decisions = _common.run_decisions(spots, workers, lambda spot: _analyse_spot(spot, sd, game, n, sec),
                              progress, on_decision, f"game {game}")
    meta = {"game": "carousel", "rules": rules_to_dict(rules_used), "players": rules_used.players,
            "seed": sd, "index": game, "rollouts": n, "time": sec or None,
            "decisions": len(spots)}
    return GameAnalysis(meta, tuple(decisions))


def analyse_games(source: Any, rules: CarouselRules | None = None, **kw: Any
                  ) -> Iterable[GameAnalysis]:
    """:func:`analyse_game` of every game of ``source`` (game ``g`` seeded with
    ``spawn_key`` ``(g, i)``)."""
    for g, h in enumerate(read_histories(source)):
        yield analyse_game(h, rules, game=g, **kw)
