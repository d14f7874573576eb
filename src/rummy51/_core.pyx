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


cdef inline int card_of_bit(int b) noexcept nogil:
    return (b >> 4) * 13 + (b & 15)


cdef inline uint64_t ranks_in_two_suits(uint64_t x) noexcept nogil:
    """The ranks (13-bit mask) that plane ``x`` holds in at least two suits."""
    cdef uint64_t a = x & 0x1FFF, b = (x >> 16) & 0x1FFF
    cdef uint64_t c = (x >> 32) & 0x1FFF, d = (x >> 48) & 0x1FFF
    return (a & (b | c | d)) | (b & (c | d)) | (c & d)


cdef inline uint64_t useful0(uint64_t once, int ace_high) noexcept nogil:
    """Naturals lying in some jokerless meld: a natural 3-run or a rank in 3 suits."""
    cdef uint64_t L, x, run0, a, b, c, d, rk0
    L = once
    if ace_high:
        L = L | ((once & ACES) << 13)
    x = L & (L >> 1) & (L >> 2)
    run0 = x | (x << 1) | (x << 2)
    run0 = (run0 | ((run0 >> 13) & ACES)) & LANES13
    a = once & 0x1FFF
    b = (once >> 16) & 0x1FFF
    c = (once >> 32) & 0x1FFF
    d = (once >> 48) & 0x1FFF
    rk0 = (a & b & (c | d)) | (c & d & (a | b))
    return (run0 & once) | ((rk0 * ACES) & once)


cdef inline uint64_t useful_mask(uint64_t once, int jok, const Rules* r,
                                 uint64_t* natural) noexcept nogil:
    """Naturals (once plane) lying in some meld the hand could form, by bit tests
    over all four suits at once (eval7-style lanes). ``natural`` receives those
    lying in some meld without a joker."""
    cdef int je = jok if jok < r.mj else r.mj
    cdef uint64_t L, x, p1, p2, run0, run1, a, b, c, d, rk0, rk1, u0
    L = once
    if r.ace_high:
        L = L | ((once & ACES) << 13)        # the ace again above the king
    p1 = L & (L >> 1)                        # adjacent pairs
    x = p1 & (L >> 2)                        # starts of natural 3-runs
    run0 = x | (x << 1) | (x << 2)
    run0 = (run0 | ((run0 >> 13) & ACES)) & LANES13   # fold the high ace back to bit 0
    a = once & 0x1FFF
    b = (once >> 16) & 0x1FFF
    c = (once >> 32) & 0x1FFF
    d = (once >> 48) & 0x1FFF
    rk0 = (a & b & (c | d)) | (c & d & (a | b))      # ranks held in >= 3 suits
    u0 = (run0 & once) | ((rk0 * ACES) & once)
    natural[0] = u0
    if je == 0:
        return u0
    if je >= 2:
        return once                          # any card + 2 jokers is a meld
    p2 = L & (L >> 2)                        # pairs with a gap: the joker inside
    run1 = p1 | (p1 << 1) | p2 | (p2 << 2)   # adjacent pairs take the joker at an end
    run1 = (run1 | ((run1 >> 13) & ACES)) & LANES13
    rk1 = ranks_in_two_suits(once)
    return (run1 & once) | ((rk1 * ACES) & once)


cdef int parse_hand(const Rules* r, const uint8_t* codes, Py_ssize_t n, Hand* h) noexcept nogil:
    """Build the bit planes of a hand of card codes (255 = padding, skipped).
    Returns 0, or an ERR_* code with h.n set to the index of the bad card.
    (The deadwood weight is not summed here: ``hand_weight`` does it when asked.)
    (Locals, not h's fields, in the loop: uint8_t reads may alias them.)"""
    cdef Py_ssize_t i
    cdef int code, jokers = 0, count = 0, err = 0
    cdef uint64_t bit, once = 0, twice = 0
    for i in range(n):
        code = codes[i]
        if code < 52:
            bit = (<uint64_t>1) << BIT_OF[code]
            if once & bit:
                if twice & bit or r.decks < 2:
                    err = ERR_COPIES
                    break
                twice |= bit
            else:
                once |= bit
        elif code == 52:
            jokers += 1
            if jokers > r.jokers:
                err = ERR_JOKERS
                break
        elif code == 255:
            continue
        else:
            err = ERR_CODE
            break
        count += 1
    if err == 0 and count > MAX_HAND:
        err = ERR_LONG
        i = MAX_HAND
    h.once = once
    h.twice = twice
    h.jokers = jokers
    h.n = <int>i if err else count
    return err


cdef inline void parse_dealt(const uint8_t* codes, int n, Hand* h) noexcept nogil:
    """``parse_hand`` for cards dealt from the rule set's own deck (codes 0..52, no
    more copies than it holds, n <= MAX_HAND): nothing to check, no branch. Each
    natural sets one bit of once or twice, so the rest are jokers."""
    cdef int i
    cdef uint64_t bit, once = 0, twice = 0
    for i in range(n):
        bit = CARD_BIT[codes[i]]
        twice |= once & bit
        once |= bit
    h.once = once
    h.twice = twice
    h.jokers = n - popcount64(once) - popcount64(twice)
    h.n = n


cdef inline int hand_weight(const Rules* r, const Hand* h) noexcept nogil:
    """Total deadwood weight of a parsed hand: hand values plus joker penalties."""
    return (lanes_sum(h.once, r.tabw) + lanes_sum(h.twice, r.tabw)
            + h.jokers * r.joker_penalty)


cdef inline int lanes_sum(uint64_t plane, const int16_t* tab) noexcept nogil:
    """Sum of a per-rank quantity over the cards of a plane, one table look-up per suit."""
    return (tab[plane & 0x1FFF] + tab[(plane >> 16) & 0x1FFF]
            + tab[(plane >> 32) & 0x1FFF] + tab[(plane >> 48) & 0x1FFF])


cdef int apart_cards(uint64_t x1, uint64_t x2, int limit, int ace_high) noexcept nogil:
    """A lower bound on the melds needed to hold the naturals ``x1`` (and second
    copies ``x2``): the size of a set of them no two of which fit one meld (greedy,
    stopping at ``limit`` <= 8). Two fit one meld only if they are of one rank in
    two suits, or of one suit at most 4 apart (the ace also above the king when
    ``ace_high``): no meld holds more than MAX_MELD cards, nor a card twice."""
    cdef int rep[8]
    cdef int k = 0, i, b, c, d, ra, rb
    cdef uint64_t x = x1
    cdef bint second = False
    while True:
        if x == 0:
            if second or x2 == 0:
                return k
            second = True
            x = x2
        b = R51_CTZ(x)
        x &= x - 1
        for i in range(k):
            c = rep[i]
            if c == b:
                continue                    # the same card: never one meld
            ra = c & 15
            rb = b & 15
            if (c >> 4) != (b >> 4):
                if ra == rb:
                    break                   # a set
                continue
            d = ra - rb if ra > rb else rb - ra
            if ace_high and (ra == 0 or rb == 0) and 13 - (ra + rb) < d:
                d = 13 - (ra + rb)          # the ace above the king
            if d <= 4:
                break                       # a run
        else:
            rep[k] = b
            k += 1
            if k >= limit:
                return k


cdef inline int bound_of(const Search* s, uint64_t once, uint64_t twice, int jok,
                         int* gains) noexcept nogil:
    """Most the useful cards (planes ``once``, ``twice``) and ``jok`` jokers could
    still add. Without jokers: every useful card at its most. With jokers: the
    cards that lay in jokerless melds at the root (only they can form jokerless
    melds now), plus for each joker meld the most one adds beyond those, which
    goes to ``gains``."""
    cdef int v
    if jok == 0:
        gains[0] = 0
        v = lanes_sum(once, s.tab)
        if twice:
            v += lanes_sum(twice, s.tab)
        return v
    gains[0] = node_gains(s, once, twice, jok)
    v = lanes_sum(once & s.root_u0, s.tab) + gains[0]
    twice &= s.root_u0
    if twice:
        v += lanes_sum(twice, s.tab)
    return v


cdef inline int next_meld(const Rules* r, int i, uint64_t m, uint64_t once) noexcept nogil:
    """After meld i (natural cards ``m``) does not fit ``once``: the next meld worth
    testing. When its second natural card is missing, the whole group sharing that
    card is skipped."""
    cdef uint64_t m2 = m & (m - 1)
    if (m2 & (~m2 + 1)) & ~once:
        return r.skip[i]
    return i + 1


cdef int joker_gain_bound(const Search* s, uint64_t once, uint64_t u0, int jok) noexcept nogil:
    """An upper bound on what one meld with jokers adds beyond the values of its
    naturals in jokerless melds (``u0``): its jokers at their most, plus the
    naturals outside ``u0`` (``x``) it can hold. Those lie either in one suit within
    five consecutive positions (a run of at most 5), or in at most two suits of
    one rank (a third suit would put them in a jokerless set)."""
    cdef const Rules* r = s.r
    cdef uint64_t x = once & ~u0, xl, lane, rk
    cdef int bit, pos, v, best = 0, nj = jok if jok < r.mj else r.mj
    if x == 0:
        return nj * s.jub
    xl = x
    if r.ace_high:
        xl = x | ((x & ACES) << 13)          # the high ace at bit 13 of its lane
    while xl:
        bit = R51_CTZ(xl)
        pos = bit & 15
        lane = (xl >> (bit - pos)) & 0x3FFF
        v = s.tab[lane & (<uint64_t>0x1F << pos)]
        if v > best:
            best = v
        xl &= xl - 1
    rk = ranks_in_two_suits(x)
    while rk:
        bit = R51_CTZ(rk)
        v = 2 * s.tab[(<uint64_t>1) << bit]
        if v > best:
            best = v
        rk &= rk - 1
    return best + nj * s.jub


