# cython: language_level=3
"""Declarations of the game kernel (``_game.pyx`` and the .pxi files it includes):
its limits, phases, sources, end and action codes, the bots' codes, and the structs
of a deal (TMeld: a table meld; GRules: the rules compiled for the kernel; Game: the
whole state of a deal). Cython reads this file before ``_game.pyx``; the names are
the kernel's own (no other module cimports them).
"""
from libc.stdint cimport uint8_t, int32_t
from numpy.random cimport bitgen_t

from rummy51._core cimport Rules
from rummy51._net cimport Net

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
    B_SEARCH = 4        # the search bot, its horizon scored by the learned model (_game_learned.pxi)
    B_SEARCH_PLAIN = 5  # the search bot scored by the static margin (_game_searchbot.pxi)
    B_LEARNED = 6       # the learned model's greedy policy (_game_learned.pxi)


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
    # SearchBot: its budget (kernel rollouts a decision), discard candidates,
    # z and clock budget (ms, 0: none); and what each seat's public history shows in its
    # hand (known_cards: taken from the discard pile or the bottom, a freed joker, less
    # what it played since), which the search bot's determinizations keep
    int s_budget[MAXP]
    int s_cands[MAXP]
    double s_z[MAXP]
    double s_ms[MAXP]
    int s_horizon[MAXP]         # rollout horizon in turns (0: to the deal's end)
    int known[MAXP][53]
    # the learned model of a search or learned seat (nin 0: none)
    Net net[MAXP]
