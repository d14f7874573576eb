# _game_random.pxi: the random bot (RandomBot): the legal moves listed as the engine's
# legal_actions() lists them, and its integers draws.
#
# (Included by _game.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _game.pyx.)

# --------------------------------------------------------------------------- random
cdef inline uint64_t np_integers(bitgen_t* bg, uint64_t n) noexcept nogil:
    """numpy Generator.integers(n) (int64): Lemire's bounded method on 32 bits."""
    cdef uint64_t rng = n - 1, m
    cdef uint32_t rng_excl, leftover, threshold
    if rng == 0:
        return 0
    rng_excl = <uint32_t>(rng + 1)
    m = (<uint64_t>bg.next_uint32(bg.state)) * rng_excl
    leftover = <uint32_t>(m & 0xFFFFFFFFUL)
    if leftover < rng_excl:
        threshold = (<uint32_t>0xFFFFFFFFUL - <uint32_t>rng) % rng_excl
        while leftover < threshold:
            m = (<uint64_t>bg.next_uint32(bg.state)) * rng_excl
            leftover = <uint32_t>(m & 0xFFFFFFFFUL)
    return m >> 32


cdef enum:
    MAXLAYS = 400       # listed lay-downs
    MAXPOOL = 480       # melds in them
    MAXOFFS = 640


ctypedef struct Moves:
    int nlay
    int lay_start[MAXLAYS]
    int lay_n[MAXLAYS]
    int npool
    TMeld pool[MAXPOOL]
    int noff
    int off_card[MAXOFFS]
    int off_meld[MAXOFFS]
    int off_side[MAXOFFS]
    int nswap
    int swap_card[MAXOFFS]
    int swap_meld[MAXOFFS]
    int ndisc
    int disc[53]


cdef int add_lay(Moves* M, const TMeld* ms, int k, int dedupe) noexcept nogil:
    """Append LayDown.of(ms) (unless ``dedupe`` and it is listed already)."""
    cdef int i
    if dedupe:
        for i in range(M.nlay):
            if melds_equal(&M.pool[M.lay_start[i]], M.lay_n[i], ms, k):
                return 0
    if M.nlay >= MAXLAYS or M.npool + k > MAXPOOL:
        return -1
    M.lay_start[M.nlay] = M.npool
    M.lay_n[M.nlay] = k
    for i in range(k):
        M.pool[M.npool + i] = ms[i]
    M.npool += k
    M.nlay += 1
    return 0


cdef int list_melds_in(Game* G, Moves* M, int jokers_only) noexcept nogil:
    """melds.melds_in(hand): every single meld, as lay-downs (with ``jokers_only``, those
    holding a joker)."""
    cdef const GRules* g = G.g
    cdef int p = G.current
    cdef int used[53]
    cdef int nat[4]
    cdef int idx[4]
    cdef int have[4]
    cdef TMeld m
    cdef int jokers, max_cards, suit, a, b, bmax, q, c, missing, ok, rank, ns, kk, i, j, lim
    jokers = G.cnt[p][JOKER] if G.cnt[p][JOKER] < g.mj else g.mj
    max_cards = G.hn[p] - 1
    if max_cards < 3:
        return 0
    for suit in range(4):
        for a in range(0, g.top - 1):
            bmax = a + max_cards - 1
            if bmax > g.top:
                bmax = g.top
            for b in range(a + 2, bmax + 1):
                memset(used, 0, sizeof(used))
                missing = 0
                ok = 1
                m.kind = RUN
                m.owner = -1
                m.n = 0
                for q in range(a, b + 1):
                    c = pcard(q, suit)
                    m.reps[m.n] = c
                    if G.cnt[p][c] - used[c] > 0:
                        used[c] += 1
                        m.cards[m.n] = c
                    else:
                        missing += 1
                        if missing > jokers:
                            ok = 0
                            break
                        m.cards[m.n] = JOKER
                    m.n += 1
                if not ok:
                    break
                if missing < m.n and (missing > 0 or not jokers_only):
                    if add_lay(M, &m, 1, 0) < 0:
                        return -1
    lim = 4 if max_cards > 4 else max_cards
    for rank in range(13):
        ns = 0
        for i in range(4):
            if G.cnt[p][i * 13 + rank]:
                have[ns] = i
                ns += 1
        for kk in range(1, ns + 1):
            for i in range(kk):
                idx[i] = i
            while True:
                for i in range(kk):
                    nat[i] = have[idx[i]] * 13 + rank
                for j in range(jokers + 1):
                    if 3 <= kk + j <= lim and (j > 0 or not jokers_only):
                        put_set(&m, nat, kk, j)
                        if add_lay(M, &m, 1, 0) < 0:
                            return -1
                i = kk - 1
                while i >= 0 and idx[i] == i + ns - kk:
                    i -= 1
                if i < 0:
                    break
                idx[i] += 1
                for q in range(i + 1, kk):
                    idx[q] = idx[q - 1] + 1
    return 0


