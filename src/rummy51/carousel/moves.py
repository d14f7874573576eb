"""The checks of every Carousel move and the scoring of rounds and games, shared by the
engine's ``GameState`` and ``PlayerView`` (docs/rules-carousel.md sections 3-6).

``check_meld_play(table, hand, melds, rules)`` is the exact test of a meld play
(section 4): every table card kept, every new meld valid, table jokers keep their
declared card unless a natural copy on the table after the play replaces them (at
most as many replaced jokers declared *d* as natural *d* cards on the new table), at
least one hand card placed and only cards of the hand. ``score_round`` and
``final_scores`` are sections 5 and 6.

>>> from rummy51.carousel import CarouselRules, parse_table
>>> new, played = check_meld_play(parse_table("4S 5S JK(6S)"), [5, 30],
...                               ["4S 5S 6S", "4D 5D JK(6D)"], CarouselRules())
Traceback (most recent call last):
...
rummy51.carousel.actions.IllegalMove: the play needs 4D, which the hand does not hold (docs/rules-carousel.md 4)
>>> score_round((3, 10, 12), knocker=0, how="knock", rules=CarouselRules(players=3))
((0,), (16, 0, 0), False)
"""  # noqa: E501 (the doctest's exception line is as long as the message it checks)
from __future__ import annotations

import abc
from collections import Counter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..cards import JOKER, card_text, cards_text
from .actions import Action, Draw, IllegalMove, Knock, Meld, Pass, Phase, TurnInfo, meld_items, short_repr
from .rules import CarouselRules
from .table import TableMeld, parse_meld

if TYPE_CHECKING:
    from .solver import Play

__all__ = ["check_meld_play", "score_round", "final_scores", "MoveRules"]


# --------------------------------------------------------------------------- meld plays
def _new_table(melds: Any, rules: CarouselRules) -> list[TableMeld]:
    out = []
    for m in meld_items(melds):
        slots: str | list[Any]  # what parse_meld reads: text, or codes and [JOKER, declared]
        if isinstance(m, TableMeld):
            slots = [[JOKER, r] if c == JOKER else c for c, r in zip(m.cards, m.represents, strict=True)]
        elif isinstance(m, str):
            slots = m
        else:
            slots = [list(s) if isinstance(s, tuple) else s for s in m]
        try:
            out.append(parse_meld(slots, rules))
        except (ValueError, TypeError) as e:
            raise IllegalMove("2", f"the new table is not all valid melds: {e}") from None
    return out


def check_meld_play(table: Sequence[TableMeld], hand: Sequence[int], melds: Any,
                    rules: CarouselRules) -> tuple[list[TableMeld], tuple[int, ...]]:
    """``(new table, hand cards played)`` of a legal meld play, else ``IllegalMove``
    naming the section broken. ``melds``: the whole table after the play (a ``Meld``,
    or melds as ``Meld`` accepts them)."""
    new = _new_table(melds, rules)
    old_nat = Counter(c for m in table for c in m.cards if c != JOKER)
    new_nat = Counter(c for m in new for c in m.cards if c != JOKER)
    missing = old_nat - new_nat
    if missing:
        raise IllegalMove("4", "nothing is taken off the table: the play leaves out "
                               f"{cards_text(sorted(missing.elements()))}")
    old_decl = Counter(r for m in table for r in m.jokers)
    new_decl = Counter(r for m in new for r in m.jokers)
    n_old, n_new = sum(old_decl.values()), sum(new_decl.values())
    if n_new < n_old:
        raise IllegalMove("4", f"nothing is taken off the table: {n_old} jokers were on it, "
                               f"the play keeps {n_new} (a replaced joker is used again, "
                               "never taken into a hand)")
    for d, k in sorted(old_decl.items()):
        replaced = k - min(k, new_decl.get(d, 0))
        if replaced > new_nat.get(d, 0):
            raise IllegalMove("4", f"a table joker declared as {card_text(d)} keeps its card "
                                   f"unless a natural {card_text(d)} replaces it: {replaced} "
                                   f"changed their card, {new_nat.get(d, 0)} natural "
                                   f"{card_text(d)} on the table after the play")
    from_hand = new_nat - old_nat
    hand_count = Counter(hand)
    lacking = from_hand - hand_count
    if lacking:
        raise IllegalMove("4", f"the play needs {cards_text(sorted(lacking.elements()))}, "
                               "which the hand does not hold")
    hand_jokers = n_new - n_old
    if hand_jokers > hand_count.get(JOKER, 0):
        raise IllegalMove("4", f"the play has {hand_jokers} jokers more than the table, but "
                               f"the hand holds {hand_count.get(JOKER, 0)}")
    played = tuple(sorted(from_hand.elements())) + (JOKER,) * hand_jokers
    if not played:
        raise IllegalMove("4", "the hand contributes at least one card to a meld play")
    return new, played