cdef void joker_gain(Search* s, uint64_t once, uint64_t u0, int jok) noexcept nogil:
    """List the joker melds that can add the most beyond the values of their naturals
    lying in jokerless melds (``u0``), for the node bounds (``node_gains``), and set
    ``s.jstar`` to the one adding most, to try first.

    A meld of naturals all in ``u0`` adds at most its jokers' values (``gfloor``);
    only melds holding a natural outside ``u0`` can add more, so only the catalogue
    groups whose lowest card lies near such a card are scanned: up to 4 below it in
    its suit, any ace (Q-K-A has the ace lowest), or its rank in another suit."""
    cdef const Rules* r = s.r
    cdef const uint64_t* mask = r.mask
    cdef const int32_t* start = r.start
    cdef const int32_t* jstart = r.jstart
    cdef const int32_t* val = s.val
    cdef const uint8_t* njokers = r.njokers
    cdef const int16_t* tab = s.tab
    cdef uint64_t xo = once & ~u0, m, x, ranks, a, b, c2
    cdef int bit, c, i, i_end, g, k, ng = 0, trunc = 0, best_i = -1
    cdef int nj = jok if jok < r.mj else r.mj
    cdef int floor = nj * s.jub
    # locals, not s's fields: int stores into s could alias the catalogue's int32
    # arrays and force reloads in the scan
    cdef int gval[GAIN_LIST]
    cdef uint64_t gmask[GAIN_LIST]
    cdef int gnj[GAIN_LIST]
    s.gfloor = floor
    s.gtrunc = 0
    s.ng = 0
    if xo == 0:
        return
    # runs: their lowest natural lies at most 4 below the card, in its suit
    x = xo | (xo >> 1) | (xo >> 2) | (xo >> 3) | (xo >> 4)
    # sets: the lowest natural is the card's rank in a lower suit
    a = (xo >> 16) & 0x1FFF
    b = (xo >> 32) & 0x1FFF
    c2 = (xo >> 48) & 0x1FFF
    x |= (a | b | c2) | ((b | c2) << 16) | (c2 << 32)
    # high runs (10..K with A): the ace of a suit whose 10..K holds the card
    ranks = (xo >> 9) & 0x000F000F000F000FULL
    x |= (ranks | (ranks >> 1) | (ranks >> 2) | (ranks >> 3)) & ACES
    x &= once
    while x:
        bit = R51_CTZ(x)
        c = card_of_bit(bit)
        i = jstart[c]
        i_end = start[c + 1]
        while i < i_end:
            m = mask[i]
            if (m & ~once) == 0:
                if njokers[i] <= jok:
                    g = val[i] - lanes_sum(m & u0, tab)
                    if g > floor:
                        # insert into the list, kept in decreasing gain
                        if ng == GAIN_LIST:
                            if g <= gval[GAIN_LIST - 1]:
                                if g > trunc:
                                    trunc = g
                                i += 1
                                continue
                            if gval[GAIN_LIST - 1] > trunc:
                                trunc = gval[GAIN_LIST - 1]
                            k = GAIN_LIST - 1
                        else:
                            k = ng
                            ng += 1
                        while k > 0 and gval[k - 1] < g:
                            gval[k] = gval[k - 1]
                            gmask[k] = gmask[k - 1]
                            gnj[k] = gnj[k - 1]
                            k -= 1
                        gval[k] = g
                        gmask[k] = m
                        gnj[k] = njokers[i]
                        if k == 0:
                            best_i = i
                i += 1
            else:
                i = next_meld(r, i, m, once)
        x &= x - 1
    s.ng = ng
    s.gtrunc = trunc
    for k in range(ng):
        s.gval[k] = gval[k]
        s.gmask[k] = gmask[k]
        s.gnj[k] = gnj[k]
    if best_i >= 0:
        s.jstar = best_i
        s.jstar_mask = mask[best_i]
        s.jstar_low = s.jstar_mask & (~s.jstar_mask + 1)


cdef inline int node_gains(const Search* s, uint64_t once, uint64_t twice, int jok) noexcept nogil:
    """Most the ``jok`` jokers' melds can add beyond root_u0's card values: the first
    listed meld still on the hand, plus the next one for each further joker."""
    cdef int k, g1 = -1, g2 = -1, floor = s.gfloor
    if s.gtrunc > floor:
        floor = s.gtrunc
    if jok == 1:
        for k in range(s.ng):
            if s.gval[k] <= floor:
                return floor
            if (s.gmask[k] & ~once) == 0 and s.gnj[k] <= 1:
                return s.gval[k]
        return floor
    for k in range(s.ng):
        if s.gval[k] <= floor:
            break
        if (s.gmask[k] & ~once) or s.gnj[k] > jok:
            continue
        if g1 < 0:
            g1 = s.gval[k]
            if jok < 2:
                break
            if (s.gmask[k] & ~twice) == 0 and 2 * s.gnj[k] <= jok:
                g2 = g1                 # the same meld can be laid twice
                break
        else:
            g2 = s.gval[k]
            break
    if g1 < floor:
        g1 = floor
    if g2 < floor:
        g2 = floor
    return g1 + (jok - 1) * g2


cdef inline void abort(Search* s) noexcept nogil:
    """Give up: the search has visited s.node_limit nodes. Every frame returns at its
    next ``s.best >= s.stop_at`` test."""
    s.aborted = 1
    s.stop_at = -2147483647


cdef inline void record(Search* s, int cur) noexcept nogil:
    s.best = cur
    if s.record:
        s.best_depth = s.depth
        memcpy(s.best_path, s.path, s.depth * sizeof(int))


cdef void dfs0(Search* s, uint64_t once, uint64_t twice, int used, int cur,
               int start, int start_bit) noexcept nogil:
    """The search of ``dfs`` for a remainder with no usable joker and no must-use
    card left to place, in the opening and deadwood modes: the common case, lean."""
    cdef const Rules* r = s.r
    cdef uint64_t bit, m
    cdef int b, c, i, i_end, bound, k, total
    R51_NODE()
    s.nodes += 1
    if s.nodes > s.node_limit:
        abort(s)
        return
    m = useful0(once, r.ace_high)
    once &= m
    twice &= m
    if cur > s.best:
        record(s, cur)
        if s.best >= s.stop_at:
            return
    if once == 0:
        return
    total = lanes_sum(once, s.tab)
    if twice:
        total += lanes_sum(twice, s.tab)
    bound = total
    k = (s.cap - used) * s.maxc
    if k < bound:
        bound = k
    if s.stop_at == STOP_AT_ROOT:
        s.stop_at = bound               # the root: nothing can beat its bound
    if cur + bound <= s.best:
        return
    b = R51_CTZ(once)
    bit = (<uint64_t>1) << b
    c = card_of_bit(b)
    i = start if b == start_bit else r.start[c]
    i_end = r.jstart[c]
    while i < i_end:
        m = r.mask[i]
        R51_SCAN()
        if (m & ~once) == 0:
            if used + r.ncards[i] <= s.cap and s.depth < MAX_DEPTH:
                s.path[s.depth] = i
                s.depth += 1
                dfs0(s, once & ~(m & ~twice), twice & ~m, used + r.ncards[i],
                     cur + s.val[i], i, b)
                s.depth -= 1
                if s.best >= s.stop_at:
                    return
            i += 1
        else:
            i = next_meld(r, i, m, once)
    # leave it out, unless the bound without it already fails (the capacity
    # part of the bound does not shrink: only the card-value part does)
    k = total - s.tab[bit >> (b & ~15)] * (2 if twice & bit else 1)
    if k > bound:
        k = bound
    if cur + k > s.best:
        dfs0(s, once & ~bit, twice & ~bit, used, cur, 0, -1)


cdef void dfs(Search* s, uint64_t once, uint64_t twice, int jok, int used, int cur,
              int start, int start_bit, int left, int must_ok) noexcept nogil:
    cdef const Rules* r = s.r
    cdef uint64_t u, u0, bit, m
    cdef int b, c, i, i_end, k, bound, jfirst, total, gains, last_jok = 0
    cdef bint lo_first, out_ok
    R51_NODE()
    s.nodes += 1
    if s.nodes > s.node_limit:
        abort(s)
        return
    # drop the naturals that no meld can hold any more: they are left over
    u = useful_mask(once, jok, r, &u0)
    if s.mode == MODE_GO_OUT:
        left += popcount64(once & ~u) + popcount64(twice & ~u)
        if left > 1:
            return
    once &= u
    twice &= u
    if s.mode != MODE_GO_OUT:
        if must_ok and cur > s.best:
            s.best = cur
            if s.record:
                s.best_depth = s.depth
                memcpy(s.best_path, s.path, s.depth * sizeof(int))
            if s.best >= s.stop_at:
                return
    if once == 0:
        if s.mode == MODE_GO_OUT and must_ok and left + jok == 1 and cur > s.best:
            s.best = cur
            if s.record:
                s.best_depth = s.depth
                memcpy(s.best_path, s.path, s.depth * sizeof(int))
        return
    if s.must_bit and not must_ok and not (once & s.must_bit):
        return
    # bound: every useful natural and usable joker at its most, and no more cards
    # than the melds may still take
    total = bound_of(s, once, twice, jok, &gains)
    bound = total
    if s.mode != MODE_GO_OUT:
        k = (s.cap - used) * s.maxc
        if k < bound:
            bound = k
    if cur + bound <= s.best:
        return
    b = R51_CTZ(once)
    bit = (<uint64_t>1) << b
    c = card_of_bit(b)
    k = 2 if twice & bit else 1
    # children whose bound is sure to fail are not entered (opening and deadwood
    # modes): leaving the card out lowers the bound by its value when it counts in
    # the natural part; a meld taking the last jokers loses their gains and its
    # natural cards' values, and adds its own value
    out_ok = 1
    if s.mode != MODE_GO_OUT:
        out_ok = cur + total - (k * s.tab[bit >> (b & ~15)] if bit & s.root_u0 else 0) > s.best
        last_jok = total - gains
    # a card outside every jokerless meld and outside the best joker meld is most
    # likely left out: try that first, so the first descent is a good collection
    lo_first = (jok > 0 and not (bit & (s.root_u0 | s.jstar_mask | s.must_bit))
                and s.mode != MODE_GO_OUT)
    if lo_first and out_ok:
        dfs(s, once & ~bit, twice & ~bit, jok, used, cur, 0, -1, left + k, must_ok)
        if s.best >= s.stop_at:
            return
    jfirst = -1
    if jok > 0 and b != start_bit and (bit & s.jstar_low):
        # the joker meld that adds the most, first
        i = s.jstar
        m = r.mask[i]
        if (m & ~once) == 0 and r.njokers[i] <= jok and used + r.ncards[i] <= s.cap:
            jfirst = i
            descend(s, once, twice, jok, used, cur, i, b, left, must_ok)
            if s.best >= s.stop_at:
                return
    i = start if b == start_bit else r.start[c]
    i_end = r.start[c + 1] if jok > 0 else r.jstart[c]
    while i < i_end:
        m = r.mask[i]
        R51_SCAN()
        if (m & ~once) == 0:
            if i != jfirst and r.njokers[i] <= jok and used + r.ncards[i] <= s.cap:
                if (r.njokers[i] == jok and s.mode != MODE_GO_OUT and cur + s.val[i]
                        + last_jok - lanes_sum(m & s.root_u0, s.tab) <= s.best):
                    i += 1
                    continue
                descend(s, once, twice, jok, used, cur, i, b, left, must_ok)
                if s.best >= s.stop_at:
                    return
            i += 1
        else:
            i = next_meld(r, i, m, once)
    # leave every remaining copy of this card out of the melds
    if lo_first or not out_ok or ((bit & s.must_bit) and not must_ok):
        return
    dfs(s, once & ~bit, twice & ~bit, jok, used, cur, 0, -1, left + k, must_ok)


