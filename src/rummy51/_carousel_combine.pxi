# _carousel_combine.pxi: combining the suits: a state's successors from its four suits' option lists.
#
# Recorded successors for grouped layers (_rec_push, _recs_emit), the combination
# under the joker budget (_combine, _combine_lists), and the choices of sets at a
# rank (_sets_rec, _sets_list, _distinct_pairs).
#
# (Included by _carousel.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _carousel.pyx.)

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
