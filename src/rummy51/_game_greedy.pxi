# _game_greedy.pxi: the greedy bot (GreedyBot): its lay-downs and its decisions.
#
# (Included by _game.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _game.pyx.)

# --------------------------------------------------------------------------- greedy: lay-downs
cdef inline int run_pos(const TMeld* m, int i) noexcept nogil:
    """rummy51.solver._run_pos."""
    cdef int r = m.reps[i] % 13
    if r == 0:
        return 0 if i == 0 else 13
    return r


cdef int meld_key_less(const TMeld* a, const TMeld* b) noexcept nogil:
    """rummy51.solver._meld_key(a) < _meld_key(b)."""
    cdef int ka = a.reps[0] // 13 if a.kind == RUN else 4
    cdef int kb = b.reps[0] // 13 if b.kind == RUN else 4
    cdef int i
    if ka != kb:
        return ka < kb
    if a.reps[0] % 13 != b.reps[0] % 13:
        return a.reps[0] % 13 < b.reps[0] % 13
    for i in range(a.n if a.n < b.n else b.n):
        if a.cards[i] != b.cards[i]:
            return a.cards[i] < b.cards[i]
    return a.n < b.n


cdef int join_pair(TMeld* ms, int k, int a, int b) noexcept nogil:
    """Run ``ms[b]`` joined onto the end of run ``ms[a]``: the other melds keep their
    order and the joined meld goes last. Returns the new count."""
    cdef TMeld joined = ms[a]
    cdef int q, t = 0
    for q in range(ms[b].n):
        joined.cards[joined.n + q] = ms[b].cards[q]
        joined.reps[joined.n + q] = ms[b].reps[q]
    joined.n += ms[b].n
    for q in range(k):
        if q != a and q != b:
            if t != q:
                ms[t] = ms[q]
            t += 1
    ms[t] = joined
    return t + 1


cdef int opening_melds(Game* G, const int* path, int depth, TMeld* ms) noexcept nogil:
    """rummy51.solver._build_opening's melds: the catalogue melds of ``path``, split runs
    joined again (_merge_runs), sorted by _meld_key. Returns how many."""
    cdef const GRules* g = G.g
    cdef int i, j, k = depth, ia, ib, merged, a_end, suit, id_
    cdef TMeld tmp
    for i in range(depth):
        id_ = path[i]
        ms[i].kind = RUN if g.cat_kind[id_] else SET
        ms[i].n = g.cat_n[id_]
        ms[i].owner = -1
        for j in range(ms[i].n):
            ms[i].cards[j] = g.cat_laid[id_ * 5 + j]
            ms[i].reps[j] = g.cat_reps[id_ * 5 + j]
    if k <= 1:
        return k
    merged = 1
    while merged:
        merged = 0
        for ia in range(k):
            if ms[ia].kind != RUN:
                continue
            a_end = run_pos(&ms[ia], ms[ia].n - 1)
            suit = ms[ia].reps[0] // 13
            for ib in range(k):
                if ib == ia or ms[ib].kind != RUN or ms[ib].reps[0] // 13 != suit:
                    continue
                if run_pos(&ms[ib], 0) != a_end + 1:
                    continue
                if meld_jokers(&ms[ia]) + meld_jokers(&ms[ib]) > g.mj:
                    continue
                if ms[ia].n + ms[ib].n > MAXMC:
                    continue
                k = join_pair(ms, k, ia, ib)
                merged = 1
                break
            if merged:
                break
    # stable insertion sort by _meld_key
    for i in range(1, k):
        tmp = ms[i]
        j = i
        while j > 0 and meld_key_less(&tmp, &ms[j - 1]):
            ms[j] = ms[j - 1]
            j -= 1
        ms[j] = tmp
    return k


cdef int lay_best(Game* G, int must, int need_open) noexcept nogil:
    """best_opening(hand, keep=1, must_use) and, if it has melds (and reaches the
    threshold when ``need_open``), lay them down. Returns whether it did."""
    cdef uint8_t codes[MAXCODES]
    cdef int path[MAX_DEPTH]
    cdef int depth = 0, v, n, k
    cdef TMeld ms[MAX_DEPTH]
    n = hand_codes(G, G.current, codes, -1, -1)
    v = qsolve(G, codes, n, MODE_BEST, 1, must, path, &depth)
    if depth == 0 or (need_open and v < G.g.threshold):
        return 0
    k = opening_melds(G, path, depth, ms)
    lay_melds(G, ms, k)
    return 1


cdef void consider(const GRules* g, TMeld* best, int* best_v, int* have, const int* cards,
                   const int* reps, int n, int kind) noexcept nogil:
    """_freed_joker_meld's max: key (opening value, -cards), the first maximum kept."""
    cdef int v = reading_value(g, cards, n)
    cdef int i
    if have[0] and (v < best_v[0] or (v == best_v[0] and n >= best.n)):
        return
    have[0] = 1
    best_v[0] = v
    best.kind = kind
    best.n = n
    for i in range(n):
        best.cards[i] = cards[i]
        best.reps[i] = reps[i]


