# _carousel_dp.pxi: the solver: the dynamic program over rank positions.
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

DEF BOUND_FROM = 40       # cards in a position from which _solve tries the upper bound first
DEF BEAM = 512            # states a layer of _solve_bounded's quick searches
DEF BEAM_DEBT = 2048      # their value less this for each card a state still owes (8 points)
DEF ANY_BEAM = 4          # states a layer of can_meld's quick search for a play
DEF BF_DEBT = 256         # the bounds' beams: a state's value less this for each card its runs owe
DEF BEAM_SLACK = 8        # a beam's next layer is cut back to the beam past this many times it
#
# The exact cuts before it (_prune_hand, _fix_forced_jokers), the layer-by-layer
# program (_solve_dp, with its grouped layers), the best play's path
# (_solve_play, _path_counts) and play_counts.
#
# (Included by _carousel.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _carousel.pyx.)

cdef inline int _card_fits(const CRules* r, const Pos* pos, int c, int J,
                           int P) noexcept nogil:
    """1 if some meld could hold card ``c`` with the cards of table and hand and ``J``
    jokers (at most a meld's): a set of its rank (other suits of that rank, plus jokers,
    make 2), or three consecutive positions through it (of ``P``: 13, 14 ace high) whose
    positions without a card of its suit are at most ``J``."""
    cdef int s = c // 13, rank = c % 13, s2, k = 0, q, a, x, missing, n_pos = 1
    cdef int qs[2]
    for s2 in range(4):
        if s2 != s and pos.T[13 * s2 + rank] + pos.H[13 * s2 + rank] > 0:
            k += 1
    if k + J >= 2:
        return 1
    qs[0] = rank + 1
    if rank == 0 and r.ace_high:
        qs[1] = 14
        n_pos = 2
    for k in range(n_pos):
        q = qs[k]
        for a in range(q - 2, q + 1):
            if a < 1 or a + 2 > P:
                continue
            missing = 0
            for x in range(a, a + 3):
                if x != q and pos.T[_card_at(s, x)] + pos.H[_card_at(s, x)] == 0:
                    missing += 1
            if missing <= J:
                return 1
    return 0


cdef void _prune_hand(const CRules* r, Pos* pos) noexcept nogil:
    """Drop the hand cards no meld can hold (they stay in hand in every play): a card
    is kept if a set of its rank could hold it (other suits of that rank in table or
    hand, plus jokers, make 2) or some three consecutive positions through it could
    (the positions without a card of its suit are at most the jokers a meld may hold)."""
    cdef int P = 14 if r.ace_high else 13
    cdef int J = pos.JT + pos.JH
    cdef int c
    if J > r.mj:
        J = r.mj
    for c in range(52):
        if pos.H[c] != 0 and not _card_fits(r, pos, c, J, P):
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


cdef int32_t _solve(const CRules* r, const Pos* pos0, Work* w, int any_play=0) noexcept nogil:
    """Best value (points * 256 + cards) of the hand cards a play can place, -1 when no
    arrangement keeps every table card (never for a real table), -2 on no memory,
    -4 / -5 past the node / time limit set in ``w`` (none by default). A value of 0
    means no legal play (no hand card can be played).

    ``any_play`` asks only whether a legal play exists (``can_meld``): the value of
    some play (1 or more) when there is one, not always the best; 0 when there is
    none (also for a table that could not be arranged)."""
    cdef Pos pp = pos0[0]
    cdef int32_t v, full
    cdef int64_t width
    _fix_forced_jokers(r, &pp)
    _prune_hand(r, &pp)
    full = _hand_value(r, &pp)
    if any_play:
        if full == 0:
            return 0
        # a play a narrow beam search finds answers it (on big positions, wider beams
        # next); else the program, keeping only the states that can still place a card
        v = _solve_dp(r, &pp, w, 1, NULL, ANY_BEAM, BF_DEBT)
        if v >= 1 or v == -2 or v == -4 or v == -5:
            return v
        if _bounds_first(r, &pp):
            width = 64
            while width <= 512:
                v = _solve_dp(r, &pp, w, 1, NULL, width, BF_DEBT)
                if v >= 1 or v == -2 or v == -4 or v == -5:
                    return v
                width *= 8
        v = _solve_dp(r, &pp, w, 1, NULL)
        return v if v > 0 or v == -2 or v == -4 or v == -5 else 0
    if full > 0 and (_bounds_first(r, &pp) or _hard_position(r, &pp)):
        return _solve_bounded(r, &pp, w, full, NULL)
    if full == 0 and _hard_position(r, &pp):
        # nothing to place (the meld reconstruction's question: can these cards all
        # be arranged?): an arrangement a beam search finds answers it
        v = _solve_dp(r, &pp, w, 0, NULL, BEAM)
        if v >= 0 or v == -2 or v == -4 or v == -5:
            return v
    return _solve_dp(r, &pp, w, 0, NULL)