cdef int list_joker_melds(Game* G, Moves* M) noexcept nogil:
    """melds.joker_melds(hand) (one joker per meld), each appended unless listed."""
    cdef const GRules* g = G.g
    cdef int p = G.current
    cdef int nat[53]
    cdef int pa[2]
    cdef int pb[2]
    cdef int two[2]
    cdef TMeld m
    cdef int k = 0, c, i, j, a, b, na, nb, x, y, wa, wb, q, suit
    if G.cnt[p][JOKER] == 0 or g.mj < 1 or G.hn[p] < 4:
        return 0
    for c in range(52):
        if G.cnt[p][c] > 0:
            nat[k] = c
            k += 1
    for i in range(k):
        a = nat[i]
        for j in range(i + 1, k):
            b = nat[j]
            if a % 13 == b % 13:
                two[0] = a
                two[1] = b
                put_set(&m, two, 2, 1)
                if add_lay(M, &m, 1, 1) < 0:
                    return -1
            elif a // 13 == b // 13:
                suit = a // 13
                na = positions_of(g, a, pa)
                nb = positions_of(g, b, pb)
                for x in range(na):
                    for y in range(nb):
                        if not joker_window(g, pa[x], pb[y], &wa, &wb):
                            continue
                        m.kind = RUN
                        m.owner = -1
                        m.n = 0
                        for q in range(wa, wb + 1):
                            m.reps[m.n] = pcard(q, suit)
                            m.cards[m.n] = m.reps[m.n] if (q == pa[x] or q == pb[y]) else JOKER
                            m.n += 1
                        if add_lay(M, &m, 1, 1) < 0:
                            return -1
    return 0


cdef int list_openings(Game* G, Moves* M) noexcept nogil:
    """_MoveRules._openings."""
    cdef uint8_t codes[MAXCODES]
    cdef int path[MAX_DEPTH]
    cdef TMeld ms[MAXGO]
    cdef int p = G.current, must = must_use(G), n, v, depth = 0, k, i, j, laid = 0, has
    if not G.tbottom:
        n = hand_codes(G, p, codes, -1, -1)
        v = qsolve(G, codes, n, MODE_BEST, 1, must, path, &depth)
        if depth > 0 and v >= G.g.threshold:
            k = opening_melds(G, path, depth, ms)
            if add_lay(M, ms, k, 0) < 0:
                return -1
            for i in range(depth):
                laid += G.g.cat_n[path[i]]
            if G.hn[p] - laid == 1:
                return 0
    if G.hn[p] >= 4 and ask(G, MODE_GO_OUT, 0, -1, -1, -1):
        k = go_out_melds(G, G.cnt[p], G.hn[p], ms)
        if k >= 0:
            has = must < 0
            for i in range(k):
                for j in range(ms[i].n):
                    if ms[i].cards[j] == must:
                        has = 1
            if has and add_lay(M, ms, k, 1) < 0:
                return -1
    return 0


