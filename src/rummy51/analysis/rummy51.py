"""Rummy 51 analysis: rollout equities of a decision's candidate moves, and a whole deal's.

``analyse_position(view)`` ranks the moves of the player on turn in a ``PlayerView``;
``analyse_game(history)`` replays a hand history (``GameState.to_json()``, a line of
``rummy51 simulate games --histories``) and analyses every decision of every player.

The candidates are the search bot's (``rummy51.r51.search``, ``list_cands`` in the
kernel): the tactician's own move first, the other draw, the openings and waiting,
lay-downs, lay-offs, joker swaps and the best discards; plus the move played, when none
of them leaves the same position. Every candidate is played on the same determinizations
of what the player has not seen (common random numbers: the same deal of the unseen
cards, the same reshuffles), a fixed number of times each (no race, no early stop), to
the end of the deal with the kernel's tactician in every seat. A candidate's equity is
its mean margin (the others' mean score less the player's own, penalty points: higher
is better) with its standard error; ``win`` the share of rollouts the player won.

Moves are written as ``rummy51 play`` reads them (``rummy51.r51.notation``); the played
move is written as the candidate it equals. Seeding: decision ``i`` of a game draws its
determinizations from ``SeedSequence((seed, i))`` (of game ``g`` > 0 of a source, from
``SeedSequence((seed, i, g))``), so the numbers do not depend on ``workers`` or on which
decisions are analysed.

The API is Carousel's (``rummy51.analysis.carousel``) name for name: ``analyse_position``,
``analyse_game``, ``analyse_games``, ``read_histories``, ``DEFAULT_ROLLOUTS``,
``HINT_ROLLOUTS``, ``MAX_ROLLOUTS`` and ``fresh_seed``, the same budget (``rollouts`` 1..
``MAX_ROLLOUTS`` per candidate, or ``time`` seconds a decision) and the same keywords.

>>> from rummy51 import RuleSet
>>> from rummy51.r51.engine import GameState
>>> d = analyse_position(GameState.new(RuleSet(), players=2, seed=4).view(0), rollouts=8, seed=1)
>>> d.kind, len(d.candidates) >= 2, d.played is None
('play', True, True)
"""
from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from .. import _game
from .._checks import int_arg
from ..r51 import fastgame
from ..r51.actions import Discard, Draw, LayDown, LayOff, Phase, SwapJoker
from ..r51.engine import GameState, PlayerView
from ..r51.melds import HIGH, LOW, RUN
from ..r51.notation import action_text, parse_action
from ..r51.search import view_position
from ..rules import RuleSet, rules_to_dict
from . import _common
from ._common import MAX_ROLLOUTS, Decision, GameAnalysis, fresh_seed
from ._common import parse_histories as _parse_histories
from ._common import read_histories as _read_histories

__all__ = ["DEFAULT_ROLLOUTS", "HINT_ROLLOUTS", "MAX_ROLLOUTS", "analyse_position",
           "analyse_game", "analyse_games", "read_histories", "parse_histories", "fresh_seed"]

#: rollouts per candidate of a decision by default (``rummy51 analyse``)
DEFAULT_ROLLOUTS = 200
#: rollouts per candidate of ``hint`` in ``rummy51 play`` (well under a second)
HINT_ROLLOUTS = 800
#: discard candidates (the search bot's default)
DEFAULT_CANDIDATES = 3
_SIDE_CODES = {None: 0, LOW: 1, HIGH: 2}


# --------------------------------------------------------------------------- arguments
def _rng(seed: int, index: int, game: int = 0) -> np.random.Generator:
    key = (seed, index) if game == 0 else (seed, index, game)
    return np.random.default_rng(np.random.SeedSequence(key))


def _played_spec(view: PlayerView, action: Any) -> tuple:
    """The played move in the kernel's terms (``_game.analyse``'s ``played``), checked
    against the view (an illegal move is a ``ValueError`` naming it)."""
    from ..r51.actions import IllegalMove

    try:
        built = view.verify(action)
    except IllegalMove as e:
        raise ValueError(f"the played move {action_text(action)!r} is illegal here: {e}") from None
    if isinstance(action, Draw):
        return (0, fastgame._SOURCE_CODES[action.source])
    if isinstance(action, Discard):
        return (4, int(action.card))
    if isinstance(action, SwapJoker):
        return (3, int(action.card), int(action.meld_id))
    if isinstance(action, LayOff):
        old = view.table[action.meld_id]
        side = action.side
        if side is None and old.kind == RUN:
            side = LOW if built.represents[0] != old.represents[0] else HIGH
        return (2, int(action.card), int(action.meld_id), _SIDE_CODES[side])
    if isinstance(action, LayDown):
        melds, _ = built
        return (1, [(0 if m.kind == RUN else 1, tuple(m.cards), tuple(m.represents))
                    for m in melds])
    raise TypeError(f"not a move: {action!r:.60}")  # pragma: no cover - verify refuses it