# --------------------------------------------------------------------------- scoring
def score_round(points: Sequence[int], knocker: int | None, how: str,
                rules: CarouselRules) -> tuple[tuple[int, ...], tuple[int, ...], bool]:
    """``(winners, scores, undercut)`` of a round (section 5).

    ``points``: every hand's count; ``knocker``: who knocked or went out (None when the
    stock ran out); ``how``: ``"knock"``, ``"out"`` or ``"stock"``. The lowest count
    wins; a knocker who shares it does not win and the others with it do; winners who
    did not knock score the undercut bonus when there was a knocker; going out adds
    its bonus; every winner scores the sum of the differences to every other player."""
    n = len(points)
    low = min(points)
    tied = [p for p in range(n) if points[p] == low]
    if knocker is not None and knocker in tied and len(tied) > 1:
        winners = [p for p in tied if p != knocker]
    else:
        winners = tied
    undercut = knocker is not None and knocker not in winners
    scores = [0] * n
    for w in winners:
        s = sum(points[o] - points[w] for o in range(n) if o != w)
        if undercut:
            s += rules.undercut_bonus
        if how == "out" and w == knocker:
            s += rules.going_out_bonus
        scores[w] = s
    return tuple(winners), tuple(scores), undercut


def final_scores(totals: Sequence[int], rounds_won: Sequence[int],
                 rules: CarouselRules) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(final totals, game winners)`` when some total reached ``rules.target_score``
    (section 6): the game bonus to each player who reached it, the round bonus per round
    won to the others (to everyone with ``round_bonus_for_all``); the highest final total
    wins, and players who share it all win (``rules.game_tie`` "share"; with "play_on"
    the engine deals on instead while the winners are more than one)."""
    out = []
    for t, w in zip(totals, rounds_won, strict=True):
        reached = t >= rules.target_score
        bonus = rules.game_bonus if reached else 0
        if not reached or rules.round_bonus_for_all:
            bonus += rules.round_won_bonus * w
        out.append(t + bonus)
    best = max(out)
    return tuple(out), tuple(p for p, t in enumerate(out) if t == best)


# --------------------------------------------------------------------------- move rules
_DRAW, _KNOCK, _PASS = Draw(), Knock(), Pass()


class MoveRules:
    """The checks of every move, shared by ``GameState`` and ``PlayerView``: they read
    only what the player on turn may see (their hand, the table, the stock's size, the
    turn so far)."""

    rules: CarouselRules
    phase: Phase
    current: int
    table: Sequence[TableMeld]
    turn_info: TurnInfo

    @abc.abstractmethod
    def _hand(self) -> Sequence[int]:
        """The hand of the player on turn."""

    def _not_over(self, what: str) -> None:
        if self.phase is Phase.OVER:
            raise IllegalMove("6", f"cannot {what}: the game is over")

    # ------------------------------------------------------------------ draw
    def verify_draw(self) -> None:
        """Raise ``IllegalMove`` unless the player on turn may draw now (3.3, 3.5)."""
        self._not_over("draw")
        if self.phase is Phase.NO_DRAW:
            why = ("this is a last turn after the stock ran out" if self.turn_info.last
                   else "the stock ran out this turn, so the drawing stopped")
            raise IllegalMove("3.5", f"cannot draw: {why}")
        if self.phase is Phase.END:
            why = "the player melded" if self.turn_info.melded else "three cards were drawn"
            raise IllegalMove("3.3", f"cannot draw: {why}; the turn is at its end")

    def can_draw(self) -> bool:
        try:
            self.verify_draw()
        except IllegalMove:
            return False
        return True

    # ------------------------------------------------------------------ meld
    def verify_meld(self, melds: Any) -> tuple[list[TableMeld], tuple[int, ...]]:
        """``(new table, cards played)`` if the play ``melds`` (the whole new table) is
        legal now, else ``IllegalMove`` naming the rule (3.3 when, section 4 what)."""
        self._not_over("meld")
        if self.phase is Phase.DRAW:
            raise IllegalMove("3.3", "cannot meld: the turn starts with a draw")
        if self.phase is Phase.END:
            if self.turn_info.melded:
                raise IllegalMove("3.3", "cannot meld: a player melds no more than once in a turn")
            raise IllegalMove("3.3", "cannot meld: the third card was drawn, and after it the "
                                     "player may not meld in this turn")
        return check_meld_play(self.table, self._hand(), melds, self.rules)

    def can_meld(self, melds: Any) -> bool:
        try:
            self.verify_meld(melds)
        except IllegalMove:
            return False
        return True

    # ------------------------------------------------------------------ knock
    def hand_points(self) -> int:
        """The count of the hand of the player on turn (section 1)."""
        return self.rules.hand_points(self._hand())

    def verify_knock(self) -> None:
        """Raise ``IllegalMove`` unless the player on turn may knock now (3.4)."""
        self._not_over("knock")
        ti = self.turn_info
        if ti.last and not self.rules.last_turn_knock:
            raise IllegalMove("3.5", "cannot knock in a last turn after the stock ran out: the "
                                     "round is scored without a knocker")
        if self.phase is Phase.DRAW or self.phase is Phase.MELD:
            raise IllegalMove("3.4", "cannot knock yet: a player knocks at the end of their turn "
                                     "(after melding, or after the third draw)")
        pts = self.hand_points()
        if pts > self.rules.knock_limit:
            raise IllegalMove("3.4", f"cannot knock: the hand is worth {pts} points, more than "
                                     f"the limit of {self.rules.knock_limit}")

    def can_knock(self) -> bool:
        try:
            self.verify_knock()
        except IllegalMove:
            return False
        return True

    # ------------------------------------------------------------------ pass
    def verify_pass(self) -> None:
        """Raise ``IllegalMove`` unless the player may end the turn now (at its end, or
        with no draw left)."""
        self._not_over("pass")
        if self.phase is Phase.DRAW or self.phase is Phase.MELD:
            raise IllegalMove("3.3", "cannot end the turn: a player who has not melded draws "
                                     "again (up to three cards)")

    def can_pass(self) -> bool:
        try:
            self.verify_pass()
        except IllegalMove:
            return False
        return True

    # ------------------------------------------------------------------ any action
    def verify(self, action: Action) -> Any:
        """``verify_x`` of an action object."""
        if isinstance(action, Draw):
            return self.verify_draw()
        if isinstance(action, Meld):
            return self.verify_meld(action)
        if isinstance(action, Knock):
            return self.verify_knock()
        if isinstance(action, Pass):
            return self.verify_pass()
        raise IllegalMove("engine", f"action must be a Carousel action (Draw(), Meld(...), "
                                    f"Knock(), Pass()), got {short_repr(action)}")

    def is_legal(self, action: Action) -> bool:
        try:
            self.verify(action)
        except IllegalMove:
            return False
        return True

    def legal_actions(self) -> list[Action]:
        """The legal moves of the player on turn: every draw, knock and pass, and, when a
        meld play exists, one of them (the solver's best play: the plays are too many to
        list). ``[]`` when the game is over."""
        ph = self.phase
        if ph is Phase.OVER:
            return []
        if ph is Phase.DRAW:
            return [_DRAW]
        out: list[Action] = []
        if ph is Phase.MELD:
            out.append(_DRAW)
        if ph is Phase.MELD or ph is Phase.NO_DRAW:
            play = self.best_play()
            if play.can_meld:
                out.append(Meld(play.melds))
            out.append(_PASS) if ph is Phase.NO_DRAW else None
        if ph is Phase.END:
            out.append(_PASS)
        if (ph is Phase.END or ph is Phase.NO_DRAW) and self.can_knock():
            out.append(_KNOCK)
        return out

    def best_play(self) -> Play:
        """The solver's best play (``rummy51.carousel.best_play``) of the player on turn."""
        from .solver import best_play

        return best_play(list(self.table), list(self._hand()), self.rules, game_ties=True)
