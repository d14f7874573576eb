# _carousel_cache.pxi: one suit's successors: the option cache and the enumeration of a suit's options.
#
# The cache of option lists (_cache_*), the pool they live in, the recursive
# enumeration of what one suit does at a position (_opts_rec, _suit_make) and its
# cached road (_suit_options).
#
# (Included by _carousel.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _carousel.pyx.)

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
