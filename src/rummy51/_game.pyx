# cython: language_level=3
"""rummy51 game kernel: whole deals of 2..8 built-in bots (random, greedy, hand-hunter,
tactician) in C.

Private module: the public road is ``rummy51.fastgame`` (and ``simulate_games``,
which takes it when every seat is a built-in bot).

This is the Python engine (``rummy51.engine``) and the bots of ``rummy51.bots``
(``GreedyBot`` first; ``HandHunterBot``, ``TacticianBot`` and ``RandomBot``, whose
``legal_actions()`` list and ``integers`` draws are mirrored, since issue 13)
written again over plain C data, move for move: the same shuffle (numpy's
``Generator.permutation`` algorithm on the same bit generator), the same solver
calls (``_core.solve``), the same table-meld model (``rummy51.melds``: a meld keeps
its cards and the card each slot stands for), the same tie-breaks. Tests replay
the kernel's action log through the Python engine (every move legal, same result)
and compare it with ``GreedyBot``'s moves, deal for deal.

State: a hand is a count per card code (0..52), the stock and the discard pile are
arrays (top last), the table is an array of melds. The only randomness is the
deck's shuffle and the reshuffles of an empty stock, both from one bit generator.

Supported rules: everything in ``RuleSet`` except ``max_jokers_per_meld=2`` (the
freed-joker meld search assumes at most one joker per meld); ``fastgame.supported``
says so and the callers fall back to the Python engine.
"""
from libc.stdint cimport int8_t, uint8_t, int32_t, uint32_t, uint64_t
from libc.string cimport memset, memcpy
from cpython.mem cimport PyMem_Malloc, PyMem_Free

from numpy.random cimport bitgen_t

from rummy51._core cimport (Rules, Hand, parse_hand, solve, core_rules_of, _bitgen_of,
                            MODE_BEST, MODE_CAN_OPEN, MODE_GO_OUT, MODE_DEADWOOD, MAX_DEPTH)

import numpy as np

cdef enum:
    JOKER = 52
    MAXP = 8            # players
    MAXT = 64           # melds on the table (108 cards / 3 = 36)
    MAXMC = 16          # cards in one table meld (A..A is 14)
    MAXDECK = 128
    MAXCODES = 130      # a hand's codes plus one

cdef enum:
    RUN = 0
    SET = 1

cdef enum:
    PH_DRAW = 0
    PH_PLAY = 1
    PH_OVER = 2

cdef enum:
    SRC_NONE = -1
    SRC_STOCK = 0
    SRC_DISCARD = 1
    SRC_BOTTOM = 2

cdef enum:
    # how a deal ends: the order of rummy51.games.ENDS
    END_OUT = 0
    END_HAND = 1
    END_HAND_BOTTOM = 2
    END_CAPPED = 3
    END_STOCK_OUT = 4

cdef enum:
    # action log codes (see _decode in rummy51.fastgame)
    A_DRAW = 0
    A_LAY_DOWN = 1
    A_LAY_OFF = 2
    A_SWAP = 3
    A_DISCARD = 4

cdef enum:
    # errors
    E_SOLVER = 1
    E_STEPS = 2
    E_STATE = 3

cdef enum:
    MAX_TURN_STEPS = 1000   # moves in one turn (a hand holds at most 108 cards)

cdef enum:
    # the bots (rummy51.bots), by the code fastgame.BOT_CODES gives them
    B_RANDOM = 0
    B_GREEDY = 1
    B_HAND_HUNTER = 2
    B_TACTICIAN = 3


ctypedef struct TMeld:
    int kind            # RUN or SET
    int owner
    int n
    int cards[MAXMC]    # in slot order (a run from its low end), 52 = joker
    int reps[MAXMC]     # the card each slot stands for


ctypedef struct GRules:
    int threshold, mj, ace_high, top
    int ace_value, ace_low_value, joker_penalty
    int hand_size, bottom_card, reshuffle, must_meld, free_rounds, taken_ok, max_turns
    int score_out, score_hand, score_hand_bottom, score_unopened, hand_doubles, draw_zero
    int deck_n
    const uint8_t* deck
    int deckcnt[53]     # copies of each code in the deck
    const uint8_t* cat_kind     # catalogue: 1 run, 0 set
    const uint8_t* cat_n
    const uint8_t* cat_laid     # [id * 5 + slot]
    const uint8_t* cat_reps


ctypedef struct Game:
    const Rules* sr
    const GRules* g
    bitgen_t* bg
    int n
    int cnt[MAXP][53]
    int hn[MAXP]
    int stock[MAXDECK]
    int stock_n
    int pile[MAXDECK]
    int pile_n
    int bottom
    TMeld table[MAXT]
    int table_n
    int opened[MAXP]
    int turn, current, phase
    # this turn (engine.TurnInfo)
    int src, drawn, must_open, tbottom, freed, touched, opened_at_start
    # the end
    int winner, how, length
    int scores[MAXP]
    int turn_opened[MAXP]
    int err
    int32_t* log
    Py_ssize_t log_n, log_cap
    # the seats' bots and their parameters
    int bot[MAXP]
    bitgen_t* brng[MAXP]        # RandomBot's generator
    double p_hold[MAXP]         # HandHunterBot
    int max_round[MAXP]
    int min_opp[MAXP]
    int take_gain[MAXP]         # TacticianBot
    int feed_pen[MAXP]


# ---------------------------------------------------------------------------
# The module's sources by concern: textual includes, in this order (one extension
# module; a name defined in one file is seen by the others, as before the split).
include "_game_deal.pxi"  # helpers, shuffle, the deal's course
include "_game_table.pxi"  # table melds, moves
include "_game_greedy.pxi"  # GreedyBot
include "_game_goout.pxi"  # shared bot pieces, go_out_melds
include "_game_tactician.pxi"  # TacticianBot
include "_game_handhunter.pxi"  # HandHunterBot
include "_game_random.pxi"  # RandomBot, the legal moves


# --------------------------------------------------------------------------- the turn loop: each seat's bot
cdef void tact_play(Game* G) noexcept nogil:
    """TacticianBot._play: go out at once when it can, else greedy (with its discard)."""
    cdef TMeld ms[MAXGO]
    cdef int k
    if not G.opened[G.current] and not G.freed:
        k = go_out_lay_down(G, ms)
        if k:
            lay_melds(G, ms, k)
            return
    greedy_play(G)


cdef int bot_discard(Game* G) noexcept nogil:
    """The discard of GreedyBot._play: the bot's own ``_discard``."""
    if G.bot[G.current] == B_TACTICIAN:
        return tact_discard(G)
    return greedy_discard(G, G.opened[G.current])


cdef void play(Game* G, Moves* M) noexcept nogil:
    cdef int steps = 0, turn = 0, b
    while G.phase != PH_OVER and not G.err:
        b = G.bot[G.current]
        if b == B_RANDOM:
            random_move(G, M)
        elif G.phase == PH_DRAW:
            if b == B_TACTICIAN:
                tact_draw(G)
            elif b == B_HAND_HUNTER:
                hh_draw(G)
            else:
                greedy_draw(G)
        else:
            if b == B_TACTICIAN:
                tact_play(G)
            elif b == B_HAND_HUNTER:
                hh_play(G)
            else:
                greedy_play(G)
        if G.turn != turn:
            turn = G.turn
            steps = 0
        steps += 1
        if steps > MAX_TURN_STEPS:     # a turn is a draw, a move per card, a discard
            G.err = E_STEPS


include "_game_api.pxi"  # GreedyKernel, play_greedy, play_table
include "_game_search.pxi"  # Position, rollouts (the search bot)
