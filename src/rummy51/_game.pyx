# cython: language_level=3
"""rummy51 game kernel: whole deals of 2..8 built-in bots (random, greedy, hand-hunter,
tactician, search, search-plain, learned) in C.

Private module: the public road is ``rummy51.fastgame`` (and ``simulate_games``,
which takes it when every seat is a built-in bot).

This is the Python engine (``rummy51.engine``) and the bots of ``rummy51.bots``
(``GreedyBot`` first; ``HandHunterBot``, ``TacticianBot`` and ``RandomBot``, whose
``legal_actions()`` list and ``integers`` draws are mirrored)
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
from libc.stdint cimport int8_t, uint8_t, int32_t, int64_t, uint32_t, uint64_t
from libc.string cimport memset, memcpy, memcmp
from libc.stdlib cimport malloc, free
from libc.math cimport sqrt
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC
from cpython.mem cimport PyMem_Malloc, PyMem_Free

from numpy.random cimport bitgen_t

from rummy51._net cimport Net, net_forward, net_bind
from rummy51._core cimport (Rules, Hand, parse_hand, solve, core_rules_of, _bitgen_of,
                            MODE_BEST, MODE_CAN_OPEN, MODE_GO_OUT, MODE_DEADWOOD, MAX_DEPTH)

import numpy as np

# the enums and structs of the kernel (TMeld, GRules, Game) are declared in _game.pxd


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
        elif b == B_SEARCH or b == B_SEARCH_PLAIN:
            search_move(G, M)
        elif b == B_LEARNED:
            learned_move(G, M)
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
include "_game_searchbot.pxi"  # the search bot's decision loop
include "_game_analyse.pxi"  # rollout analysis of one decision
include "_game_learned.pxi"  # the learned evaluator: features, the learned bot, training data
