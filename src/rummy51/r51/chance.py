"""Resampling the hidden cards from what one player saw (``AgentState.resample_from_infostate``).

Information-set search (IS-MCTS, CFR with sampling) plays out *determinizations*:
states the searching player cannot tell from the real one. ``resample(state, p, rng)``
deals again every card ``p`` has not seen (the other hands, the stock, the cards
opponents drew from the stock, the order of each reshuffle) so that the whole deal
stays consistent:

* ``p``'s own cards, the bottom card, the table, the discard pile, every public move
  and ``p``'s own stock draws stay as they were;
* each opponent still holds the cards everybody saw them take (from the discard pile,
  the bottom card, a swapped joker) and not play since, and held every card they later
  laid down, laid off, swapped or discarded, got either in the deal or in a stock draw
  made before that move (and from the right stock: the deal's, or a reshuffle's);
* a move that was legal only for some hands stays legal: a card taken from the discard
  pile and put back in the same turn had its twin in the hand; the player on turn who
  took the discard to open, took the bottom card or freed a joker still holds a hand
  that can do it (the hidden cards are dealt again until it does);
* the rest is dealt uniformly at random. At the end of the deal nothing is hidden (the
  hands are shown to count the points), so the state is only copied.

It walks the history once: each hidden card an opponent receives (dealt, or drawn from
the stock) is a placeholder; a card they play that nobody saw them get is given to one
of their placeholders from a stock that still holds a copy; at the end the placeholders
left and the stock are filled from what each stock has left, at random. The new state
carries a deck order, stock draws and reshuffles that replay (``to_json`` /
``from_json``), with no seed (the seed would tell the real deck).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..cards import JOKER
from ..common.seeds import seed_from
from ..solver import can_go_out, can_open
from .actions import (
    STOCK,
    ChanceRecord,
    DiscardRecord,
    DrawRecord,
    LayDownRecord,
    LayOffRecord,
    Phase,
    SwapRecord,
)
from .melds import go_out_melds, joker_meld_possible

if TYPE_CHECKING:  # for the checker only (agent imports this module)
    from ..common.seeds import RngLike
    from ..rules import RuleSet
    from .agent import AgentState
    from .engine import GameState

__all__ = ["resample", "seed_from"]

_TRIES = 20
_FILLS = 2000  # deals of the hidden cards tried for a hand that fits the turn so far


class _Infeasible(Exception):
    pass


def resample(state: AgentState, player: int, rng: RngLike = None) -> AgentState:
    """A copy of ``state`` (an ``AgentState``) with the cards hidden from ``player`` dealt
    again consistently (see the module docstring)."""
    from .observation import player_index

    p = player_index(player, state.n_players)
    rng = seed_from(rng)
    if state.game is None:
        return _resample_dealing(state, p, rng)
    if state.is_terminal():  # at the end every hand is shown, to count its points
        return state.copy()
    for _ in range(_TRIES):
        try:
            return _resample(state, p, rng)
        except _Infeasible:
            continue
    raise RuntimeError(f"could not deal the hidden cards again consistently in {_TRIES} tries "
                       "(please report the deal)")  # pragma: no cover - not seen in the soaks


def _resample_dealing(state: AgentState, p: int, rng: np.random.Generator) -> AgentState:
    from .observation import dealt_to

    rules = state.rules
    dealt = list(state.dealt)
    n_hands = state.n_players * rules.hand_size + 1
    mine: set[int] = set()
    k = (p - state.first) % state.n_players
    start = 0 if k == 0 else rules.hand_size + 1 + (k - 1) * rules.hand_size
    mine.update(range(start, start + len(dealt_to(state, p))))
    keep = mine | set(range(n_hands, len(dealt)))  # the bottom card is face up
    pool = Counter(int(c) for c in rules.deck())
    pool.subtract(dealt[i] for i in keep)
    cards = list(pool.elements())
    hidden = [i for i in range(len(dealt)) if i not in keep]
    pick: np.ndarray | list[int] = (
        rng.choice(len(cards), size=len(hidden), replace=False) if hidden else [])
    new = dealt[:]
    for i, j in zip(hidden, pick, strict=True):
        new[i] = cards[int(j)]
    return state.with_dealt(new)


class _Slot:
    """A hidden card an opponent received: dealt (``record`` None) or drawn from stock ``pool``."""

    __slots__ = ("pool", "value")

    def __init__(self, pool: int) -> None:
        self.pool = pool
        self.value: int | None = None


class _Hidden:
    """The cards of a dealt deal hidden from player ``p``, as one pass over the history
    (``walk``) finds them; then dealt again (``fill``) into a new deck (``new_deck``).

    * ``starts``: per place in the deal order, where its hand lies in the deck and its
      size; ``n_hands`` the cards of all hands; ``seat_at``: place -> seat;
    * ``remaining``: per stock (0: the deal's stock with the other hands, k: the k-th
      reshuffle) the cards it still has for the hidden cards; ``seqs``: per stock its
      draws in order (a card ``p`` saw, or a ``_Slot``);
    * ``concrete``: per seat the cards everybody saw it take and not play since;
      ``slots``: per seat its hidden cards, the dealt ones (``initial``) first;
      ``draws``: history index -> the hidden card an opponent drew from the stock there;
    * ``demands``: ``(seat, card, n)``, a card the seat played that nobody saw it get
      (one of its first ``n`` hidden cards; ``_match`` settles which)."""

    def __init__(self, g: GameState, p: int, rules: RuleSet) -> None:
        """The deal's layout and first stock, and a hidden card for each card dealt to an
        opponent."""
        n = g.n_players
        self.p = p
        self.deck = cast(ChanceRecord, g.history[0]).cards  # the deal
        self.bottom_card = rules.bottom_card
        self.twin_rule = not rules.discard_taken_card
        self.starts: list[tuple[int, int]] = []
        pos = 0
        for k in range(n):
            size = rules.hand_size + (1 if k == 0 else 0)
            self.starts.append((pos, size))
            pos += size
        self.n_hands = pos
        self.seat_at = [(g.first + k) % n for k in range(n)]  # deal order position -> seat
        pool0 = Counter(self.deck)
        a, size = self.starts[self.seat_at.index(p)]
        pool0.subtract(self.deck[a:a + size])
        if rules.bottom_card:
            pool0[self.deck[-1]] -= 1
        self.remaining = [pool0]
        self.seqs: list[list] = [[]]  # per pool: the stock draws in order (a card, or a _Slot)
        self.concrete: list[Counter[int]] = [Counter() for _ in range(n)]
        self.slots: list[list[_Slot]] = [[] for _ in range(n)]
        self.initial: dict[int, list[_Slot]] = {}
        for k, q in enumerate(self.seat_at):
            if q != p:
                self.initial[q] = [_Slot(0) for _ in range(self.starts[k][1])]
                self.slots[q].extend(self.initial[q])
        self.draws: dict[int, _Slot] = {}
        self.taken: dict[int, tuple] = {}  # seat -> (turn, card) of its last take from the discard pile
        self.demands: list[tuple] = []  # (seat, card, number of the seat's hidden cards by then)

    def walk(self, hist: Sequence[Any]) -> None:
        """One pass over the history: the stocks' draws and the cards each opponent must
        have had, in order (``demands``); which of their hidden cards each was is settled
        afterwards (``_match``)."""
        p = self.p
        for i in range(1, len(hist)):
            r: Any = hist[i]  # a Record, dispatched on its exact type (which mypy does not narrow)
            t = type(r)
            if t is ChanceRecord:
                if r.kind == "reshuffle":
                    self.remaining.append(Counter(r.cards))
                    self.seqs.append([])
            elif t is DrawRecord:
                self._draw(i, r)
            elif r.player != p:
                self._play(r)
        if any(v < 0 for rem in self.remaining for v in rem.values()):  # pragma: no cover - a bug
            raise RuntimeError("resampling found a stock draw of a card the stock did not hold")

    def _draw(self, i: int, r: Any) -> None:
        """Draw record ``i``: a stock draw of ``p`` is a card, an opponent's a hidden card;
        a card taken from the discard pile (or the bottom card) is seen by everybody."""
        q = r.player
        if r.action.source == STOCK:
            if q == self.p:
                self.remaining[-1][r.card] -= 1
                self.seqs[-1].append(r.card)
            else:
                s = _Slot(len(self.remaining) - 1)
                self.slots[q].append(s)
                self.seqs[-1].append(s)
                self.draws[i] = s
        else:
            self.taken[q] = (r.turn, r.card)
            if q != self.p:
                self.concrete[q][r.card] += 1

    def _play(self, r: Any) -> None:
        """An opponent's move (a discard, lay-off, lay-down or joker swap): the cards it
        shows must have been in the hand."""
        q = r.player
        t = type(r)
        if t is DiscardRecord:
            c = r.action.card
            self._reveal(q, c)
            if self.twin_rule and r.outcome is None and self.taken.get(q) == (r.turn, c) \
                    and self.concrete[q][c] == 0:
                # the card just taken went back only because the hand held its twin
                self.demands.append((q, c, len(self.slots[q])))
                self.concrete[q][c] += 1
        elif t is LayOffRecord:
            self._reveal(q, r.action.card)
        elif t is LayDownRecord:
            for m in r.action.melds:
                for c in m:
                    self._reveal(q, c)
        elif t is SwapRecord:
            self._reveal(q, r.action.card)
            self.concrete[q][JOKER] += 1

    def _reveal(self, q: int, c: int) -> None:
        """Seat ``q`` played ``c``: a card it was seen to take, else a demand."""
        if self.concrete[q][c] > 0:
            self.concrete[q][c] -= 1
        else:
            self.demands.append((q, c, len(self.slots[q])))

    def _pools(self, stock_now: int) -> tuple[list[list[_Slot]], list[list[int]]]:
        """Per stock the hidden cards still without a value and the cards left for them
        (the last stock's also for the ``stock_now`` cards of the stock); ``_Infeasible``
        when they do not add up."""
        last = len(self.remaining) - 1
        unfilled: list[list[_Slot]] = [[] for _ in self.remaining]
        for seat_slots in self.slots:
            for s in seat_slots:
                unfilled[s.pool].append(s)
        pools = []
        for k, rem in enumerate(self.remaining):
            cards = list(rem.elements())
            want = len(unfilled[k]) + (stock_now if k == last else 0)
            if len(cards) != want or any(v < 0 for v in rem.values()):
                raise _Infeasible
            pools.append(cards)
        return unfilled, pools

    def fill(self, g: GameState, rng: np.random.Generator) -> list[int]:
        """Give each hidden card left a value, at random from what its stock has left;
        the last stock's cards past them are the stock (returned). The player on turn may
        be in the middle of a turn whose moves so far were legal only for some hands (took
        the discard to open, took the bottom card, freed a joker): the hidden cards are
        dealt again until the hand fits (rejection keeps them uniform)."""
        unfilled, pools = self._pools(g.stock_size)
        last = len(pools) - 1
        q = g.current
        check = q != self.p and g.phase is not Phase.OVER and _turn_constrained(g)
        for _ in range(_FILLS if check else 1):
            stock_cards: list[int] = []
            for k, cards in enumerate(pools):
                order = [cards[int(j)] for j in rng.permutation(len(cards))]
                # the last pool holds the stock too: its cards past the slots are the stock
                for s, c in zip(unfilled[k], order, strict=False):
                    s.value = c
                if k == last:
                    stock_cards = order[len(unfilled[k]):]
            now: list[Any] = [x.value for x in self.slots[q]]  # every slot is filled now: ints
            if not check or _turn_fits(g, sorted(list(self.concrete[q].elements()) + now)):
                return stock_cards
        raise _Infeasible

    def new_deck(self, stock_cards: list[int]) -> list[int]:
        """The new deal, consistent from the deck order on: the hidden cards dealt to the
        opponents and the deal's stock (``stock_cards`` when no reshuffle came since)."""
        new_deck = list(self.deck)
        for k, q in enumerate(self.seat_at):
            if q != self.p:
                a, _ = self.starts[k]
                for j, s in enumerate(self.initial[q]):
                    new_deck[a + j] = s.value
        stock_part = _values(self.seqs[0]) + (stock_cards if len(self.seqs) == 1 else [])
        end = len(self.deck) - (1 if self.bottom_card else 0)
        if len(stock_part) != end - self.n_hands:  # pragma: no cover - a bug
            raise RuntimeError("resampling changed the length of the deal's stock")
        new_deck[self.n_hands:end] = stock_part
        return new_deck


def _values(seq: Sequence[int | _Slot]) -> list[Any]:
    """The cards of a stock's draws (a hidden card's value once it is filled)."""
    return [x.value if isinstance(x, _Slot) else x for x in seq]


def _resample(state: AgentState, p: int, rng: np.random.Generator) -> AgentState:
    """One deal of the cards hidden from ``p`` (``_Infeasible``: this try failed)."""
    g = state.game
    assert g is not None  # resample deals the hidden cards of a dealt deal here
    hidden = _Hidden(g, p, state.rules)
    hidden.walk(g.history)
    used = _match(hidden.demands, hidden.slots, hidden.remaining, rng)
    hidden.slots = [[x for x in seat_slots if x not in used] for seat_slots in hidden.slots]
    stock_cards = hidden.fill(g, rng)
    return _rebuilt(state, hidden, hidden.new_deck(stock_cards), stock_cards, rng)


def _rebuilt(state: AgentState, hidden: _Hidden, new_deck: list[int], stock_cards: list[int],
             rng: np.random.Generator) -> AgentState:
    """A copy of ``state`` on the new deal: its deck, the history's reshuffles and the
    opponents' stock draws, their hands, the stock and a fresh RNG (the real seed, or the
    real RNG's state, would tell the real deck)."""
    g = state.game
    assert g is not None
    p = hidden.p
    hist = g.history
    seqs, draws = hidden.seqs, hidden.draws
    last = len(seqs) - 1
    ns = state.copy()
    ng = ns.game
    assert ng is not None
    ng.deck = tuple(new_deck)
    nh = ng.history
    nh[0] = replace(cast(ChanceRecord, hist[0]), cards=ng.deck)
    k = 0
    for i in range(1, len(hist)):
        r: Any = hist[i]
        if isinstance(r, ChanceRecord) and r.kind == "reshuffle":
            k += 1
            nh[i] = replace(r, cards=tuple(_values(seqs[k]) + (stock_cards if k == last else [])))
        elif i in draws:
            nh[i] = replace(r, card=draws[i].value)
    for q in range(state.n_players):
        if q != p:
            # every slot left is filled (value not None): the pools above hold a card for each
            filled: list[Any] = [x.value for x in hidden.slots[q]]  # ints (a None would be a bug)
            ng.hands[q] = sorted(list(hidden.concrete[q].elements()) + filled)
            if len(ng.hands[q]) != len(g.hands[q]):  # pragma: no cover - a bug
                raise RuntimeError(f"resampling changed the size of hand {q}")
    ng.replace_stock(stock_cards)
    ng.reseed(np.random.default_rng(int(rng.integers(2**63))))
    ti = ng.turn_info
    if g.current != p and ti.source == STOCK and ti.drawn is not None:
        last_draw = max(draws) if draws else None
        if last_draw is not None and hist[last_draw].player == g.current \
                and hist[last_draw].turn == g.turn:
            ng.turn_info = replace(ti, drawn=draws[last_draw].value)
    ns.resampled_from(state, p)
    return ns


def _match(demands: list, slots: list, remaining: list, rng: np.random.Generator) -> set:
    """Give each demand ``(seat, card, n)`` one of that seat's first ``n`` hidden cards,
    no hidden card twice, taking the card from the stock the hidden card came from while
    that stock has a copy left (``remaining``, updated). A depth-first search over the
    stock each demand's card came from, in random order; it backtracks when a later
    demand finds no copy. Returns the hidden cards given a value."""
    used: set = set()
    order: list = []  # (demand index, slot) chosen
    choices: list = []  # per depth: the slots still to try
    steps = 0
    d = 0
    while d < len(demands):
        if d == len(choices):
            q, c, k = demands[d]
            by_pool: dict = {}
            for s in slots[q][:k]:
                if s not in used and remaining[s.pool][c] > 0:
                    by_pool.setdefault(s.pool, []).append(s)
            pools = list(by_pool)
            if len(pools) > 1:
                # likelier stocks first: weight by the copies each still holds
                w = np.array([remaining[k2][c] for k2 in pools], float)
                pools = [pools[j] for j in rng.choice(len(pools), len(pools), replace=False,
                                                      p=w / w.sum())]
            cands = []
            for k2 in pools:
                group = by_pool[k2]
                cands.append(group[int(rng.integers(len(group)))])
            choices.append(cands)
        cands = choices[d]
        if not cands:
            choices.pop()
            d -= 1
            if d < 0:
                raise _Infeasible
            _, s = order.pop()
            used.discard(s)
            remaining[s.pool][s.value] += 1
            s.value = None
            steps += 1
            if steps > 10_000:
                raise _Infeasible
            continue
        s = cands.pop(0)
        s.value = demands[d][1]
        remaining[s.pool][s.value] -= 1
        used.add(s)
        order.append((d, s))
        d += 1
    return used


def _turn_constrained(g: GameState) -> bool:
    ti = g.turn_info
    return bool((ti.must_open and not g.opened[g.current]) or ti.bottom or ti.freed_joker)


def _turn_fits(g: GameState, hand: list[int]) -> bool:
    """Whether the hand of the player on turn could have made this turn's moves so far."""
    ti = g.turn_info
    rules = g.rules
    q = g.current
    if ti.must_open and not g.opened[q]:
        must = ti.taken if rules.discard_card_must_meld else None
        return can_open(hand, rules, keep=1, must_use=must)
    if ti.bottom:
        if not g.opened[q]:
            return can_go_out(hand, rules)
        return len(hand) == 1 or (len(hand) >= 4 and go_out_melds(hand, rules) is not None)
    if ti.freed_joker:
        return joker_meld_possible(hand, rules)
    return True  # pragma: no cover - only constrained turns are checked
