# cython: language_level=3
"""Declarations of the rummy51 core: the hand layout, the rules struct, the kernels.

Hand layout (the core's own affair; docs/rules.md only fixes the public card codes):
a 16-bit lane per suit in a uint64, bit ``16*suit + rank - 1`` (bit 0 the ace,
bit 12 the king; bits 13..15 of each lane stay zero). Two planes: ``once`` holds
the cards held at least once, ``twice`` those held twice (two decks); jokers are
a count. Taking a meld ``m`` out of a hand is ``once &= ~(m & ~twice);
twice &= ~m``.
"""
from libc.stdint cimport uint8_t, int16_t, int32_t, uint32_t, uint64_t
from numpy.random cimport bitgen_t

cdef enum:
    MODE_BEST = 0       # largest opening value
    MODE_CAN_OPEN = 1   # is there an opening >= threshold (early exit)
    MODE_GO_OUT = 2     # all but exactly one card melded, value >= threshold
    MODE_DEADWOOD = 3   # smallest value left unmelded

cdef enum:
    ERR_CODE = -1       # a code that is not 0..52 or 255
    ERR_COPIES = -2     # more copies of a natural than rules.decks
    ERR_JOKERS = -3     # more jokers than rules.jokers
    ERR_LONG = -4       # a row longer than MAX_HAND cards
    ERR_BUDGET = -5     # the search gave up (NODE_LIMIT nodes): a huge meld-rich hand

cdef enum:
    MAX_HAND = 120      # cards in one hand (the whole deck is 108 at most)
    MAX_DEPTH = 48      # melds in one collection (<= MAX_HAND / 3 + slack)
    MAX_MELD = 5        # cards in the longest catalogue meld (longer runs split)

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define R51_CTZ(x) __builtin_ctzll(x)
    #else
    #include <intrin.h>
    static __inline int R51_CTZ(unsigned long long x) { unsigned long i; _BitScanForward64(&i, x); return (int)i; }
    #endif
    """
    int R51_CTZ(uint64_t x) nogil

cdef extern from *:
    """
    #if defined(__GNUC__) || defined(__clang__)
    #define R51_POPCOUNT(x) __builtin_popcountll(x)
    #else
    #include <intrin.h>
    #define R51_POPCOUNT(x) ((int)__popcnt64(x))
    #endif
    """
    int R51_POPCOUNT(uint64_t x) nogil



cdef extern from *:
    """
    /* search statistics for tuning: build with CFLAGS=-DR51_STATS (not thread-safe) */
    static long long r51_nodes = 0, r51_scans = 0;
    #ifdef R51_STATS
    #define R51_NODE() (r51_nodes++)
    #define R51_SCAN() (r51_scans++)
    #else
    #define R51_NODE() ((void)0)
    #define R51_SCAN() ((void)0)
    #endif
    """
    void R51_NODE() nogil
    void R51_SCAN() nogil
    long long r51_nodes
    long long r51_scans

ctypedef struct Rules:
    int decks               # copies of each natural card in the deck (1 or 2)
    int jokers              # jokers in the deck
    int threshold           # least opening value
    int mj                  # max jokers per meld (0..2)
    int ace_high            # Q-K-A allowed: mirror the ace above the king in run tests
    int joker_penalty       # a joker left in hand
    int bottom_card         # a card is set aside under the stock (game rules)
    int reshuffle_stock     # an empty stock is refilled from the discard pile
    int jmax                # most a joker adds to an opening (value bound)
    int vmax                # most a natural adds to an opening
    int hmax                # most a natural is worth left in hand
    int32_t maxval[52]      # most each natural adds to an opening (ace: low or high)
    int32_t hval[52]        # each natural's value left in hand (deadwood weight)
    int32_t posval[14]      # value of run position: 0 low ace, 1..12 = 2..K, 13 high ace
    int32_t pvsum[15]       # prefix sums of posval (a run's value in two look-ups)
    int16_t tabv[16384]     # sum of maxval over the ranks of a lane (bit 13: high ace)
    int16_t tabw[16384]     # sum of hval over the ranks of a lane (bit 13: high ace)
    # the catalogue (see _catalogue.py), struct of arrays indexed by meld id
    const int32_t* start    # [53] group of lowest card c: start[c] .. start[c+1]
    const int32_t* jstart   # [52] first meld with a joker in group c
    const uint64_t* mask    # natural cards of the meld
    const int32_t* value    # opening value
    const int32_t* weight   # deadwood removed (hand values + joker penalties)
    const uint8_t* ncards   # cards in the meld
    const uint8_t* njokers  # jokers in the meld
    const int32_t* skip     # next meld whose second natural card differs
    # one-joker runs by the 13-bit pattern of one suit (see lane_runs in _core_search.pxi)
    const uint32_t* lane_start  # [8193] runs of lane pattern p: lane_start[p] .. [p + 1]
    const uint32_t* lane_run    # naturals (bits 0..12) | cards << 13 | opening value << 16
    # what an opening must show (rules.opening_run; solve in _core_search.pxi)
    int opening_run         # 0 nothing, 1 a run, 2 a run without a joker
    int orun_lo, orun_hi    # catalogue ids of the runs it may show: orun_lo .. orun_hi - 1

ctypedef struct Hand:
    uint64_t once           # naturals held at least once
    uint64_t twice          # naturals held twice
    int jokers              # jokers held
    int n                   # cards held

cdef int parse_hand(const Rules* r, const uint8_t* codes, Py_ssize_t n, Hand* h) noexcept nogil
cdef int solve(const Rules* r, const Hand* h, int mode, int keep, int must,
               int* path, int* depth) noexcept nogil
cdef const Rules* core_rules_of(object cr) except NULL
cdef bitgen_t* _bitgen_of(object bitgen) except NULL