def _as_action(played: Any) -> Any:
    if played is None or isinstance(played, (Draw, Discard, LayDown, LayOff, SwapJoker)):
        return played
    if isinstance(played, str):
        a = parse_action(played)
        if not isinstance(a, (Draw, Discard, LayDown, LayOff, SwapJoker)):
            raise ValueError(f"the played move {played!r} is not a move of the deal")
        return a
    raise TypeError(f"played must be an action or its text, got {type(played).__name__}")


# --------------------------------------------------------------------------- one decision
def _analyse(view: PlayerView, action: Any, rollouts: int, seconds: float, seed: int,
             index: int, candidates: int, game: int = 0) -> Decision:
    pos, pool, hidden = view_position(view)
    spec = None if action is None else _played_spec(view, action)
    logs, stats, played, n, separate = _game.analyse(pos, pool, hidden, _rng(seed, index, game),
                                                     rollouts, candidates, 1000.0 * seconds,
                                                     spec)
    moves = []
    for i, log in enumerate(logs):
        if separate and i == played:
            moves.append(action_text(action))     # the played move, not a search candidate
            continue
        acts = fastgame._decode(np.asarray(log, np.int32), len(log))
        if len(acts) != 1:  # pragma: no cover - a kernel bug
            raise AssertionError(f"candidate {i}: {len(acts)} moves")
        moves.append(action_text(acts[0]))
    # two candidates written alike (a lay-off at either end of the same run...) get a
    # number: the move strings stay unique
    seen: dict[str, int] = {}
    for i, m in enumerate(moves):
        if m in seen:
            seen[m] += 1
            moves[i] = f"{m} [{seen[m]}]"
        else:
            seen[m] = 1
    cands = tuple(_common.candidate_from_sums(m, int(k), s1, s2, int(w))
                  for m, (k, s1, s2, w) in zip(moves, stats, strict=True))
    info = {"turn": int(view.turn), "tactician": moves[0], "determinizations": int(n)}
    kind = "draw" if view.phase is Phase.DRAW else "play"
    return Decision(index, int(view.player), None if action is None else moves[played],
                    cands, kind, info)


@_common.keyword_only("rollouts", "seed", "played", "time", "index", "candidates")
def analyse_position(view: PlayerView, *, rollouts: int | None = None,
                     time: float | None = None, seed: int | None = None, played: Any = None,
                     index: int = 0, candidates: int = DEFAULT_CANDIDATES) -> Decision:
    """Rank the candidate moves of the player on turn in ``view`` (their own
    ``PlayerView``): each with its equity (mean margin of rollouts to the end of the deal),
    standard error and win share. ``played`` (an action or its text), if given, is among
    the candidates and the decision's ``loss`` says what it lost against the best.

    Budget: ``rollouts`` per candidate (default 200), or ``time`` seconds for the
    decision (``rollouts`` then caps it, ``MAX_ROLLOUTS`` when not given; the numbers
    then depend on the machine). ``seed`` an int (None: fresh); the determinizations
    come from ``SeedSequence((seed, index))``. ``candidates``: the discards considered
    (the search bot's, 1..16)."""
    if not isinstance(view, PlayerView):
        raise TypeError(f"view must be a PlayerView, got {type(view).__name__}")
    if view.phase is Phase.OVER:
        raise ValueError("the deal is over: there is no decision to analyse")
    if view.player != view.current:
        raise ValueError(f"this is player {view.player}'s view but player {view.current} "
                         "is on turn: a decision is analysed from the view of the player "
                         "on turn")
    r, seconds = _common.budget(rollouts, time, DEFAULT_ROLLOUTS)
    s = _common.seed_of(seed)
    index = int_arg("index", index, 0)
    candidates = int_arg("candidates", candidates, 1, 16)
    return _analyse(view, _as_action(played), r, seconds, s, index, candidates)