cdef int _cmp_desc64(const void* a, const void* b) noexcept nogil:
    cdef int64_t x = (<const int64_t*>a)[0], y = (<const int64_t*>b)[0]
    return (x < y) - (x > y)


cdef inline int _run_debt(uint64_t k) noexcept nogil:
    """Cards the open runs of a key word (two suits) still need to be valid: the
    missing ones of runs shorter than three, one for a run without a natural."""
    cdef int h, i, d = 0, ln
    cdef uint64_t x
    for h in range(2):
        for i in range(MAXRUNS):
            x = (k >> (32 * h + 5 * i)) & 31
            if x == 0:
                continue
            ln = <int>(x & 3)
            d += 3 - ln
            if not (x & 4):
                d += 1
    return d


cdef int _beam_cut(Table* t, int64_t beam, int64_t debt_weight) noexcept nogil:
    """Keep the ``beam`` states of the layer ``t`` that look closest to a play: the
    highest value less ``debt_weight`` for every card their open runs still need (of
    equal priority, the first ones); -1 on no memory."""
    cdef int64_t* pr = <int64_t*>malloc(2 * t.n * sizeof(int64_t))
    cdef int64_t e, kept = 0, above = 0, thr
    cdef int debt
    if pr == NULL:
        return -1
    for e in range(t.n):
        debt = _run_debt(t.keys[3 * e]) + _run_debt(t.keys[3 * e + 1])
        pr[e] = <int64_t>t.vals[e] - debt_weight * debt
        pr[t.n + e] = pr[e]
    qsort(&pr[t.n], t.n, sizeof(int64_t), _cmp_desc64)
    thr = pr[t.n + beam - 1]
    for e in range(t.n):
        if pr[e] > thr:
            above += 1
    for e in range(t.n):
        if pr[e] > thr:
            continue
        if pr[e] == thr and above + kept < beam:
            kept += 1
            continue
        t.vals[e] = -(t.vals[e] + 1)
    free(pr)
    _drop_marked(t)
    return 0


cdef inline int _hard_position(const CRules* r, const Pos* pos) noexcept nogil:
    """Whether ``_solve_bounded`` answers ``pos``: a big position where the joker rules
    of a meld make the program carry jokers or naturals in its runs (three jokers or
    more, or a per-meld joker limit below the jokers there are), the positions whose
    layers grow the most. (Others keep the plain program: same answers, and the same
    plays, move for move, as before it.)"""
    cdef int jt = pos.JT + pos.JH
    return 1 if (_big_position(pos) and (jt >= 3 or r.mj < jt)) else 0


cdef int32_t _solve_hard(const CRules* r, const Pos* pos, Work* w, int32_t full,
                         Path* path) noexcept nogil:
    """The exact value and play of a hard big position (``_hard_position``) as the game
    kernel and the bots find it (kept so that their seeded games do not move):

    1. beam searches (BEAM, then 8 x BEAM states a layer) for a play placing every
       hand card (``full``, the upper bound): found, it is the answer;
    2. else a beam search for any play: its value ``lb`` is a lower bound;
    3. the program keeping only the states that can still reach ``lb`` (``want``), which
       keeps every state of a best play: its answer is exact."""
    cdef int32_t v, lb = 0
    cdef int64_t beam = BEAM
    while beam <= 8 * BEAM:
        v = _solve_dp(r, pos, w, full, path, beam)
        if v == full or v == -2 or v == -4 or v == -5:
            return v
        if v > lb:
            lb = v      # a real play (short of the bound)
        beam *= 8
    v = _solve_dp(r, pos, w, 1, NULL, BEAM)
    if v == -2 or v == -4 or v == -5:
        return v
    if v > lb:
        lb = v
    if lb < 1:
        # no play found: the plain program (want 1 for a path, as _solve_play asks)
        return _solve_dp(r, pos, w, 1 if path != NULL else 0, path)
    return _solve_dp(r, pos, w, lb, path)


