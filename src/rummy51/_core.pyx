# cython: language_level=3
"""rummy51 core: exact meld-partition search, batch evaluation, dealing, Monte Carlo.

Private module: the public API is ``rummy51.solver`` (and ``rummy51.deal``).
The kernels are nogil C functions; the ``def`` wrappers validate their inputs
with the GIL held, then release it around the loops.

The search decides the lowest undecided natural card first: either every remaining
copy of it stays out, or one catalogue meld whose lowest natural card it is covers
one copy, so every collection of melds is visited once (never every ordering of the
same melds). At every node the naturals that no meld can hold any more (bit tests
over the four suit lanes at once) are dropped, and a bound prunes: every useful card
at its most; with jokers, the root's jokerless-meld cards plus the largest gains of
the joker melds still on the hand. ``dfs0`` is the lean jokerless search; ``dfs``
the general one (must-use cards, can-go-out, two jokers per meld, recorded paths).

Batch questions about hands with jokers (one per meld) take a faster road: the
hand's melds with one joker are listed by bit tests (``joker_melds``), each with a
bound, and the jokerless rests are finished by ``dfs0`` by decreasing bound
(``one_joker``, ``two_jokers``, ``many_jokers``). Property tests check both roads
against the pure-Python reference.

Measured (bench/README.md, callgrind): what paid off was the per-node useful-card
masks, the jokerless fast path, listing joker melds by bit tests, and skipping a
catalogue group when its second card is missing; what did not: a greedy first
collection before the search, sorting by value at run time, branch-free parsing.
For the opening study (per deal): can-go-out refused by counting the naturals
outside jokerless melds, one-joker runs read from a table per suit pattern, the
dealt hand parsed while shuffled, one 64-bit draw per batch of shuffle steps
(``shuffle_parse``); what did not: drawing a deal's random numbers ahead of the
shuffle, sorting joker melds on packed keys.
"""
from cpython.pycapsule cimport PyCapsule_GetPointer, PyCapsule_IsValid
from libc.stdint cimport uint8_t, int16_t, int32_t, uint32_t, uint64_t, int64_t
from libc.string cimport memcpy

cimport numpy as cnp
from numpy.random cimport bitgen_t

import numpy as np

cnp.import_array()

cdef uint64_t ACES = 0x0001000100010001ULL      # bit 0 of each lane
cdef uint64_t LANES13 = 0x1FFF1FFF1FFF1FFFULL   # bits 0..12 of each lane
cdef uint64_t SUITS4 = 0x0000200040008001ULL    # (x & ACES) * SUITS4: bits 45..48 = the lanes


cdef enum:
    STOP_AT_ROOT = -1   # s.stop_at until dfs0's root sets it to its bound

cdef long long NODE_LIMIT = 100000000   # nodes one question may visit (see abort)

cdef enum:
    GAIN_LIST = 4       # joker melds whose gains the bound follows node by node


ctypedef struct Search:
    const Rules* r
    const int32_t* val      # opening values, or deadwood weights
    int jub                 # bound per joker (matches val)
    const int16_t* tab      # per-lane sums of the per-card bound (matches val)
    int maxc                # bound per card of any kind, for the capacity bound
    int vmax                # bound per natural card
    uint64_t root_u0        # naturals in some jokerless meld at the root
    int gfloor              # most a joker meld of root_u0 naturals only adds
    int gtrunc              # most a joker meld left off the gain list adds
    int ng                  # joker melds on the gain list
    int gval[GAIN_LIST]     # their gains beyond root_u0's card values, decreasing
    uint64_t gmask[GAIN_LIST]
    int gnj[GAIN_LIST]
    int jstar               # the joker meld adding that most (-1: none)
    uint64_t jstar_mask     # its natural cards
    uint64_t jstar_low      # its lowest natural card
    uint64_t useful         # naturals lying in at least one meld at the root
    int cap                 # most cards allowed in melds
    int mode
    int best                # best value found (or threshold - 1 until found)
    int stop_at             # stop as soon as best reaches this
    uint64_t must_bit       # a natural that must be melded (0: none)
    int must_joker          # a joker must be melded
    int record              # keep the best path
    long long nodes         # nodes visited so far
    long long node_limit    # give up (ERR_BUDGET) past this many
    int aborted
    int depth
    int path[MAX_DEPTH]
    int best_depth
    int best_path[MAX_DEPTH]


cdef uint8_t BIT_OF[52]     # card code -> bit in the lane layout
cdef uint64_t CARD_BIT[53]  # card code -> its bit (the joker, 52: none)
cdef int _k
for _k in range(52):
    BIT_OF[_k] = (_k // 13) * 16 + _k % 13
    CARD_BIT[_k] = (<uint64_t>1) << BIT_OF[_k]
CARD_BIT[52] = 0

# the sets a joker completes, by the 4-bit pattern S of the suits holding a rank:
# the subsets of S of 2 or 3 suits (by decreasing 4-bit value), one bit per lane
cdef uint64_t SET_SUB[32]
cdef uint8_t SET_START[17]
cdef int _s, _t, _ns = 0
for _s in range(16):
    SET_START[_s] = _ns
    for _t in range(15, 0, -1):
        if _t & _s == _t and bin(_t).count("1") in (2, 3):
            SET_SUB[_ns] = (<uint64_t>(_t & 1) | (<uint64_t>(_t & 2) << 15)
                            | (<uint64_t>(_t & 4) << 30) | (<uint64_t>(_t & 8) << 45))
            _ns += 1
SET_START[16] = _ns


# ---------------------------------------------------------------------------
# The module's sources by concern: textual includes, in this order (one extension
# module; a name defined in one file is seen by the others, as before the split).
include "_core_bounds.pxi"  # hand parsing, useful cards, bounds, joker gains
include "_core_search.pxi"  # dfs0/dfs, joker melds, solve
include "_core_api.pxi"  # CoreRules, solve_one, solve_batch
include "_core_deal.pxi"  # bounded draws, deal_rows, deal_into
include "_core_montecarlo.pxi"  # study_deals, study_turns, study_odds


# --------------------------------------------------------------------------- for the other kernels
cdef const Rules* core_rules_of(object cr) except NULL:
    """The compiled rules struct of a ``CoreRules`` (for the game kernels in ``_game``)."""
    if not isinstance(cr, CoreRules):
        raise TypeError(f"expected CoreRules, got {type(cr).__name__}")
    return &(<CoreRules>cr).r