cdef int list_plays(Game* G, Moves* M) noexcept nogil:
    """_MoveRules._legal_plays."""
    cdef const GRules* g = G.g
    cdef int p = G.current, opened = G.opened[p], i, c, side, nt, j
    cdef int cand[6]
    cdef int targets[4]
    cdef int nc, lo, hi, suit, rank, t, s, s0, s1
    cdef TMeld* tm
    M.nlay = 0
    M.npool = 0
    M.noff = 0
    M.nswap = 0
    M.ndisc = 0
    if G.freed:
        if list_melds_in(G, M, 1) < 0 or list_joker_melds(G, M) < 0:
            return -1
        return 0
    if not opened:
        if list_openings(G, M) < 0:
            return -1
    elif G.hn[p] > 3:
        # (a bottom-card turn is never an opened player's: no finishable filter here)
        if list_melds_in(G, M, 0) < 0:
            return -1
    if opened and not G.tbottom and G.hn[p] > 1:
        for i in range(G.table_n):
            tm = &G.table[i]
            nc = 0
            if tm.kind == SET:
                rank = tm.reps[0] % 13
                for s in range(4):
                    cand[nc] = s * 13 + rank
                    nc += 1
            else:
                lo = tm.reps[0] % 13
                hi = lo + tm.n - 1
                suit = tm.reps[0] // 13
                if lo > 0:
                    cand[nc] = pcard(lo - 1, suit)
                    nc += 1
                if hi < g.top:
                    cand[nc] = pcard(hi + 1, suit)
                    nc += 1
                sort_ints(cand, nc)
            cand[nc] = JOKER
            nc += 1
            for j in range(nc):
                c = cand[j]
                if j > 0 and cand[j - 1] == c:
                    continue
                if not G.cnt[p][c]:
                    continue
                s0 = 1 if tm.kind == RUN else 0
                s1 = 3 if tm.kind == RUN else 1
                for side in range(s0, s1):
                    if not fits_side(g, tm, c, side):
                        continue
                    if M.noff >= MAXOFFS:
                        return -1
                    M.off_card[M.noff] = c
                    M.off_meld[M.noff] = i
                    M.off_side[M.noff] = side
                    M.noff += 1
        for i in range(G.table_n):
            nt = swap_target_list(&G.table[i], targets)
            for j in range(nt):
                c = targets[j]
                if G.cnt[p][c] and joker_meld_possible(G, p, c):
                    if M.nswap >= MAXOFFS:
                        return -1
                    M.swap_card[M.nswap] = c
                    M.swap_meld[M.nswap] = i
                    M.nswap += 1
    if G.must_open and not opened:
        return 0
    if G.tbottom and G.hn[p] > 1:
        return 0
    for c in range(53):
        if G.cnt[p][c] and may_discard(G, c):
            M.disc[M.ndisc] = c
            M.ndisc += 1
    return 0


cdef int fits_side(const GRules* g, const TMeld* m, int c, int side) noexcept nogil:
    """Whether ``side`` (0 a set, 1 low, 2 high) is among melds.lay_off_sides(m, c)."""
    cdef int lo, hi, suit
    if m.kind == SET:
        return lay_off_side(g, m, c) == 0
    if c == JOKER and meld_jokers(m) + 1 > g.mj:
        return 0
    lo = m.reps[0] % 13
    hi = lo + m.n - 1
    suit = m.reps[0] // 13
    if side == 1:
        return lo > 0 and (c == JOKER or c == pcard(lo - 1, suit))
    return hi < g.top and (c == JOKER or c == pcard(hi + 1, suit))


cdef void random_move(Game* G, Moves* M) noexcept nogil:
    """RandomBot.choose: a kind of move uniformly (kinds in sorted name order), then a move
    of that kind, two ``integers`` draws from the bot's generator."""
    cdef bitgen_t* bg = G.brng[G.current]
    cdef int kinds[4]
    cdef int counts[4]
    cdef int nk = 0, k, i, o
    if G.phase == PH_DRAW:
        # sorted names: bottom, discard, stock (each kind one move: no second draw)
        if can_take_bottom(G):
            kinds[nk] = SRC_BOTTOM
            nk += 1
        if can_take_discard(G):
            kinds[nk] = SRC_DISCARD
            nk += 1
        kinds[nk] = SRC_STOCK
        nk += 1
        k = <int>np_integers(bg, nk)
        do_draw(G, kinds[k])
        return
    if list_plays(G, M) < 0:
        G.err = E_STATE
        return
    # sorted names: Discard, LayDown, LayOff, SwapJoker
    counts[0] = M.ndisc
    counts[1] = M.nlay
    counts[2] = M.noff
    counts[3] = M.nswap
    for i in range(4):
        if counts[i]:
            kinds[nk] = i
            counts[nk] = counts[i]
            nk += 1
    if nk == 0:
        G.err = E_STATE
        return
    k = <int>np_integers(bg, nk)
    o = <int>np_integers(bg, counts[k])
    k = kinds[k]
    if k == 0:
        do_discard(G, M.disc[o])
    elif k == 1:
        lay_melds(G, &M.pool[M.lay_start[o]], M.lay_n[o])
    elif k == 2:
        do_lay_off(G, M.off_card[o], M.off_meld[o], M.off_side[o])
    else:
        do_swap(G, M.swap_card[o], M.swap_meld[o])