cdef int32_t _solve_beam(const CRules* r, const Pos* pos0, Work* w) noexcept nogil:
    """The value of the best play a beam search (BEAM states a layer) finds: a real
    play's, at most ``_solve``'s (-1 when it finds none; -2, -4, -5 as there)."""
    cdef Pos pp = pos0[0]
    _fix_forced_jokers(r, &pp)
    _prune_hand(r, &pp)
    return _solve_dp(r, &pp, w, 0, NULL, BEAM)


cdef inline int32_t _hand_value(const CRules* r, const Pos* pos) noexcept nogil:
    """The value of placing every hand card of ``pos`` (the upper bound of a play)."""
    cdef int c
    cdef int32_t v = pos.JH * (r.val[52] * VALMUL + 1)
    for c in range(52):
        v += pos.H[c] * (r.val[c] * VALMUL + 1)
    return v


cdef inline int _big_position(const Pos* pos) noexcept nogil:
    """Whether the bound's extra run is worth trying first: 40 cards or more between
    table and hand (small positions answer in less than the extra run costs)."""
    cdef int c, n = pos.JT + pos.JH
    for c in range(52):
        n += pos.T[c] + pos.H[c]
    return 1 if n >= BOUND_FROM else 0


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
    """Keep layer p's steps (its entries' par and info) in ``path``, which grows as
    needed (no cap: a full store must never read as "no play"); -1 on no memory."""
    cdef int64_t need = path.off[p - 1] + path.n[p - 1] + t.n
    cdef int64_t cap
    cdef int32_t* par
    cdef uint32_t* info
    cdef uint64_t* keys
    if need > path.cap:
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
    if path.with_keys:
        if need > path.keys_cap:
            cap = path.keys_cap * 2 if path.keys_cap > 0 else 1024
            while cap < need:
                cap *= 2
            keys = <uint64_t*>realloc(path.keys, 3 * cap * sizeof(uint64_t))
            if keys == NULL:
                return -1
            path.keys = keys
            path.keys_cap = cap
        memcpy(&path.keys[3 * path.off[p]], t.keys, 3 * t.n * sizeof(uint64_t))
    return 0

cdef inline double _now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + 1e-9 * ts.tv_nsec


cdef inline int _over_limit(Work* w) noexcept nogil:
    """Count one state expanded against the solve's limits (``Work.node_limit``,
    ``Work.deadline``): 0 within them, -4 past the node limit, -5 past the deadline
    (the clock is read every 64 states: a state of a hard position can take tens of
    microseconds, and a call returns within its time limit plus one such stretch)."""
    w.nodes += 1
    if w.node_limit > 0 and w.nodes > w.node_limit:
        return -4
    if w.deadline > 0 and (w.nodes & 63) == 0 and _now() > w.deadline:
        return -5
    return 0


