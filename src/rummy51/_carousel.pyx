# cython: language_level=3
"""Carousel's exact table-manipulation solver (RULES-carousel.md section 4), in C.

The question is reformulated over card *slots*: the final table is a multiset of
slots (a slot is one card position in one meld) arranged into valid melds, each slot
filled by a natural or a joker. With T[c] table naturals, H[c] hand naturals, D[c]
table jokers declared c, JT table jokers and JH hand jokers, a play is legal iff

* the natural slots of card c number between T[c] and T[c] + H[c] (every table card
  stays, the extra ones come from the hand);
* the joker slots number between JT and JT + JH (every table joker stays);
* every card c has at least D[c] slots (a table joker keeps standing for its card
  unless a natural copy replaces it, and a replaced joker is reused in the play:
  of the D[c] jokers at most "natural c slots" can be replaced);
* every meld holds at least one natural and at most ``max_jokers_per_meld`` jokers;
* at least one hand card is played.

The kernel maximises (points of the hand cards played, cards played) by a dynamic
program over the rank positions A(low)=1, 2, .., K=13, A(high)=14 (van Rijn, Takes &
Vis 2015): at each position it decides, suit by suit, how many slots of that card
continue each open run, end it, start new runs, or go into sets of that rank. A
state is, per suit, the multiset of open runs (length capped at 3, plus whether the
run holds a natural and how many jokers, only when the rules make those matter), the
jokers used so far, and for the aces how many naturals and slots the low end used
(the high end, position 14, takes the rest). States of one layer live in an
open-addressing hash table; the answer is the best value over the last layer. The
program is exact for every position: there is no node limit.

What keeps the layers small, each cut exact (it only drops states or choices that
no best play needs):

* table jokers that must keep their card (fewer natural copies of it in table and
  hand than jokers declared as it) become required naturals of it, where no joker
  rule of a meld can tell (``_fix_forced_jokers``);
* hand cards no meld could hold (no set of their rank, no three consecutive
  positions of their suit with the cards and jokers there are) are left out;
* lookahead: a run shorter than three must go on, so a state whose short runs need
  more jokers at the next positions than are left is never stored;
* a run starts with a joker only on a card some table joker is declared as, or when
  it can still reach the top position (otherwise the joker moves to the run's other
  end, same meld size, no declared card lost);
* sets try only the suits that have a card at that rank, and a joker in a set stands
  for the lowest suits no table joker is declared as (which of those it names
  changes nothing);
* a run does not start right after a run of its suit ended (the two make one run;
  only when the per-meld joker limit cannot be broken by merging);
* the high ace of a suit is carried to position 14 only if some run can reach it;
* dominance: in a layer of more than 32 states, a state is dropped when another has
  the same jokers and ace fields, the same runs except one run a step better in one
  suit (longer, holding a natural, one joker fewer) or one more complete run, and at
  least its value: the better state can answer every later choice with the same
  cards. On the densest tables this removes most of each layer.

Each suit's successors within a layer depend only on its runs, on what it gives the
sets of that rank and on the suit's context there (the card's bounds, the next
positions' cards, the jokers, the rules' joker limit, the card's points: ``Ctx.sctx``),
so they are enumerated once (``_suit_options``) and kept, under that full key, for
every later layer and position the same work area solves (``Work.cache``, emptied
between two solves once it is large); each state combines the four suits' lists under
the joker budget, stopping at the first suit with none. The choices of sets at a
rank are listed once per layer (``_sets_list``), with the distinct (naturals, jokers)
pairs each suit gives them, so a state looks each suit's list up once per pair
(first in a small direct-mapped front of the cache, which stays in the processor's
near caches where the cache does not), and a jokerless layer with no card of
any suit at its rank only ends the runs (the full expansion would give the same).

Where some suit's ace may stand high, each state carries its aces' fields from
position 1 to 14, and the layers between hold many states that differ only there
(up to one per combination of the suits' ace choices: ten times the states of the
same position with the ace low only). Their successors at positions 2..13 are the
same, so such a layer is expanded once per group (the same runs and jokers): the
group's first state records its successors, and each state of the group puts them,
with its own fields and value, in the order the per-state expansion would have: the
same layers, the same values and the same paths. Dominance is looked for once per
group too (``_drop_dominated_grouped``).
"""
from libc.stdint cimport uint8_t, int32_t, uint32_t, uint64_t, int64_t
from libc.stdlib cimport malloc, free, calloc, realloc
from libc.string cimport memset, memcpy

import numpy as np
cimport numpy as cnp

cnp.import_array()

DEF NSLOT = 52
DEF MAXRUNS = 6          # open runs of one suit: slots of a card <= 2 decks + 4 jokers
DEF VALMUL = 256         # value = points * VALMUL + cards played
DEF DOMINANCE_FROM = 128  # layers with more states than this drop the dominated ones
DEF MAXSETS = 512        # choices of sets at one rank listed for a layer (else recursed)
DEF INT32_MIN = -2147483648
DEF DMAX = 16            # distinct (naturals, jokers) pairs of one suit in a layer's sets
DEF FRONT_BITS = 11
DEF FRONT = 2048         # the option cache's direct-mapped front (1 << FRONT_BITS slots)
DEF CACHE_KEEP = 1 << 15  # suit option lists kept between solves (Work.cache) ...
DEF POOL_KEEP = 1 << 18   # ... and their options, at most (then it is emptied)

# --------------------------------------------------------------------------- rules
cdef struct CRules:
    int ace_high          # 1: position 14 (the ace after the king) exists
    int mj                # jokers a meld may hold (99 = any number)
    int decks             # copies of each natural card in the deck
    int jokers            # jokers in the deck
    int32_t val[53]       # points of each card code in hand (52 = joker)
    # set types (a suit mask of 3 or 4 suits, the suits jokers fill, how many jokers)
    # for min(jokers in the position, 3): made once with the rules (_set_types)
    int nst[4]
    uint8_t stm[4][64]
    uint8_t stj[4][64]
    uint8_t stn[4][64]

cdef struct Pos:
    uint8_t T[52]         # table naturals (must all stay on the table)
    uint8_t H[52]         # hand naturals (each may be played)
    uint8_t D[52]         # table jokers declared as each card
    int JT                # table jokers
    int JH                # hand jokers

# --------------------------------------------------------------------------- hash table
# The states of one layer: entries stored densely (so a layer is read, and cleared, in
# time proportional to its states, however large an earlier position made the table)
# and found through an open-addressing index.
cdef struct Table:
    uint64_t* keys        # 3 words per entry, entries 0..n-1
    int32_t* vals         # the best value of each entry
    int32_t* slot         # the index slot of each entry (to clear the index quickly)
    uint64_t* idx         # open addressing: 0 for an empty slot, else the entry number + 1
                          # with its hash's high 32 bits above (most probes of another
                          # key then stop there, without reading the keys)
    int32_t* par          # the entry of the previous layer it came from (its best value's)
    uint32_t* info        # and what that step placed (_solve_dp with a Path)
    int64_t cap           # index slots, a power of two; at most cap / 2 entries
    int64_t n             # entries in use

cdef inline uint64_t _hash3(uint64_t a, uint64_t b, uint64_t c) noexcept nogil:
    cdef uint64_t h = a * <uint64_t>0x9E3779B97F4A7C15ULL
    h ^= (h >> 29) ^ (b * <uint64_t>0xBF58476D1CE4E5B9ULL)
    h ^= (h >> 31) ^ (c * <uint64_t>0x94D049BB133111EBULL)
    h ^= h >> 32
    return h

cdef inline uint64_t _hash2(uint64_t a, uint64_t b) noexcept nogil:
    # every bit of both words reaches the low bits (the index mask keeps those)
    cdef uint64_t h = (a * <uint64_t>0x9E3779B97F4A7C15ULL) ^ b
    h ^= h >> 31
    h *= <uint64_t>0xBF58476D1CE4E5B9ULL
    h ^= h >> 29
    return h

