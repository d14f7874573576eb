# _core_bounds.pxi: the hand layout's helpers and the search's bounds.
#
# Card bits and lanes, hand parsing (parse_hand, parse_dealt), hand weights,
# the useful-card masks (useful0, useful_mask), the value bound of a node (bound_of)
# and the joker gains (joker_gain_bound, joker_gain, node_gains).
#
# (Included by _core.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _core.pyx.)

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