cdef inline void descend(Search* s, uint64_t once, uint64_t twice, int jok, int used,
                         int cur, int i, int b, int left, int must_ok) noexcept nogil:
    """Lay meld ``i`` (whose lowest card is bit ``b``) and search on."""
    cdef const Rules* r = s.r
    cdef uint64_t m = r.mask[i]
    cdef int nj = r.njokers[i]
    if s.depth >= MAX_DEPTH:
        return
    must_ok = must_ok or (m & s.must_bit) != 0 or (s.must_joker and nj > 0)
    s.path[s.depth] = i
    s.depth += 1
    if jok == nj and must_ok and s.mode != MODE_GO_OUT:
        dfs0(s, once & ~(m & ~twice), twice & ~m, used + r.ncards[i], cur + s.val[i], i, b)
    else:
        dfs(s, once & ~(m & ~twice), twice & ~m, jok - nj, used + r.ncards[i],
            cur + s.val[i], i, b, left, must_ok)
    s.depth -= 1


cdef inline int popcount64(uint64_t x) noexcept nogil:
    return R51_POPCOUNT(x)


cdef enum:
    MAX_JCAND = 256     # one-joker melds one hand may offer (more: the general search)


ctypedef struct JMelds:
    # the one-joker melds of a hand (joker_melds): one base pointer for the four
    uint64_t cm[MAX_JCAND]  # natural cards
    int cv[MAX_JCAND]       # value
    int cn[MAX_JCAND]       # cards
    int cb[MAX_JCAND]       # bound


cdef uint32_t lane_runs(const Rules* r, uint32_t* start, uint32_t* out) noexcept nogil:
    """The runs with exactly one joker that each 13-bit pattern of one suit allows,
    for ``joker_melds`` to read instead of testing bits hand by hand: a block of
    2..4 cards with the joker at its end worth more; a window of 3..5 with the joker
    inside (standing for any card, held or not). Entry: the naturals (bits 0..12,
    the high ace at bit 0) | cards << 13 | opening value << 16. With ``out`` NULL,
    only counts. Returns the number of entries; ``start[p]`` is pattern p's first
    (8193 entries)."""
    cdef uint32_t n = 0
    cdef int pat, i, k, w, p, lv, rv, v, nt
    cdef int maxpos = 13 if r.ace_high else 12
    cdef uint64_t L, x, nm, win, lb
    for pat in range(8192):
        if start != NULL:
            start[pat] = n
        L = <uint64_t>pat
        if r.ace_high:
            L |= (L & 1) << 13              # the ace again above the king
        x = (L >> 3) & (L >> 4)
        for i in range(9):
            if i < 3:                       # blocks of w = 2..4 cards
                w = i + 2
                k = -1
                nm = L & (L >> 1)
                if i >= 1:
                    nm &= L >> 2
                if i >= 2:
                    nm &= L >> 3
            elif i == 3:                    # windows of w: the joker at p + k
                nm = L & (L >> 2)
                w = 3
                k = 1
            elif i == 4:
                nm = L & (L >> 2) & (L >> 3)
                w = 4
                k = 1
            elif i == 5:
                nm = L & (L >> 1) & (L >> 3)
                w = 4
                k = 2
            elif i == 6:
                nm = L & (L >> 2) & x
                w = 5
                k = 1
            elif i == 7:
                nm = L & (L >> 1) & x
                w = 5
                k = 2
            else:
                nm = L & (L >> 1) & (L >> 2) & (L >> 4)
                w = 5
                k = 3
            while nm:
                p = R51_CTZ(nm)
                nm &= nm - 1
                if k < 0:
                    # a block of w cards; the joker at p - 1 or p + w
                    lv = r.posval[p - 1] if p >= 1 else -1
                    rv = r.posval[p + w] if p + w <= maxpos else -1
                    if lv < 0 and rv < 0:
                        continue
                    win = ((<uint64_t>1 << w) - 1) << p
                    v = r.pvsum[p + w] - r.pvsum[p] + (lv if lv > rv else rv)
                    nt = w + 1
                else:
                    if p + w - 1 > maxpos:
                        continue
                    win = (((<uint64_t>1 << w) - 1) << p) & ~(<uint64_t>1 << (p + k))
                    v = r.pvsum[p + w] - r.pvsum[p]
                    nt = w
                lb = (win & 0x1FFF) | ((win >> 13) & 1)     # the high ace is bit 0
                if out != NULL:
                    out[n] = <uint32_t>(lb | (<uint64_t>nt << 13) | (<uint64_t>v << 16))
                n += 1
    if start != NULL:
        start[8192] = n
    return n


cdef int joker_melds(Search* s, uint64_t once, uint64_t twice, uint64_t u0, JMelds* J,
                     int* t0_out, int* top_out, int* topi_out) noexcept nogil:
    """Every meld with exactly one joker that the hand's naturals allow, into ``J``:
    the runs of each suit from the table of its 13-bit pattern (``lane_runs``), and
    2 or 3 suits of a rank by bit tests over the four suits at once. For each: natural cards
    ``cm``, value ``cv`` (deadwood mode: hand values + penalty), cards ``cn``, and a
    bound ``cb``: its value plus the cards of the rest lying in jokerless melds of
    the whole hand (``t0`` less its own); the largest bound goes to ``top_out``
    (-1: none), the first candidate with it to ``topi_out``. Returns how many, or
    -1 (they might be more than MAX_JCAND - 1: the caller falls back)."""
    cdef const Rules* r = s.r
    cdef const int16_t* tab = s.tab
    cdef const uint32_t* lane_run = r.lane_run
    cdef int n = 0, k, v, q, nt, t0, top, topi = -1, dw, cap, sh, jub, hv, tq
    cdef uint32_t e, j, j_end
    cdef uint64_t lb, u0l, X, T, nm
    dw = s.mode == MODE_DEADWOOD
    cap = s.cap
    jub = s.jub
    # the whole hand's cards in jokerless melds: each candidate's bound is t0 less
    # its own such cards, plus its value
    t0 = lanes_sum(once & u0, tab)
    if twice & u0:
        t0 += lanes_sum(twice & u0, tab)
    top = -1
    # runs, suit by suit
    for k in range(4):
        sh = 16 * k
        q = <int>((once >> sh) & 0x1FFF)
        j = r.lane_start[q]
        j_end = r.lane_start[q + 1]
        u0l = (u0 >> sh) & 0x1FFF
        if n + <int>(j_end - j) > MAX_JCAND - 1:
            return -1                       # (even if cap would drop some)
        while j < j_end:
            e = lane_run[j]
            j += 1
            nt = (e >> 13) & 7
            if nt > cap:
                continue
            lb = e & 0x1FFF
            v = <int>(e >> 16)
            if dw:
                v = tab[lb] + jub
            J.cm[n] = lb << sh
            J.cv[n] = v
            J.cn[n] = nt
            v += t0 - tab[lb & u0l]
            J.cb[n] = v
            if v > top:
                top = v
                topi = n
            n += 1
    # sets: 2 or 3 suits of a rank, and the joker for another suit (SET_SUB)
    X = ranks_in_two_suits(once)
    while X:
        q = R51_CTZ(X)
        X &= X - 1
        hv = r.hval[q]
        tq = tab[(<uint64_t>1) << q]
        T = (once >> q) & ACES
        T = ((T * SUITS4) >> 45) & 0xF      # the suits holding it, 4 bits
        if n + 10 > MAX_JCAND - 1:          # 4 suits: 6 pairs and 4 triples
            return -1
        for j in range(SET_START[T], SET_START[T + 1]):
            nm = SET_SUB[j]
            nt = R51_POPCOUNT(nm)
            if nt + 1 <= cap:
                nm <<= q
                J.cm[n] = nm
                v = nt * hv + jub if dw else (nt + 1) * hv
                J.cv[n] = v
                J.cn[n] = nt + 1
                v += t0 - R51_POPCOUNT(nm & u0) * tq
                J.cb[n] = v
                if v > top:
                    top = v
                    topi = n
                n += 1
    t0_out[0] = t0
    top_out[0] = top
    topi_out[0] = topi
    return n


cdef int one_joker(Search* s, uint64_t once, uint64_t twice, uint64_t u0) noexcept nogil:
    """Exact search for a hand with one joker (opening and deadwood modes, no must-use
    card, no path to record): the best collection either leaves the joker out or
    holds exactly one meld with it (``joker_melds``). The rests are searched with
    the jokerless ``dfs0`` by decreasing bound until no bound can beat the best
    found. Returns 0, or -1 (too many melds: the caller falls back)."""
    cdef JMelds J
    cdef int n, i, j, b, t0, top, topi
    n = joker_melds(s, once, twice, u0, &J, &t0, &top, &topi)
    if n < 0:
        return -1
    # the joker left out: the jokerless search of the whole hand
    J.cm[n] = 0
    J.cv[n] = 0
    J.cn[n] = 0
    J.cb[n] = t0
    if t0 > top:
        top = t0
        topi = n
    n += 1
    if s.mode != MODE_CAN_OPEN:
        s.stop_at = top                 # nothing can beat the largest bound
    # by decreasing bound: dfs0 finishes each rest (its root bound is exact for
    # the rest's own jokerless melds); the first is known
    j = topi if top > s.best else -1
    while True:
        if j < 0:
            b = s.best
            for i in range(n):
                if J.cb[i] > b:
                    b = J.cb[i]
                    j = i
            if j < 0:
                break
        J.cb[j] = -1
        dfs0(s, once & ~(J.cm[j] & ~twice), twice & ~J.cm[j], J.cn[j], J.cv[j], 0, -1)
        if s.best >= s.stop_at:
            break
        j = -1
    return 0