cdef int _table_init(Table* t, int64_t cap) noexcept nogil:
    cdef int64_t i
    t.cap = cap
    t.n = 0
    t.keys = <uint64_t*>malloc(3 * (cap // 2 + 1) * sizeof(uint64_t))
    t.vals = <int32_t*>malloc((cap // 2 + 1) * sizeof(int32_t))
    t.slot = <int32_t*>malloc((cap // 2 + 1) * sizeof(int32_t))
    t.idx = <uint64_t*>calloc(cap, sizeof(uint64_t))
    t.par = <int32_t*>malloc((cap // 2 + 1) * sizeof(int32_t))
    t.info = <uint32_t*>malloc((cap // 2 + 1) * sizeof(uint32_t))
    if (t.keys == NULL or t.vals == NULL or t.slot == NULL or t.idx == NULL
            or t.par == NULL or t.info == NULL):
        return -1
    return 0

cdef void _table_free(Table* t) noexcept nogil:
    free(t.keys)
    free(t.vals)
    free(t.slot)
    free(t.idx)
    free(t.par)
    free(t.info)
    t.par = NULL
    t.info = NULL
    t.keys = NULL
    t.vals = NULL
    t.slot = NULL
    t.idx = NULL

cdef inline void _table_clear(Table* t) noexcept nogil:
    cdef int64_t e
    for e in range(t.n):
        t.idx[t.slot[e]] = 0
    t.n = 0

cdef int _table_grow(Table* t) noexcept nogil:
    cdef Table old = t[0]
    cdef int64_t e
    if _table_init(t, old.cap * 2) != 0:
        _table_free(t)
        t[0] = old
        return -1
    for e in range(old.n):
        # distinct keys into an empty table: every entry keeps its number
        _table_put(t, old.keys[3 * e], old.keys[3 * e + 1], old.keys[3 * e + 2], old.vals[e],
                   old.par[e], old.info[e])
    _table_free(&old)
    return 0

cdef inline int64_t _table_probe(const Table* t, uint64_t a, uint64_t b, uint64_t c,
                                 uint64_t* slot, uint64_t* tag) noexcept nogil:
    """The entry of key (a, b, c), or -1 with ``slot`` the empty index slot where it
    would go; ``tag`` its hash's high bits (an index slot holds them above the entry
    number + 1, so most probes past another key stop without reading its keys)."""
    cdef uint64_t hi = <uint64_t>0xFFFFFFFF00000000ULL
    cdef uint64_t mask = <uint64_t>(t.cap - 1)
    cdef uint64_t h = _hash3(a, b, c)
    cdef uint64_t i = h & mask
    cdef uint64_t x = t.idx[i]
    cdef int64_t e
    tag[0] = h & hi
    while x != 0:
        if (x & hi) == tag[0]:
            e = <int64_t><uint32_t>x - 1
            if t.keys[3 * e] == a and t.keys[3 * e + 1] == b and t.keys[3 * e + 2] == c:
                return e
        i = (i + 1) & mask
        x = t.idx[i]
    slot[0] = i
    return -1

cdef int _table_put(Table* t, uint64_t a, uint64_t b, uint64_t c, int32_t v, int32_t par,
                    uint32_t info) noexcept nogil:
    """Insert the state (a, b, c) with value v, keeping the larger value (and the ``par``
    and ``info`` of the first step that gave it); -1 on no memory."""
    cdef uint64_t i, tag
    cdef int64_t e = _table_probe(t, a, b, c, &i, &tag)
    if e >= 0:
        if v > t.vals[e]:
            t.vals[e] = v
            t.par[e] = par
            t.info[e] = info
        return 0
    e = t.n
    t.par[e] = par
    t.info[e] = info
    t.keys[3 * e] = a
    t.keys[3 * e + 1] = b
    t.keys[3 * e + 2] = c
    t.vals[e] = v
    t.slot[e] = <int32_t>i
    t.idx[i] = tag | <uint64_t>(e + 1)
    t.n += 1
    if 2 * t.n > t.cap:
        return _table_grow(t)
    return 0

cdef inline int64_t _table_find(Table* t, uint64_t a, uint64_t b, uint64_t c) noexcept nogil:
    cdef uint64_t i, tag
    return _table_probe(t, a, b, c, &i, &tag)

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

DEF PATH_MAX = 1 << 20   # entries of all the layers a Path keeps, at most

# The steps of every layer of a solve (_solve_dp with a Path): layer p's entries are
# par[off[p] .. off[p] + n[p]) and info[...]; ``best`` the final entry.
cdef struct Path:
    int32_t* par
    uint32_t* info
    int64_t cap
    int64_t off[16]
    int64_t n[16]
    int64_t best

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

# --------------------------------------------------------------------------- one suit's successors
# Within a layer the successors of a state are, suit by suit, independent given the
# sets laid at this rank (the naturals and jokers each suit gives them) and the jokers
# left. So each suit's choices for (its runs, what it gives the sets) are enumerated
# once per layer into a pool of options, and every state of the layer combines the
# four suits' lists, checking the joker budget: states share their suits' runs, so
# most lookups hit.
cdef int _cache_init(Cache* k, int64_t cap, int64_t pool_cap) noexcept nogil:
    k.cap = cap
    k.n = 0
    k.ent = <CEnt*>calloc(cap, sizeof(CEnt))  # key2 == 0: an empty slot
    if k.front == NULL:
        k.front = <CEnt*>calloc(FRONT, sizeof(CEnt))
        if k.front == NULL:
            return -1
    if k.pool == NULL:
        k.pool = <Opt*>malloc(pool_cap * sizeof(Opt))
        k.pool_cap = pool_cap
        k.pool_n = 0
    if k.ent == NULL or k.pool == NULL:
        return -1
    return 0

cdef void _cache_free_index(Cache* k) noexcept nogil:
    free(k.ent)
    k.ent = NULL

cdef void _cache_free(Cache* k) noexcept nogil:
    _cache_free_index(k)
    free(k.pool)
    k.pool = NULL
    free(k.front)
    k.front = NULL

cdef inline void _cache_clear(Cache* k) noexcept nogil:
    if k.n > 0:
        memset(k.ent, 0, k.cap * sizeof(CEnt))
        memset(k.front, 0, FRONT * sizeof(CEnt))
    k.n = 0
    k.pool_n = 0

cdef inline CEnt* _cache_find_h(Cache* k, uint64_t key, uint64_t key2, uint64_t h) noexcept nogil:
    """The entry of (key, key2), or NULL; ``h`` is ``_hash2(key, key2)``. The entries are
    the open-addressing slots themselves (one random memory access a lookup, not an
    index and then an entry: the kept cache outgrows the L1 and L2 caches; the front,
    ``Cache.front``, is asked first)."""
    cdef uint64_t mask = <uint64_t>(k.cap - 1)
    cdef uint64_t i = h & mask
    cdef CEnt* x = &k.ent[i]
    while x.key2 != 0:
        if x.key == key and x.key2 == key2:
            return x
        i = (i + 1) & mask
        x = &k.ent[i]
    return NULL

cdef int _cache_add(Cache* k, uint64_t key, uint64_t key2, int32_t off, int32_t cnt) noexcept nogil:
    """Add an entry (not present; key2 is never 0); -1 on no memory. Entries move when
    the table grows: callers keep (off, cnt), never a pointer to an entry."""
    cdef uint64_t mask
    cdef uint64_t i
    cdef int64_t e
    cdef Cache old
    if 2 * (k.n + 1) > k.cap:
        old = k[0]
        k.ent = NULL
        if _cache_init(k, old.cap * 2, 0) != 0:
            _cache_free_index(k)
            k[0] = old
            return -1
        for e in range(old.cap):
            if old.ent[e].key2 != 0:
                _cache_add(k, old.ent[e].key, old.ent[e].key2, old.ent[e].off, old.ent[e].cnt)
        _cache_free_index(&old)
    mask = <uint64_t>(k.cap - 1)
    i = _hash2(key, key2) & mask
    while k.ent[i].key2 != 0:
        i = (i + 1) & mask
    k.ent[i].key = key
    k.ent[i].key2 = key2
    k.ent[i].off = off
    k.ent[i].cnt = cnt
    k.n += 1
    return 0

cdef int _pool_push(Ctx* c, uint32_t packed, int32_t gain, int uj, int need, int ace,
                    int nh) noexcept nogil:
    """Add an option to the list being generated (the same runs, jokers and ace field
    already there: keep the larger gain); -1 on no memory."""
    cdef Cache* k = c.cache
    cdef int64_t i
    cdef Opt* o
    cdef Opt* grown
    for i in range(c.opt0, k.pool_n):
        o = &k.pool[i]
        if o.packed == packed and o.uj == uj and o.ace == ace:
            if gain > o.gain:
                o.gain = gain
                o.nh = <uint8_t>nh
            return 0
    if k.pool_n == k.pool_cap:
        grown = <Opt*>realloc(k.pool, 2 * k.pool_cap * sizeof(Opt))
        if grown == NULL:
            return -1
        k.pool = grown
        k.pool_cap *= 2
    o = &k.pool[k.pool_n]
    o.packed = packed
    o.gain = gain
    o.uj = <uint8_t>uj
    o.need = <uint8_t>need
    o.ace = <uint8_t>ace
    o.nh = <uint8_t>nh
    k.pool_n += 1
    return 0

cdef void _opts_rec(Ctx* c, int s, int i, int prev_choice, int nnat, int njk,
                    uint8_t* newc, int nnew, int juse, int ended) noexcept nogil:
    """Choose, run by run, what the open runs of suit s do at position p:
    0 end before p, 1 continue with a natural, 2 continue with a joker; then the new
    runs starting here. Each outcome is an option of the suit (``juse``: the joker
    slots its runs take so far, at most every joker of the position; ``ended``: a run
    of the suit ended before p).

    A run does not start at p where a run of its suit ended just before (when no
    meld can hold more jokers than the rules allow, so merging never breaks the
    limit): the two would make one run, the same cards and slots."""
    cdef int code, ln, hasnat, jk, choice, first, k, un, uj, nat_total, slots, extra
    cdef int lo, hi, new_code, base_n
    cdef uint8_t buf[MAXRUNS + 8]
    cdef int req_rem, rem_total, pend, short, len1, nd, ace
    if i < c.nruns[s]:
        code = c.runs[s][i]
        ln = code & 3
        hasnat = (code >> 2) & 1
        jk = code >> 3
        # identical runs are interchangeable: their choices are enumerated as a multiset
        first = 0
        if i > 0 and c.runs[s][i - 1] == code:
            first = prev_choice
        for choice in range(first, 3):
            if choice == 0:
                if ln < 3 or not hasnat:
                    continue
                _opts_rec(c, s, i + 1, choice, nnat, njk, newc, nnew, juse, 1)
            elif choice == 1:
                if c.na[s] + nnat + 1 > c.hi[s]:
                    continue
                if c.last:
                    # the run ends with this card: it must then be a valid run
                    if ln < 2:
                        continue
                    _opts_rec(c, s, i + 1, choice, nnat + 1, njk, newc, nnew, juse, ended)
                else:
                    new_code = (ln + 1 if ln < 3 else 3) | 4 | (jk << 3)
                    newc[nnew] = <uint8_t>new_code
                    _opts_rec(c, s, i + 1, choice, nnat + 1, njk, newc, nnew + 1, juse, ended)
            else:
                if juse >= c.jtotal or c.r.mj == 0:
                    continue
                if c.track_jk and jk >= c.r.mj:
                    continue
                if c.last:
                    if ln < 2 or not hasnat:
                        continue
                    _opts_rec(c, s, i + 1, choice, nnat, njk + 1, newc, nnew, juse + 1, ended)
                else:
                    new_code = (ln + 1 if ln < 3 else 3) | (hasnat << 2)
                    if c.track_jk:
                        new_code |= (jk + 1) << 3
                    newc[nnew] = <uint8_t>new_code
                    _opts_rec(c, s, i + 1, choice, nnat, njk + 1, newc, nnew + 1, juse + 1, ended)
        return
    # new runs starting at p: un with a natural, uj with a joker
    lo = c.lo[s]
    hi = c.hi[s]
    base_n = c.na[s] + nnat
    for un in range(0, hi - base_n + 1):
        if (not c.can_start or (ended and not c.track_jk)) and un > 0:
            break
        if nnew + un > MAXRUNS:
            break
        for uj in range(0, c.jtotal - juse + 1):
            if uj > 0 and (not c.can_start or not c.jstart_ok[s] or c.r.mj == 0
                           or (ended and not c.track_jk)):
                break
            if nnew + un + uj > MAXRUNS:
                break
            nat_total = base_n + un
            if nat_total < lo:
                continue
            slots = nat_total + c.nj[s] + njk + uj
            if slots < c.dem[s]:
                continue
            for k in range(nnew):
                buf[k] = newc[k]
            for k in range(un):
                buf[nnew + k] = <uint8_t>(1 | 4)
            for k in range(uj):
                buf[nnew + un + k] = <uint8_t>(1 | (8 if c.track_jk else 0) | (0 if c.track_nat else 4))
            # lookahead: runs shorter than 3 must go on; the next positions' cards of
            # this suit serve at most that many of them, jokers the others
            short = 0
            len1 = 0
            for k in range(nnew + un + uj):
                if (buf[k] & 3) < 3:
                    short += 1
                    if (buf[k] & 3) == 1:
                        len1 += 1
            nd = short - c.hi1[s]
            if nd < 0:
                nd = 0
            if len1 > 0:
                if c.hi2[s] < 0:
                    continue
                if len1 > c.hi2[s]:
                    nd += len1 - c.hi2[s]
            if juse + uj + nd > c.jtotal:
                continue
            extra = nat_total - c.thr[s]
            if extra < 0:
                extra = 0
            ace = 0
            if c.p == 1 and c.high_ok[s]:
                # the ace's low end: remember what the high end (position 14) may still take
                req_rem = c.thr[s] - nat_total
                if req_rem < 0:
                    req_rem = 0
                rem_total = c.pos.T[13 * s] + c.pos.H[13 * s] - nat_total
                pend = c.pos.D[13 * s] - slots
                if pend < 0:
                    pend = 0
                ace = req_rem | (rem_total << 2) | (pend << 4)
            if _pool_push(c, _pack_runs(buf, nnew + un + uj), extra * (c.v[s] * VALMUL + 1),
                          juse + uj, nd, ace, extra) != 0:
                c.failed = 1
                return

cdef int64_t _suit_make(Ctx* c, int s, uint64_t key) noexcept nogil:
    """Make suit s's option list for ``key`` (not in the cache) and add it; its
    ``off << 32 | cnt``, or -1 on no memory."""
    cdef int32_t off = <int32_t>c.cache.pool_n
    cdef uint8_t newc[MAXRUNS + 8]
    cdef uint32_t word
    cdef int n, code
    c.opt0 = off
    # the runs are unpacked only here, when the suit's options are made
    word = c.word[s]
    n = 0
    while n < MAXRUNS:
        code = (word >> (5 * n)) & 31
        if code == 0:
            break
        c.runs[s][n] = <uint8_t>code
        n += 1
    c.nruns[s] = n
    _opts_rec(c, s, 0, 0, 0, 0, newc, 0, 0, 0)
    if c.failed:
        return -1
    if _cache_add(c.cache, key, c.sctx[s], off, <int32_t>(c.cache.pool_n - off)) != 0:
        return -1
    return (<int64_t>off << 32) | (c.cache.pool_n - off)

cdef inline int64_t _suit_options(Ctx* c, int s) noexcept nogil:
    """Suit s's options for the state's runs and the sets chosen, as
    ``off << 32 | cnt`` (pool[off .. off + cnt); made on first use, kept for later
    positions: see ``c.sctx``); -2 if the suit has nothing here (no runs, no cards, no
    demand: its one option is to do nothing); -1 on no memory."""
    cdef uint64_t key = (<uint64_t>c.word[s] | (<uint64_t>c.na[s] << 32) | (<uint64_t>c.nj[s] << 36))
    cdef int64_t e
    cdef CEnt* x
    if key == 0 and c.quiet[s]:
        return -2  # nothing of this suit here: the one option is to do nothing
    if c.p == 14:
        key |= ((c.w2 >> (8 + 8 * s)) & <uint64_t>0xFF) << 44
    cdef uint64_t key2 = c.sctx[s]
    cdef uint64_t h = _hash2(key, key2)
    cdef CEnt* f = &c.cache.front[h >> (64 - FRONT_BITS)]
    if f.key == key and f.key2 == key2:
        return (<int64_t>f.off << 32) | f.cnt
    x = _cache_find_h(c.cache, key, key2, h)
    if x != NULL:
        e = (<int64_t>x.off << 32) | x.cnt
    else:
        e = _suit_make(c, s, key)
        if e < 0:
            return -1
        f = &c.cache.front[h >> (64 - FRONT_BITS)]
    f.key = key
    f.key2 = key2
    f.off = <int32_t>(e >> 32)
    f.cnt = <int32_t><uint32_t>e
    return e

cdef inline uint32_t _step_info(const Ctx* c, int s, const Opt* o) noexcept nogil:
    """What suit s's option places at position p, 6 bits: the hand naturals and, 3
    bits up, the joker slots (its runs' and the sets')."""
    return (<uint32_t>o.nh) | ((<uint32_t>(o.uj + c.nj[s])) << 3)

cdef int _rec_push(Work* w, uint64_t wa, uint64_t wb, uint64_t w3, int32_t gain,
                   uint32_t info) noexcept nogil:
    """Record a successor of a group (``Ctx.rw``); -1 on no memory."""
    cdef Rec* grown
    cdef int64_t cap
    cdef Rec* x
    if w.rec_n == w.rec_cap:
        cap = 2 * w.rec_cap if w.rec_cap > 0 else 1024
        grown = <Rec*>realloc(w.rec, cap * sizeof(Rec))
        if grown == NULL:
            return -1
        w.rec = grown
        w.rec_cap = cap
    x = &w.rec[w.rec_n]
    x.wa = wa
    x.wb = wb
    x.j = <uint32_t>w3
    x.gain = gain
    x.info = info
    w.rec_n += 1
    return 0

cdef int _recs_emit(Table* out, const Rec* rec, int64_t n, uint64_t ace, int32_t val,
                    int32_t minval, int32_t parent) noexcept nogil:
    """A state's successors from its group's records (in the order they were made):
    its ace fields ``ace``, its value ``val``; -1 on no memory."""
    global _n_emit
    cdef int64_t i
    cdef int32_t v
    for i in range(n):
        v = val + rec[i].gain
        if v < minval:
            continue
        _n_emit += 1
        if _table_put(out, rec[i].wa, rec[i].wb, ace | rec[i].j, v, parent, rec[i].info) != 0:
            return -1
    return 0

cdef void _combine(Ctx* c, int jused) noexcept nogil:
    """Every successor of the state with the sets chosen: one option per suit within
    the joker budget (the options' jokers plus the jokers their short runs need next)."""
    cdef int64_t e[4]
    cdef int s
    for s in range(4):
        e[s] = _suit_options(c, s)
        if e[s] == -1:
            c.failed = 1
            return
        if e[s] >= 0 and <uint32_t>e[s] == 0:
            return  # the suit has no option here: no successor (the others need not be looked up)
    _combine_lists(c, jused, e)

cdef void _combine_lists(Ctx* c, int jused, const int64_t* e) noexcept nogil:
    """``_combine`` with the four suits' option lists found (``_suit_options``, none
    empty)."""
    global _n_emit
    cdef int32_t n0, n1, n2, n3, a0, a1, a2, a3
    cdef int jt = c.jtotal, j0, j1, j2, j3, d0, d1, d2, d3
    cdef int32_t g0, g1, g2
    cdef uint64_t acebits, w3, w2, wa, wb
    cdef Opt* pool
    cdef Opt* p0
    cdef Opt* p1
    cdef Opt* p2
    cdef Opt* p3
    cdef Opt* b0
    cdef Opt* b1
    cdef Opt* b2
    cdef Opt* b3
    cdef uint32_t info
    # the pool may have moved while the lists were made: take the pointers now
    pool = c.cache.pool
    b0 = &c.nothing if e[0] == -2 else &pool[e[0] >> 32]
    n0 = 1 if e[0] == -2 else <int32_t><uint32_t>e[0]
    b1 = &c.nothing if e[1] == -2 else &pool[e[1] >> 32]
    n1 = 1 if e[1] == -2 else <int32_t><uint32_t>e[1]
    b2 = &c.nothing if e[2] == -2 else &pool[e[2] >> 32]
    n2 = 1 if e[2] == -2 else <int32_t><uint32_t>e[2]
    b3 = &c.nothing if e[3] == -2 else &pool[e[3] >> 32]
    n3 = 1 if e[3] == -2 else <int32_t><uint32_t>e[3]
    w2 = c.w2new & ~(<uint64_t>7)
    for a0 in range(n0):
        p0 = &b0[a0]
        j0 = jused + p0.uj
        d0 = p0.need
        if j0 + d0 > jt:
            continue
        g0 = c.val + p0.gain
        for a1 in range(n1):
            p1 = &b1[a1]
            j1 = j0 + p1.uj
            d1 = d0 + p1.need
            if j1 + d1 > jt:
                continue
            g1 = g0 + p1.gain
            wa = (<uint64_t>p0.packed) | ((<uint64_t>p1.packed) << 32)
            for a2 in range(n2):
                p2 = &b2[a2]
                j2 = j1 + p2.uj
                d2 = d1 + p2.need
                if j2 + d2 > jt:
                    continue
                g2 = g1 + p2.gain
                for a3 in range(n3):
                    p3 = &b3[a3]
                    j3 = j2 + p3.uj
                    if j3 + d2 + p3.need > jt:
                        continue
                    wb = (<uint64_t>p2.packed) | ((<uint64_t>p3.packed) << 32)
                    w3 = w2 | <uint64_t>j3
                    if c.p == 1:
                        w3 |= ((<uint64_t>p0.ace) << 8) | ((<uint64_t>p1.ace) << 16) | \
                              ((<uint64_t>p2.ace) << 24) | ((<uint64_t>p3.ace) << 32)
                    if g2 + p3.gain < c.minval:
                        continue
                    info = 0
                    if c.path != NULL:
                        info = (_step_info(c, 0, p0) | (_step_info(c, 1, p1) << 6)
                                | (_step_info(c, 2, p2) << 12) | (_step_info(c, 3, p3) << 18))
                    if c.rw != NULL:
                        if _rec_push(c.rw, wa, wb, w3, g2 + p3.gain, info) != 0:
                            c.failed = 1
                            return
                        continue
                    _n_emit += 1
                    if _table_put(c.out, wa, wb, w3, g2 + p3.gain, c.parent, info) != 0:
                        c.failed = 1
                        return

cdef inline int _set_fits(const Ctx* c, int t, int jn) noexcept nogil:
    """Set type ``t`` may join the rank's sets so far: its jokers within the position's
    and each suit's naturals within the card's slots."""
    cdef int s, m = c.setmask[t], jm = c.setjmask[t]
    if jn + c.setjn[t] > c.jtotal:
        return 0
    for s in range(4):
        if (m >> s) & 1 and not (jm >> s) & 1 and c.na[s] + 1 > c.hi[s]:
            return 0
    return 1


cdef inline void _set_add(Ctx* c, int t, int d) noexcept nogil:
    """Count set type ``t`` in (``d`` 1) or out (-1) of the rank's naturals and jokers."""
    cdef int s, m = c.setmask[t], jm = c.setjmask[t]
    for s in range(4):
        if (m >> s) & 1:
            if (jm >> s) & 1:
                c.nj[s] += d
            else:
                c.na[s] += d


cdef void _sets_rec(Ctx* c, int t0, int jused) noexcept nogil:
    """Choose the multiset of sets of rank p (set types in non-decreasing order)."""
    cdef int t
    cdef int k
    if c.failed:
        return
    _combine(c, jused)
    for k in range(t0, c.ltypes):
        t = c.ltype[k]
        if not _set_fits(c, t, jused):
            continue
        _set_add(c, t, 1)
        _sets_rec(c, k, jused + c.setjn[t])
        _set_add(c, t, -1)

cdef void _sets_list(Ctx* c, int t0, int jn) noexcept nogil:
    """``_sets_rec`` without a state: every multiset of the rank's set types (in the
    same order) with the naturals of each suit within the card's slots, each with the
    jokers it takes. Which of them a state may lay depends only on its jokers left.
    Stops counting past MAXSETS (the caller then recurses per state)."""
    cdef int t, k
    if c.nsets >= MAXSETS:
        c.nsets = MAXSETS + 1
        return
    memcpy(&c.set_na[4 * c.nsets], c.na, 4 * sizeof(int))
    memcpy(&c.set_nj[4 * c.nsets], c.nj, 4 * sizeof(int))
    c.set_jn[c.nsets] = <uint8_t>jn
    c.nsets += 1
    for k in range(t0, c.ltypes):
        t = c.ltype[k]
        if not _set_fits(c, t, jn):
            continue
        _set_add(c, t, 1)
        _sets_list(c, k, jn + c.setjn[t])
        _set_add(c, t, -1)
        if c.nsets > MAXSETS:
            return

cdef void _distinct_pairs(Ctx* c) noexcept nogil:
    """The distinct (naturals, jokers) pairs each suit gives the listed choices of sets
    (``c.nd``, ``c.dna``, ``c.dnj``) and each choice's pair per suit (``c.set_u``);
    ``c.du_ok`` 0 when a suit has more than DMAX of them (the states then look each
    choice up in full)."""
    cdef int i, s, d, a, b
    c.du_ok = 1
    for s in range(4):
        c.nd[s] = 0
    for i in range(c.nsets):
        c.set_req[i] = 0
        for s in range(4):
            a = c.set_na[4 * i + s]
            b = c.set_nj[4 * i + s]
            for d in range(c.nd[s]):
                if c.dna[s][d] == a and c.dnj[s][d] == b:
                    break
            else:
                d = c.nd[s]
                if d == DMAX or a > 255 or b > 255:
                    c.du_ok = 0
                    return
                c.dna[s][d] = <uint8_t>a
                c.dnj[s][d] = <uint8_t>b
                c.nd[s] = d + 1
            c.set_u[4 * i + s] = <uint8_t>d
            c.set_req[i] |= (<uint64_t>1) << (DMAX * s + d)

cdef inline int _card_at(int s, int p) noexcept nogil:
    if p == 14:
        return 13 * s
    return 13 * s + p - 1

# A successor recorded once for a group of states (``_solve_dp``'s grouped layers):
# its runs, the jokers it has used, its gain over the state's value and its step.
cdef struct Rec:
    uint64_t wa
    uint64_t wb
    int32_t gain
    uint32_t info
    uint32_t j

cdef struct Work:
    Table a
    Table b
    Table g                   # a grouped layer's groups: (runs, jokers) -> their records
    Rec* rec                  # the records of the layer's groups
    int64_t rec_cap
    int64_t rec_n
    int32_t* nextm            # the states of a group, chained (_drop_dominated_grouped)
    int64_t next_cap
    Cache cache

cdef int _work_init(Work* w) noexcept nogil:
    memset(w, 0, sizeof(Work))
    if (_table_init(&w.a, 64) != 0 or _table_init(&w.b, 64) != 0 or _table_init(&w.g, 64) != 0
            or _cache_init(&w.cache, 64, 256) != 0):
        _work_free(w)
        return -1
    return 0

cdef void _work_free(Work* w) noexcept nogil:
    _table_free(&w.a)
    _table_free(&w.b)
    _table_free(&w.g)
    free(w.rec)
    w.rec = NULL
    free(w.nextm)
    w.nextm = NULL
    _cache_free(&w.cache)

# One option cache per thread, kept between the calls from Python (solve_batch,
# solve_counts, rebuild_counts): single best_play calls and repeated batches then start
# warm. A call takes the thread's cache out of its slot and puts it back when done, so
# a nested or concurrent use never shares it (it makes a fresh one instead); a thread
# that ends frees its cache (pthread key destructor). Not on Windows: a fresh cache a
# call there, as before.
cdef extern from *:
    """
    #if defined(_WIN32)
    static int rummy51_tls_init(void (*dtor)(void*)) { (void)dtor; return 0; }
    static void* rummy51_tls_get(void) { return 0; }
    static int rummy51_tls_set(void* p) { (void)p; return -1; }
    #else
    #include <pthread.h>
    static pthread_key_t rummy51_tls_key;
    static int rummy51_tls_ok = 0;
    static int rummy51_tls_init(void (*dtor)(void*)) {
        if (!rummy51_tls_ok && pthread_key_create(&rummy51_tls_key, dtor) == 0) rummy51_tls_ok = 1;
        return rummy51_tls_ok;
    }
    static void* rummy51_tls_get(void) { return rummy51_tls_ok ? pthread_getspecific(rummy51_tls_key) : 0; }
    static int rummy51_tls_set(void* p) {
        return rummy51_tls_ok ? pthread_setspecific(rummy51_tls_key, p) : -1;
    }
    #endif
    """
    int rummy51_tls_init(void (*dtor)(void*)) noexcept nogil
    void* rummy51_tls_get() noexcept nogil
    int rummy51_tls_set(void* p) noexcept nogil

cdef void _tls_dtor(void* p) noexcept nogil:
    _cache_free(<Cache*>p)
    free(p)

rummy51_tls_init(_tls_dtor)

cdef int _work_init_kept(Work* w) noexcept nogil:
    """``_work_init`` with this thread's kept option cache (if it has one free)."""
    cdef Cache* kept
    if _work_init(w) != 0:
        return -1
    kept = <Cache*>rummy51_tls_get()
    if kept != NULL and rummy51_tls_set(NULL) == 0:
        _cache_free(&w.cache)
        w.cache = kept[0]
        free(kept)
    return 0

cdef void _work_free_kept(Work* w) noexcept nogil:
    """``_work_free``, keeping the option cache for the thread's next call (unless its
    slot is taken, or it grew past the limits: then it is freed)."""
    cdef Cache* kept = NULL
    if (rummy51_tls_get() == NULL and w.cache.n <= CACHE_KEEP and w.cache.pool_n <= POOL_KEEP):
        kept = <Cache*>malloc(sizeof(Cache))
    if kept != NULL:
        kept[0] = w.cache
        if rummy51_tls_set(kept) == 0:
            w.cache.ent = NULL
            w.cache.pool = NULL
            w.cache.front = NULL
        else:
            free(kept)
    _work_free(w)

def _drop_kept_cache():
    """Free this thread's kept option cache (the next call starts with an empty one:
    the tests compare warm and fresh solves)."""
    cdef void* p = rummy51_tls_get()
    if p != NULL and rummy51_tls_set(NULL) == 0:
        _tls_dtor(p)

cdef inline int32_t _live_val(int32_t v) noexcept nogil:
    return v if v >= 0 else -(v + 1)

DEF MAXCAND = 4 * (3 * MAXRUNS + 1)   # a state's better neighbours (_dom_candidates)

cdef inline void _dom_put(uint64_t ka, uint64_t kb, int s, uint32_t nw, uint64_t* ca,
                          uint64_t* cb, int* n) noexcept nogil:
    """Add the state (ka, kb) with suit s's runs replaced by ``nw``."""
    if s < 2:
        ca[n[0]] = (ka & ~((<uint64_t>0xFFFFFFFF) << (32 * s))) | ((<uint64_t>nw) << (32 * s))
        cb[n[0]] = kb
    else:
        ca[n[0]] = ka
        cb[n[0]] = (kb & ~((<uint64_t>0xFFFFFFFF) << (32 * (s - 2)))) | ((<uint64_t>nw) << (32 * (s - 2)))
    n[0] += 1

cdef int _dom_candidates(uint64_t ka, uint64_t kb, int track_nat, int track_jk,
                         uint64_t* ca, uint64_t* cb) noexcept nogil:
    """The runs (first two key words) of the states that would dominate a state with
    runs (ka, kb): in one suit one run a step better (one longer, holding a natural, or
    one joker fewer) or one more complete run; their number (at most MAXCAND).

    A suit's runs are packed in descending order, so the first of equal codes made one
    longer stays in its place (the codes before it are larger), and a complete run
    (code 7) goes first when no code is above 7: those two words are made directly;
    the other steps re-sort (``_pack_runs``)."""
    cdef int s, i, n, k, x, prev, small
    cdef int nc = 0
    cdef uint32_t word
    cdef uint8_t codes[MAXRUNS + 1]
    cdef uint8_t buf[MAXRUNS + 1]
    for s in range(4):
        if s < 2:
            word = <uint32_t>((ka >> (32 * s)) & <uint64_t>0xFFFFFFFF)
        else:
            word = <uint32_t>((kb >> (32 * (s - 2))) & <uint64_t>0xFFFFFFFF)
        n = 0
        prev = -1
        small = 1
        while n < MAXRUNS:
            x = (word >> (5 * n)) & 31
            if x == 0:
                break
            codes[n] = <uint8_t>x
            if x > 7:
                small = 0
            if x != prev:
                prev = x
                # one longer (the first of its equal codes: its place is unchanged)
                if (x & 3) != 3:
                    _dom_put(ka, kb, s, word + ((<uint32_t>1) << (5 * n)), ca, cb, &nc)
            n += 1
        # one more complete run holding a natural
        if n < MAXRUNS:
            if small:
                _dom_put(ka, kb, s, (word << 5) | 7, ca, cb, &nc)
            else:
                for k in range(n):
                    buf[k] = codes[k]
                buf[n] = 7
                _dom_put(ka, kb, s, _pack_runs(buf, n + 1), ca, cb, &nc)
        if not track_nat and not track_jk:
            continue
        for i in range(n):
            if i > 0 and codes[i] == codes[i - 1]:
                continue
            x = codes[i]
            if track_nat and not (x & 4):
                for k in range(n):
                    buf[k] = codes[k]
                buf[i] = <uint8_t>(x | 4)      # holding a natural
                _dom_put(ka, kb, s, _pack_runs(buf, n), ca, cb, &nc)
            if track_jk and (x >> 3) != 0:
                for k in range(n):
                    buf[k] = codes[k]
                buf[i] = <uint8_t>(x - 8)      # one joker fewer
                _dom_put(ka, kb, s, _pack_runs(buf, n), ca, cb, &nc)
    return nc

cdef int _dominated(Table* t, int64_t e, int track_nat, int track_jk) noexcept nogil:
    """Whether another state of the layer dominates state e: the same jokers and ace
    fields, the same runs but in one suit one run a step better (one longer, holding a
    natural, or one joker fewer) or one more complete run, and a value at least as
    large. The better state can answer every later choice of e's with the same cards
    (a longer run continues as the shorter does, a complete run may end at once; where
    a run may not start because one just ended, the complete run continues instead)."""
    cdef uint64_t kc = t.keys[3 * e + 2]
    cdef int32_t v = _live_val(t.vals[e])
    cdef uint64_t ca[MAXCAND]
    cdef uint64_t cb[MAXCAND]
    cdef int i, n = _dom_candidates(t.keys[3 * e], t.keys[3 * e + 1], track_nat, track_jk, ca, cb)
    cdef int64_t f
    for i in range(n):
        f = _table_find(t, ca[i], cb[i], kc)
        if f >= 0 and _live_val(t.vals[f]) >= v:
            return 1
    return 0

cdef void _drop_marked(Table* t) noexcept nogil:
    """Remove the entries whose value is marked (negative), keeping the others' order."""
    cdef int64_t e, j = 0
    for e in range(t.n):
        if t.vals[e] >= 0:
            t.keys[3 * j] = t.keys[3 * e]
            t.keys[3 * j + 1] = t.keys[3 * e + 1]
            t.keys[3 * j + 2] = t.keys[3 * e + 2]
            t.vals[j] = t.vals[e]
            t.par[j] = t.par[e]
            t.info[j] = t.info[e]
            t.slot[j] = t.slot[e]
            t.idx[t.slot[j]] = (t.idx[t.slot[j]] & (<uint64_t>0xFFFFFFFF00000000ULL)) | <uint64_t>(j + 1)
            j += 1
        else:
            t.idx[t.slot[e]] = 0
    t.n = j

cdef void _drop_dominated(Table* t, int track_nat, int track_jk) noexcept nogil:
    """Remove the states another state of the layer dominates (``_dominated``)."""
    cdef int64_t e
    for e in range(t.n):
        if _dominated(t, e, track_nat, track_jk):
            t.vals[e] = -(t.vals[e] + 1)
    _drop_marked(t)

cdef int _drop_dominated_grouped(Table* t, Work* w, int track_nat, int track_jk) noexcept nogil:
    """``_drop_dominated`` for a layer whose states come in groups (the same runs and
    jokers, other ace fields): a group's better neighbours are found once (a group
    probe each), and only the states of a group that has some are probed one by one.
    The same states are removed. -1 on no memory."""
    cdef Table* g = &w.g
    cdef int64_t e, f, gi, m, nn
    cdef int i, n, k
    cdef int32_t* nextm
    cdef int32_t v
    cdef uint64_t ka, kb, jk, kc
    cdef uint64_t ca[MAXCAND]
    cdef uint64_t cb[MAXCAND]
    cdef int nb[MAXCAND]
    if w.next_cap < t.n:
        nextm = <int32_t*>realloc(w.nextm, t.n * sizeof(int32_t))
        if nextm == NULL:
            return -1
        w.nextm = nextm
        w.next_cap = t.n
    nextm = w.nextm
    # the groups: (runs, jokers) -> the chain of their states (vals: the chain's head)
    _table_clear(g)
    for e in range(t.n):
        jk = t.keys[3 * e + 2] & 7
        f = _table_find(g, t.keys[3 * e], t.keys[3 * e + 1], jk)
        if f < 0:
            nextm[e] = -1
            if _table_put(g, t.keys[3 * e], t.keys[3 * e + 1], jk, <int32_t>e, 0, 0) != 0:
                return -1
        else:
            nextm[e] = g.vals[f]
            g.vals[f] = <int32_t>e
    for gi in range(g.n):
        ka = g.keys[3 * gi]
        kb = g.keys[3 * gi + 1]
        jk = g.keys[3 * gi + 2]
        n = _dom_candidates(ka, kb, track_nat, track_jk, ca, cb)
        nn = 0
        for i in range(n):
            if _table_find(g, ca[i], cb[i], jk) >= 0:
                nb[nn] = i
                nn += 1
        if nn == 0:
            continue
        m = g.vals[gi]
        while m >= 0:
            kc = t.keys[3 * m + 2]
            v = _live_val(t.vals[m])
            for k in range(nn):
                f = _table_find(t, ca[nb[k]], cb[nb[k]], kc)
                if f >= 0 and _live_val(t.vals[f]) >= v:
                    t.vals[m] = -(t.vals[m] + 1)
                    break
            m = nextm[m]
    _drop_marked(t)
    return 0


cdef void _prune_hand(const CRules* r, Pos* pos) noexcept nogil:
    """Drop the hand cards no meld can hold (they stay in hand in every play): a card
    is kept if a set of its rank could hold it (other suits of that rank in table or
    hand, plus jokers, make 2) or some three consecutive positions through it could
    (the positions without a card of its suit are at most the jokers a meld may hold)."""
    cdef int P = 14 if r.ace_high else 13
    cdef int J = pos.JT + pos.JH
    cdef int c, s, rank, s2, k, q, a, x, missing, ok, n_pos
    cdef int qs[2]
    if J > r.mj:
        J = r.mj
    for c in range(52):
        if pos.H[c] == 0:
            continue
        s = c // 13
        rank = c % 13
        k = 0
        for s2 in range(4):
            if s2 != s and pos.T[13 * s2 + rank] + pos.H[13 * s2 + rank] > 0:
                k += 1
        ok = 1 if k + J >= 2 else 0
        qs[0] = rank + 1
        n_pos = 1
        if rank == 0 and r.ace_high:
            qs[1] = 14
            n_pos = 2
        for k in range(n_pos):
            if ok:
                break
            q = qs[k]
            for a in range(q - 2, q + 1):
                if a < 1 or a + 2 > P:
                    continue
                missing = 0
                for x in range(a, a + 3):
                    if x != q and pos.T[_card_at(s, x)] + pos.H[_card_at(s, x)] == 0:
                        missing += 1
                if missing <= J:
                    ok = 1
                    break
        if not ok:
            pos.H[c] = 0


cdef int _prune_hand_fixpoint(const CRules* r, Pos* pos) noexcept nogil:
    """``_prune_hand`` until nothing more drops out (a dropped card can make another
    unplaceable), at most four rounds; the hand naturals left."""
    cdef int i, c, before, after = 0
    for c in range(52):
        after += pos.H[c]
    for i in range(4):
        before = after
        _prune_hand(r, pos)
        after = 0
        for c in range(52):
            after += pos.H[c]
        if after == before:
            break
    return after


cdef int32_t _solve(const CRules* r, const Pos* pos0, Work* w) noexcept nogil:
    """Best value (points * 256 + cards) of the hand cards a play can place, -1 when no
    arrangement keeps every table card (never for a real table), -2 on no memory.
    A value of 0 means no legal play (no hand card can be played)."""
    cdef Pos pp = pos0[0]
    _fix_forced_jokers(r, &pp)
    _prune_hand(r, &pp)
    return _solve_dp(r, &pp, w, 0, NULL)


cdef void _fix_forced_jokers(const CRules* r, Pos* pos) noexcept nogil:
    """Table jokers that must keep their card become required naturals of it.

    Of the table jokers declared d, only as many can be replaced as there are natural
    d's on the table after the play, at most T[d] + H[d]; so at least
    m = D[d] - T[d] - H[d] of them stand for d in every legal play. Such a joker is
    then one more card d that must stay on the table: the same slots, the same
    demand D[d] (which it still helps meet), no value either way (table jokers are
    worth nothing placed). It differs from a natural only in the two joker rules of a
    meld, so this is done only where neither can bite: with at most two jokers in the
    position every meld (3+ cards) keeps a real natural, and a per-meld joker limit
    of at least all the jokers there are never binds. Realistic tables are mostly
    such jokers (the natural copies are in other hands or the stock), and a position
    without free jokers is solved many times faster."""
    cdef int d, m
    cdef int jtotal = pos.JT + pos.JH
    if pos.JT == 0 or jtotal > 2 or r.mj < jtotal:
        return
    for d in range(52):
        if pos.D[d] == 0:
            continue
        m = pos.D[d] - pos.T[d] - pos.H[d]
        if m > 0:
            pos.T[d] += m
            pos.JT -= m


cdef inline int _runs_complete(uint64_t k) noexcept nogil:
    """Whether every run in the key word (two suits' packed runs) is complete: three
    cards or more, a natural among them, no joker count."""
    cdef int h, i
    cdef uint64_t w, x
    for h in range(2):
        w = (k >> (32 * h)) & <uint64_t>0xFFFFFFFF
        for i in range(MAXRUNS):
            x = (w >> (5 * i)) & 31
            if x != 0 and x != 7:
                return 0
    return 1

cdef inline int _ctx_fits(const CRules* r, const Pos* pos) noexcept nogil:
    """Whether every field of a suit's context (``c.sctx``) fits its bits for this
    position: every count of T, H and D at most 7 (so the card's bounds and the next
    positions' cards are at most 14), the cards' points 0..255, at most 15 jokers and
    a joker limit of 0 or more. Real positions always do."""
    cdef uint64_t acc = 0, x
    cdef int i
    cdef const uint8_t* b = pos.T  # T, H and D: 156 consecutive bytes
    for i in range(0, 152, 8):
        memcpy(&x, b + i, 8)
        acc |= x
    memcpy(&x, b + 148, 8)
    acc |= x
    if acc & <uint64_t>0xF8F8F8F8F8F8F8F8ULL:
        return 0
    acc = 0
    for i in range(52):
        acc |= <uint32_t>r.val[i]
    if acc & ~(<uint64_t>255):
        return 0
    return 1 if (pos.JT + pos.JH <= 15 and r.mj >= 0) else 0


cdef int _path_keep(Path* path, int p, const Table* t) noexcept nogil:
    """Keep layer p's steps (its entries' par and info) in ``path``; -1 if too many."""
    cdef int64_t need = path.off[p - 1] + path.n[p - 1] + t.n
    cdef int64_t cap
    cdef int32_t* par
    cdef uint32_t* info
    if need > path.cap:
        if need > PATH_MAX:
            return -1
        cap = path.cap * 2 if path.cap > 0 else 4096
        while cap < need:
            cap *= 2
        par = <int32_t*>realloc(path.par, cap * sizeof(int32_t))
        if par == NULL:
            return -1
        path.par = par
        info = <uint32_t*>realloc(path.info, cap * sizeof(uint32_t))
        if info == NULL:
            return -1
        path.info = info
        path.cap = cap
    path.off[p] = path.off[p - 1] + path.n[p - 1]
    path.n[p] = t.n
    memcpy(&path.par[path.off[p]], t.par, t.n * sizeof(int32_t))
    memcpy(&path.info[path.off[p]], t.info, t.n * sizeof(uint32_t))
    return 0

cdef int32_t _solve_dp(const CRules* r, const Pos* pos, Work* w, int32_t want,
                       Path* path) noexcept nogil:
    """The dynamic program over the positions (the module docstring).

    ``want`` > 0 asks only whether the value reaches ``want``: a state whose value plus
    every hand card of the later positions (all the hand's aces while the high ace is
    to come) and every hand joker falls short of it cannot, and is not kept. The
    answer is then exact when it is ``want`` or more, and otherwise only some value
    below ``want`` (or -1). ``want`` <= 0 keeps every state: the exact value.

    With ``path`` every layer's steps are kept there and ``path.best`` is the final
    entry of the value returned (with ``want``, of a value reaching it), so
    ``_path_counts`` can read the play off it."""
    global _n_states
    cdef Ctx c
    cdef Table* cur = &w.a
    cdef Table* nxt = &w.b
    cdef Table* tmp
    cdef int P = 14 if r.ace_high else 13
    cdef int p, s, q, t, size, jn, sm, jm, i, k, code
    cdef int64_t e
    cdef int32_t best, v
    cdef uint64_t ka, kb, kc
    cdef uint32_t word
    cdef int ace_info, missing, natmask, freemask, fr, jf, low
    cdef uint64_t sctx, lctx
    cdef int ctx_ok = _ctx_fits(r, pos)
    cdef int32_t later[15]     # the hand's value at the positions after p (want > 0)
    cdef int32_t jv = r.val[52] * VALMUL + 1
    cdef int set_na[4 * MAXSETS]
    cdef int set_nj[4 * MAXSETS]
    cdef uint8_t set_jn[MAXSETS]
    cdef uint8_t set_u[4 * MAXSETS]
    cdef uint64_t set_req[MAXSETS]
    cdef uint64_t known, nonempty, need, bit
    cdef int64_t E[4][DMAX]
    cdef int64_t es[4]
    cdef int64_t ee
    cdef int ok
    cdef int acecarry = 0, grouped
    cdef int64_t gf, rec0 = 0
    cdef uint64_t kc_rest = 0
    cdef uint64_t acemask = (<uint64_t>0xFFFFFFFF) << 8   # the aces' fields (third key word)
    cdef int32_t layer_minval
    memset(&c, 0, sizeof(Ctx))
    c.set_na = set_na
    c.set_nj = set_nj
    c.set_jn = set_jn
    c.set_u = set_u
    c.set_req = set_req
    c.r = r
    c.pos = pos
    c.jtotal = pos.JT + pos.JH
    c.track_nat = 1 if (c.jtotal >= 3 and r.mj >= 3) else 0
    c.track_jk = 1 if r.mj < c.jtotal else 0
    # set types: made with the rules (_set_types)
    k = c.jtotal if c.jtotal < 3 else 3
    c.settypes = r.nst[k]
    c.setmask = r.stm[k]
    c.setjmask = r.stj[k]
    c.setjn = r.stn[k]
    _table_clear(cur)
    _table_clear(nxt)
    if _table_put(cur, 0, 0, 0, 0, -1, 0) != 0:
        return -2
    c.path = path
    if path != NULL:
        path.off[0] = 0
        path.n[0] = 1
        path.best = -1
    # The high ace (position 14) of a suit is kept track of only if some run can reach
    # it: the king and queen there, or jokers for them. Otherwise the aces of that suit
    # are decided at position 1 like any card (and the state carries nothing for 14).
    for s in range(4):
        c.high_ok[s] = 0
        if r.ace_high:
            missing = 0
            for k in range(12, 14):
                if pos.T[_card_at(s, k)] + pos.H[_card_at(s, k)] == 0:
                    missing += 1
            if missing <= c.jtotal and missing <= r.mj:
                c.high_ok[s] = 1
    for s in range(4):
        if c.high_ok[s] and _grouping:
            acecarry = 1
    c.minval = -1
    if want > 0:
        later[P] = pos.JH * jv
        for p in range(P - 1, 0, -1):
            later[p] = later[p + 1]
            if p + 1 <= 13:
                for s in range(4):
                    q = _card_at(s, p + 1)
                    later[p] += pos.H[q] * (r.val[q] * VALMUL + 1)
        if r.ace_high:
            for s in range(4):
                for p in range(1, P):
                    later[p] += pos.H[13 * s] * (r.val[13 * s] * VALMUL + 1)
    c.cache = &w.cache
    # The suits' options are kept from one position (and one solve) to the next: their
    # keys hold everything they depend on. Only a cache grown too large is emptied,
    # here, between two solves (never while a layer holds pointers into its pool).
    if w.cache.n > CACHE_KEEP or w.cache.pool_n > POOL_KEEP:
        _cache_clear(&w.cache)
    for p in range(1, P + 1):
        _table_clear(nxt)
        if c.jtotal == 0 and p != 14:
            # No joker and no card of any suit here (none in table or hand, none
            # declared): every run must end before p, nothing starts, no set. A state
            # whose runs are all complete goes on with no runs (the rest of it as it
            # is), any other has no successor; exactly what the full expansion gives.
            sm = 0
            for s in range(4):
                q = _card_at(s, p)
                sm |= pos.T[q] | pos.H[q] | pos.D[q]
            if sm == 0:
                for e in range(cur.n):
                    _n_states += 1
                    if _runs_complete(cur.keys[3 * e]) and _runs_complete(cur.keys[3 * e + 1]):
                        if _table_put(nxt, 0, 0, cur.keys[3 * e + 2], cur.vals[e],
                                      <int32_t>e, 0) != 0:
                            return -2
                if nxt.n > DOMINANCE_FROM:
                    _drop_dominated(nxt, c.track_nat, c.track_jk)
                if path != NULL and _path_keep(path, p, nxt) != 0:
                    return -2
                tmp = cur
                cur = nxt
                nxt = tmp
                continue
        c.out = nxt
        c.p = p
        if want > 0:
            c.minval = want - later[p]
        layer_minval = c.minval
        c.last = 1 if p == P else 0
        c.can_start = 1 if p <= P - 2 else 0
        c.sets_ok = 1 if p <= 13 else 0
        # the layer's part of the suits' contexts (c.sctx, below)
        lctx = ((<uint64_t>c.can_start << 25) | (<uint64_t>c.last << 26) | (<uint64_t>c.jtotal << 33)
                | (<uint64_t>c.track_nat << 37) | (<uint64_t>c.track_jk << 38)
                | (<uint64_t>(r.mj if r.mj < 15 else 15) << 39) | (<uint64_t>1 << 62))
        for s in range(4):
            q = _card_at(s, p)
            # the slots of the card: the same for every state of the layer (position
            # 14 takes them from each state's ace field)
            if p == 1 and c.high_ok[s]:
                c.lo[s] = 0
                c.hi[s] = pos.T[q] + pos.H[q]
                c.thr[s] = pos.T[q]
                c.dem[s] = 0
            else:
                c.lo[s] = pos.T[q]
                c.hi[s] = pos.T[q] + pos.H[q]
                c.thr[s] = pos.T[q]
                c.dem[s] = pos.D[q]
            c.v[s] = r.val[q]
            c.hi1[s] = 0
            c.hi2[s] = -1
            if p + 1 <= P:
                c.hi1[s] = pos.T[_card_at(s, p + 1)] + pos.H[_card_at(s, p + 1)]
            if p + 2 <= P:
                c.hi2[s] = pos.T[_card_at(s, p + 2)] + pos.H[_card_at(s, p + 2)]
            # A run starts with a joker only where it must (exactness kept): a joker
            # at the start of a run standing for a card no table joker is declared as
            # can move to the run's other end, unless the run already reaches the
            # top position. So a joker-started run is tried only on a card some table
            # joker is declared as, or where the run can still reach the top; and
            # only if a natural of its suit is near enough to join it.
            c.jstart_ok[s] = 0
            for k in range(p + 1, P + 1):
                if k > p + c.jtotal:
                    break
                if pos.T[_card_at(s, k)] + pos.H[_card_at(s, k)] > 0:
                    c.jstart_ok[s] = 1
                    break
            if c.jstart_ok[s] and pos.D[q] == 0:
                missing = 1
                for k in range(p + 1, P + 1):
                    if pos.T[_card_at(s, k)] + pos.H[_card_at(s, k)] == 0:
                        missing += 1
                if missing > c.jtotal or missing > r.mj:
                    c.jstart_ok[s] = 0
            # everything the suit's options here depend on besides its runs and what
            # it gives the sets (_opts_rec reads nothing else): the second word of their
            # cache key, so a list made once serves every later position, of any solve,
            # with the same context. At position 14 the card's bounds come from each
            # state's ace field, which is in the first key word instead.
            if ctx_ok:
                if p == 14:
                    sctx = <uint64_t>1 << 28
                else:
                    sctx = (<uint64_t>c.lo[s] | (<uint64_t>c.hi[s] << 4) | (<uint64_t>c.thr[s] << 8)
                            | (<uint64_t>c.dem[s] << 12))
                if p == 1 and c.high_ok[s]:
                    sctx |= (<uint64_t>1 << 27) | (<uint64_t>pos.D[q] << 29)
                c.sctx[s] = (sctx | lctx | (<uint64_t>c.hi1[s] << 16) | (<uint64_t>(c.hi2[s] + 1) << 20)
                             | (<uint64_t>c.jstart_ok[s] << 24) | (<uint64_t>c.v[s] << 43))
            else:
                # a context too large for its bits (no real position): a key used in
                # this layer only, its lists never found again
                w.cache.epoch += 1
                c.sctx[s] = (<uint64_t>1 << 63) | (w.cache.epoch << 2) | <uint64_t>s
        if p != 14:
            for s in range(4):
                c.quiet[s] = 1 if (c.hi[s] == 0 and c.dem[s] == 0
                                   and not (c.can_start and c.jstart_ok[s] and c.jtotal > 0)
                                   and not (p == 1 and c.high_ok[s])) else 0
        # The set types worth trying at this rank: every natural suit has a card here,
        # and jokers standing for cards no table joker is declared as take the lowest
        # such suits (which of those suits a joker stands for changes nothing).
        c.ltypes = 0
        if c.sets_ok:
            natmask = 0
            freemask = 0
            for s in range(4):
                q = _card_at(s, p)
                if pos.T[q] + pos.H[q] > 0:
                    natmask |= 1 << s
                if pos.D[q] == 0:
                    freemask |= 1 << s
            for t in range(c.settypes):
                sm = c.setmask[t]
                jm = c.setjmask[t]
                if (sm & ~jm) & ~natmask:
                    continue
                fr = freemask & ~(sm & ~jm) & 15
                jf = jm & fr
                # jf must be the popcount(jf) lowest bits of fr
                low = 0
                k = 0
                for i in range(4):
                    if k == (jf & 1) + ((jf >> 1) & 1) + ((jf >> 2) & 1) + ((jf >> 3) & 1):
                        break
                    if (fr >> i) & 1:
                        low |= 1 << i
                        k += 1
                if low != jf:
                    continue
                c.ltype[c.ltypes] = <uint8_t>t
                c.ltypes += 1
            # every choice of sets at this rank, for all the states of the layer (a
            # layer of one state recurses: listing would cost as much)
            c.nsets = 0
            if c.ltypes == 0:
                memset(c.set_na, 0, 4 * sizeof(int))
                memset(c.set_nj, 0, 4 * sizeof(int))
                c.set_jn[0] = 0
                c.nsets = 1
            elif cur.n > 1:
                for s in range(4):
                    c.na[s] = 0
                    c.nj[s] = 0
                _sets_list(&c, 0, 0)
                if c.nsets > MAXSETS:
                    c.nsets = 0  # too many to list: each state recurses (_sets_rec)
            _distinct_pairs(&c)
        else:
            c.nsets = 0
        # A state's successors at positions 2..13 do not depend on its ace fields (only
        # position 14 reads them): the states with the same runs and jokers used (a
        # group) have the same successors, each with its own ace fields and value. So
        # where some suit's high ace is carried, the first state of a group records
        # them (``_rec_push``) and every state of the group, in the layer's order, puts
        # them in the next layer (``_recs_emit``): the same puts in the same order as
        # expanding each state, the expansion once a group.
        grouped = 1 if (acecarry and 2 <= p <= 13) else 0
        if grouped:
            _table_clear(&w.g)
            w.rec_n = 0
        for e in range(cur.n):
            _n_states += 1
            c.parent = <int32_t>e
            ka = cur.keys[3 * e]
            kb = cur.keys[3 * e + 1]
            kc = cur.keys[3 * e + 2]
            c.val = cur.vals[e]
            c.jused = <int>(kc & 7)
            if grouped:
                gf = _table_find(&w.g, ka, kb, kc & 7)
                if gf < 0:
                    # the group's first state: record its successors, from value 0
                    rec0 = w.rec_n
                    c.rw = w
                    c.val = 0
                    c.minval = INT32_MIN
                    kc_rest = kc & acemask
                    kc = kc & 7
                else:
                    if _recs_emit(nxt, &w.rec[w.g.vals[gf]], w.g.par[gf], kc & acemask,
                                  cur.vals[e], c.minval, <int32_t>e) != 0:
                        return -2
                    continue
            c.w2 = kc
            c.w2new = kc
            c.word[0] = <uint32_t>(ka & <uint64_t>0xFFFFFFFF)
            c.word[1] = <uint32_t>(ka >> 32)
            c.word[2] = <uint32_t>(kb & <uint64_t>0xFFFFFFFF)
            c.word[3] = <uint32_t>(kb >> 32)
            for s in range(4):
                c.na[s] = 0
                c.nj[s] = 0
            if p == 14:
                # the aces' high end: what the low end left, from the state
                for s in range(4):
                    ace_info = <int>((kc >> (8 + 8 * s)) & 0xFF)
                    c.lo[s] = ace_info & 3
                    c.hi[s] = (ace_info >> 2) & 3
                    c.thr[s] = ace_info & 3
                    c.dem[s] = ace_info >> 4
                    c.quiet[s] = 1 if (c.hi[s] == 0 and c.dem[s] == 0) else 0
                    c.w2new &= ~((<uint64_t>0xFF) << (8 + 8 * s))
            if c.nsets > 0 and c.du_ok:
                # the sets of this rank, listed once for the layer (_sets_list); each
                # suit's options for each pair it gives them, looked up once a state
                # (bits of the pairs looked up, and of those with an option)
                known = 0
                nonempty = 0
                for i in range(c.nsets):
                    jn = c.set_jn[i]
                    if c.jused + jn > c.jtotal:
                        continue
                    need = c.set_req[i] & ~known
                    if need:
                        # look the new pairs up, suit by suit, until one has no option
                        for s in range(4):
                            k = c.set_u[4 * i + s]
                            bit = (<uint64_t>1) << (DMAX * s + k)
                            if not (need & bit):
                                if not (nonempty & bit):
                                    break
                                continue
                            c.na[s] = c.dna[s][k]
                            c.nj[s] = c.dnj[s][k]
                            ee = _suit_options(&c, s)
                            if ee == -1:
                                return -2
                            E[s][k] = ee
                            known |= bit
                            if ee >= 0 and <uint32_t>ee == 0:
                                break   # no option for this suit: no successor
                            nonempty |= bit
                    if c.set_req[i] & ~nonempty:
                        continue
                    for s in range(4):
                        es[s] = E[s][c.set_u[4 * i + s]]
                    memcpy(c.nj, &c.set_nj[4 * i], 4 * sizeof(int))
                    _combine_lists(&c, c.jused + jn, es)
                    if c.failed:
                        return -2
            elif c.nsets > 0:
                # the sets of this rank, listed once for the layer (_sets_list)
                for i in range(c.nsets):
                    jn = c.set_jn[i]
                    if c.jused + jn > c.jtotal:
                        continue
                    memcpy(c.na, &c.set_na[4 * i], 4 * sizeof(int))
                    memcpy(c.nj, &c.set_nj[4 * i], 4 * sizeof(int))
                    _combine(&c, c.jused + jn)
                    if c.failed:
                        return -2
            elif c.sets_ok:
                _sets_rec(&c, 0, c.jused)
            else:
                _combine(&c, c.jused)
            if c.failed:
                return -2
            if grouped:
                c.rw = NULL
                c.minval = layer_minval
                if _table_put(&w.g, ka, kb, kc, <int32_t>rec0, <int32_t>(w.rec_n - rec0), 0) != 0:
                    return -2
                if _recs_emit(nxt, &w.rec[rec0], w.rec_n - rec0, kc_rest, cur.vals[e],
                              c.minval, <int32_t>e) != 0:
                    return -2
        if nxt.n > DOMINANCE_FROM:
            if acecarry and p <= 13:
                if _drop_dominated_grouped(nxt, w, c.track_nat, c.track_jk) != 0:
                    return -2
            else:
                _drop_dominated(nxt, c.track_nat, c.track_jk)
        if path != NULL and _path_keep(path, p, nxt) != 0:
            return -2
        tmp = cur
        cur = nxt
        nxt = tmp
    best = -1
    for e in range(cur.n):
        k = <int>(cur.keys[3 * e + 2] & 7)
        if k < pos.JT:
            continue
        v = cur.vals[e] + (k - pos.JT) * (r.val[52] * VALMUL + 1)
        if v > best:
            best = v
            if path != NULL:
                path.best = e
    return best


cdef int _path_counts(const Path* path, int P, uint8_t* hand, uint8_t* jslots) noexcept nogil:
    """The play of ``path``: the hand naturals it places and the joker slots of each
    card; -1 if the path is not whole (a bug)."""
    cdef int64_t e = path.best
    cdef int p, s, q
    cdef uint32_t info, x
    memset(hand, 0, 52)
    memset(jslots, 0, 52)
    if e < 0:
        return -1
    for p in range(P, 0, -1):
        if e >= path.n[p]:
            return -1
        info = path.info[path.off[p] + e]
        for s in range(4):
            x = (info >> (6 * s)) & 63
            if x:
                q = _card_at(s, p)
                hand[q] += x & 7
                jslots[q] += x >> 3
        e = path.par[path.off[p] + e]
        if e < 0 or e >= path.n[p - 1]:
            return -1
    return 0

cdef int32_t _solve_play(const CRules* r, const Pos* pos, Work* w, Path* path, uint8_t* nT,
                         uint8_t* nD, int* nJT) noexcept nogil:
    """``_solve`` that also reads the play off the program's path: the table after it
    as counts (naturals ``nT``, jokers declared as each card ``nD``, ``nJT`` jokers).
    The value as ``_solve`` gives it (0: no play, the outputs untouched; -1, -2 as
    there); -3 when the path cannot be read (more than 7 jokers, or a bug)."""
    cdef Pos pp = pos[0]
    cdef uint8_t hand[52]
    cdef uint8_t js[52]
    cdef int c, k = 0, P = 14 if r.ace_high else 13
    cdef int32_t v, check
    cdef int after
    _fix_forced_jokers(r, &pp)
    after = _prune_hand_fixpoint(r, &pp)
    if pp.JT + pp.JH > 7:
        return -3
    if after + pp.JH == 0:
        return 0                # nothing in the hand can be placed (a valid table assumed)
    # only a play (value 1 or more) is of use: states that cannot make one are dropped
    v = _solve_dp(r, &pp, w, 1, path)
    if v <= 0:
        return 0
    if path.best < 0:
        return -3
    if _path_counts(path, P, hand, js) != 0:
        return -3
    check = 0
    for c in range(52):
        if hand[c] > pp.H[c]:
            return -3
        check += hand[c] * (r.val[c] * VALMUL + 1)
        k += js[c]
    if k < pp.JT or k - pp.JT > pp.JH:
        return -3
    check += (k - pp.JT) * (r.val[52] * VALMUL + 1)
    if check != v:
        return -3
    for c in range(52):
        nT[c] = pos.T[c] + hand[c]
        # a forced table joker (made a natural of its card) is still a joker there
        nD[c] = js[c] + pp.T[c] - pos.T[c]
    nJT[0] = pos.JT + k - pp.JT
    return v


cdef int _counts_pos(const uint8_t[::1] T, const uint8_t[::1] H, const uint8_t[::1] D,
                     int JT, int JH, int max_jokers, Pos* pos) except -1:
    """Raw counts (52 each, and the joker counts) into ``pos``, or a ValueError
    naming what is out of range."""
    cdef int i
    if T.shape[0] != 52 or H.shape[0] != 52 or D.shape[0] != 52:
        raise ValueError("counts must be 52 long")
    if JT < 0 or JH < 0 or JT + JH > max_jokers:
        raise ValueError("joker counts out of range")
    for i in range(52):
        if T[i] + H[i] > 3 or D[i] > 7:
            raise ValueError("card counts out of range")
        pos.T[i] = T[i]
        pos.H[i] = H[i]
        pos.D[i] = D[i]
    pos.JT = JT
    pos.JH = JH
    return 0


def play_counts(CoreRules rules, const uint8_t[::1] T, const uint8_t[::1] H,
                const uint8_t[::1] D, int JT, int JH):
    """The best play of raw counts, read off the program's own path: ``(value, nT, nD,
    nJT)``, the table after the play as counts (naturals, jokers declared as each
    card, jokers), or ``(value, None, None, None)`` when there is no play (value 0 or
    -1) or the path cannot be read (value -3: more than 7 jokers). GIL released."""
    cdef Pos pos
    cdef Work w
    cdef Path path
    cdef uint8_t nT[52]
    cdef uint8_t nD[52]
    cdef int nJT = 0, i
    cdef int32_t v
    _counts_pos(T, H, D, JT, JH, 15, &pos)
    memset(&path, 0, sizeof(Path))
    if _work_init_kept(&w) != 0:
        raise MemoryError()
    with nogil:
        v = _solve_play(&rules.r, &pos, &w, &path, nT, nD, &nJT)
    _work_free_kept(&w)
    free(path.par)
    free(path.info)
    if v == -2:
        raise MemoryError("the carousel solver ran out of memory")
    if v <= 0:
        return v, None, None, None
    return v, bytes(nT[:52]), bytes(nD[:52]), nJT


# --------------------------------------------------------------------------- Python side
cdef class CoreRules:
    """The rules the kernel reads, compiled once from a ``CarouselRules``."""
    cdef CRules r

    def __cinit__(self, rules):
        cdef int c
        self.r.ace_high = 1 if rules.ace_high else 0
        self.r.mj = 99 if rules.max_jokers_per_meld is None else int(rules.max_jokers_per_meld)
        self.r.decks = int(rules.decks)
        self.r.jokers = int(rules.jokers)
        for c in range(53):
            self.r.val[c] = int(rules.card_value(c))
        _set_types(&self.r)


cdef void _set_types(CRules* r) noexcept nogil:
    """The set types for each joker count 0..3 (a set holds at most 3 jokers): a suit
    mask of 3 or 4 suits and the suits filled by jokers, within the per-meld limit."""
    cdef int k, sm, jm, size, jn, n
    for k in range(4):
        n = 0
        for sm in range(16):
            size = (sm & 1) + ((sm >> 1) & 1) + ((sm >> 2) & 1) + ((sm >> 3) & 1)
            if size < 3:
                continue
            for jm in range(16):
                if (jm & ~sm) != 0 or jm == sm:
                    continue
                jn = (jm & 1) + ((jm >> 1) & 1) + ((jm >> 2) & 1) + ((jm >> 3) & 1)
                if jn > r.mj or jn > k:
                    continue
                r.stm[k][n] = <uint8_t>sm
                r.stj[k][n] = <uint8_t>jm
                r.stn[k][n] = <uint8_t>jn
                n += 1
        r.nst[k] = n


cdef int _fill(Pos* pos, const uint8_t* trow, Py_ssize_t nt, const uint8_t* hrow,
               Py_ssize_t nh, const CRules* r, int32_t* hand_points, int* detail) noexcept nogil:
    """Counts from one row of tables and hands; 0, or a negative error code with
    ``detail``: -10 bad table code (detail: its column), -11 bad hand code (column),
    -12 too many copies (detail: the card), -13 too many jokers (detail: how many)."""
    cdef Py_ssize_t i
    cdef int x, jt = 0, jh = 0
    cdef int32_t hp = 0
    memset(pos, 0, sizeof(Pos))
    for i in range(nt):
        x = trow[i]
        if x == 255:
            continue
        if x < 52:
            pos.T[x] += 1
        elif 53 <= x < 105:
            pos.D[x - 53] += 1
            jt += 1
        else:
            detail[0] = <int>i
            return -10
    for i in range(nh):
        x = hrow[i]
        if x == 255:
            continue
        if x < 52:
            pos.H[x] += 1
            hp += r.val[x]
        elif x == 52:
            jh += 1
            hp += r.val[52]
        else:
            detail[0] = <int>i
            return -11
    for i in range(52):
        if pos.T[i] + pos.H[i] > r.decks:
            detail[0] = <int>i
            return -12
    if jt + jh > r.jokers:
        detail[0] = jt + jh
        return -13
    pos.JT = jt
    pos.JH = jh
    hand_points[0] = hp
    return 0


_SUITS = "SHDC"
_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def _row_error(int err, int detail, Py_ssize_t i, Py_ssize_t row, tables, hands, CoreRules rules):
    """The ValueError of bad batch row ``i`` (row ``row`` of the caller's arrays),
    naming the row and what is wrong."""
    if err == -10:
        return ValueError(f"tables row {row}, column {detail}: {tables[i, detail]} is not a table "
                          "code (0..51 a natural, 53..104 a table joker declared as code - 53, "
                          "255 padding)")
    if err == -11:
        return ValueError(f"hands row {row}, column {detail}: {hands[i, detail]} is not a hand "
                          "code (0..51 a natural, 52 a joker, 255 padding)")
    if err == -12:
        n = 0
        for x in tables[i]:
            n += x == detail
        for x in hands[i]:
            n += x == detail
        return ValueError(f"row {row}: table and hand hold {n} copies of "
                          f"{_RANKS[detail % 13]}{_SUITS[detail // 13]}, but rules.decks is "
                          f"{rules.r.decks}")
    return ValueError(f"row {row}: table and hand hold {detail} jokers, but rules.jokers is "
                      f"{rules.r.jokers}")


def solve_counts(CoreRules rules, const uint8_t[::1] T, const uint8_t[::1] H,
                 const uint8_t[::1] D, int JT, int JH):
    """Best value ``points * 256 + cards`` for raw counts (52 each), -1 if no
    arrangement keeps every required card. Used by the solver's reconstruction."""
    cdef Pos pos
    cdef Work w
    cdef int32_t v
    cdef int i
    _counts_pos(T, H, D, JT, JH, 7, &pos)
    if _work_init_kept(&w) != 0:
        raise MemoryError()
    with nogil:
        v = _solve(&rules.r, &pos, &w)
    _work_free_kept(&w)
    if v == -2:
        raise MemoryError("the carousel solver ran out of memory")
    return v


def solve_batch(CoreRules rules, const uint8_t[:, ::1] tables, const uint8_t[:, ::1] hands,
                int32_t[::1] points_left, int32_t[::1] cards_played, int64_t row0=0):
    """Rows of ``tables`` and ``hands`` (uint8 codes, 255 pads; a table joker declared
    d is 53 + d) -> points left after the best play and cards it plays (GIL released).
    A row whose table cannot be arranged gets points_left -1."""
    cdef Py_ssize_t n = tables.shape[0], i, nt = tables.shape[1], nh = hands.shape[1]
    cdef Pos pos
    cdef Work w
    cdef int32_t v, hp
    cdef int err = 0, detail = 0
    cdef Py_ssize_t bad = -1
    if hands.shape[0] != n or points_left.shape[0] != n or cards_played.shape[0] != n:
        raise ValueError("tables, hands and the outputs must have the same number of rows")
    if _work_init_kept(&w) != 0:
        raise MemoryError()
    with nogil:
        for i in range(n):
            hp = 0
            err = _fill(&pos, &tables[i, 0] if nt > 0 else NULL, nt,
                        &hands[i, 0] if nh > 0 else NULL, nh, &rules.r, &hp, &detail)
            if err != 0:
                bad = i
                break
            v = _solve(&rules.r, &pos, &w)
            if v == -2:
                err = -2
                bad = i
                break
            if v < 0:
                points_left[i] = -1
                cards_played[i] = 0
            else:
                points_left[i] = hp - v // VALMUL
                cards_played[i] = v % VALMUL
    _work_free_kept(&w)
    if err == -2:
        raise MemoryError(f"the carousel solver ran out of memory on row {row0 + bad}")
    if err != 0:
        raise _row_error(err, detail, bad, row0 + bad, np.asarray(tables), np.asarray(hands), rules)


# --------------------------------------------------------------------------- meld reconstruction
# The melds of a best play, rebuilt meld by meld exactly as the Python reference
# (``rummy51.carousel.solver._rebuild_python``) does, each step checked against the
# kernel's value of what is left (``_solve``, the function ``solve_counts`` wraps),
# with no Python object in the loop. Same candidate order (``_candidates``: shortest
# first; sets before runs of one length, runs by their lowest position), same filling
# order (``_fills``), same errors.

DEF RB_MAXCAND = 128     # candidate melds of one card (at most 4 sets + 91 runs)
DEF RB_MAXSLOTS = 512    # slots of the rebuilt table (a real one holds at most 3 * 52 + 7)
DEF RB_MAXMELDS = 256
DEF RB_GUARD = 1000      # steps before giving up (the reference's guard)

cdef struct Rebuild:
    int status            # 0 done, 1 did not converge, 2 ran out of cards, 3 no meld for
                          # ``detail``, 4 output full, -2 no memory
    int detail
    int nmelds
    int nslots
    int hand_jokers
    int32_t mlen[RB_MAXMELDS]
    uint8_t card[RB_MAXSLOTS]  # 52 = joker
    uint8_t rep[RB_MAXSLOTS]


cdef int _rb_candidates(int card, int ace_high, uint8_t* cand, int* clen) noexcept nogil:
    """``_candidates``: melds (the cards their slots stand for) with a slot of ``card``,
    shortest first (a stable sort by length of: sets of 3, the set of 4, then runs by
    length and lowest position)."""
    cdef int rank = card % 13, suit = card // 13
    cdef int others[3]
    cdef int no = 0, s, i, j, n = 0, L, a, b, p, top, hit
    cdef int idx[3]
    for s in range(4):
        if s != suit:
            others[no] = s
            no += 1
    top = 14 if ace_high else 13
    for L in range(3, top + 1):
        if L == 3:
            # combinations(others, 2) in order: (0,1) (0,2) (1,2), slots in suit order
            for i in range(3):
                for j in range(i + 1, 3):
                    idx[0] = suit
                    idx[1] = others[i]
                    idx[2] = others[j]
                    _rb_sort3(idx)
                    for a in range(3):
                        cand[14 * n + a] = <uint8_t>(idx[a] * 13 + rank)
                    clen[n] = 3
                    n += 1
        elif L == 4:
            for s in range(4):
                cand[14 * n + s] = <uint8_t>(s * 13 + rank)
            clen[n] = 4
            n += 1
        for a in range(1, top - L + 2):
            b = a + L - 1
            hit = 0
            if a <= rank + 1 <= b:
                hit = 1
            if rank == 0 and 14 <= top and a <= 14 <= b:
                hit = 1
            if not hit:
                continue
            for p in range(a, b + 1):
                cand[14 * n + p - a] = <uint8_t>(suit * 13 + (p - 1 if p <= 13 else 0))
            clen[n] = L
            n += 1
    return n


cdef inline void _rb_sort3(int* x) noexcept nogil:
    cdef int t
    if x[0] > x[1]:
        t = x[0]; x[0] = x[1]; x[1] = t
    if x[1] > x[2]:
        t = x[1]; x[1] = x[2]; x[2] = t
    if x[0] > x[1]:
        t = x[0]; x[0] = x[1]; x[1] = t


cdef int _rb_place(const CRules* r, Pos* st, int32_t* target, const uint8_t* meld, int n,
                   int anchor_natural, int anchor_card, int hand_phase, Work* w,
                   Rebuild* out) noexcept nogil:
    """``_fills`` of one candidate meld, in its order; the first filling whose remaining
    value plus gain is the target is applied (1), or none is (0); -2 on no memory."""
    cdef int limit = r.mj
    cdef int jokers = st.JT + st.JH
    cdef int anchor = -1, i, k, opt, n_opts, anchor_nat, max_j, nj, nr, ok, d, t
    cdef int from_table, from_hand, m
    cdef int rest[14]
    cdef int comb[14]
    cdef uint8_t isj[14]
    cdef int32_t gain, v
    cdef Pos nst
    for i in range(n):
        if meld[i] == anchor_card:
            anchor = i
            break
    if anchor < 0:
        return 0
    nr = 0
    for i in range(n):
        if i != anchor:
            rest[nr] = i
            nr += 1
    n_opts = 1 if anchor_natural else 2
    for opt in range(n_opts):
        anchor_nat = 1 if opt == 0 else 0
        max_j = jokers - (0 if anchor_nat else 1)
        if n - 1 < max_j:
            max_j = n - 1
        if limit - (0 if anchor_nat else 1) < max_j:
            max_j = limit - (0 if anchor_nat else 1)
        if max_j < 0:
            max_j = 0
        for nj in range(max_j + 1):
            if nj > nr:
                break
            for i in range(nj):
                comb[i] = i
            while True:
                # one joker set: rest[comb[0..nj-1]], plus the anchor when it is a joker
                memset(isj, 0, 14)
                for i in range(nj):
                    isj[rest[comb[i]]] = 1
                if not anchor_nat:
                    isj[anchor] = 1
                k = nj + (0 if anchor_nat else 1)
                if not (k == n or k > limit):
                    nst = st[0]
                    gain = 0
                    ok = 1
                    for i in range(n):
                        d = meld[i]
                        if nst.D[d] > 0:
                            nst.D[d] -= 1
                        if isj[i]:
                            continue
                        if nst.T[d] > 0 and not hand_phase:
                            nst.T[d] -= 1
                        elif nst.H[d] > 0:
                            nst.H[d] -= 1
                            gain += r.val[d] * VALMUL + 1
                        else:
                            ok = 0
                            break
                    if ok:
                        from_table = k if k < st.JT else st.JT
                        from_hand = k - from_table
                        if from_hand <= st.JH:
                            gain += from_hand * (r.val[52] * VALMUL + 1)
                            nst.JT = st.JT - from_table
                            nst.JH = st.JH - from_hand
                            v = _solve(r, &nst, w)
                            if v == -2:
                                return -2
                            if v >= 0 and v + gain == target[0]:
                                if out.nmelds >= RB_MAXMELDS or out.nslots + n > RB_MAXSLOTS:
                                    return -4
                                m = out.nslots
                                for i in range(n):
                                    out.card[m + i] = 52 if isj[i] else meld[i]
                                    out.rep[m + i] = meld[i]
                                out.nslots += n
                                out.mlen[out.nmelds] = n
                                out.nmelds += 1
                                out.hand_jokers += from_hand
                                st[0] = nst
                                target[0] -= gain
                                return 1
                # next combination of nj indices out of nr, in lexicographic order
                i = nj - 1
                while i >= 0 and comb[i] == nr - nj + i:
                    i -= 1
                if i < 0:
                    break
                comb[i] += 1
                for t in range(i + 1, nj):
                    comb[t] = comb[t - 1] + 1
    return 0


cdef void _rebuild(const CRules* r, Pos* st, int32_t target, Work* w, Rebuild* out) noexcept nogil:
    """``_rebuild_python`` in C: melds placing every required card and reaching
    ``target`` (the kernel's value of ``st``)."""
    cdef int guard = 0, c, low, anchor_natural, hand_phase, nc, j, res
    cdef uint8_t cand[RB_MAXCAND * 14]
    cdef int clen[RB_MAXCAND]
    cdef Pos skip
    cdef int32_t v
    out.status = 0
    out.detail = 0
    out.nmelds = 0
    out.nslots = 0
    out.hand_jokers = 0
    while True:
        guard += 1
        if guard > RB_GUARD:
            out.status = 1
            return
        low = -1
        for c in range(52):
            if st.T[c] > 0 or st.D[c] > 0:
                low = c
                break
        if low >= 0:
            anchor_natural = 1 if st.T[low] > 0 else 0
            hand_phase = 0
        else:
            if target == 0 and st.JT == 0:
                return
            for c in range(52):
                if st.H[c] > 0:
                    low = c
                    break
            if low < 0:
                out.status = 2
                return
            # leave this card in hand if the rest still reaches the target
            skip = st[0]
            skip.H[low] -= 1
            v = _solve(r, &skip, w)
            if v == -2:
                out.status = -2
                return
            if v == target:
                st[0] = skip
                continue
            anchor_natural = 1
            hand_phase = 1
        nc = _rb_candidates(low, r.ace_high, cand, clen)
        res = 0
        for j in range(nc):
            res = _rb_place(r, st, &target, &cand[14 * j], clen[j], anchor_natural, low, hand_phase,
                            w, out)
            if res != 0:
                break
        if res == -2 or res == -4:
            out.status = res if res == -2 else 4
            return
        if res == 0:
            out.status = 3
            out.detail = low
            return


def rebuild_counts(CoreRules rules, const uint8_t[::1] T, const uint8_t[::1] H,
                   const uint8_t[::1] D, int JT, int JH, int32_t target):
    """The melds of a play of raw counts reaching ``target`` (the value ``solve_counts``
    gives them), rebuilt in C exactly as ``solver._rebuild_python`` does:
    ``(status, detail, melds, hand_jokers)``, ``melds`` a list of lists of
    ``(card, represents)`` pairs (52 = joker) in the order built; status 0 done, 1 did
    not converge, 2 ran out of cards, 3 found no meld for card ``detail``, 4 too many
    melds. The GIL is released."""
    cdef Pos pos
    cdef Work w
    cdef Rebuild* out
    cdef int i, k, m, s
    _counts_pos(T, H, D, JT, JH, 7, &pos)
    out = <Rebuild*>malloc(sizeof(Rebuild))
    if out == NULL:
        raise MemoryError()
    if _work_init_kept(&w) != 0:
        free(out)
        raise MemoryError()
    with nogil:
        _rebuild(&rules.r, &pos, target, &w, out)
    _work_free_kept(&w)
    try:
        if out.status == -2:
            raise MemoryError("the carousel solver ran out of memory")
        melds = []
        s = 0
        for m in range(out.nmelds):
            melds.append([(out.card[s + k], out.rep[s + k]) for k in range(out.mlen[m])])
            s += out.mlen[m]
        return out.status, out.detail, melds, out.hand_jokers
    finally:
        free(out)


include "_carousel_careful.pxi"
include "_carousel_game.pxi"
include "_carousel_search.pxi"