# --------------------------------------------------------------------------- a whole deal
def _decisions(d: dict, rules: RuleSet | None) -> tuple[GameState, list[tuple[int, PlayerView, Any]]]:
    """The deal replayed (under ``rules`` if given): its final state and every decision
    as ``(index, view of the player on turn, the action played)``."""
    if rules is not None:
        if not isinstance(rules, RuleSet):
            raise TypeError(f"rules must be a RuleSet, got {type(rules).__name__}")
        d = dict(d, rules=rules_to_dict(rules, full=True))
    try:
        final = GameState.from_dict(d)
    except ValueError as e:
        under = " under the given rules" if rules is not None else ""
        raise ValueError(f"the hand history does not replay{under}: {e}") from None
    why = fastgame.supported(final.rules, final.n_players)
    if why is not None:
        raise ValueError(f"the analysis plays its rollouts in the game kernel, which cannot "
                         f"play these rules: {why}")
    state = GameState.from_dict(dict(d, actions=[], result=None))
    out = []
    for i, a in enumerate(final.actions):
        out.append((i, state.view(state.current), a))
        state.apply(a)
    return final, out


@_common.keyword_only("rollouts", "seed", "workers", "decision", "progress", "time", "candidates",
              "on_decision")
def analyse_game(history: Any, rules: RuleSet | None = None, *, rollouts: int | None = None,
                 time: float | None = None, seed: int | None = None, workers: int = 1,
                 decision: int | None = None, progress: bool | None = None,
                 on_decision: Callable[[Decision], None] | None = None, game: int = 0,
                 candidates: int = DEFAULT_CANDIDATES) -> GameAnalysis:
    """Analyse every decision (every action) of a Rummy 51 deal, or only ``decision``
    (its index in the deal's actions): ``history`` is one deal (``read_histories``' sources:
    a ``GameState``, its ``to_dict()``, its JSON text, a file of one). ``rules`` replays it
    under other rules than the recorded ones (a ``ValueError`` if it does not replay).
    ``workers`` threads (the kernel releases the GIL) change nothing in the numbers;
    ``progress`` shows a bar on stderr (None: when stderr is a terminal);
    ``on_decision(d)`` is called as each decision is done. Budget and seeding as
    ``analyse_position``, ``game`` the deal's index in its source (its decisions draw
    from ``SeedSequence((seed, i, game))``, game 0 from ``(seed, i)``); the ``game``
    mapping of the result records them (the seed drawn when None)."""
    r, seconds = _common.budget(rollouts, time, DEFAULT_ROLLOUTS)
    s = _common.seed_of(seed)
    candidates = int_arg("candidates", candidates, 1, 16)
    game = int_arg("game", game, 0)
    final, todo = _decisions(_common.one_history(history), rules)
    if decision is not None:
        decision = int_arg("decision", decision, 0)
        if decision >= len(todo):
            raise ValueError(f"decision {decision} is out of range: the deal has "
                             f"{len(todo)} decisions (0..{len(todo) - 1})")
        todo = [todo[decision]]
    decisions = _common.run_decisions(todo, workers, lambda t: _analyse(
        t[1], t[2], r, seconds, s, t[0], candidates, game), progress, on_decision)
    res = final.result
    meta = {"game": "rummy51", "rules": rules_to_dict(final.rules), "players": final.n_players,
            "first": final.first, "deal_seed": final.seed, "actions": len(final.actions),
            "result": None if res is None else {"winner": res.winner, "how": res.how,
                                                "scores": list(res.scores)},
            "rollouts": r, "time": None if time is None else float(time),
            "candidates": candidates, "seed": s}
    if game:
        meta["index"] = game
    return GameAnalysis(meta, tuple(decisions))


def analyse_games(source: Any, rules: RuleSet | None = None, **kw: Any) -> Iterable[GameAnalysis]:
    """:func:`analyse_game` of every deal of ``source`` (``read_histories``' sources),
    deal ``g`` as ``game=g``."""
    for g, h in enumerate(read_histories(source)):
        yield analyse_game(h, rules, game=g, **kw)


def read_histories(source: Any) -> list[dict]:
    """The hand histories of ``source``: a history dict, a ``GameState``, JSON text of
    one deal or JSON Lines (one a line), a file of them (``.gz`` too), or a games run
    directory made with histories (every chunk's file verified against its chunk file:
    a missing or damaged one is refused, naming it, so the deals keep their numbers);
    as dicts in order. (Carousel's reader is the same.)"""
    return _read_histories(source, "games")


#: Deprecated: ``read_histories`` reads text too (kept for one release).
parse_histories = _common.deprecated_alias(_parse_histories, "rummy51.analysis.rummy51.parse_histories",
                                   "rummy51.analysis.read_histories(text)")
