"""``rummy51 carousel play``: play a game of Carousel against the bots in the terminal.

You sit in seat 0. Each turn starts with your draw; then you see the totals, the stock's
size, every hand's size, the table with its melds numbered and each joker's card, and
your hand, sorted, with its points. You name the **hand cards to add** and the solver
arranges the whole table around them (``rummy51.carousel.play_cards``)::

    meld 7S 9H JK     play these cards (the table is rearranged as needed)
    meld best         play the cards of the best play
    best              show the best play as a hint (the cards, the points it leaves)
    hint              rank the moves of this decision by rollouts (about a second)
    draw              draw again (up to three cards a turn, while you have not melded)
    knock             end the round (at the end of your turn, 5 points or fewer)
    pass              end your turn
    help              these lines
    quit              leave the game (end of input does too)

A move the rules refuse is one line naming the rule (``docs/rules-carousel.md 4``) and
the game goes on. The bots' moves are shown as they play, one line per turn, and every
round's result. Commands are read one per line from stdin, so a game can be scripted
(``printf 'meld best\\nknock\\ndraw\\npass\\n%.0s' {1..2000} | rummy51 carousel play
--seed 1``); with a pipe there is no prompt and each command read is echoed as
``> command``.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..cards import MAX_TEXT, cards_text, shown
from ..carousel.actions import (
    DealRecord,
    DrawRecord,
    IllegalMove,
    KnockRecord,
    MeldRecord,
    PassRecord,
    Phase,
    Record,
    RoundRecord,
    RoundResult,
)
from ._common import read_capped_line
from .carousel_options import add_rule_options, int_option, rules_from_args

if TYPE_CHECKING:
    from ..carousel.bots import Bot
    from ..carousel.engine import GameState

__all__ = ["add_play_parser", "run_play", "HELP"]

HELP = """\
commands:
  meld 7S 9H JK   play these hand cards (the solver arranges the whole table around them)
  meld 7S JK(KC)  the same, each joker standing for the card named; a table joker a
                  natural frees, with its new card: meld 7D JK(7D->KC) (the hints write
                  every play so: typed back, it makes exactly that play)
  meld best       play the cards of the best play
  best            show the best play as a hint
  hint            rank your moves now by rollouts to the end of the round (about a second)
  draw            draw again (up to three cards a turn, while you have not melded)
  knock           end the round at the end of your turn (hand within the knock limit)
  pass            end your turn
  help            this list
  quit            leave the game (end of input does too)"""


def add_play_parser(subparsers: argparse._SubParsersAction) -> argparse.ArgumentParser:
    """Register ``play`` on the ``carousel`` subparsers object."""
    from ..carousel.bots import BOTS

    p = subparsers.add_parser(
        "play", help="play a game of Carousel against the bots in the terminal",
        description="Play a game of Carousel (rounds to the target score) in seat 0 against "
                    "the bots: name the hand cards to add (meld 7S 9H JK) and the solver "
                    "arranges the table; best shows the best play, hint ranks the moves by "
                    "rollouts. Commands are read from stdin, one per line, so a game can be "
                    "scripted.",
        epilog="example: rummy51 carousel play --bots greedy,careful --seed 7")
    p.add_argument("--bots", default="greedy,careful", metavar="LIST",
                   help=f"the bots in seats 1, 2, ...: {', '.join(BOTS)} (default "
                        "greedy,careful); with --players, one name fills every seat")
    p.add_argument("--players", type=int_option("--players"), default=None, metavar="N",
                   help="players, you included (default: 1 + the number of --bots)")
    p.add_argument("--seed", type=int_option("--seed"), default=None, metavar="S",
                   help="seed of the game (default: fresh, printed)")
    p.add_argument("--rounds", type=int_option("--rounds"), default=None, metavar="N",
                   help="stop after N rounds (default: play the whole game)")
    p.add_argument("--unicode", action="store_true", help="suits as ♠♥♦♣")
    add_rule_options(p)
    p.set_defaults(_carousel_run=run_play)
    return p


def _bots(args: argparse.Namespace) -> list[str]:
    from ..studies._carousel_plan import parse_bots

    names = [b.strip() for b in args.bots.split(",")]
    if not all(names):
        raise ValueError(f"--bots {args.bots!r} is not a comma list of bot names")
    if args.players is not None:
        if not 2 <= args.players <= 6:
            raise ValueError(f"--players must be 2..6 (you and one to five bots), got "
                             f"{args.players}")
        if len(names) == 1:
            names = names * (args.players - 1)
        elif len(names) != args.players - 1:
            raise ValueError(f"--bots names {len(names)} bots, but --players {args.players} "
                             f"needs {args.players - 1} (or one name for every seat)")
    try:
        return list(parse_bots(names, None if len(names) < 2 else len(names))[0][:len(names)])
    except ValueError as e:
        raise ValueError(str(e).replace("bots: ", "--bots: ", 1)) from None


def run_play(args: argparse.Namespace) -> int:
    """Execute a parsed ``carousel play`` namespace; returns the exit status."""
    import numpy as np

    from ..carousel.bots import BOTS, make_bot
    from ..carousel.engine import GameState

    names = _bots(args)
    players = 1 + len(names)
    if not 2 <= players <= 6:
        raise ValueError(f"--bots: {len(names)} bots make {players} players; Carousel takes "
                         "2..6 (one to five bots)")
    if args.rounds is not None and args.rounds < 1:
        raise ValueError(f"--rounds must be 1 or more, got {args.rounds}")
    if args.seed is not None and args.seed < 0:
        raise ValueError(f"--seed must be 0 or more, got {args.seed}")
    rules = rules_from_args(args, players)
    for n in names:  # a bot that plays only some tables (ppo: 2 players) says so now
        getattr(BOTS.get(n.partition(":")[0]), "check_table", lambda r, k: None)(rules, players)
    state = GameState.new(rules, seed=args.seed)
    root = np.random.SeedSequence(state.seed if isinstance(state.seed, int) else None)
    bots = [make_bot(n, seed=ss) for n, ss in zip(names, root.spawn(len(names)), strict=True)]
    return _Game(state, bots, names, args.unicode, args.rounds).run()


class _Game:
    """The loop of one game: the bots' moves, the player's commands, the display."""

    def __init__(self, state: GameState, bots: Sequence[Bot], names: Sequence[str], unicode: bool,
                 rounds: int | None) -> None:
        self.state = state
        self.bots = bots
        self.names = names
        self.u = unicode
        self.rounds = rounds
        self.shown = 0           # history records already shown
        self.tty = _isatty(sys.stdin)
        self.drawn: list[int] = []   # the cards drawn by the player this turn
        self.turn_key: tuple[int, int] = (-1, -1)
        self.hints = 0           # rollout hints asked (each seeded from the game and this)

    # ------------------------------------------------------------------ words
    def who(self, p: int) -> str:
        return "you" if p == 0 else f"seat {p} ({self.names[p - 1]})"

    def seats(self, values: Iterable[object]) -> str:
        return ", ".join(f"{'you' if p == 0 else f'seat {p}'} {v}" for p, v in enumerate(values))

    def cards(self, codes: Iterable[int]) -> str:
        return cards_text(sorted(codes), self.u)

    # ------------------------------------------------------------------ the loop
    def run(self) -> int:
        s = self.state
        names = ", ".join(f"{n} (seat {i})" for i, n in enumerate(self.names, 1))
        print(f"rummy51 carousel play: you are seat 0 against {names}; seed {s.seed} "
              f"(repeat with --seed {s.seed}); the game ends at {s.rules.target_score} points. "
              "Type help for the commands.")
        while not s.over and (self.rounds is None or len(s.rounds) < self.rounds):
            if s.current != 0:
                s.apply(self.bots[s.current - 1].choose(s.view(s.current)))
                continue
            self.show_history()
            if (s.round, s.turn) != self.turn_key:   # a turn of the player's starts
                self.turn_key = (s.round, s.turn)
                self.drawn = []
            if s.phase is Phase.DRAW:
                self.draw()
                continue
            if not self.ask():
                self.show_history()
                print("left the game")
                return 0
        self.show_history()
        if s.over:
            assert s.final is not None  # set when the game is over
            winners = " and ".join(self.who(p) for p in s.winners)
            print(f"game over after {len(s.rounds)} rounds: final totals (with the bonuses) "
                  f"{self.seats(s.final)}; {winners} won")
        else:
            print(f"stopped after {len(s.rounds)} round{'s' if len(s.rounds) != 1 else ''} "
                  f"(--rounds): totals {self.seats(s.totals)}")
        return 0

    def draw(self) -> None:
        n = len(self.state.history)
        rec = self.state.draw()
        self.shown = n + 1      # the player's own draw is not repeated
        if rec.card is None:
            print("you draw: the stock is empty, so the drawing stops")
        else:
            self.drawn.append(rec.card)

    # ------------------------------------------------------------------ history
    def show_history(self) -> None:
        """The moves of the bots, the deals and the round results since last shown,
        one line per bot turn."""
        hist = self.state.history
        turn: list[str] = []
        key = None
        for rec in hist[self.shown:]:
            k = (rec.round, rec.turn, rec.player)
            if turn and k != key:
                self._flush(key, turn)
                turn = []
            key = k
            if isinstance(rec, DealRecord):
                print(f"\nround {rec.round + 1}: {self.who(rec.dealer)} dealt; "
                      f"{self.who((rec.dealer + 1) % self.state.n_players)} "
                      f"play{'' if (rec.dealer + 1) % self.state.n_players == 0 else 's'} first")
            elif isinstance(rec, RoundRecord):
                self.show_round(rec.result)
            elif rec.player > 0:
                turn.append(self.move_text(rec))
        if turn:
            self._flush(key, turn)
        self.shown = len(hist)

    def _flush(self, key: tuple[int, int, int] | None, words: list[str]) -> None:
        if key is not None and key[2] > 0:
            print(f"  {self.who(key[2])}: {', '.join(words)}")

    def move_text(self, rec: Record) -> str:
        if isinstance(rec, DrawRecord):
            return "draws (the stock is empty)" if rec.empty else "draws"
        if isinstance(rec, MeldRecord):
            return f"melds {self.cards(rec.played)}" + (" and goes out" if rec.went_out else "")
        if isinstance(rec, KnockRecord):
            return f"knocks with {rec.points} points"
        if isinstance(rec, PassRecord):
            return "passes"
        return str(rec.action)

    def show_round(self, res: RoundResult) -> None:
        if res.knocker is None:
            how = "the stock ran out, no one knocked" if res.how == "stock" else res.how
        else:
            how = f"{self.who(res.knocker)} " + {"knock": "knocked", "out": "went out"}.get(
                res.how, res.how)
        winners = " and ".join(f"{self.who(w)} (+{res.scores[w]})" for w in res.winners)
        under = "; undercut" if res.undercut else ""
        print(f"round {res.round + 1} over: {how}{under}. Hands: {self.seats(res.points)} "
              f"points. Won by {winners}. Totals: {self.seats(self.state.totals)}")

    # ------------------------------------------------------------------ the player
    def show_position(self) -> None:
        s = self.state
        v = s.view(0)
        r = s.rules
        print()
        stock = f"{v.stock_count} card{'' if v.stock_count == 1 else 's'}"
        print(f"round {s.round + 1}, turn {s.turn + 1}; stock {stock}; totals "
              f"{self.seats(v.totals)} (to {r.target_score}); hands "
              f"{self.seats(v.hand_sizes)} cards")
        if v.table:
            print("table:")
            for i, m in enumerate(v.table, 1):
                print(f"  [{i}] {m.text(self.u)}")
        else:
            print("table: (empty)")
        pts = r.hand_points(v.hand)
        drawn = f"; you drew {self.cards(self.drawn)}" if self.drawn else ""
        print(f"your hand ({len(v.hand)} cards, {pts} points): {self.cards(v.hand)}{drawn}")
        print(self.phase_text())

    def phase_text(self) -> str:
        s = self.state
        v = s.view(0)
        r = s.rules
        pts = r.hand_points(v.hand)
        knock = (f"knock ({pts} points, limit {r.knock_limit})" if v.can_knock() else None)
        if v.phase in (Phase.MELD, Phase.NO_DRAW):
            from ..carousel.solver import can_meld

            melds = can_meld(list(v.table), list(v.hand), r)
        if v.phase is Phase.MELD:
            if not melds:
                return (f"no meld play exists: no card of your hand fits the table, nor a "
                        f"meld of your own; draw again ({v.turn_info.draws} of 3 drawn)")
            return (f"you may meld (meld CARDS; best or hint for a hint) or draw again "
                    f"({v.turn_info.draws} of 3 drawn)")
        if v.phase is Phase.NO_DRAW:
            why = "a last turn after the stock ran out" if v.turn_info.last else "the stock is empty"
            if not melds:
                return (f"no draw left ({why}) and no meld play exists: "
                        + (f"{knock} or pass" if knock else "pass"))
            return (f"no draw left ({why}): meld CARDS, "
                    + (f"{knock} " if knock else "") + "or pass")
        if knock:
            return f"the end of your turn: {knock} or pass"
        return (f"the end of your turn: pass (knocking needs {r.knock_limit} points or fewer, "
                f"you hold {pts})")

    def read(self) -> str | None:
        """One command line (None at the end of input). A line longer than
        ``cards.MAX_TEXT`` characters is refused unread (the rest of it skipped); piped
        commands are echoed, a long one cut."""
        if self.tty:
            sys.stdout.write("your move: ")
            sys.stdout.flush()
        line, too_long = read_capped_line(echo=not self.tty)
        if too_long:
            _refuse(f"a command line of more than {MAX_TEXT:,} characters is not read")
        return line

    def ask(self) -> bool:
        """Show the position and run commands until one moves the game (False: quit)."""
        self.show_position()
        while True:
            line = self.read()
            if line is None:
                return False
            words = line.split()
            if not words:
                continue
            cmd, rest = words[0].lower(), words[1:]
            if cmd in ("quit", "q", "exit"):
                return False
            try:
                if self.command(cmd, rest, line):
                    return True
            except IllegalMove as e:
                _refuse(str(e))
            except (ValueError, TypeError) as e:
                _refuse(" ".join(str(e).split()))

    def command(self, cmd: str, rest: list[str], line: str) -> bool:
        """Run one command; True when the game moved on."""
        s = self.state
        if cmd in ("help", "h", "?"):
            print(HELP)
            return False
        if cmd == "best":
            print(self.best_hint())
            return False
        if cmd == "hint":
            print(self.hint())
            return False
        if cmd in ("meld", "m"):
            return self.meld(rest)
        if cmd in ("draw", "d"):
            self.extra_args(cmd, rest)
            self.draw()
            if s.current == 0 and s.phase is not Phase.DRAW:
                self.show_position()
            return False
        if cmd in ("knock", "k"):
            self.extra_args(cmd, rest)
            pts = s.hand_points()
            n = len(s.history)
            s.knock()
            self.shown = n + 1
            print(f"you knock with {pts} points")
            return True
        if cmd in ("pass", "p"):
            self.extra_args(cmd, rest)
            n = len(s.history)
            s.pass_()
            self.shown = n + 1
            return True
        raise ValueError(f"unknown command {shown(line.split()[0], 40)}: type help for the "
                         "commands")

    @staticmethod
    def extra_args(cmd: str, rest: list[str]) -> None:
        if rest:
            raise ValueError(f"{cmd} takes no cards (got {shown(' '.join(rest))})")

    def hint(self) -> str:
        """The moves of the player's decision ranked by rollouts (``rummy51.analysis``,
        a budget of about a second); the solver's hint where the analysis has no choice
        to rank (one legal move, a last turn, rules its rollouts do not play)."""
        import numpy as np

        from ..analysis import format_decision
        from ..analysis.carousel import HINT_ROLLOUTS, HINT_SECONDS, analyse_position
        from ..carousel.bots import check_search_rules
        from ..carousel.solver import can_meld

        s = self.state
        v = s.view(0)
        ph = v.phase
        choice = not v.turn_info.last and (
            (ph is Phase.MELD and can_meld(list(v.table), list(v.hand), s.rules))
            or (ph is Phase.NO_DRAW and (v.can_knock() or can_meld(list(v.table), list(v.hand),
                                                                  s.rules)))
            or (ph is Phase.END and v.can_knock()))
        if not choice:
            return self.best_hint()
        try:
            check_search_rules(s.rules)
        except ValueError:
            return self.best_hint() + " (the rollouts do not play these rules)"
        self.hints += 1
        root = np.random.SeedSequence(s.seed if isinstance(s.seed, int) else None,
                                      spawn_key=(self.hints,))
        d = analyse_position(v, rollouts=HINT_ROLLOUTS, time=HINT_SECONDS,
                             seed=int(root.generate_state(1, np.uint64)[0]) >> 1)
        names = ["you"] + [f"seat {p}" for p in range(1, s.n_players)]
        return (f"hint: {d.best.move} (rollouts to the end of the round; equity: your round "
                f"score less the others' mean)\n" + format_decision(d, names))

    def best_hint(self) -> str:
        from ..carousel.notation import meld_text
        from ..carousel.solver import best_play

        s = self.state
        v = s.view(0)
        if v.phase is Phase.END:
            return "hint: knock" if v.can_knock() else "hint: pass"
        play = best_play(list(v.table), list(v.hand), s.rules)
        if not play.can_meld:
            other = "draw" if v.phase is Phase.MELD else ("knock" if v.can_knock() else "pass")
            return f"hint: no play places a card of your hand: {other}"
        then = ", then you may knock" if play.can_knock else ""
        text = meld_text(list(v.table), play.melds, self.u, s.rules)
        return f"hint: {text} (leaves {play.points_left} points in hand{then})"

    def meld(self, rest: list[str]) -> bool:
        from ..carousel.notation import meld_text, parse_meld_play
        from ..carousel.solver import best_play

        s = self.state
        v = s.view(0)
        if v.phase is Phase.DRAW or v.phase is Phase.END:
            s.verify_meld(list(s.table))   # the engine's refusal, naming the rule (3.3)
        if not rest:
            raise IllegalMove("4", "name the hand cards to add, like meld 7S 9H JK (best "
                                   "shows a play)")
        if [w.lower() for w in rest] == ["best"]:
            play = best_play(list(v.table), list(v.hand), s.rules)
            if not play.can_meld:
                raise IllegalMove("4", "no play places a card of your hand")
        else:   # the cards typed, each joker's card as named (one text, one play)
            play = parse_meld_play(" ".join(rest), list(v.table), list(v.hand), s.rules,
                                   name="meld")
        n = len(s.history)
        rec = s.meld(play.melds)
        self.shown = n + 1      # the meld is told here; a round it ends is shown next
        print(f"you {meld_text(list(v.table), rec.table, self.u, s.rules)}"
              + (" and go out" if rec.went_out else ""))
        if s.current == 0 and not s.over and s.round == v.round and s.phase is not Phase.DRAW:
            self.show_position()
            return False
        print("table: " + "  ".join(f"[{i}] {m.text(self.u)}" for i, m in enumerate(rec.table, 1)))
        return True


def _refuse(msg: str) -> None:
    print(f"refused: {msg}", file=sys.stderr)
    sys.stderr.flush()


def _isatty(stream: Any) -> bool:  # any stream (a replaced one may have no isatty)
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False
