# _carousel_context.pxi: the expansion context of one position and the packing of a suit's runs.
#
# The structs the expansion shares (Opt: one option of a suit; CEnt, Cache: the
# option cache; Path: a best play's layers; Ctx: the context of a position), the
# run codes and _pack_runs (a suit's open runs in one word), and the work counters
# and the grouping switch for tests and benchmarks.
#
# (Included by _carousel.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _carousel.pyx.)

# --------------------------------------------------------------------------- expansion context
cdef struct Opt:
    uint32_t packed        # the suit's runs after this position, packed
    int32_t gain           # value of the hand cards of this suit placed here
    uint8_t uj             # joker slots the suit's runs take here
    uint8_t need           # jokers its short runs need at the next positions (lookahead)
    uint8_t ace            # at position 1: the suit's ace field for position 14
    uint8_t nh             # hand naturals it places (gain over the card's value)

cdef struct CEnt:
    uint64_t key           # (runs, set naturals, set jokers, ace field)
    uint64_t key2          # and the suit's context at the position (Ctx.sctx): with it
                           # an entry is valid for every position of every solve
    int32_t off            # its options: pool[off .. off + cnt)
    int32_t cnt

cdef struct Cache:
    CEnt* front            # FRONT slots, direct-mapped, in front of ``ent`` (entries are
                           # never moved there; key2 == 0 an empty slot)
    CEnt* ent              # open addressing: cap slots, key2 == 0 an empty one
    int64_t cap            # slots, a power of two; at most cap / 2 entries
    int64_t n
    Opt* pool
    int64_t pool_cap
    int64_t pool_n
    uint64_t epoch         # keys of one layer only (see _solve_dp) made so far


# The steps of every layer of a solve (_solve_dp with a Path): layer p's entries are
# par[off[p] .. off[p] + n[p]) and info[...]; ``best`` the final entry. With
# ``with_keys`` each entry's state (3 key words) is kept too, in ``keys`` (the meld
# arrangement reads the runs of a path off them: _carousel_melds.pxi).
cdef struct Path:
    int32_t* par
    uint32_t* info
    int64_t cap
    int64_t off[16]
    int64_t n[16]
    int64_t best
    int with_keys
    uint64_t* keys
    int64_t keys_cap

cdef struct Ctx:
    const CRules* r
    const Pos* pos
    Table* out
    int failed             # set when an insert ran out of memory
    # position constants
    int p                  # 1..14
    int last               # 1 if p is the last position (runs end here)
    int can_start          # new runs may start at p
    int sets_ok            # sets of this rank may be laid (p <= 13)
    int lo[4]              # least natural slots of the card (suit s, p)
    int hi[4]              # most natural slots
    int thr[4]             # natural slots beyond thr are hand cards played
    int dem[4]             # least slots of the card
    int v[4]               # points of the card
    int jstart_ok[4]       # a joker-started run can still meet a natural of its suit
    int track_nat          # runs carry "holds a natural" (only with 3+ jokers)
    int track_jk           # runs carry their joker count (a per-meld limit below the jokers)
    int jtotal             # JT + JH
    # the state being expanded
    int nruns[4]
    uint8_t runs[4][MAXRUNS]
    int jused
    uint64_t w2            # joker count and the aces' low-end information
    int32_t val
    # partial successor
    int na[4]              # natural slots of suit s put into sets
    int nj[4]              # joker slots of suit s put into sets
    uint64_t w2new         # the successor's third word (jokers used: filled in at the end)
    uint32_t word[4]       # the state's runs of each suit, packed
    Cache* cache           # each suit's successors at this position (see _suit_options)
    Opt nothing            # the one option of a suit with nothing at this position
    int64_t opt0           # where the options being generated start in the pool
    int settypes
    const uint8_t* setmask
    const uint8_t* setjmask
    const uint8_t* setjn
    int high_ok[4]         # a run of the suit can reach the high ace (position 14)
    int hi1[4]             # cards of each suit at the next position (table and hand)
    int hi2[4]             # and at the one after (-1: no such position)
    int need[4]            # jokers the open short runs of suit s need next (lookahead)
    int quiet[4]           # suit s has no card, no demand, no joker start and no ace field here
    int ltypes             # the set types worth trying at this rank (see _solve)
    uint8_t ltype[64]
    int nsets              # the choices of sets at this rank (_sets_list), 0: none listed
    int* set_na            # each one's naturals of each suit (4 ints a choice)
    int* set_nj            # and jokers of each suit
    uint8_t* set_jn        # and the jokers it takes
    int du_ok              # each suit's (naturals, jokers) given to the listed sets, distinct:
    int nd[4]              # how many, and each pair (the options of a suit depend on its
    uint8_t dna[4][DMAX]   # runs and this pair only: a state looks each one up once)
    uint8_t dnj[4][DMAX]
    uint8_t* set_u         # each listed choice's pair of each suit (4 a choice)
    uint64_t* set_req      # and those four pairs as bits (suit s, pair d: bit 16 s + d)
    uint64_t sctx[4]       # everything suit s's options depend on at p besides its runs
                           # and the sets (see _solve_dp): the second word of its cache key
    Path* path             # the steps are kept (for the counts of the play), or NULL
    Work* rw               # successors go to rw's records (a group's first state), not
                           # to the next layer (NULL)
    int32_t parent         # the entry being expanded (its successors' par)
    int32_t minval         # successors worth less than this cannot reach the value asked
                           # for (``want`` of _solve_dp): they are not kept

# run code: bits 0-1 length (1, 2, 3 = three or more), bit 2 holds a natural, bits 3-4 jokers
cdef inline int _rlen(int code) noexcept nogil:
    return code & 3

cdef inline uint32_t _pack_runs(uint8_t* codes, int n) noexcept nogil:
    # sort descending (insertion sort, n <= 6), 5 bits each
    cdef int i, j
    cdef uint8_t x
    cdef uint32_t out = 0
    for i in range(1, n):
        x = codes[i]
        j = i - 1
        while j >= 0 and codes[j] < x:
            codes[j + 1] = codes[j]
            j -= 1
        codes[j + 1] = x
    for i in range(n):
        out |= (<uint32_t>codes[i]) << (5 * i)
    return out

# Work counters (diagnostics for the benchmarks; not exact under threads)
cdef int64_t _n_emit = 0
cdef int64_t _n_states = 0

cdef int _grouping = 1

def _set_grouping(bint on):
    """Switch the grouped layers (``_solve_dp``: a group's successors recorded once,
    the grouped dominance) on or off, for every thread; returns the previous setting.
    For tests, which compare the two: the answers and the plays are the same."""
    global _grouping
    old = _grouping
    _grouping = 1 if on else 0
    return bool(old)

def _py_counters():
    """``(successors emitted, states expanded)`` since the module was loaded (exact
    only when one thread solves)."""
    return _n_emit, _n_states