cdef inline void order_by_bound(const int* cb, int n, int* order) noexcept nogil:
    """``order``: the indices 0..n-1 by decreasing ``cb`` (insertion sort: a hand
    offers a few dozen joker melds)."""
    cdef int i, j
    for i in range(n):
        j = i
        while j > 0 and cb[order[j - 1]] < cb[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i


cdef int two_jokers(Search* s, uint64_t once, uint64_t twice, uint64_t u0) noexcept nogil:
    """Exact search for a hand with two jokers and one joker per meld (opening and
    deadwood modes, no must-use card, no path): no joker meld, one, or two disjoint
    ones (``joker_melds``; a pair's bound is the sum of theirs less t0), each rest
    finished by ``dfs0``, the most promising first. Returns 0, or -1 (fall back)."""
    cdef JMelds J
    cdef int order[MAX_JCAND]
    cdef int n, i, j, a, c, t0, top, topi
    cdef uint64_t ro, rt
    n = joker_melds(s, once, twice, u0, &J, &t0, &top, &topi)
    if n < 0:
        return -1
    order_by_bound(J.cb, n, order)
    if s.mode != MODE_CAN_OPEN:
        s.stop_at = t0
        if n > 0:
            s.stop_at = J.cb[order[0]] * 2 - t0 if J.cb[order[0]] > t0 else t0
    # one joker meld, or none: a good collection early
    for a in range(n):
        i = order[a]
        if J.cb[i] <= s.best:
            break
        dfs0(s, once & ~(J.cm[i] & ~twice), twice & ~J.cm[i], J.cn[i], J.cv[i], 0, -1)
        if s.best >= s.stop_at:
            return 0
    if t0 > s.best:
        dfs0(s, once, twice, 0, 0, 0, -1)
        if s.best >= s.stop_at:
            return 0
    # two joker melds, the pair (a, c) with a <= c in bound order
    for a in range(n):
        i = order[a]
        if 2 * J.cb[i] - t0 <= s.best:
            break
        for c in range(a, n):
            j = order[c]
            if J.cb[i] + J.cb[j] - t0 <= s.best:
                break
            if (J.cm[i] & J.cm[j] & ~twice) or J.cn[i] + J.cn[j] > s.cap:
                continue                # a card they share is held only once
            ro = once & ~(J.cm[i] & ~twice)
            rt = twice & ~J.cm[i]
            dfs0(s, ro & ~(J.cm[j] & ~rt), rt & ~J.cm[j], J.cn[i] + J.cn[j], J.cv[i] + J.cv[j], 0, -1)
            if s.best >= s.stop_at:
                return 0
    return 0


cdef void joker_subsets(Search* s, uint64_t once, uint64_t twice, const uint64_t* cm,
                        const int* cv, const int* cn, const int* cb, const int* order, int n,
                        int t0, int a0, int jleft, int cur, int used, int bound) noexcept nogil:
    """Collections with any number (up to ``jleft`` more) of one-joker melds, taken
    in bound order from position ``a0`` of ``order`` (so each set of melds once),
    each rest finished by ``dfs0``. ``bound``: the current choice's bound."""
    cdef int a, i, nb
    if bound > s.best:
        dfs0(s, once, twice, used, cur, 0, -1)
        if s.best >= s.stop_at:
            return
    if jleft == 0:
        return
    for a in range(a0, n):
        i = order[a]
        # this meld and up to jleft - 1 more from here on, none with a larger bound
        # (a bound below t0 is still possible: the rest's part counts aces high)
        nb = cb[i] - t0
        if bound + nb + (jleft - 1) * (nb if nb > 0 else 0) <= s.best:
            break
        if (cm[i] & ~once) or used + cn[i] > s.cap:
            continue
        nb = bound + cb[i] - t0
        joker_subsets(s, once & ~(cm[i] & ~twice), twice & ~cm[i], cm, cv, cn, cb, order, n,
                      t0, a, jleft - 1, cur + cv[i], used + cn[i], nb)
        if s.best >= s.stop_at:
            return


cdef int many_jokers(Search* s, uint64_t once, uint64_t twice, uint64_t u0, int jok) noexcept nogil:
    """Exact search for a hand with several jokers and one joker per meld (opening
    and deadwood modes, no must-use card, no path): any set of disjoint one-joker
    melds (``joker_melds``) over a jokerless rest. Returns 0, or -1 (fall back)."""
    cdef JMelds J
    cdef int order[MAX_JCAND]
    cdef int n, t0, top, topi
    n = joker_melds(s, once, twice, u0, &J, &t0, &top, &topi)
    if n < 0:
        return -1
    order_by_bound(J.cb, n, order)
    if s.mode != MODE_CAN_OPEN:
        # no collection beats jok times the best meld's gain (a meld may be laid
        # twice when both copies of its cards are held)
        s.stop_at = t0
        if n > 0 and J.cb[order[0]] > t0:
            s.stop_at += jok * (J.cb[order[0]] - t0)
    joker_subsets(s, once, twice, J.cm, J.cv, J.cn, J.cb, order, n, t0, 0, jok, 0, 0, t0)
    return 0


cdef int solve(const Rules* r, const Hand* h, int mode, int keep, int must,
               int* path, int* depth) noexcept nogil:
    """Answer one question about a parsed hand (see the MODE_* enum).

    ``must``: -1, or a card code (0..51, or 52 for a joker) that must lie in a meld.
    Returns the best value (MODE_BEST), the least deadwood (MODE_DEADWOOD) or 0/1.
    With ``path`` not NULL, the chosen melds' ids go there and their number to
    ``depth`` (0 when there is no collection). When the rules ask the opening to show a
    run (``r.opening_run``) the opening questions (best, can open, go out) count only
    collections holding such a run: see ``solve_run``."""
    if r.opening_run == 0 or mode == MODE_DEADWOOD:
        return solve_free(r, h, mode, keep, must, r.threshold, path, depth)
    return solve_run(r, h, mode, keep, must, path, depth)


cdef int solve_run(const Rules* r, const Hand* h, int mode, int keep, int must,
                   int* path, int* depth) noexcept nogil:
    """The opening questions when the opening must show a run (docs/rules.md 4, option
    ``opening_run``): a collection holds such a run R exactly when it is R plus any
    collection of the rest of the hand (a run longer than 5 splits into catalogue runs,
    each piece a run, a jokerless run into jokerless pieces). So the answer is the best
    over the runs R of the opening-run block that the hand holds of v(R) plus the
    unconstrained answer for the hand without R (``solve_free``, the threshold lowered by
    v(R)). Exact, at the price of one search per run held (a few dozen at most).

    One corner is not told apart: with ``must`` outside R, a rest whose only collections
    holding the card are worth 0 (aces worth 0) counts as having none."""
    cdef Hand rest
    cdef uint64_t m
    cdef int i, nc, nj, v, sub, total, best = 0, found = 0, sub_must, thr
    cdef int sub_depth = 0, best_depth = 0
    cdef int sub_path[MAX_DEPTH]
    cdef int cap = h.n - 1 if mode == MODE_GO_OUT else h.n - keep
    if depth != NULL:
        depth[0] = 0
    if mode == MODE_GO_OUT and h.n < 4:
        return 0
    for i in range(r.orun_lo, r.orun_hi):
        m = r.mask[i]
        nj = r.njokers[i]
        nc = r.ncards[i]
        if (m & ~h.once) or nj > h.jokers or nc > cap:
            continue
        v = r.value[i]
        rest.once = h.once & ~(m & ~h.twice)
        rest.twice = h.twice & ~m
        rest.jokers = h.jokers - nj
        rest.n = h.n - nc
        sub_must = must
        if must == 52 and nj > 0 or 0 <= must < 52 and (m & CARD_BIT[must]):
            sub_must = -1
        if mode == MODE_BEST:
            sub_depth = 0
            if sub_must < 0 and rest.n - keep < 3:
                sub = 0
            else:
                sub = solve_free(r, &rest, MODE_BEST, keep, sub_must, r.threshold,
                                 sub_path if path != NULL else NULL, &sub_depth)
                if sub < 0:
                    return sub
                if sub_must >= 0 and sub == 0:
                    continue  # the card that must be melded finds no meld in the rest
            total = v + sub
            if not found or total > best:
                found = 1
                best = total
                if path != NULL:
                    path[0] = i
                    memcpy(path + 1, sub_path, sub_depth * sizeof(int))
                    best_depth = 1 + sub_depth
        elif mode == MODE_CAN_OPEN:
            if sub_must < 0 and v >= r.threshold:
                return 1
            thr = r.threshold - v
            if thr < 1:
                thr = 1
            sub = solve_free(r, &rest, MODE_CAN_OPEN, keep, sub_must, thr, NULL, NULL)
            if sub != 0:
                return sub
        else:
            if rest.n == 1:
                if sub_must < 0 and v >= r.threshold:
                    return 1
                continue
            if rest.n < 4:
                continue
            thr = r.threshold - v
            if thr < 1:
                thr = 1
            sub = solve_free(r, &rest, MODE_GO_OUT, keep, sub_must, thr, NULL, NULL)
            if sub != 0:
                return sub
    if mode == MODE_BEST:
        if depth != NULL:
            depth[0] = best_depth
        return best
    return 0


cdef int solve_free(const Rules* r, const Hand* h, int mode, int keep, int must, int thr,
                    int* path, int* depth) noexcept nogil:
    """Answer one question about a parsed hand (see the MODE_* enum), any collection
    counting, ``thr`` standing for the threshold.

    ``must``: -1, or a card code (0..51, or 52 for a joker) that must lie in a meld.
    Returns the best value (MODE_BEST), the least deadwood (MODE_DEADWOOD) or 0/1.
    With ``path`` not NULL, the chosen melds' ids go there and their number to
    ``depth`` (0 when there is no collection)."""
    cdef Search s
    cdef uint64_t u, u0, once, twice
    cdef int bound, nuse, cap, left, gains, jm
    cdef int weight = hand_weight(r, h) if mode == MODE_DEADWOOD else 0
    cdef int none = weight
    if depth != NULL:
        depth[0] = 0
    if mode == MODE_CAN_OPEN and must < 0 and (h.jokers == 0 or r.mj == 0):
        # most jokerless hands cannot open: their natural-meld cards fall short
        u0 = useful0(h.once, r.ace_high)
        bound = lanes_sum(h.once & u0, r.tabv)
        if h.twice & u0:
            bound += lanes_sum(h.twice & u0, r.tabv)
        if bound < thr:
            return 0
    s.r = r
    s.mode = mode
    s.record = path != NULL
    s.nodes = 0
    s.node_limit = NODE_LIMIT
    s.aborted = 0
    s.depth = 0
    s.best_depth = 0
    s.must_bit = 0
    s.must_joker = 0
    if must >= 0:
        if must == 52:
            if h.jokers == 0:
                return none
            s.must_joker = 1
        else:
            s.must_bit = (<uint64_t>1) << BIT_OF[must]
            if not (h.once & s.must_bit):
                return none
    if mode == MODE_DEADWOOD:
        s.val = r.weight
        s.tab = r.tabw
        s.vmax = r.hmax
        s.jub = r.joker_penalty
        s.maxc = r.joker_penalty if r.joker_penalty > r.jmax else r.jmax
    else:
        s.val = r.value
        s.tab = r.tabv
        s.vmax = r.vmax
        s.jub = r.jmax
        s.maxc = r.jmax
    if mode == MODE_GO_OUT:
        if h.n < 4:
            return 0
        # every natural outside the jokerless melds (u0) but one must lie in a meld
        # with a joker, one such meld per joker at most, each holding at most
        # MAX_MELD - 1 naturals: most hands that open fail here (the search is left
        # for the few that pass)
        u0 = useful0(h.once, r.ace_high)
        jm = h.jokers if r.mj > 0 else 0       # melds with jokers, at most
        if (popcount64(h.once & ~u0) + popcount64(h.twice & ~u0)
                > 1 + (MAX_MELD - 1) * jm):
            return 0
        # nor can more of them lie apart (no two in one meld) than one per such meld
        # and the card left over
        if jm < 6 and apart_cards(h.once & ~u0, h.twice & ~u0, jm + 2, r.ace_high) > jm + 1:
            return 0
        cap = h.n - 1
    else:
        cap = h.n - keep
    if cap < 3:
        return none
    s.cap = cap

    if ((h.jokers == 0 or r.mj == 0) and must < 0
            and (mode == MODE_BEST or mode == MODE_DEADWOOD)):
        # jokerless: the lean search, whose root sets the stop value (its bound)
        s.best = 0
        s.stop_at = STOP_AT_ROOT
        dfs0(&s, h.once, h.twice, 0, 0, 0, -1)
        if s.aborted:
            return ERR_BUDGET
        if s.record and depth != NULL:
            depth[0] = s.best_depth
            memcpy(path, s.best_path, s.best_depth * sizeof(int))
        return s.best if mode == MODE_BEST else weight - s.best

    # the root's bound settles most hands with no search
    u = useful_mask(h.once, h.jokers, r, &u0)
    once = h.once & u
    twice = h.twice & u
    if s.must_bit and not (once & s.must_bit):
        return none
    nuse = popcount64(once) + popcount64(twice)
    if nuse == 0:
        return none
    s.root_u0 = u0
    s.gfloor = 0
    s.gtrunc = 0
    s.ng = 0
    s.jstar = -1
    s.jstar_mask = 0
    s.jstar_low = 0
    if ((h.jokers == 1 and r.mj > 0 or h.jokers >= 2 and r.mj == 1) and must < 0
            and not s.record and mode != MODE_GO_OUT):
        # one or two jokers: list the joker melds and search the jokerless rests
        if mode == MODE_CAN_OPEN:
            s.gfloor = joker_gain_bound(&s, once, u0, h.jokers)
            bound = bound_of(&s, once, twice, h.jokers, &gains)
            if cap * s.maxc < bound:
                bound = cap * s.maxc
            if bound < thr:
                return 0
            s.best = thr - 1
            s.stop_at = thr
        else:
            s.best = 0
        if (one_joker(&s, once, twice, u0) if h.jokers == 1
                else two_jokers(&s, once, twice, u0) if h.jokers == 2
                else many_jokers(&s, once, twice, u0, h.jokers)) == 0:
            if s.aborted:
                return ERR_BUDGET
            if mode == MODE_BEST:
                return s.best
            if mode == MODE_DEADWOOD:
                return weight - s.best
            return 1 if s.best >= thr else 0
        s.gfloor = 0
    if h.jokers > 0 and r.mj > 0:
        if mode == MODE_CAN_OPEN or mode == MODE_GO_OUT:
            # yes/no questions: a bound from bit tests is enough
            s.gfloor = joker_gain_bound(&s, once, u0, h.jokers)
        else:
            # the joker melds' exact gains, and the best one to try first
            joker_gain(&s, once, u0, h.jokers)
    bound = bound_of(&s, once, twice, h.jokers, &gains)
    if mode != MODE_GO_OUT and cap * s.maxc < bound:
        bound = cap * s.maxc
    left = 0
    if mode == MODE_BEST or mode == MODE_DEADWOOD:
        s.best = 0
        s.stop_at = bound
    else:
        if bound < thr:
            return 0
        if mode == MODE_GO_OUT:
            # naturals in no meld are left over; more than one and the hand is lost
            left = (h.n - h.jokers) - nuse
            if left > 1:
                return 0
        s.best = thr - 1
        s.stop_at = thr
    if (h.jokers == 0 or r.mj == 0) and must < 0 and mode != MODE_GO_OUT:
        dfs0(&s, once, twice, 0, 0, 0, -1)
    else:
        dfs(&s, once, twice, h.jokers, 0, 0, 0, -1, left, 1 - (must >= 0))
    if s.aborted:
        return ERR_BUDGET

    if s.record and depth != NULL:
        if mode == MODE_BEST or mode == MODE_DEADWOOD or s.best >= thr:
            depth[0] = s.best_depth
            memcpy(path, s.best_path, s.best_depth * sizeof(int))
    if mode == MODE_BEST:
        return s.best
    if mode == MODE_DEADWOOD:
        return weight - s.best
    return 1 if s.best >= thr else 0


# ---------------------------------------------------------------------------
# Python-facing wrappers


_MODES = {"best": MODE_BEST, "can_open": MODE_CAN_OPEN, "go_out": MODE_GO_OUT,
          "deadwood": MODE_DEADWOOD}


cdef class CoreRules:
    """A RuleSet compiled for the core: scalars, per-card bounds and the catalogue.

    Built by ``rummy51.solver`` from a ``RuleSet`` and its ``Catalogue``; it keeps
    the catalogue arrays alive while the C struct points into them."""
    cdef Rules r
    cdef object _keep
    cdef readonly object deck        # uint8 codes of the full deck
    cdef readonly int decks, jokers, threshold

    def __init__(self, rules, catalogue, maxval, hval, int jmax):
        cdef int c
        self.r.decks = rules.decks
        self.r.jokers = rules.jokers
        self.r.threshold = rules.threshold
        self.r.mj = rules.max_jokers_per_meld
        self.r.ace_high = 1 if rules.ace_high else 0
        self.r.joker_penalty = rules.joker_penalty
        self.r.bottom_card = 1 if rules.bottom_card else 0
        self.r.reshuffle_stock = 1 if rules.reshuffle_stock else 0
        self.r.jmax = jmax
        self.r.opening_run = ("any", "run", "pure_run").index(rules.opening_run)
        self.r.orun_lo = catalogue.start[52]
        self.r.orun_hi = catalogue.start[52] + catalogue.opening_runs
        if self.r.opening_run and catalogue.opening_runs == 0:
            raise ValueError("the catalogue lists no opening runs for rules.opening_run")
        self.decks = rules.decks
        self.jokers = rules.jokers
        self.threshold = rules.threshold
        cdef int lane, bitn, tv, tw
        for c in range(52):
            self.r.maxval[c] = maxval[c]
            self.r.hval[c] = hval[c]
        # per-lane sums (card values depend on the rank only, not the suit)
        for lane in range(16384):
            tv = 0
            tw = 0
            for bitn in range(14):
                if lane & (1 << bitn):
                    tv += self.r.maxval[bitn % 13]
                    tw += self.r.hval[bitn % 13]
            self.r.tabv[lane] = tv
            self.r.tabw[lane] = tw
        self.r.vmax = max(maxval)
        # run positions: 0 the low ace, 1..12 = 2..K, 13 the high ace
        self.r.pvsum[0] = 0
        for c in range(14):
            self.r.posval[c] = (rules.ace_low_value if c == 0 else
                                rules.ace_value if c == 13 else min(c + 1, 10))
            self.r.pvsum[c + 1] = self.r.pvsum[c] + self.r.posval[c]

        self.r.hmax = max(hval)
        # one-joker runs by suit pattern (joker_melds)
        lane_start = np.empty(8193, np.uint32)
        lane_run = np.empty(max(1, lane_runs(&self.r, NULL, NULL)), np.uint32)
        cdef uint32_t[::1] ls = lane_start
        cdef uint32_t[::1] lr = lane_run
        lane_runs(&self.r, &ls[0], &lr[0])
        self.r.lane_start = &ls[0]
        self.r.lane_run = &lr[0]
        arrays = (
            np.ascontiguousarray(catalogue.start, np.int32),
            np.ascontiguousarray(catalogue.joker_start, np.int32),
            np.ascontiguousarray(catalogue.mask, np.uint64),
            np.ascontiguousarray(catalogue.value, np.int32),
            np.ascontiguousarray(catalogue.weight, np.int32),
            np.ascontiguousarray(catalogue.ncards, np.uint8),
            np.ascontiguousarray(catalogue.njokers, np.uint8),
            np.ascontiguousarray(catalogue.skip, np.int32),
        )
        self._keep = arrays + (lane_start, lane_run)
        cdef const int32_t[::1] start = arrays[0]
        cdef const int32_t[::1] jstart = arrays[1]
        cdef const uint64_t[::1] mask = arrays[2]
        cdef const int32_t[::1] value = arrays[3]
        cdef const int32_t[::1] weight = arrays[4]
        cdef const uint8_t[::1] ncards = arrays[5]
        cdef const uint8_t[::1] njokers = arrays[6]
        cdef const int32_t[::1] skip = arrays[7]
        if start.shape[0] != 53 or jstart.shape[0] != 52 or mask.shape[0] == 0:
            raise ValueError("malformed meld catalogue")
        self.r.start = &start[0]
        self.r.jstart = &jstart[0]
        self.r.mask = &mask[0]
        self.r.value = &value[0]
        self.r.weight = &weight[0]
        self.r.ncards = &ncards[0]
        self.r.njokers = &njokers[0]
        self.r.skip = &skip[0]
        self.deck = np.asarray(rules.deck(), dtype=np.uint8)


cdef str _error_text(int err, int row, int col, object rowcodes, CoreRules cr, bint batch):
    """The message for a parse_hand error at ``rowcodes[col]`` (row ``row`` of a batch)."""
    cards = [int(x) for x in rowcodes]
    code = cards[col]
    where = f"hands[{row}, {col}]" if batch else f"card {col}"
    who = f"hands[{row}]" if batch else "hand"
    if err == ERR_CODE:
        return (f"{where} is {code}, which is not a card code "
                "(0..51 naturals, 52 joker, 255 padding)")
    if err == ERR_COPIES:
        from .cards import card_text
        return (f"{who} holds {cards.count(code)} copies of {card_text(code)}, "
                f"but rules.decks is {cr.decks}")
    if err == ERR_JOKERS:
        n = cards.count(52)
        return f"{who} holds {n} joker{'s' if n != 1 else ''}, but rules.jokers is {cr.jokers}"
    if err == ERR_BUDGET:
        return (f"{who} is too large to solve exactly: the search gave up after "
                f"{NODE_LIMIT:,} nodes ({len([c for c in cards if c != 255])} cards; "
                "hands of up to about 30 cards solve in well under a second)")
    if err == ERR_LONG:
        who = f"hands[{row}]" if batch else "hand"
        return f"{who} holds more than {MAX_HAND} cards"
    return f"unknown error {err}"


def solve_one(CoreRules cr, const uint8_t[::1] codes, str mode, int keep, int must):
    """Solve one hand of card codes. Returns ``(result, meld_ids)``.

    ``mode`` is 'best', 'can_open', 'go_out' or 'deadwood'; ``must`` is -1 or the code
    of a card that must lie in a meld (checked to be in the hand by the caller)."""
    cdef Hand h
    cdef int path[MAX_DEPTH]
    cdef int depth = 0
    cdef int res, err, md
    md = _MODES[mode]
    if keep < 0:
        raise ValueError(f"keep must be >= 0, got {keep}")
    if must < -1 or must > 52:
        raise ValueError(f"must_use must be a card code 0..52, got {must}")
    err = parse_hand(&cr.r, &codes[0] if codes.shape[0] else NULL, codes.shape[0], &h)
    if err:
        raise ValueError(_error_text(err, 0, h.n, codes, cr, False))
    with nogil:
        res = solve(&cr.r, &h, md, keep, must, path, &depth)
    if res < 0:
        raise RuntimeError(_error_text(res, 0, 0, codes, cr, False))
    return res, [path[i] for i in range(depth)]


def solve_batch(CoreRules cr, const uint8_t[:, ::1] hands, str mode, int keep,
                int32_t[::1] out, Py_ssize_t row0=0):
    """Solve rows of a 2-D uint8 array of card codes (255 pads), GIL released.

    Writes one int32 per row into ``out``; ``row0`` only labels rows in errors.
    Stops at the first bad row and raises ValueError naming it."""
    cdef Py_ssize_t i, n = hands.shape[0], w = hands.shape[1]
    cdef Hand h
    cdef int md = _MODES[mode]
    cdef int err = 0
    cdef Py_ssize_t bad = -1
    if out.shape[0] != n:
        raise ValueError(f"out has {out.shape[0]} rows, hands has {n}")
    if keep < 0:
        raise ValueError(f"keep must be >= 0, got {keep}")
    if n == 0:
        return
    if w == 0:
        for i in range(n):
            out[i] = 0
        return
    with nogil:
        for i in range(n):
            err = parse_hand(&cr.r, &hands[i, 0], w, &h)
            if err:
                bad = i
                break
            out[i] = solve(&cr.r, &h, md, keep, -1, NULL, NULL)
            if out[i] < 0:
                err = out[i]
                bad = i
                break
    if err == ERR_BUDGET:
        raise RuntimeError(_error_text(err, <int>(row0 + bad), 0, hands[bad], cr, True))
    if err:
        raise ValueError(_error_text(err, <int>(row0 + bad), h.n, hands[bad], cr, True))


def _py_root_bound(CoreRules cr, const uint8_t[::1] codes, bint deadwood=False):
    """Testing hook: the root's upper bound on the opening value (or the melded
    deadwood weight) of a hand; never below the true best."""
    cdef Hand h
    cdef Search s
    cdef uint64_t u, u0
    cdef int gains
    err = parse_hand(&cr.r, &codes[0] if codes.shape[0] else NULL, codes.shape[0], &h)
    if err:
        raise ValueError(_error_text(err, 0, h.n, codes, cr, False))
    s.r = &cr.r
    if deadwood:
        s.val = cr.r.weight
        s.tab = &cr.r.tabw[0]
        s.jub = cr.r.joker_penalty
        s.vmax = cr.r.hmax
    else:
        s.val = cr.r.value
        s.tab = &cr.r.tabv[0]
        s.jub = cr.r.jmax
        s.vmax = cr.r.vmax
    u = useful_mask(h.once, h.jokers, &cr.r, &u0)
    s.root_u0 = u0
    s.gfloor = 0
    s.gtrunc = 0
    s.ng = 0
    s.jstar = -1
    if h.jokers > 0 and cr.r.mj > 0:
        joker_gain(&s, h.once & u, u0, h.jokers)
    return bound_of(&s, h.once & u, h.twice & u, h.jokers, &gains)


def _py_useful_mask(CoreRules cr, const uint8_t[::1] codes):
    """Testing hook: the root's useful-card mask of a hand (core bit layout)."""
    cdef Hand h
    cdef uint64_t u0
    err = parse_hand(&cr.r, &codes[0] if codes.shape[0] else NULL, codes.shape[0], &h)
    if err:
        raise ValueError(_error_text(err, 0, h.n, codes, cr, False))
    u = useful_mask(h.once, h.jokers, &cr.r, &u0)
    return int(u), int(u0)


# ---------------------------------------------------------------------------
# Dealing


cdef inline uint32_t bounded(bitgen_t* bg, uint32_t s) noexcept nogil:
    """Unbiased integer in [0, s) (Lemire's multiply-shift with rejection), never x % s."""
    cdef uint64_t m = <uint64_t>bg.next_uint32(bg.state) * s
    cdef uint32_t low = <uint32_t>m
    cdef uint32_t t
    if low < s:
        t = (<uint32_t>(-s)) % s
        while low < t:
            m = <uint64_t>bg.next_uint32(bg.state) * s
            low = <uint32_t>m
    return <uint32_t>(m >> 32)


cdef void deal_rows(bitgen_t* bg, uint8_t* deck, int deck_n, uint8_t* out,
                    Py_ssize_t rows, int width) noexcept nogil:
    """Each row: the first ``width`` cards of a fresh partial Fisher-Yates shuffle.
    The deck is left permuted, which keeps every row uniform."""
    cdef Py_ssize_t i
    cdef int k, j
    cdef uint8_t tmp
    for i in range(rows):
        for k in range(width):
            j = k + <int>bounded(bg, <uint32_t>(deck_n - k))
            tmp = deck[k]
            deck[k] = deck[j]
            deck[j] = tmp
            out[i * width + k] = deck[k]


cdef bitgen_t* _bitgen_of(object bitgen) except NULL:
    capsule = bitgen.capsule
    if not PyCapsule_IsValid(capsule, "BitGenerator"):
        raise ValueError("rng's bit generator has no valid capsule")
    return <bitgen_t*>PyCapsule_GetPointer(capsule, "BitGenerator")


def deal_into(CoreRules cr, rng, uint8_t[:, ::1] out):
    """Fill ``out`` (rows, width) with random hands from the rule set's deck,
    drawing from the numpy Generator ``rng``."""
    cdef Py_ssize_t rows = out.shape[0]
    cdef int width = <int>out.shape[1]
    cdef uint8_t[::1] deck = np.array(cr.deck, dtype=np.uint8)
    cdef int deck_n = <int>deck.shape[0]
    cdef bitgen_t* bg
    if width > deck_n:
        raise ValueError(f"hand_size {width} is more than the {deck_n} cards of the deck")
    if rows == 0 or width == 0:
        return
    bitgen = rng.bit_generator
    bg = _bitgen_of(bitgen)
    with bitgen.lock, nogil:
        deal_rows(bg, &deck[0], deck_n, &out[0, 0], rows, width)


# ---------------------------------------------------------------------------
# Monte Carlo kernels: dealing and evaluation with no Python per deal


cdef enum:
    JCLASSES = 4        # jokers in hand: 0, 1, 2, 3+
    DECK_BUF = 256      # the by-turn study's stock and discard pile (a deck is <= 120)


cdef inline int jclass(const Hand* h) noexcept nogil:
    return h.jokers if h.jokers < JCLASSES else JCLASSES - 1


cdef inline int hist_bin(int v, int bins) noexcept nogil:
    """The histogram bin of a best value ``v``: ``bins - 1`` holds the hands the search
    gave up on (v < 0, ERR_BUDGET), never a value; the study sizes ``bins`` from the
    rules so that no value reaches it (values past ``bins - 2`` are capped there)."""
    if v < 0:
        return bins - 1
    return v if v < bins - 1 else bins - 2


cdef inline void partial_shuffle(bitgen_t* bg, uint8_t* deck, int deck_n, int k) noexcept nogil:
    """Bring a uniform random k-subset, in random order, to deck[0:k]."""
    cdef int i, j
    cdef uint8_t tmp
    for i in range(k):
        j = i + <int>bounded(bg, <uint32_t>(deck_n - i))
        tmp = deck[i]
        deck[i] = deck[j]
        deck[j] = tmp


cdef extern from *:
    """
    /* hi and lo 64-bit halves of a * b (a < 2**32 where no 128-bit type exists) */
    #include <stdint.h>
    static inline uint64_t r51_mul_hilo(uint64_t a, uint64_t b, uint64_t* lo) {
    #if defined(__SIZEOF_INT128__)
        unsigned __int128 p = (unsigned __int128)a * b;
        *lo = (uint64_t)p;
        return (uint64_t)(p >> 64);
    #else
        uint64_t pl = (b & 0xFFFFFFFFu) * a;
        uint64_t ph = (b >> 32) * a + (pl >> 32);
        *lo = (ph << 32) | (pl & 0xFFFFFFFFu);
        return ph >> 32;
    #endif
    }
    """
    uint64_t r51_mul_hilo(uint64_t a, uint64_t b, uint64_t* lo) nogil


cdef enum:
    BATCH_LIMIT_BITS = 56   # a batch's product of ranges stays below 2**56


ctypedef struct DrawPlan:
    int nb                      # batches
    int end[MAX_HAND]           # batch b draws steps end[b-1] (0 for b = 0) .. end[b]-1
    uint64_t prod[MAX_HAND]     # product of the batch's ranges


cdef void draw_plan(int deck_n, int k, DrawPlan* plan) noexcept nogil:
    """Split steps 0..k-1 of a partial Fisher-Yates shuffle of ``deck_n`` cards (step i
    draws from deck_n - i) into batches whose product of ranges stays below
    2**BATCH_LIMIT_BITS, so that one 64-bit number serves a whole batch."""
    cdef int i = 0, nb = 0
    cdef uint64_t p, s
    while i < k:
        p = 1
        while i < k:
            s = <uint64_t>(deck_n - i)
            if p > ((<uint64_t>1) << BATCH_LIMIT_BITS) // s:
                break
            p *= s
            i += 1
        plan.end[nb] = i
        plan.prod[nb] = p
        nb += 1
    plan.nb = nb


cdef inline uint64_t batch_word(bitgen_t* bg, uint64_t p) noexcept nogil:
    """A 64-bit r for a batch whose product of ranges is ``p``: Lemire's multiply-shift
    with range p, whose low word r * p mod 2**64 (what the batch's digit chain
    leaves) must not fall among the 2**64 mod p lowest values, else draw again."""
    cdef uint64_t r = bg.next_uint64(bg.state)
    cdef uint64_t low = r * p
    cdef uint64_t t
    if low < p:
        t = (<uint64_t>0 - p) % p
        while low < t:
            r = bg.next_uint64(bg.state)
            low = r * p
    return r


cdef inline void shuffle_parse(bitgen_t* bg, uint8_t* deck, int deck_n, const DrawPlan* plan,
                               int hn, Hand* h) noexcept nogil:
    """Bring a uniform random k-subset, in random order, to deck[0:k] (partial
    Fisher-Yates, k the plan's steps), parsing the first ``hn`` <= k cards into ``h``
    as they are dealt (see ``parse_dealt``). The draws are unbiased and batched: one
    64-bit r per batch of the plan (``batch_word``), read as a mixed-radix number
    whose digit for step i, in [0, deck_n - i), is the high word of r * (deck_n - i),
    the low word carrying on to the next step: floor(r * P / 2**64) digit by digit
    (Brackett-Rozinsky & Lemire, "Batched ranged random integer generation", 2024).
    One call of the bit generator serves a batch, not one per card."""
    cdef uint8_t* p = deck
    cdef uint8_t* q
    cdef uint8_t* p_parse = deck + hn
    cdef uint8_t* pe
    cdef uint8_t* pm
    cdef uint64_t n = <uint64_t>deck_n
    cdef uint64_t r, bit, once = 0, twice = 0
    cdef uint8_t card
    cdef int b
    for b in range(plan.nb):
        r = batch_word(bg, plan.prod[b])
        pe = deck + plan.end[b]
        pm = pe if pe < p_parse else p_parse
        while p < pm:
            q = p + r51_mul_hilo(n, r, &r)
            card = q[0]
            q[0] = p[0]
            p[0] = card
            bit = CARD_BIT[card]
            twice |= once & bit
            once |= bit
            p += 1
            n -= 1
        while p < pe:
            q = p + r51_mul_hilo(n, r, &r)
            card = q[0]
            q[0] = p[0]
            p[0] = card
            p += 1
            n -= 1
    h.once = once
    h.twice = twice
    h.jokers = hn - popcount64(once) - popcount64(twice)
    h.n = hn


cdef inline void count_hand(const Rules* r, Hand* h, int k, int jc, int64_t* hist, int bins,
                            int64_t* goout) noexcept nogil:
    """Count one hand of kind ``k`` of the deal study: its best opening, and for hands
    0 and 1 whether it goes out at once (asked only of hands that open: going out is
    an opening keeping one card)."""
    cdef int v = solve(r, h, MODE_BEST, 1, -1, NULL, NULL)
    cdef int g = 0
    if k < 2 and v >= r.threshold:
        g = solve(r, h, MODE_GO_OUT, 0, -1, NULL, NULL)
    if g < 0:
        v = g           # a give-up on going out makes the whole hand a non-answer
    hist[(k * JCLASSES + jc) * bins + hist_bin(v, bins)] += 1
    if v >= 0:
        goout[k * JCLASSES + jc] += g


cdef void deal_study(const Rules* r, bitgen_t* bg, uint8_t* deck, int deck_n, int hs,
                     int64_t n, int what, int64_t* hist, int bins, int64_t* goout) noexcept nogil:
    """``n`` deals. Each: the first player's hs+1 cards (hand 0), another player's hs
    cards plus one drawn from the stock (hand 1), and that player's hs cards alone
    (hand 2). ``what`` has bit k set to evaluate hand k. Adds the best opening
    (keep 1) to ``hist[k][jokers][value]`` (``bins`` bins) and can-go-out to
    ``goout[k][jokers]`` (hands 0 and 1). A hand whose search gives up is counted in
    the last bin and nowhere else."""
    cdef int64_t d
    cdef Hand h
    cdef int v, jc, k
    cdef int need = 2 * hs + 2 if what & 6 else hs + 1   # deal only the cards looked at
    cdef DrawPlan plan
    draw_plan(deck_n, need, &plan)
    for d in range(n):
        shuffle_parse(bg, deck, deck_n, &plan, hs + 1, &h)
        for k in range(3):
            if not what & (1 << k):
                continue
            if k == 1:
                parse_dealt(deck + hs + 1, hs + 1, &h)
            elif k == 2:
                parse_dealt(deck + hs + 1, hs, &h)
            jc = jclass(&h)
            count_hand(r, &h, k, jc, hist, bins, goout)


def study_deals(CoreRules cr, rng, int64_t n, int hand_size, int what,
                int64_t[:, :, ::1] hist, int64_t[:, ::1] goout):
    """Run ``n`` deals of the opening study (see ``deal_study``), adding to ``hist``
    (3, 4, bins), its last bin the hands the search gave up on, and ``goout`` (3, 4).
    The GIL is released; ``rng`` is a numpy Generator used by this call alone."""
    cdef uint8_t[::1] deck = np.array(cr.deck, dtype=np.uint8)
    cdef int deck_n = <int>deck.shape[0]
    cdef bitgen_t* bg
    if hist.shape[0] != 3 or hist.shape[1] != JCLASSES or hist.shape[2] < 2:
        raise ValueError(f"hist must have shape (3, {JCLASSES}, bins) with bins >= 2")
    if goout.shape[0] != 3 or goout.shape[1] != JCLASSES:
        raise ValueError(f"goout must have shape (3, {JCLASSES})")
    if hand_size < 1 or 2 * hand_size + 2 > deck_n:
        raise ValueError(f"hand_size {hand_size} does not fit two hands and a draw in {deck_n} cards")
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    bitgen = rng.bit_generator
    bg = _bitgen_of(bitgen)
    with bitgen.lock, nogil:
        deal_study(&cr.r, bg, &deck[0], deck_n, hand_size, n, what, &hist[0, 0, 0],
                   <int>hist.shape[2], &goout[0, 0])


cdef int melded_outside(const Rules* r, const uint8_t* hand, int n, const int* path, int depth,
                        uint8_t* outside) noexcept nogil:
    """Mark ``outside[i] = 1`` for the cards of ``hand`` that the melds ``path`` do
    not use (copies counted). Returns how many are outside."""
    cdef uint64_t u1 = 0, u2 = 0, m, bit
    cdef int i, code, jused = 0, count = 0
    for i in range(depth):
        m = r.mask[path[i]]
        u2 |= m & u1
        u1 |= m
        jused += r.njokers[path[i]]
    for i in range(n):
        code = hand[i]
        outside[i] = 0
        if code == 52:
            if jused > 0:
                jused -= 1
                continue
        elif code < 52:
            bit = (<uint64_t>1) << BIT_OF[code]
            if u2 & bit:
                u2 &= ~bit
                continue
            if u1 & bit:
                u1 &= ~bit
                continue
        outside[i] = 1
        count += 1
    return count


cdef inline int discard_rank(const Rules* r, int code) noexcept nogil:
    """Order of preference to discard among equals: higher hand value, then higher
    code; a joker last of all."""
    if code >= 52:
        return -1
    return r.hval[code] * 64 + code


cdef int removal_value(const Rules* r, uint8_t* hand, int n, int i) noexcept nogil:
    """The best opening (keep 0) of ``hand`` without its card ``i`` (<0: gave up)."""
    cdef Hand h
    cdef uint8_t tmp = hand[i]
    hand[i] = 255
    parse_hand(r, hand, n, &h)
    hand[i] = tmp
    return solve(r, &h, MODE_BEST, 0, -1, NULL, NULL)


cdef int choose_discard(const Rules* r, uint8_t* hand, int n) noexcept nogil:
    """The discard policy 'keep-best': the index of the card whose removal leaves the
    highest best opening (keep 0); among equals the card worth more in hand, then
    the higher code; a joker only when its removal leaves strictly more than every
    other card's. The choice depends only on the cards, not their order (copies of a
    card are the same choice). -1 when the search gave up."""
    cdef Hand h
    cdef int path[MAX_DEPTH]
    cdef int depth = 0, v0, i, k, v, best_i = -1, best_v = -1, rk, best_rk = -2, joker_i = -1
    cdef bint joker_outside = False, seen
    cdef uint8_t outside[MAX_HAND]
    parse_hand(r, hand, n, &h)
    v0 = solve(r, &h, MODE_BEST, 0, -1, path, &depth)
    if v0 < 0:
        return -1               # the search gave up: no policy answer
    melded_outside(r, hand, n, path, depth, outside)
    # a card outside one best collection keeps v0, the most any removal can keep
    for i in range(n):
        if hand[i] == 52:
            if joker_i < 0 or outside[i]:
                joker_outside = joker_outside or outside[i]
                joker_i = i
        elif outside[i]:
            rk = discard_rank(r, hand[i])
            if rk > best_rk:
                best_rk = rk
                best_i = i
                best_v = v0
    # every other natural card, once per code: it wins by a higher value, or by a higher
    # rank at an equal value; once some card keeps v0, only higher ranks can win
    for i in range(n):
        if outside[i] or hand[i] == 52:
            continue
        rk = discard_rank(r, hand[i])
        if best_v == v0 and rk <= best_rk:
            continue
        seen = False
        for k in range(i):
            if hand[k] == hand[i]:
                seen = True
                break
        if seen:
            continue
        v = removal_value(r, hand, n, i)
        if v < 0:
            return -1
        if v > best_v or (v == best_v and rk > best_rk):
            best_v = v
            best_rk = rk
            best_i = i
    # a joker only when it keeps strictly more than every natural card
    if joker_i >= 0:
        if best_i < 0:
            return joker_i      # only jokers
        if best_v < v0:
            v = v0 if joker_outside else removal_value(r, hand, n, joker_i)
            if v < 0:
                return -1
            if v > best_v:
                return joker_i
    return best_i


cdef void turns_study(const Rules* r, bitgen_t* bg, uint8_t* deck, int deck_n, int hs,
                      int players, int turns, int64_t n, int64_t* first_open,
                      int64_t* dealt) noexcept nogil:
    """``n`` deals to ``players`` seats from one deck; each seat, in turn order, draws
    from the stock (seat 0 not on turn 1), checks whether it can open (keep 1) and
    discards by the 'keep-best' policy. ``first_open[seat][jclass][t]`` counts the
    first turn t (1..turns) a seat could open, ``[t = 0]`` the seats whose search gave up
    (they leave the study then); ``dealt[seat][jclass]`` the deals,
    by the jokers dealt. After it can open a seat leaves the study but still draws,
    discarding the card drawn, so the stock runs as at a table. An empty stock is
    refilled from the discard pile but its top card (rules.reshuffle_stock), or
    ends the deal."""
    cdef uint8_t hands[6][MAX_HAND]
    cdef int hn[6]
    cdef int done[6]
    cdef int jc[6]
    cdef uint8_t pile[DECK_BUF]
    cdef uint8_t stock[DECK_BUF]
    cdef int npile, pos, stock_end, i, t, p, k, card, di, v
    cdef int64_t d
    cdef Hand h
    cdef bint alive
    for d in range(n):
        partial_shuffle(bg, deck, deck_n, deck_n)
        for i in range(deck_n):
            stock[i] = deck[i]
        pos = 0
        for p in range(players):
            hn[p] = hs + 1 if p == 0 else hs
            for i in range(hn[p]):
                hands[p][i] = stock[pos]
                pos += 1
            done[p] = 0
            parse_hand(r, hands[p], hn[p], &h)
            jc[p] = jclass(&h)
            dealt[p * JCLASSES + jc[p]] += 1
        stock_end = deck_n - (1 if r.bottom_card else 0)   # the bottom card is set aside
        npile = 0
        alive = True
        for t in range(1, turns + 1):
            if not alive:
                break
            for p in range(players):
                if not (t == 1 and p == 0):
                    if pos >= stock_end:
                        if not r.reshuffle_stock or npile <= 1:
                            alive = False
                            break
                        # the discard pile but its top card becomes the stock
                        k = npile - 1
                        for i in range(k):
                            stock[i] = pile[i]
                        partial_shuffle(bg, stock, k, k)
                        pile[0] = pile[npile - 1]
                        npile = 1
                        pos = 0
                        stock_end = k
                    card = stock[pos]
                    pos += 1
                    if done[p]:
                        pile[npile] = card
                        npile += 1
                        continue
                    hands[p][hn[p]] = card
                    hn[p] += 1
                elif done[p]:
                    continue
                parse_hand(r, hands[p], hn[p], &h)
                v = solve(r, &h, MODE_CAN_OPEN, 1, -1, NULL, NULL)
                di = choose_discard(r, hands[p], hn[p]) if v == 0 else 0
                if v != 0 or di < 0:
                    # opened (turn t) or the search gave up (counted at index 0): the
                    # seat leaves the study; its cards are out of play
                    done[p] = 1
                    first_open[(p * JCLASSES + jc[p]) * (turns + 1) + (t if v > 0 else 0)] += 1
                    continue
                pile[npile] = hands[p][di]
                npile += 1
                hn[p] -= 1
                hands[p][di] = hands[p][hn[p]]


def study_turns(CoreRules cr, rng, int64_t n, int hand_size, int players, int turns,
                int64_t[:, :, ::1] first_open, int64_t[:, ::1] dealt):
    """Run ``n`` deals of the by-turn study (see ``turns_study``), adding to
    ``first_open`` (players, 4, turns + 1) and ``dealt`` (players, 4)."""
    cdef uint8_t[::1] deck = np.array(cr.deck, dtype=np.uint8)
    cdef int deck_n = <int>deck.shape[0]
    cdef bitgen_t* bg
    if players < 1 or players > 6:
        raise ValueError(f"players must be 1..6, got {players}")
    if turns < 1:
        raise ValueError(f"turns must be >= 1, got {turns}")
    if hand_size < 1 or hand_size + 1 > MAX_HAND - 1 or players * hand_size + 2 > deck_n:
        raise ValueError(f"{players} hands of {hand_size} cards do not fit the {deck_n}-card deck")
    if first_open.shape[0] != players or first_open.shape[1] != JCLASSES or first_open.shape[2] != turns + 1:
        raise ValueError(f"first_open must have shape ({players}, {JCLASSES}, {turns + 1})")
    if dealt.shape[0] != players or dealt.shape[1] != JCLASSES:
        raise ValueError(f"dealt must have shape ({players}, {JCLASSES})")
    if deck_n > DECK_BUF:
        raise ValueError(f"a {deck_n}-card deck is more than the by-turn study's "
                         f"{DECK_BUF}-card stock and discard pile")
    bitgen = rng.bit_generator
    bg = _bitgen_of(bitgen)
    with bitgen.lock, nogil:
        turns_study(&cr.r, bg, &deck[0], deck_n, hand_size, players, turns, n,
                    &first_open[0, 0, 0], &dealt[0, 0])


cdef void odds_study(const Rules* r, bitgen_t* bg, const uint8_t* start, int n0,
                     uint8_t* unseen, int nu, int draws, int64_t n,
                     int64_t* first_open, int64_t* first_out) noexcept nogil:
    """``n`` samples: the hand ``start`` draws ``draws`` cards one by one from the
    shuffled ``unseen`` cards, discarding by 'keep-best' after each. Counts the first
    draw k (0 = before drawing) at which it can open (keep 1) in ``first_open[k]``
    and can go out at once in ``first_out[k]``; index draws + 1: never; index draws + 2:
    the search gave up on the sample (counted there in both, nowhere else)."""
    cdef uint8_t hand[MAX_HAND]
    cdef int hn, k, i, di, opened, out, v, gave_up
    cdef int64_t d
    cdef Hand h
    for d in range(n):
        partial_shuffle(bg, unseen, nu, draws)
        for i in range(n0):
            hand[i] = start[i]
        hn = n0
        opened = -1
        out = -1
        gave_up = 0
        for k in range(draws + 1):
            if k > 0:
                hand[hn] = unseen[k - 1]
                hn += 1
            parse_hand(r, hand, hn, &h)
            if opened < 0:
                v = solve(r, &h, MODE_CAN_OPEN, 1, -1, NULL, NULL)
                if v < 0:
                    gave_up = 1
                    break
                if v:
                    opened = k
            # going out at once is an opening keeping one card: only then ask
            if out < 0 and opened >= 0:
                v = solve(r, &h, MODE_GO_OUT, 0, -1, NULL, NULL)
                if v < 0:
                    gave_up = 1
                    break
                if v:
                    out = k
            if opened >= 0 and out >= 0:
                break
            if k < draws and hn > n0:
                di = choose_discard(r, hand, hn)
                if di < 0:
                    gave_up = 1
                    break
                hn -= 1
                hand[di] = hand[hn]
        if gave_up:
            first_open[draws + 2] += 1
            first_out[draws + 2] += 1
            continue
        first_open[opened if opened >= 0 else draws + 1] += 1
        first_out[out if out >= 0 else draws + 1] += 1


def study_odds(CoreRules cr, rng, const uint8_t[::1] hand, const uint8_t[::1] unseen,
               int draws, int64_t n, int64_t[::1] first_open, int64_t[::1] first_out):
    """Run ``n`` samples of the hand-odds study (see ``odds_study``)."""
    cdef uint8_t[::1] pool = np.array(unseen, dtype=np.uint8)
    cdef Hand h
    cdef bitgen_t* bg
    if draws < 0 or draws > pool.shape[0]:
        raise ValueError(f"draws must be 0..{pool.shape[0]} (the unseen cards), got {draws}")
    if hand.shape[0] + 1 > MAX_HAND:
        raise ValueError(f"hand holds {hand.shape[0]} cards; at most {MAX_HAND - 1} can draw")
    if first_open.shape[0] != draws + 3 or first_out.shape[0] != draws + 3:
        raise ValueError(f"first_open and first_out must have {draws + 3} entries")
    err = parse_hand(&cr.r, &hand[0] if hand.shape[0] else NULL, hand.shape[0], &h)
    if err:
        raise ValueError(_error_text(err, 0, h.n, hand, cr, False))
    if pool.shape[0] == 0:
        pool = np.zeros(1, np.uint8)
    bitgen = rng.bit_generator
    bg = _bitgen_of(bitgen)
    with bitgen.lock, nogil:
        odds_study(&cr.r, bg, &hand[0] if hand.shape[0] else NULL, <int>hand.shape[0],
                   &pool[0], <int>unseen.shape[0], draws, n, &first_open[0], &first_out[0])


def _py_choose_discard(CoreRules cr, const uint8_t[::1] hand):
    """Testing hook: the index the 'keep-best' discard policy drops from ``hand``."""
    cdef uint8_t[::1] work = np.array(hand, dtype=np.uint8)
    cdef Hand h
    if work.shape[0] == 0:
        raise ValueError("cannot discard from an empty hand")
    err = parse_hand(&cr.r, &work[0], work.shape[0], &h)
    if err:
        raise ValueError(_error_text(err, 0, h.n, work, cr, False))
    cdef int i
    with nogil:
        i = choose_discard(&cr.r, &work[0], <int>work.shape[0])
    if i < 0:
        raise ValueError(f"the search gave up on this {work.shape[0]}-card hand "
                         f"({NODE_LIMIT:,} nodes): no discard policy answer")
    return i


def _py_counters():
    """Search statistics (nodes visited, catalogue entries scanned) since import;
    always (0, 0) unless the extension was built with CFLAGS=-DR51_STATS."""
    return r51_nodes, r51_scans


def _py_node_limit(limit=None):
    """Testing hook: the search's node budget; set it when ``limit`` is given.
    Returns the previous value."""
    global NODE_LIMIT
    old = NODE_LIMIT
    if limit is not None:
        if limit < 1:
            raise ValueError("limit must be >= 1")
        NODE_LIMIT = limit
    return old


cdef const Rules* core_rules_of(object cr) except NULL:
    """The compiled rules struct of a ``CoreRules`` (for the game kernels in ``_game``)."""
    if not isinstance(cr, CoreRules):
        raise TypeError(f"expected CoreRules, got {type(cr).__name__}")
    return &(<CoreRules>cr).r
