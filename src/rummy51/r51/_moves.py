"""The checks of every Rummy 51 move, shared by ``GameState`` and ``PlayerView`` (a private module
made to be shared)."""
from __future__ import annotations

import abc
from collections import Counter
from collections.abc import Sequence
from typing import Any

from .. import solver
from ..cards import JOKER, card_text
from ..rules import RuleSet
from ._args import as_card, as_meld_id, rule_option
from .actions import (
    DISCARD,
    SOURCES,
    STOCK,
    Action,
    Discard,
    Draw,
    IllegalMove,
    LayDown,
    LayOff,
    Phase,
    SwapJoker,
    TurnInfo,
)
from .melds import (
    MeldError,
    TableMeld,
    go_out_melds,
    joker_meld_possible,
    joker_melds,
    lay_off,
    lay_off_candidates,
    lay_off_sides,
    make_meld,
    melds_in,
    opening_run,
    swap_joker,
    swap_targets,
)


# --------------------------------------------------------------------------- move rules
class _MoveRules:
    """The checks of every move, shared by ``GameState`` and ``PlayerView``: they read only
    what the player on turn may see (their hand, the table, the discard pile, the bottom
    card, who opened, this turn's ``TurnInfo``)."""

    rules: RuleSet
    n_players: int
    first: int
    phase: Phase
    turn: int
    current: int
    table: Sequence[TableMeld]
    opened: Sequence[bool]
    discard_pile: Sequence[int]
    bottom: int | None
    turn_info: TurnInfo

    @abc.abstractmethod
    def _hand(self) -> Sequence[int]:
        """The hand of the player on turn (GameState: the real one; PlayerView: its own)."""

    @property
    @abc.abstractmethod
    def stock_size(self) -> int:
        """Cards left in the stock."""

    @property
    def round(self) -> int:
        """The round of the deal (0-based): round r is turns r*n .. r*n + n - 1."""
        return self.turn // self.n_players

    @property
    def discard_top(self) -> int | None:
        """The card on top of the discard pile, or None."""
        return self.discard_pile[-1] if self.discard_pile else None

    def free_round(self) -> bool:
        """Whether taking the discard is free for an unopened player this turn
        (docs/rules.md 5.4: the first round; option ``rules.free_discard_rounds``). With
        ``rules.first_player_free_take`` the first player's rounds count from their first
        drawing turn, so their turn n is free too."""
        free = rule_option(self.rules, "free_discard_rounds", 1)
        if (rule_option(self.rules, "first_player_free_take", False) and free > 0
                and self.current == self.first):
            free += 1
        return self.round < free

    # ------------------------------------------------------------------ helpers
    def _in_phase(self, phase: Phase, what: str) -> None:
        if self.phase is Phase.OVER:
            raise IllegalMove("5.6", f"cannot {what}: the deal is over")
        if self.phase is not phase:
            if phase is Phase.DRAW:
                if self.turn == 0 and self.turn_info.source is None:
                    raise IllegalMove("5.2", f"cannot {what}: the first player does not draw in "
                                             "the first turn, they only discard (and may open)")
                raise IllegalMove("5.3", f"cannot {what}: the player has already drawn this turn")
            raise IllegalMove("5.3", f"cannot {what}: the turn starts with a draw "
                                     "(from the stock or the discard pile)")

    def _has(self, hand: Sequence[int], card: int, what: str) -> None:
        if card not in hand:
            raise IllegalMove("4", f"cannot {what}: {card_text(card)} is not in the hand of "
                                   f"player {self.current}")

    def _common_play(self, what: str) -> None:
        """Lay-offs and swaps: an opened player, not in a bottom-card turn, no joker waiting."""
        ti = self.turn_info
        if not self.opened[self.current]:
            raise IllegalMove("4", f"cannot {what}: only a player who has opened may lay off or "
                                   "swap jokers")
        if ti.bottom:
            raise IllegalMove("5.7", f"cannot {what}: the bottom card was taken to win by hand; "
                                     "lay down all but one card and discard it")
        if ti.freed_joker:
            raise IllegalMove("5.5", f"cannot {what}: the swapped joker must first go into a new "
                                     "meld (lay it down)")

    def _meld(self, meld_id: Any) -> TableMeld:
        try:
            i = as_meld_id(meld_id)
        except ValueError as e:
            raise IllegalMove("engine", str(e)) from None
        if not 0 <= i < len(self.table):
            raise IllegalMove("engine", f"there is no meld {meld_id} on the table "
                                        f"(ids 0..{len(self.table) - 1})")
        return self.table[i]

    def _finishable(self, rest: Sequence[int]) -> bool:
        """Whether ``rest`` can still all be laid down but one card (bottom-card turns)."""
        if len(rest) == 1:
            return True
        if len(rest) < 4:
            return False
        return go_out_melds(rest, self.rules) is not None

    # ------------------------------------------------------------------ draw
    def verify_draw(self, source: str = STOCK) -> int:
        """Raise ``IllegalMove`` unless the player on turn may draw from ``source``; return the
        card they would get."""
        if source not in SOURCES:
            raise IllegalMove("5.3", f"{source!r} is not a pile: draw from 'stock', 'discard' "
                                     "or 'bottom'")
        if self.phase is not Phase.DRAW:
            self._in_phase(Phase.DRAW, f"draw from the {source}")
        p = self.current
        hand = self._hand()
        if source == STOCK:
            if self.stock_size == 0:  # pragma: no cover - refilled or ended at the turn's start
                raise IllegalMove("5.8", "the stock is empty")
            return -1
        if source == DISCARD:
            top = self.discard_top
            if top is None:
                raise IllegalMove("5.3", "the discard pile is empty")
            if self.opened[p] or self.free_round():
                return top
            must = top if self.rules.discard_card_must_meld else None
            if not solver.can_open(list(hand) + [top], self.rules, keep=1, must_use=must):
                extra = " using that card" if must is not None else ""
                raise IllegalMove(
                    "5.4", f"cannot take {card_text(top)} from the discard pile: after the first "
                           f"round a player who has not opened may take it only to open in this "
                           f"turn{extra}, and this hand cannot open with it")
            return top
        # the bottom card
        if not self.rules.bottom_card or self.bottom is None:
            raise IllegalMove("5.1", "there is no bottom card (rules.bottom_card is off, or it "
                                     "was taken)")
        if self.opened[p]:
            raise IllegalMove("5.7", "the bottom card may be taken only to win by hand, and "
                                     f"player {p} has already opened")
        if not solver.can_go_out(list(hand) + [self.bottom], self.rules):
            raise IllegalMove("5.7", f"the bottom card {card_text(self.bottom)} may be taken only "
                                     "to win by hand, and this hand cannot go out with it")
        return self.bottom

    def can_draw(self, source: str = STOCK) -> bool:
        try:
            self.verify_draw(source)
        except IllegalMove:
            return False
        return True

    # ------------------------------------------------------------------ lay down
    def verify_lay_down(self, melds: Any, stand_ins: Any = None) -> tuple[list[TableMeld], int]:
        """Raise ``IllegalMove`` unless the player on turn may lay down ``melds``; return the
        table melds they become and their opening value."""
        action = melds if isinstance(melds, LayDown) else LayDown(melds, stand_ins)
        self._in_phase(Phase.PLAY, "lay down melds")
        p = self.current
        ti = self.turn_info
        hand = self._hand()
        if not action.melds:
            raise IllegalMove("3", "a lay-down needs at least one meld")
        built = []
        for i, cards in enumerate(action.melds):
            si = action.stand_ins[i] if action.stand_ins is not None else None
            try:
                built.append(make_meld(cards, self.rules, owner=p, stand_ins=si))
            except MeldError as e:
                raise IllegalMove("3", str(e)) from None
        used = Counter(c for m in action.melds for c in m)
        have = Counter(hand)
        for c, n in used.items():
            if have[c] < n:
                raise IllegalMove("4", f"cannot lay down: the melds use {n} x {card_text(c)} but "
                                       f"player {p} holds {have[c]}")
        n_used = sum(used.values())
        if n_used >= len(hand):
            raise IllegalMove("4", f"cannot lay down {n_used} of {len(hand)} cards: a card must "
                                   "stay in the hand for the discard")
        # each meld is worth what it stands for as laid: a joker's named stand-in counts
        # (docs/rules.md section 4); unnamed, the reading worth the most
        value = sum(m.value(self.rules) for m in built)
        if not self.opened[p]:
            if value < self.rules.threshold:
                raise IllegalMove("4", f"an opening must be worth at least {self.rules.threshold} "
                                       f"(rules.threshold); these melds are worth {value}")
            if not any(opening_run(m, self.rules) for m in built):
                raise IllegalMove("4", "an opening must hold a run" + (
                    " without a joker" if self.rules.opening_run == "pure_run" else "")
                    + f" (rules.opening_run = {self.rules.opening_run!r})")
            taken = ti.taken
            if ti.must_open and self.rules.discard_card_must_meld and taken not in used:
                assert taken is not None  # must_open is set by a draw from the discard pile
                raise IllegalMove("5.4", f"the card taken from the discard pile "
                                         f"({card_text(taken)}) must be in the opening melds "
                                         "(rules.discard_card_must_meld)")
        if ti.freed_joker and used[JOKER] < 1:
            raise IllegalMove("5.5", "the swapped joker must go into a new meld: lay down a meld "
                                     "holding it")
        if ti.bottom:
            rest = list(hand)
            for c in used.elements():
                rest.remove(c)
            if not self._finishable(rest):
                raise IllegalMove("5.7", "the bottom card was taken to win by hand: after this "
                                         "lay-down the rest of the hand could not all be laid "
                                         "down but one card")
        return built, value

    def can_lay_down(self, melds: Any, stand_ins: Any = None) -> bool:
        try:
            self.verify_lay_down(melds, stand_ins)
        except (IllegalMove, ValueError):
            return False
        return True

    # ------------------------------------------------------------------ lay off
    def verify_lay_off(self, card: Any, meld_id: int, side: str | None = None) -> TableMeld:
        """Raise ``IllegalMove`` unless the player on turn may lay ``card`` off on meld
        ``meld_id``; return the meld it would become."""
        card = as_card(card)
        what = f"lay off {card_text(card)}"
        self._in_phase(Phase.PLAY, what)
        self._common_play(what)
        hand = self._hand()
        self._has(hand, card, what)
        if len(hand) <= 1:
            raise IllegalMove("5.6", "the last card must be discarded: it may not be laid off")
        meld = self._meld(meld_id)
        try:
            return lay_off(meld, card, self.rules, side)
        except MeldError as e:
            raise IllegalMove("3", str(e)) from None

    def can_lay_off(self, card: Any, meld_id: int, side: str | None = None) -> bool:
        try:
            self.verify_lay_off(card, meld_id, side)
        except (IllegalMove, ValueError):
            return False
        return True

    # ------------------------------------------------------------------ joker swap
    def verify_swap_joker(self, card: Any, meld_id: int) -> TableMeld:
        """Raise ``IllegalMove`` unless the player on turn may give ``card`` for the joker of
        meld ``meld_id``; return the meld it would become."""
        card = as_card(card)
        what = f"swap {card_text(card)} for a joker"
        self._in_phase(Phase.PLAY, what)
        self._common_play(what)
        hand = self._hand()
        self._has(hand, card, what)
        meld = self._meld(meld_id)
        try:
            new = swap_joker(meld, card, self.rules)
        except MeldError as e:
            raise IllegalMove("5.5", str(e)) from None
        after = list(hand)
        after.remove(card)
        after.append(JOKER)
        if not joker_meld_possible(after, self.rules):
            raise IllegalMove("5.5", "the freed joker must go into a new meld this turn, and no "
                                     "new meld with it (keeping a card to discard) can be made "
                                     "from this hand")
        return new

    def can_swap_joker(self, card: Any, meld_id: int) -> bool:
        try:
            self.verify_swap_joker(card, meld_id)
        except (IllegalMove, ValueError):
            return False
        return True

    # ------------------------------------------------------------------ discard
    def verify_discard(self, card: Any) -> None:
        """Raise ``IllegalMove`` unless the player on turn may discard ``card``."""
        card = as_card(card)
        if self.phase is not Phase.PLAY:
            self._in_phase(Phase.PLAY, f"discard {card_text(card)}")
        hand = self._hand()
        if card not in hand:
            self._has(hand, card, f"discard {card_text(card)}")
        ti = self.turn_info
        p = self.current
        if ti.freed_joker:
            raise IllegalMove("5.5", "the swapped joker must go into a new meld before the discard")
        if ti.must_open and not self.opened[p]:
            taken = ti.taken
            assert taken is not None  # must_open is set by a draw from the discard pile
            raise IllegalMove("5.4", f"player {p} took {card_text(taken)} from the discard pile "
                                     "without having opened: they must open before discarding")
        if ti.bottom and len(hand) > 1:
            raise IllegalMove("5.7", "the bottom card was taken to win by hand: lay down all but "
                                     "one card before discarding")
        if (ti.source == DISCARD and card == ti.drawn and len(hand) > 1 and hand.count(card) == 1
                and not rule_option(self.rules, "discard_taken_card", False)):
            raise IllegalMove("engine", f"the card just taken from the discard pile "
                                        f"({card_text(card)}) may not be discarded in the same turn "
                                        "(unless it is the last card, or the hand holds its twin)")

    def can_discard(self, card: Any) -> bool:
        try:
            self.verify_discard(card)
        except (IllegalMove, ValueError):
            return False
        return True

    # ------------------------------------------------------------------ any action
    def verify(self, action: Action) -> Any:
        """Raise ``IllegalMove`` unless ``action`` is legal now."""
        if isinstance(action, Draw):
            return self.verify_draw(action.source)
        if isinstance(action, LayDown):
            return self.verify_lay_down(action)
        if isinstance(action, LayOff):
            return self.verify_lay_off(action.card, action.meld_id, action.side)
        if isinstance(action, SwapJoker):
            return self.verify_swap_joker(action.card, action.meld_id)
        if isinstance(action, Discard):
            return self.verify_discard(action.card)
        raise TypeError(f"not an action: {action!r}")

    def is_legal(self, action: Action) -> bool:
        try:
            self.verify(action)
        except (IllegalMove, ValueError):
            return False
        return True

    # ------------------------------------------------------------------ legal actions
    def legal_actions(self) -> list:
        """The moves of the player on turn (OpenSpiel).

        Complete for draws, lay-offs (each fitting side), joker swaps and discards; for
        lay-downs it lists every single meld the hand can make once the player has opened
        (jokers only where a natural card is missing), and before opening the canonical
        openings: the solver's best opening and, when the hand can go out at once, a
        collection laying down all but one card. ``apply`` accepts any other legal
        lay-down too (several melds at once, other stand-ins)."""
        if self.phase is Phase.OVER:
            return []
        if self.phase is Phase.DRAW:
            return [Draw(s) for s in SOURCES if self.can_draw(s)]
        return self._legal_plays()

    def _openings(self, hand: list[int]) -> list[LayDown]:
        """Canonical openings of an unopened hand (see ``legal_actions``)."""
        rules = self.rules
        ti = self.turn_info
        must = ti.taken if (ti.must_open and rules.discard_card_must_meld) else None
        out = []
        if not ti.bottom:
            best = solver.best_opening(hand, rules, keep=1, must_use=must)
            if best.can_open:
                out.append(LayDown.of(best.melds))
                if len(best.leftover) == 1:
                    return out  # the best opening already goes out
        if len(hand) >= 4 and solver.can_go_out(hand, rules):
            melds = go_out_melds(hand, rules, opening=True)
            if melds is not None and (must is None or any(must in m.cards for m in melds)):
                lay = LayDown.of(melds)
                if lay not in out:
                    out.append(lay)
        return out

    def _legal_plays(self) -> list:  # noqa: C901  the legal moves section by section of the rules (freed joker, openings, lay-downs, lay-offs, swaps, discards) in the order the golden cases pin
        hand = list(self._hand())
        p = self.current
        ti = self.turn_info
        opened = self.opened[p]
        rules = self.rules
        out: list = []
        if ti.freed_joker:
            out = [LayDown.of([m]) for m in melds_in(hand, rules) if m.jokers]
            for m in joker_melds(hand, rules):
                lay = LayDown.of([m])
                if lay not in out:
                    out.append(lay)
            return out
        if not opened:
            out.extend(self._openings(hand))
        elif len(hand) > 3:
            for m in melds_in(hand, rules):
                lay = LayDown.of([m])
                if ti.bottom:
                    rest = list(hand)
                    for c in m.cards:
                        rest.remove(c)
                    if not self._finishable(rest):
                        continue
                out.append(lay)
        if opened and not ti.bottom and len(hand) > 1:
            held = set(hand)
            for i, meld in enumerate(self.table):
                for c in sorted(held & lay_off_candidates(meld, rules)):
                    for side in lay_off_sides(meld, c, rules):
                        out.append(LayOff(c, i, side))
            for i, meld in enumerate(self.table):
                if meld.jokers:
                    for c in swap_targets(meld):
                        if c in hand:
                            after = list(hand)
                            after.remove(c)
                            after.append(JOKER)
                            if joker_meld_possible(after, rules):
                                out.append(SwapJoker(c, i))
        if ti.must_open and not opened:
            return out
        if ti.bottom and len(hand) > 1:
            return out
        may_taken = rule_option(rules, "discard_taken_card", False)
        for c in sorted(set(hand)):
            if (ti.source == DISCARD and c == ti.drawn and len(hand) > 1 and hand.count(c) == 1
                    and not may_taken):
                continue
            out.append(Discard(c))
        return out
