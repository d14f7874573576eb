"""What one player knows, as a tensor and as text (``AgentState.observation`` and friends).

The observation tensor of player ``p`` is a float32 vector, every entry in [0, 1], made
of named pieces (``ObservationLayout.pieces``; docs/agents.md gives the sizes for the
default rules). Seats are relative: seat 0 is ``p``, seat 1 the next player, and so on.
A *card-count block* has ``deck_size`` entries: ``decks`` copy planes of the 52 natural
cards (plane ``k`` is 1 where at least ``k`` copies are there), then one entry per
joker of the deck (entry ``k`` is 1 when at least ``k`` jokers are).

* ``hand``: the player's hand (a card-count block);
* ``staged``: the cards they have staged for the opening, and ``staged_value``
  (their opening value over the threshold, capped at 1);
* ``discard_pile`` (a card-count block of its cards), ``discard_top`` (one-hot of 53
  card types), ``bottom`` (one-hot of 53, zero once taken);
* ``known``: per other seat, the cards known to be in that hand (taken from the discard
  pile, the bottom card, a swapped joker, and not played since), card-count blocks;
* ``seats``: per seat, the hand size over ``hand_size + 1``, opened, on turn;
* ``counts``: the stock and the discard pile over ``deck_size``, the turn over
  ``max_turns``, whether taking the discard is still free (the first round);
* ``phase``: draw, play, over, staging, chance node pending;
* ``turn``: this turn's flags (must open, took the bottom card, a freed joker waits,
  had opened at the start, touched another's meld, may still cancel), the card drawn
  (one-hot; another player's stock draw stays hidden) and its source (stock, discard,
  bottom);
* ``table``: per table slot (``deck_size // 3`` of them): present, run, set; the
  owner's relative seat (one-hot); a run's suit (one-hot 4); a set's rank (one-hot 13);
  the run positions (0 the low ace .. 13 the high ace) held by natural cards and by
  jokers (14 + 14); the suits of a set's natural cards (4); its jokers (2, a count).

The information state string is perfect recall: the player's cards as dealt and every
move since in order (their own stock draws with the card, their staging), so two states
have the same string exactly when the player cannot tell them apart.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..cards import JOKER, card_text
from ..rules import RuleSet
from .actions import (
    STOCK,
    ChanceRecord,
    DiscardRecord,
    DrawRecord,
    LayDownRecord,
    LayOffRecord,
    Phase,
    Record,
    SwapRecord,
)
from .codec import CANCEL
from .melds import RUN
from .notation import action_text

if TYPE_CHECKING:  # agent imports this module
    from .agent import AgentState
    from .codec import ActionCodec
    from .engine import GameState
    from .melds import TableMeld

__all__ = ["ObservationLayout", "layout_for", "known_cards", "information_state_string",
           "observation_string"]

_SLOT_FIXED = 3 + 4 + 13 + 14 + 14 + 4 + 2  # a table slot's entries besides the owner
_TEXT = tuple(card_text(c) for c in range(53))  # card_text without its checks (hot loops)


def cards_str(codes: Iterable[int]) -> str:
    """``cards_text`` of codes known to be valid, fast."""
    t = _TEXT
    return " ".join([t[c] for c in codes])


def meld_str(m: TableMeld) -> str:
    """``TableMeld.text()``, fast."""
    t = _TEXT
    return " ".join([f"JK({t[r]})" if c == JOKER else t[c]
                     for c, r in zip(m.cards, m.represents, strict=True)])


class ObservationLayout:
    """The pieces of the observation tensor for ``rules`` and ``players``: ``pieces`` is a
    list of ``(name, size)``, ``offsets`` their starts, ``size`` the total."""

    def __init__(self, rules: RuleSet, players: int) -> None:
        self.rules = rules
        self.players = n = players
        self.card_block = rules.deck_size
        self.n_slots = rules.deck_size // 3
        self.slot_size = _SLOT_FIXED + n
        self.pieces = [
            ("hand", self.card_block),
            ("staged", self.card_block),
            ("staged_value", 1),
            ("discard_pile", self.card_block),
            ("discard_top", 53),
            ("bottom", 53),
            ("known", (n - 1) * self.card_block),
            ("seats", 3 * n),
            ("counts", 4),
            ("phase", 5),
            ("turn", 6 + 53 + 3),
            ("table", self.n_slots * self.slot_size),
        ]
        self.offsets = {}
        o = 0
        for name, size in self.pieces:
            self.offsets[name] = o
            o += size
        self.size = o
        # a card-count block from 53 counts in one step: entry j is 1 when the count of
        # card _card_of[j] passes _copy_of[j] (copy planes of the naturals, then jokers)
        decks = rules.decks
        self._card_of = np.array([c for k in range(decks) for c in range(52)]
                                 + [52] * rules.jokers, np.intp)
        self._copy_of = np.array([k for k in range(decks) for _ in range(52)]
                                 + list(range(rules.jokers)), np.intp)

    def _cards(self, out: np.ndarray, base: int, counts: Sequence[int] | np.ndarray) -> None:
        """Write a card-count block at ``base`` from 53 counts."""
        out[base: base + self.card_block] = np.asarray(counts)[self._card_of] > self._copy_of

    def encode(self, state: AgentState, player: int, out: np.ndarray | None = None) -> np.ndarray:  # noqa: C901, PLR0915  one block per section of the tensor layout, in layout order
        """The observation tensor of ``player`` in ``state`` (an ``AgentState``)."""
        n = self.players
        p = player_index(player, n)
        if out is None:
            out = np.zeros(self.size, np.float32)
        else:
            out.fill(0.0)
        off = self.offsets
        g = state.game
        rules = self.rules
        if g is None:  # a chance-mode deal: only the cards dealt to the player so far
            dealt = dealt_to(state, p)
            if dealt:
                self._cards(out, off["hand"], _counts(dealt))
            out[off["phase"] + 4] = 1.0
            return out
        hand = g.hands[p]
        self._cards(out, off["hand"], _counts(hand))
        if state.staged and g.current == p:
            staged = [c for i in state.staged for c in state.codec.meld(i).cards]
            self._cards(out, off["staged"], _counts(staged))
            value = sum(state.codec.meld(i).value for i in state.staged)
            out[off["staged_value"]] = min(1.0, value / rules.threshold)
        self._cards(out, off["discard_pile"], _counts(g.discard_pile))
        if g.discard_pile:
            out[off["discard_top"] + g.discard_pile[-1]] = 1.0
        if g.bottom is not None:
            out[off["bottom"] + g.bottom] = 1.0
        known = known_cards(state)
        for k in range(1, n):
            q = (p + k) % n
            self._cards(out, off["known"] + (k - 1) * self.card_block, known[q])
        o = off["seats"]
        for k in range(n):
            q = (p + k) % n
            out[o + 3 * k] = min(1.0, len(g.hands[q]) / (rules.hand_size + 1))
            out[o + 3 * k + 1] = float(g.opened[q])
            out[o + 3 * k + 2] = float(g.current == q and g.phase is not Phase.OVER)
        o = off["counts"]
        out[o] = g.stock_size / rules.deck_size
        out[o + 1] = len(g.discard_pile) / rules.deck_size
        out[o + 2] = g.turn / rules.max_turns
        out[o + 3] = float(g.free_round())
        o = off["phase"]
        out[o + {Phase.DRAW: 0, Phase.PLAY: 1, Phase.OVER: 2}[g.phase]] = 1.0
        mine = g.current == p  # staging is the player's own business until they open
        out[o + 3] = float(bool(state.staged) and mine)
        out[o + 4] = float(state._pending)
        o = off["turn"]
        ti = g.turn_info
        if g.phase is not Phase.OVER:
            out[o] = float(ti.must_open)
            out[o + 1] = float(ti.bottom)
            out[o + 2] = float(ti.freed_joker)
            out[o + 3] = float(ti.opened_at_start)
            out[o + 4] = float(ti.touched_others)
            out[o + 5] = float(state.may_cancel and mine)
            if ti.drawn is not None and (ti.source != STOCK or g.current == p):
                out[o + 6 + ti.drawn] = 1.0
            if ti.source is not None:
                out[o + 59 + ("stock", "discard", "bottom").index(ti.source)] = 1.0
        o = off["table"]
        for i, m in enumerate(g.table):
            b = o + i * self.slot_size
            out[b] = 1.0
            b2 = b + 3 + n
            if m.kind == RUN:
                out[b + 1] = 1.0
                out[b2 + m.suit] = 1.0
                lo = m.low
                for j, c in enumerate(m.cards):
                    out[b2 + 17 + (14 if c == JOKER else 0) + lo + j] = 1.0
            else:
                out[b + 2] = 1.0
                out[b2 + 4 + m.represents[0] % 13] = 1.0
                for c in m.cards:
                    if c != JOKER:
                        out[b2 + 45 + c // 13] = 1.0
                for j in range(min(m.jokers, 2)):
                    out[b2 + 49 + j] = 1.0
            out[b + 3 + (m.owner - p) % n] = 1.0
        return out


@lru_cache(maxsize=64)
def layout_for(rules: RuleSet, players: int) -> ObservationLayout:
    """The observation layout of ``rules`` and ``players`` (cached)."""
    return ObservationLayout(rules, players)


def player_index(player: object, n: int) -> int:
    if isinstance(player, (bool, np.bool_)) or not isinstance(player, (int, np.integer)):
        raise TypeError(f"player must be a seat number 0..{n - 1}, got {player!r:.40}")
    if not 0 <= player < n:
        raise ValueError(f"player must be a seat 0..{n - 1}, got {player}")
    return int(player)


def _counts(cards: Sequence[int] | np.ndarray) -> np.ndarray:
    return np.bincount(np.asarray(cards, dtype=np.intp), minlength=53)


def dealt_to(state: AgentState, p: int) -> list[int]:
    """Chance-mode deal: the cards dealt so far to seat ``p`` (hands in seat order from the
    first player: hand_size + 1 cards, then hand_size each)."""
    rules = state.rules
    n = state.n_players
    k = (p - state.first) % n
    start = 0 if k == 0 else rules.hand_size + 1 + (k - 1) * rules.hand_size
    size = rules.hand_size + (1 if k == 0 else 0)
    return list(state.dealt[start:start + size])


# --------------------------------------------------------------------------- known cards
def known_cards(state: AgentState) -> list[list[int]]:  # noqa: C901  one branch per record type of the public history
    """Per seat, the card counts everybody knows to be in that hand: cards taken from the
    discard pile or the bottom, jokers won in a swap, less the cards played since (the
    public history; a lower bound). Cached on the state."""
    g = state.game
    assert g is not None  # the deal is dealt
    hist = g.history
    cached = state.cached("known")
    if cached is not None and cached[0] == len(hist):
        return cached[1]
    if cached is not None and cached[0] < len(hist):
        start, known = cached[0], [k[:] for k in cached[1]]
    else:
        start, known = 0, [[0] * 53 for _ in range(state.n_players)]
    twin_rule = not state.rules.discard_taken_card
    for i in range(start, len(hist)):
        r: Any = hist[i]  # a Record, dispatched on its exact type (which mypy does not narrow)
        t = type(r)
        if t is DrawRecord:
            if r.action.source != STOCK:
                known[r.player][r.card] += 1
        elif t is DiscardRecord:
            k = known[r.player]
            c = r.action.card
            if k[c]:
                k[c] -= 1
            if twin_rule and r.outcome is None and _took_back(hist, i, r):
                k[c] = max(k[c], 1)  # the card just taken went back: the hand holds its twin
        elif t is LayOffRecord:
            k = known[r.player]
            c = r.action.card
            if k[c]:
                k[c] -= 1
        elif t is LayDownRecord:
            k = known[r.player]
            for m in r.action.melds:
                for c in m:
                    if k[c]:
                        k[c] -= 1
        elif t is SwapRecord:
            k = known[r.player]
            c = r.action.card
            if k[c]:
                k[c] -= 1
            k[JOKER] += 1
    state.remember("known", (len(hist), known))
    return known


def _took_back(hist: Sequence[Record], i: int, r: DiscardRecord) -> bool:
    """Whether discard record ``hist[i]`` puts back the card its player took from the
    discard pile in that turn (legal only with the card's twin in hand)."""
    for j in range(i - 1, 0, -1):
        d = hist[j]
        if d.turn != r.turn:
            return False
        if type(d) is DrawRecord:
            return d.action.source != STOCK and d.card == r.action.card
    return False


# --------------------------------------------------------------------------- strings
def _record_line(r: Any, p: int) -> str:  # a Record (dispatched as above)
    t = type(r)
    if t is ChanceRecord:
        return f"{r.turn}: reshuffle" if r.kind == "reshuffle" else ""
    if t is DrawRecord:
        src = r.action.source
        if src == STOCK and r.player != p:
            return f"{r.turn} p{r.player}: draw stock"
        return f"{r.turn} p{r.player}: draw {src} {_TEXT[r.card]}"
    return f"{r.turn} p{r.player}: {action_text(r.action)}"


def information_state_string(state: AgentState, player: int) -> str:
    """The perfect-recall information state of ``player`` (see the module docstring)."""
    n = state.n_players
    p = player_index(player, n)
    head = f"rummy51 player {p} of {n}, first {state.first}"
    g = state.game
    if g is None:
        return f"{head}\ndealt {len(state.dealt)}: {cards_str(dealt_to(state, p))}"
    key = ("info", p)
    hist = g.history
    private = state._private
    cached = state.cached(key)
    if cached is not None and cached[0] <= len(hist) and cached[1] <= len(private):
        done, pdone, text = cached
    else:
        deal = cast(ChanceRecord, hist[0])  # the deal
        hand = sorted(_initial_hand(state, deal.cards, p))
        bottom = _TEXT[deal.cards[-1]] if state.rules.bottom_card else "-"
        done, pdone, text = 1, 0, f"{head}\nhand {cards_str(hand)}\nbottom {bottom}"
    lines = [text]
    codec = state.codec
    for i in range(done, len(hist)):
        while pdone < len(private) and private[pdone][0] <= i:
            lines.append(_private_line(private[pdone], p, codec, g))
            pdone += 1
        line = _record_line(hist[i], p)
        if line:
            lines.append(line)
    while pdone < len(private):
        lines.append(_private_line(private[pdone], p, codec, g))
        pdone += 1
    text = "\n".join(x for x in lines if x)
    state.remember(key, (len(hist), pdone, text))
    if state._pending:
        return f"{text}\n{g.turn} p{g.current}: draw stock (pending)"
    return text


def _private_line(ev: tuple[int, int, int], p: int, codec: ActionCodec, g: GameState) -> str:
    _, q, a = ev
    if q != p:
        return ""
    if a == CANCEL:
        return f"p{q}: cancel"
    return f"p{q}: stage {codec.meld(a).text()}"


def _initial_hand(state: AgentState, deck: Sequence[int], p: int) -> list[int]:
    rules = state.rules
    k = (p - state.first) % state.n_players
    start = 0 if k == 0 else rules.hand_size + 1 + (k - 1) * rules.hand_size
    return list(deck[start:start + rules.hand_size + (1 if k == 0 else 0)])


def observation_string(state: AgentState, player: int) -> str:
    """What ``player`` sees now, as text (not perfect recall)."""
    n = state.n_players
    p = player_index(player, n)
    g = state.game
    if g is None:
        return f"player {p}: dealing, dealt {cards_str(dealt_to(state, p))}"
    lines = [f"player {p}, turn {g.turn}, round {g.round}, player {g.current} to "
             f"{g.phase.value}" + (" (stock draw pending)" if state._pending else ""),
             f"hand: {cards_str(g.hands[p])}"]
    if state.staged and g.current == p:
        lines.append("staged: " + " | ".join(state.codec.meld(i).text() for i in state.staged))
    for i, m in enumerate(g.table):
        lines.append(f"meld {i} (p{m.owner}): {meld_str(m)}")
    lines.append(f"discard pile: {cards_str(g.discard_pile)}")
    lines.append(f"bottom: {_TEXT[g.bottom] if g.bottom is not None else '-'}; "
                 f"stock: {g.stock_size}")
    lines.append("hand sizes: " + " ".join(str(len(h)) for h in g.hands)
                 + "; opened: " + " ".join("yes" if o else "no" for o in g.opened))
    known = known_cards(state)
    for q in range(n):
        if q != p and any(known[q]):
            held = [_TEXT[c] for c, k in enumerate(known[q]) if k for _ in range(k)]
            lines.append(f"p{q} holds {' '.join(held)}")
    ti = g.turn_info
    if g.phase is not Phase.OVER:
        flags = [f for f, on in (("must open", ti.must_open), ("bottom taken", ti.bottom),
                                 ("freed joker", ti.freed_joker),
                                 ("cancel used", not state.may_cancel and g.current == p))
                 if on]
        drawn = ""
        if ti.source is not None:
            card = ti.drawn
            shown = card is not None and (ti.source != STOCK or g.current == p)
            drawn = f"drew {_TEXT[card] if card is not None and shown else 'a card'} from the {ti.source}"
        lines.append("this turn: " + (", ".join([drawn] + flags if drawn else flags) or "-"))
    else:
        lines.append(f"over: {g.result}")
    return "\n".join(lines)
