# _game_table.pxi: the table melds and the moves.
#
# The table-meld model of rummy51.melds (lay-off sides, joker swaps) and the moves
# every bot makes through (draw, lay melds, lay off, swap a joker, discard).
#
# (Included by _game.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _game.pyx.)

# --------------------------------------------------------------------------- table melds
cdef int lay_off_side(const GRules* g, const TMeld* m, int c) noexcept nogil:
    """rummy51.melds.lay_off_sides, last side: -1 none, 0 a set (side None), 1 low, 2 high."""
    cdef int i, lo, hi, suit
    if c == JOKER and meld_jokers(m) + 1 > g.mj:
        return -1
    if m.kind == SET:
        if m.n >= 4:
            return -1
        if c == JOKER:
            return 0
        if c % 13 != m.reps[0] % 13:
            return -1
        for i in range(m.n):
            if m.cards[i] != JOKER and m.cards[i] // 13 == c // 13:
                return -1
        return 0
    lo = m.reps[0] % 13
    hi = lo + m.n - 1
    suit = m.reps[0] // 13
    if hi < g.top and (c == JOKER or c == pcard(hi + 1, suit)):
        return 2
    if lo > 0 and (c == JOKER or c == pcard(lo - 1, suit)):
        return 1
    return -1


cdef void set_meld(TMeld* out, const int* nat, int k, const int* keep, int nkeep, int nj,
                   int owner) noexcept nogil:
    """rummy51.melds._set_meld: naturals ``nat`` (slot order) and ``nj`` jokers; the jokers
    keep the stand-ins of ``keep`` still missing, the rest take missing suits S H D C."""
    cdef int rank = nat[0] % 13
    cdef int suits = 0, i, s, r, nr = 0
    cdef int reps[MAXMC]
    cdef int kept = 0
    for i in range(k):
        suits |= 1 << (nat[i] // 13)
    for i in range(nkeep):
        if not (suits >> (keep[i] // 13)) & 1:
            reps[nr] = keep[i]
            nr += 1
            kept |= 1 << (keep[i] // 13)
    for s in range(4):
        r = s * 13 + rank
        if not (suits >> s) & 1 and not (kept >> s) & 1:
            reps[nr] = r
            nr += 1
    fill_set(out, nat, k, reps, nj, owner)


cdef inline void fill_set(TMeld* out, const int* nat, int k, const int* jreps, int nj,
                          int owner) noexcept nogil:
    """A set meld: the naturals, then ``nj`` jokers standing for ``jreps``."""
    cdef int i
    out.kind = SET
    out.owner = owner
    out.n = k + nj
    for i in range(k):
        out.cards[i] = nat[i]
        out.reps[i] = nat[i]
    for i in range(nj):
        out.cards[k + i] = JOKER
        out.reps[k + i] = jreps[i]


cdef int set_parts(const TMeld* m, int* nat, int* jreps, int* nj) noexcept nogil:
    """A set's naturals (slot order) and its jokers' stand-ins; returns the naturals' count."""
    cdef int i, k = 0
    nj[0] = 0
    for i in range(m.n):
        if m.cards[i] == JOKER:
            jreps[nj[0]] = m.reps[i]
            nj[0] += 1
        else:
            nat[k] = m.cards[i]
            k += 1
    return k


cdef void apply_lay_off(const GRules* g, TMeld* m, int c, int side) noexcept nogil:
    """rummy51.melds.lay_off."""
    cdef int nat[MAXMC]
    cdef int jreps[MAXMC]
    cdef int keep[MAXMC]
    cdef int k, nj, i, nk = 0, lo, suit
    cdef TMeld out
    if m.kind == SET:
        k = set_parts(m, nat, jreps, &nj)
        if c == JOKER:
            set_meld(&out, nat, k, jreps, nj, nj + 1, m.owner)
        else:
            for i in range(nj):
                if jreps[i] != c:
                    keep[nk] = jreps[i]
                    nk += 1
            nat[k] = c
            set_meld(&out, nat, k + 1, keep, nk, nj, m.owner)
        m[0] = out
        return
    suit = m.reps[0] // 13
    lo = m.reps[0] % 13
    if side == 1:
        for i in range(m.n, 0, -1):
            m.cards[i] = m.cards[i - 1]
            m.reps[i] = m.reps[i - 1]
        m.cards[0] = c
        m.reps[0] = pcard(lo - 1, suit)
    else:
        m.cards[m.n] = c
        m.reps[m.n] = pcard(lo + m.n, suit)
    m.n += 1


cdef int swap_target_list(const TMeld* m, int* out) noexcept nogil:
    """rummy51.melds.swap_targets (ascending)."""
    cdef int i, j, t, k = 0, have = 0, rank, s
    if meld_jokers(m) == 0:
        return 0
    if m.kind == RUN:
        for i in range(m.n):
            if m.cards[i] == JOKER:
                t = m.reps[i]
                j = k
                while j > 0 and out[j - 1] > t:
                    out[j] = out[j - 1]
                    j -= 1
                out[j] = t
                k += 1
        # drop repeats (a set of stand-ins)
        j = 0
        for i in range(k):
            if j == 0 or out[j - 1] != out[i]:
                out[j] = out[i]
                j += 1
        return j
    rank = m.reps[0] % 13
    for i in range(m.n):
        if m.cards[i] != JOKER:
            have |= 1 << (m.cards[i] // 13)
    for s in range(4):
        if not (have >> s) & 1:
            out[k] = s * 13 + rank
            k += 1
    return k


cdef void apply_swap(TMeld* m, int c) noexcept nogil:
    """rummy51.melds.swap_joker."""
    cdef int nat[MAXMC]
    cdef int jreps[MAXMC]
    cdef int keep[MAXMC]
    cdef int k, nj, i, nk = 0
    cdef TMeld out
    if m.kind == RUN:
        for i in range(m.n):
            if m.cards[i] == JOKER and m.reps[i] == c:
                m.cards[i] = c
                return
        return
    k = set_parts(m, nat, jreps, &nj)
    for i in range(nj):
        if jreps[i] != c:
            keep[nk] = jreps[i]
            nk += 1
    nat[k] = c
    set_meld(&out, nat, k + 1, keep, nk, nj - 1, m.owner)
    m[0] = out


cdef inline int positions_of(const GRules* g, int c, int* pos) noexcept nogil:
    cdef int r = c % 13
    if r == 0:
        pos[0] = 0
        if g.ace_high:
            pos[1] = 13
            return 2
        return 1
    pos[0] = r
    return 1


cdef inline int joker_window(const GRules* g, int pa, int pb, int* wa, int* wb) noexcept nogil:
    """The three positions ``wa``..``wb`` of a run a joker completes through two cards of
    one suit at positions ``pa`` and ``pb``: the joker between them (a gap of one), or
    next to them (above, or below when they are at the top); 0 when no joker does."""
    cdef int lo = pa if pa < pb else pb
    cdef int hi = pa + pb - lo
    if hi - lo == 2:
        wa[0] = lo
        wb[0] = hi
    elif hi - lo == 1:
        if hi + 1 <= g.top:
            wa[0] = lo
            wb[0] = hi + 1
        else:
            wa[0] = lo - 1
            wb[0] = hi
    else:
        return 0
    return 1


cdef int joker_meld_possible(const Game* G, int p, int give) noexcept nogil:
    """rummy51.melds.joker_meld_possible of player p's hand less ``give`` plus a joker
    (one joker per meld: a pair of naturals a joker completes)."""
    if G.g.mj < 1 or G.hn[p] < 4:
        return 0
    return joker_pairs(G, p, give, NULL, NULL, NULL)


cdef int reading_value(const GRules* g, const int* cards, int n) noexcept nogil:
    """rummy51.melds.opening_value: the best reading's value (0 if no meld)."""
    cdef int nat[MAXMC]
    cdef int pos[MAXMC]
    cdef int aces[2]
    cdef int k = 0, nj, i, j, best = 0, v, na = 0, choice, lo, hi, gaps, extra, left, a, b, ok
    for i in range(n):
        if cards[i] != JOKER:
            nat[k] = cards[i]
            k += 1
    nj = n - k
    if k == 0:
        return 0
    # a set
    if 3 <= n <= 4:
        ok = 1
        for i in range(k):
            if nat[i] % 13 != nat[0] % 13:
                ok = 0
            for j in range(i):
                if nat[j] // 13 == nat[i] // 13:
                    ok = 0
        if ok:
            best = n * cval(g, nat[0])
    # runs
    if n < 3:
        return best
    for i in range(k):
        if nat[i] // 13 != nat[0] // 13:
            return best
        if nat[i] % 13 == 0:
            if na == 2:
                return best      # three aces of a suit: no run
            aces[na] = i
            na += 1
    for choice in range(1 << na):
        if choice and not g.ace_high:
            break
        for i in range(k):
            pos[i] = nat[i] % 13
        for i in range(na):
            if (choice >> i) & 1:
                pos[aces[i]] = 13
        ok = 1
        lo = 99
        hi = -1
        for i in range(k):
            for j in range(i):
                if pos[i] == pos[j]:
                    ok = 0
            if pos[i] < lo:
                lo = pos[i]
            if pos[i] > hi:
                hi = pos[i]
        if not ok:
            continue
        gaps = hi - lo + 1 - k
        if gaps > nj:
            continue
        extra = nj - gaps
        for left in range(extra + 1):
            a = lo - left
            b = hi + extra - left
            if a < 0 or b > g.top:
                continue
            v = 0
            for i in range(a, b + 1):
                v += posval(g, i)
            if v > best:
                best = v
    return best


# --------------------------------------------------------------------------- moves
cdef inline void played(Game* G, int p, int c) noexcept nogil:
    """search.known_cards: seat p played a copy of ``c``; a known copy, if any, is gone
    (with two decks it may have been the other copy: the count stays a lower bound)."""
    if G.known[p][c] > 0:
        G.known[p][c] -= 1


cdef void do_draw(Game* G, int src) noexcept nogil:
    cdef int p = G.current, card
    if src == SRC_DISCARD:
        G.pile_n -= 1
        card = G.pile[G.pile_n]
    elif src == SRC_STOCK:
        G.stock_n -= 1
        card = G.stock[G.stock_n]
    else:
        card = G.bottom
        G.bottom = -1
    G.cnt[p][card] += 1
    G.hn[p] += 1
    if src != SRC_STOCK:
        G.known[p][card] += 1       # a public card: the search bot's known_cards
    G.must_open = 1 if (src == SRC_DISCARD and not G.opened[p] and not free_round(G)) else 0
    G.src = src
    G.drawn = card
    G.tbottom = 1 if src == SRC_BOTTOM else 0
    G.phase = PH_PLAY
    logv(G, A_DRAW)
    logv(G, src)


cdef inline void sort_ints(int* a, int n) noexcept nogil:
    """Ascending insertion sort (a few cards)."""
    cdef int j, t, c
    for j in range(1, n):
        c = a[j]
        t = j
        while t > 0 and a[t - 1] > c:
            a[t] = a[t - 1]
            t -= 1
        a[t] = c


cdef void lay_melds(Game* G, TMeld* ms, int k) noexcept nogil:
    """GameState.lay_down of LayDown.of(ms): ``ms`` are melds in laid order (solver
    ``Meld``s or ``TableMeld``s) with their stand-ins."""
    cdef int p = G.current
    cdef int i, j, nj, nn
    cdef int nat[MAXMC]
    cdef int jr[MAXMC]
    cdef TMeld* m
    cdef TMeld* tm
    logv(G, A_LAY_DOWN)
    logv(G, k)
    for i in range(k):
        m = &ms[i]
        logv(G, m.n)
        nj = 0
        for j in range(m.n):
            logv(G, m.cards[j])
            if m.cards[j] == JOKER:
                nj += 1
        logv(G, nj)
        for j in range(m.n):
            if m.cards[j] == JOKER:
                logv(G, m.reps[j])
    for i in range(k):
        m = &ms[i]
        for j in range(m.n):
            G.cnt[p][m.cards[j]] -= 1
            played(G, p, m.cards[j])
        G.hn[p] -= m.n
        if G.table_n >= MAXT:
            G.err = E_STATE
            return
        tm = &G.table[G.table_n]
        G.table_n += 1
        if m.kind == RUN:
            tm[0] = m[0]
        else:
            # make_meld: naturals sorted, then the jokers with their stand-ins sorted
            nn = 0
            nj = 0
            for j in range(m.n):
                if m.cards[j] == JOKER:
                    jr[nj] = m.reps[j]
                    nj += 1
                else:
                    nat[nn] = m.cards[j]
                    nn += 1
            sort_ints(nat, nn)
            sort_ints(jr, nj)
            fill_set(tm, nat, nn, jr, nj, p)
        tm.owner = p
    if not G.opened[p]:
        G.opened[p] = 1
        G.turn_opened[p] = G.turn // G.n + 1
    G.freed = 0


cdef void do_lay_off(Game* G, int c, int i, int side) noexcept nogil:
    cdef int p = G.current
    apply_lay_off(G.g, &G.table[i], c, side)
    G.cnt[p][c] -= 1
    played(G, p, c)
    G.hn[p] -= 1
    if G.table[i].owner != p:
        G.touched = 1
    logv(G, A_LAY_OFF)
    logv(G, c)
    logv(G, i)
    logv(G, side)


cdef void do_swap(Game* G, int c, int i) noexcept nogil:
    cdef int p = G.current
    apply_swap(&G.table[i], c)
    G.cnt[p][c] -= 1
    G.cnt[p][JOKER] += 1
    played(G, p, c)
    G.known[p][JOKER] += 1
    G.freed = 1
    if G.table[i].owner != p:
        G.touched = 1
    logv(G, A_SWAP)
    logv(G, c)
    logv(G, i)


cdef void do_discard(Game* G, int c) noexcept nogil:
    cdef int p = G.current
    G.cnt[p][c] -= 1
    played(G, p, c)
    G.hn[p] -= 1
    G.pile[G.pile_n] = c
    G.pile_n += 1
    logv(G, A_DISCARD)
    logv(G, c)
    if G.hn[p] == 0:
        if not G.opened_at_start and not G.touched:
            end_deal(G, p, END_HAND_BOTTOM if G.tbottom else END_HAND)
        else:
            end_deal(G, p, END_OUT)
    else:
        next_turn(G)
