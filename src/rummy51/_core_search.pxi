# _core_search.pxi: partition enumeration: the exact meld-partition search (the solver).
#
# The depth-first searches (dfs0: jokerless, lean; dfs: the general one), the
# hands' one-joker melds listed by bit tests (lane_runs, joker_melds) and the
# faster batch road for hands with jokers (one_joker, two_jokers, many_jokers),
# and the entry points solve, solve_run (an opening that must show a run) and
# solve_free.
#
# (Included by _core.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _core.pyx.)

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