cdef int32_t _solve_dp(const CRules* r, const Pos* pos, Work* w, int32_t want,
                       Path* path, int64_t beam=0, int64_t debt=BEAM_DEBT,
                       int64_t cap=0) noexcept nogil:
    """The dynamic program over the positions (the module docstring).

    ``want`` > 0 asks only whether the value reaches ``want``: a state whose value plus
    every hand card of the later positions (all the hand's aces while the high ace is
    to come) and every hand joker falls short of it cannot, and is not kept. The
    answer is then exact when it is ``want`` or more, and otherwise only some value
    below ``want`` (or -1). ``want`` <= 0 keeps every state: the exact value.

    With ``path`` every layer's steps are kept there and ``path.best`` is the final
    entry of the value returned (with ``want``, of a value reaching it), so
    ``_path_counts`` can read the play off it.

    ``beam`` > 0 keeps at most that many states a layer (the highest values): a quick
    search that is not exact, whose answer is the value of a real play (or -1), a
    lower bound of the exact one (``_solve_bounded``), its states ranked by value less
    ``debt`` for each card their open runs still need.

    ``cap`` > 0: -6 once this run has expanded more than ``cap`` states (the caller's
    own budget for one try, apart from the call's limits in ``w``)."""
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
    cdef int limited = 1 if (w.node_limit > 0 or w.deadline > 0) else 0
    cdef int lim
    cdef int64_t expanded = 0
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
                    w.expanded += 1
                    expanded += 1
                    if cap > 0 and expanded > cap:
                        return -6
                    if limited:
                        lim = _over_limit(w)
                        if lim != 0:
                            return lim
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
            w.expanded += 1
            expanded += 1
            if cap > 0 and expanded > cap:
                return -6
            if limited:
                lim = _over_limit(w)
                if lim != 0:
                    return lim
            if beam > 0 and nxt.n > BEAM_SLACK * beam:
                # a beam search keeps its next layer small as it goes: the best ``beam``
                # states so far (its time and memory stay in proportion to the beam);
                # the layer is indexed again, as more states come into it (else a kept
                # state past a dropped one's slot could be added twice, and a play among
                # equally good ones would depend on the index's size)
                if _beam_cut(nxt, beam, debt) != 0:
                    return -2
                _table_reindex(nxt)
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
        if beam > 0 and nxt.n > beam:
            if _beam_cut(nxt, beam, debt) != 0:
                return -2
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
                         uint8_t* nD, int* nJT, int fast=0, Pos* solved=NULL) noexcept nogil:
    """``_solve`` that also reads the play off the program's path: the table after it
    as counts (naturals ``nT``, jokers declared as each card ``nD``, ``nJT`` jokers).
    The value as ``_solve`` gives it (0: no play, the outputs untouched; -2, -4, -5
    as there); -3 when the path cannot be read (more than 7 jokers, or a bug).

    ``fast`` (the API's single calls): big positions by bounds first
    (``_solve_bounded``), the play of the value found. Without it (the game kernel,
    the bots) the program's own choice among equally good plays, as it always was:
    the plain program, or on hard big positions ``_solve_hard``. Same value.
    ``solved``: the position the program solved (forced jokers fixed, the hand
    pruned), whose path ``path`` holds (the meld reading needs it)."""
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
    if fast and _bounds_first(r, &pp):
        v = _solve_bounded(r, &pp, w, _hand_value(r, &pp), path)
    elif _hard_position(r, &pp):
        v = _solve_hard(r, &pp, w, _hand_value(r, &pp), path)
    else:
        v = _solve_dp(r, &pp, w, 1, path)
    if v == -2 or v == -4 or v == -5:
        return v                # no memory (the path store too), or past a limit
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
    if solved != NULL:
        solved[0] = pp
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


cdef int _set_limits(Work* w, int64_t node_limit, double time_limit) noexcept nogil:
    """A solve's limits into ``w`` (0: none); the time limit counts from now."""
    w.node_limit = node_limit if node_limit > 0 else 0
    w.deadline = _now() + time_limit if time_limit > 0 else 0
    w.nodes = 0
    return 0


_NODES = threading.local()


cdef void _record_nodes(int64_t n):
    _NODES.n = n


def last_nodes():
    """The states the last limited solve of this thread expanded (``play_counts``,
    ``rebuild_counts``, ``single_best``; counted only under a node or time limit): a
    call's limits cover its search and its meld reconstruction together."""
    return getattr(_NODES, "n", 0)


def play_counts(CoreRules rules, const uint8_t[::1] T, const uint8_t[::1] H,
                const uint8_t[::1] D, int JT, int JH, int64_t node_limit=0,
                double time_limit=0, bint fast=True):
    """The best play of raw counts, read off the program's own path: ``(value, nT, nD,
    nJT)``, the table after the play as counts (naturals, jokers declared as each
    card, jokers), or ``(value, None, None, None)`` when there is no play (value 0 or
    -1), the path cannot be read (value -3: more than 7 jokers), no memory for it
    (-2) or a limit was reached (-4: more than ``node_limit`` states expanded, -5:
    ``time_limit`` seconds passed; 0 means no limit). ``fast``: see ``_solve_play``
    (False: the game kernel's play among equally good ones). GIL released."""
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
        _set_limits(&w, node_limit, time_limit)
        v = _solve_play(&rules.r, &pos, &w, &path, nT, nD, &nJT, 1 if fast else 0)
    _record_nodes(w.nodes)
    _work_free_kept(&w)
    free(path.par)
    free(path.info)
    if v <= 0:
        return v, None, None, None
    return v, bytes(nT[:52]), bytes(nD[:52]), nJT