cdef int joker_pairs(const Game* G, int p, int give, TMeld* best, int* best_v,
                     int* have) noexcept nogil:
    """rummy51.melds.joker_melds (one joker per meld) of player p's naturals less one
    ``give``: each pair of naturals a joker completes, in that function's order. With
    ``best`` NULL, return 1 at the first; else offer each to ``consider``."""
    cdef const GRules* g = G.g
    cdef int nat[53]
    cdef int cards[MAXMC]
    cdef int reps[MAXMC]
    cdef int pa[2]
    cdef int pb[2]
    cdef int k = 0, c, i, j, a, b, na, nb, x, y, wa, wb, n, q, suit
    for c in range(52):
        if G.cnt[p][c] - (1 if c == give else 0) > 0:
            nat[k] = c
            k += 1
    for i in range(k):
        a = nat[i]
        for j in range(i + 1, k):
            b = nat[j]
            if a % 13 == b % 13:
                if best == NULL:
                    return 1
                set_cands(g, best, best_v, have, a % 13, a // 13, b // 13, -1)
            elif a // 13 == b // 13:
                suit = a // 13
                na = positions_of(g, a, pa)
                nb = positions_of(g, b, pb)
                for x in range(na):
                    for y in range(nb):
                        if not joker_window(g, pa[x], pb[y], &wa, &wb):
                            continue
                        if best == NULL:
                            return 1
                        n = 0
                        for q in range(wa, wb + 1):
                            reps[n] = pcard(q, suit)
                            cards[n] = reps[n] if (q == pa[x] or q == pb[y]) else JOKER
                            n += 1
                        consider(g, best, best_v, have, cards, reps, n, RUN)
    return 0


cdef void freed_joker_meld(Game* G) noexcept nogil:
    """bots._freed_joker_meld: among legal_actions' lay-downs after a swap (melds_in with
    a joker, then joker_melds), the most valuable, fewer cards on a tie."""
    cdef const GRules* g = G.g
    cdef int p = G.current
    cdef int used[53]
    cdef int cards[MAXMC]
    cdef int reps[MAXMC]
    cdef int suitsh[4]
    cdef int have = 0, best_v = 0, jokers, max_cards, suit, a, b, bmax, q, c, missing, n, ok
    cdef int rank, ns, s1, s2, s3, k
    cdef TMeld best
    best.n = 0
    jokers = G.cnt[p][JOKER] if G.cnt[p][JOKER] < g.mj else g.mj
    max_cards = G.hn[p] - 1
    # melds_in: runs by _run_windows (only those holding a joker count)
    if max_cards >= 3:
        for suit in range(4):
            for a in range(0, g.top - 1):
                bmax = a + max_cards - 1
                if bmax > g.top:
                    bmax = g.top
                for b in range(a + 2, bmax + 1):
                    memset(used, 0, sizeof(used))
                    missing = 0
                    n = 0
                    ok = 1
                    for q in range(a, b + 1):
                        c = pcard(q, suit)
                        reps[n] = c
                        if G.cnt[p][c] - used[c] > 0:
                            used[c] += 1
                            cards[n] = c
                        else:
                            missing += 1
                            if missing > jokers:
                                ok = 0
                                break
                            cards[n] = JOKER
                        n += 1
                    if not ok:
                        break
                    if missing < n and missing > 0:
                        consider(g, &best, &best_v, &have, cards, reps, n, RUN)
        # sets with a joker: 2 or 3 suits of a rank (combinations order) and one joker
        if jokers >= 1:
            for rank in range(13):
                ns = 0
                for s1 in range(4):
                    if G.cnt[p][s1 * 13 + rank]:
                        suitsh[ns] = s1
                        ns += 1
                for k in range(2, ns + 1):
                    if k + 1 > 4 or k + 1 > max_cards:
                        continue
                    # combinations(suitsh, k) in lexicographic order
                    for s1 in range(ns):
                        for s2 in range(s1 + 1, ns):
                            if k == 2:
                                set_cands(g, &best, &best_v, &have, rank, suitsh[s1], suitsh[s2], -1)
                            else:
                                for s3 in range(s2 + 1, ns):
                                    set_cands(g, &best, &best_v, &have, rank, suitsh[s1],
                                              suitsh[s2], suitsh[s3])
    # joker_melds: a joker with two naturals (duplicates of the above never win a tie)
    if g.mj >= 1 and G.hn[p] >= 4:
        joker_pairs(G, p, -1, &best, &best_v, &have)
    if not have:
        G.err = E_STATE
        return
    lay_melds(G, &best, 1)


cdef void set_cands(const GRules* g, TMeld* best, int* best_v, int* have, int rank, int s1,
                    int s2, int s3) noexcept nogil:
    """_set_reading(naturals of suits s1 < s2 (< s3), 1 joker): the joker takes the first
    missing suit."""
    cdef int cards[4]
    cdef int reps[4]
    cdef int n = 0, s, suits = 0
    cards[n] = s1 * 13 + rank
    n += 1
    cards[n] = s2 * 13 + rank
    n += 1
    if s3 >= 0:
        cards[n] = s3 * 13 + rank
        n += 1
    for s in range(n):
        reps[s] = cards[s]
        suits |= 1 << (cards[s] // 13)
    for s in range(4):
        if not (suits >> s) & 1:
            reps[n] = s * 13 + rank
            break
    cards[n] = JOKER
    n += 1
    consider(g, best, best_v, have, cards, reps, n, SET)


# --------------------------------------------------------------------------- greedy: decisions
cdef int fits_table(const Game* G, int c) noexcept nogil:
    cdef int i
    for i in range(G.table_n):
        if lay_off_side(G.g, &G.table[i], c) >= 0:
            return 1
    return 0


cdef void greedy_draw(Game* G) noexcept nogil:
    """GreedyBot._draw."""
    cdef uint8_t codes[MAXCODES]
    cdef int p = G.current, top, n, want = 0
    if G.pile_n > 0:
        top = G.pile[G.pile_n - 1]
        n = hand_codes(G, p, codes, top, -1)
        if not G.opened[p]:
            want = qsolve(G, codes, n, MODE_CAN_OPEN, 1, top, NULL, NULL)
            # can_draw(discard): outside the free rounds the hand must open with it; an
            # opening using the card is one
        else:
            want = fits_table(G, top) or qsolve(G, codes, n, MODE_BEST, 1, top, NULL, NULL) > 0
        if want:
            do_draw(G, SRC_DISCARD)
            return
    do_draw(G, SRC_STOCK)


cdef int greedy_discard(Game* G, int opened) noexcept nogil:
    """GreedyBot's discard, the largest of (not a joker, score, value, code) where the score
    is, before opening, the best value left (keep-best: ``best_opening(hand - c, keep=0)``)
    and, after opening (or with ``opened`` set: _least_deadwood_discard), minus the
    deadwood left (``min_deadwood(hand - c, keep=0)``)."""
    cdef uint8_t codes[MAXCODES]
    cdef int p = G.current, c, n, v, bc = -1, bj = 0, bv = 0, bw = 0, nj, w
    for c in range(53):
        if not G.cnt[p][c] or not may_discard(G, c):
            continue
        n = hand_codes(G, p, codes, -1, c)
        if opened:
            v = -qsolve(G, codes, n, MODE_DEADWOOD, 0, -1, NULL, NULL)
        else:
            v = qsolve(G, codes, n, MODE_BEST, 0, -1, NULL, NULL)
        nj = 1 if c != JOKER else 0
        w = cval(G.g, c)
        if (bc < 0 or nj > bj or (nj == bj and (v > bv or (v == bv and (w > bw or
                (w == bw and c > bc)))))):
            bc = c
            bj = nj
            bv = v
            bw = w
    return bc


cdef inline int may_discard(const Game* G, int c) noexcept nogil:
    """verify_discard's taken-card rule (the other rules cannot bite a greedy discard)."""
    cdef int p = G.current
    if (G.src == SRC_DISCARD and c == G.drawn and G.hn[p] > 1 and G.cnt[p][c] == 1
            and not G.g.taken_ok):
        return 0
    return 1


cdef void greedy_play(Game* G) noexcept nogil:
    """GreedyBot._play: one move of the play phase."""
    cdef const GRules* g = G.g
    cdef int p = G.current, i, j, nt, c, side, bc = -1, bi = -1, bs = -1, bw = 0, w, must
    cdef int targets[4]
    if G.freed:
        freed_joker_meld(G)
        return
    if not G.opened[p]:
        must = G.drawn if (G.must_open and g.must_meld) else -1
        if lay_best(G, must, 1):
            return
        c = bot_discard(G)
        if c < 0:
            G.err = E_STATE
            return
        do_discard(G, c)
        return
    # opened: lay down what melds are left, swap a joker, lay off, discard
    if G.hn[p] > 3 and lay_best(G, -1, 0):
        return
    for i in range(G.table_n):
        nt = swap_target_list(&G.table[i], targets)
        for j in range(nt):
            c = targets[j]
            if G.cnt[p][c] and joker_meld_possible(G, p, c):
                do_swap(G, c, i)
                return
    if G.hn[p] > 1:
        for i in range(G.table_n):
            for c in range(53):
                if not G.cnt[p][c]:
                    continue
                side = lay_off_side(g, &G.table[i], c)
                if side < 0:
                    continue
                w = cval(g, c)
                if bc < 0 or w > bw or (w == bw and c > bc):
                    bc = c
                    bi = i
                    bs = side
                    bw = w
        if bc >= 0:
            do_lay_off(G, bc, bi, bs)
            return
    c = bot_discard(G)
    if c < 0:
        G.err = E_STATE
        return
    do_discard(G, c)
