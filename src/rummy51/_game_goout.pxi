# _game_goout.pxi: the pieces the other bots share, and go_out_melds.
#
# Turn facts (the card taken, must-use, the unseen cards), meld values and
# comparisons, and go_out_melds: melds that take a whole hand out, as
# rummy51.melds does (melds_with, cover, join_runs), with the lay-down checks.
#
# (Included by _game.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _game.pyx.)

# --------------------------------------------------------------------------- the other bots: shared pieces
cdef inline int drawn_taken(const Game* G) noexcept nogil:
    """TurnInfo.taken: the card taken from the discard pile this turn, or -1."""
    return G.drawn if G.src == SRC_DISCARD else -1


cdef inline int must_use(const Game* G) noexcept nogil:
    """bots._must_use."""
    return G.drawn if (G.must_open and G.g.must_meld and G.src == SRC_DISCARD) else -1


cdef int can_take_discard(Game* G) noexcept nogil:
    """view.can_draw('discard')."""
    cdef uint8_t codes[MAXCODES]
    cdef int p = G.current, top, n
    if G.pile_n == 0:
        return 0
    if G.opened[p] or free_round(G):
        return 1
    top = G.pile[G.pile_n - 1]
    n = hand_codes(G, p, codes, top, -1)
    return qsolve(G, codes, n, MODE_CAN_OPEN, 1, top if G.g.must_meld else -1, NULL, NULL)


cdef int can_take_bottom(Game* G) noexcept nogil:
    """view.can_draw('bottom')."""
    cdef uint8_t codes[MAXCODES]
    cdef int p = G.current, n
    if not G.g.bottom_card or G.bottom < 0 or G.opened[p]:
        return 0
    n = hand_codes(G, p, codes, G.bottom, -1)
    return qsolve(G, codes, n, MODE_GO_OUT, 0, -1, NULL, NULL)


cdef inline int ask(Game* G, int mode, int keep, int must, int extra, int minus) noexcept nogil:
    """One solver question about the hand on turn, plus ``extra`` less ``minus`` (-1: none).
    The hand goes to the solver as bit planes (hand_of), not as codes to parse."""
    cdef Hand h, hx
    cdef int r
    hand_of(G, G.current, minus, &h)
    if extra >= 0:
        if hand_plus(&h, extra, &hx):      # a third copy: parse_hand would refuse it too
            G.err = E_SOLVER
            return 0
        h = hx
    r = solve(G.sr, &h, mode, keep, must, NULL, NULL)
    if r < 0:
        G.err = E_SOLVER
        return 0
    return r


cdef int unseen_counts(const Game* G, int* u) noexcept nogil:
    """bots._unseen: the deck less the hand, the discard pile, the table and the bottom card.
    Returns the total."""
    cdef int c, i, j, t = 0, p = G.current
    for c in range(53):
        u[c] = G.g.deckcnt[c] - G.cnt[p][c]
    for i in range(G.pile_n):
        u[G.pile[i]] -= 1
    for i in range(G.table_n):
        for j in range(G.table[i].n):
            u[G.table[i].cards[j]] -= 1
    if G.bottom >= 0:
        u[G.bottom] -= 1
    for c in range(53):
        if u[c] < 0:
            u[c] = 0
        t += u[c]
    return t


cdef inline int meld_value(const GRules* g, const TMeld* m) noexcept nogil:
    """TableMeld.value: what the slots stand for."""
    cdef int i, lo, v = 0
    if m.kind == SET:
        return m.n * cval(g, m.reps[0])
    lo = m.reps[0] % 13
    for i in range(m.n):
        v += posval(g, lo + i)
    return v


cdef int melds_equal(const TMeld* a, int ka, const TMeld* b, int kb) noexcept nogil:
    """LayDown.of(a) == LayDown.of(b): the same cards per meld and the same joker stand-ins."""
    cdef int i, j
    if ka != kb:
        return 0
    for i in range(ka):
        if a[i].n != b[i].n:
            return 0
        for j in range(a[i].n):
            if a[i].cards[j] != b[i].cards[j]:
                return 0
            if a[i].cards[j] == JOKER and a[i].reps[j] != b[i].reps[j]:
                return 0
    return 1


# --------------------------------------------------------------------------- go_out_melds
cdef enum:
    MAXW = 160          # melds holding one card (melds._melds_with)
    MAXGO = 40          # melds of one go-out collection


cdef inline void put_run(TMeld* m, int a, int b, int suit, int jp) noexcept nogil:
    cdef int q, n = 0
    m.kind = RUN
    m.owner = -1
    for q in range(a, b + 1):
        m.reps[n] = pcard(q, suit)
        m.cards[n] = JOKER if q == jp else m.reps[n]
        n += 1
    m.n = n


cdef inline void put_set(TMeld* m, const int* nat, int k, int nj) noexcept nogil:
    """melds._set_reading(nat, nj): the jokers take the missing suits S H D C."""
    cdef int i, s, suits = 0, rank = nat[0] % 13, r = 0
    m.kind = SET
    m.owner = -1
    for i in range(k):
        m.cards[i] = nat[i]
        m.reps[i] = nat[i]
        suits |= 1 << (nat[i] // 13)
    for s in range(4):
        if r < nj and not (suits >> s) & 1:
            m.cards[k + r] = JOKER
            m.reps[k + r] = s * 13 + rank
            r += 1
    m.n = k + nj


cdef int melds_with(const GRules* g, const int* cnt, int card, TMeld* out) noexcept nogil:
    """melds._melds_with(counts, rules, card): melds of 3..5 cards holding natural ``card``
    (at most one joker: the kernel's rules), in that function's order."""
    cdef int nj_have = cnt[JOKER] if cnt[JOKER] < g.mj else g.mj
    cdef int suit = card // 13, rank = card % 13, top = g.top
    cdef int a, length, b, q, nj, jp, ok, has, k = 0, c, ns, kk, i, jlo, jhi
    cdef int have[4]
    cdef int idx[4]
    cdef int nat[4]
    for a in range(0, top - 1):
        for length in range(3, 6):
            b = a + length - 1
            if b > top:
                break
            has = 0
            for q in range(a, b + 1):
                if pcard(q, suit) == card:
                    has = 1
            if not has:
                continue
            for nj in range((nj_have if nj_have < length - 1 else length - 1) + 1):
                # combinations(positions, nj): nj is 0 (no joker: jp = -1) or 1
                jlo = a if nj else -1
                jhi = b + 1 if nj else 0
                for jp in range(jlo, jhi):
                    has = 0
                    ok = 1
                    for q in range(a, b + 1):
                        if q == jp:
                            continue
                        c = pcard(q, suit)
                        if c == card:
                            has = 1
                        if cnt[c] < 1:
                            ok = 0
                    if not has or not ok:
                        continue
                    if k < MAXW:
                        put_run(&out[k], a, b, suit, jp)
                    k += 1
    ns = 0
    for i in range(4):
        if cnt[i * 13 + rank]:
            have[ns] = i
            ns += 1
    for kk in range(1, ns + 1):
        # combinations(have, kk) in lexicographic order
        for i in range(kk):
            idx[i] = i
        while True:
            has = 0
            for i in range(kk):
                nat[i] = have[idx[i]] * 13 + rank
                if nat[i] == card:
                    has = 1
            if has:
                for nj in range(nj_have + 1):
                    if 3 <= kk + nj <= 4:
                        if k < MAXW:
                            put_set(&out[k], nat, kk, nj)
                        k += 1
            i = kk - 1
            while i >= 0 and idx[i] == i + ns - kk:
                i -= 1
            if i < 0:
                break
            idx[i] += 1
            for q in range(i + 1, kk):
                idx[q] = idx[q - 1] + 1
    return k


cdef int cover(Game* G, int* cnt, int n, int leave, TMeld* out, int* nout) noexcept nogil:
    """melds._cover: the best exact cover of all but ``leave`` cards (value, melds in
    ``out``), -1 if none. The first strictly better collection is kept, as there."""
    cdef const GRules* g = G.g
    cdef int first = -1, c, best = -1, r, i, j, nw, tn = 0, v
    cdef TMeld cand[MAXW]
    cdef TMeld sub[MAXGO]
    nout[0] = 0
    if n == leave:
        return 0
    if n < leave:
        return -1
    for c in range(53):
        if cnt[c] > 0:
            first = c
            break
    if first == JOKER or first < 0:
        return -1
    if leave > 0:
        cnt[first] -= 1
        r = cover(G, cnt, n - 1, leave - 1, sub, &tn)
        cnt[first] += 1
        if r >= 0:
            best = r
            for i in range(tn):
                out[i] = sub[i]
            nout[0] = tn
    nw = melds_with(g, cnt, first, cand)
    if nw > MAXW:
        G.err = E_STATE
        return -1
    for i in range(nw):
        for j in range(cand[i].n):
            cnt[cand[i].cards[j]] -= 1
        r = cover(G, cnt, n - cand[i].n, leave, sub, &tn)
        for j in range(cand[i].n):
            cnt[cand[i].cards[j]] += 1
        if r < 0:
            continue
        v = r + meld_value(g, &cand[i])
        if best < 0 or v > best:
            if tn + 1 > MAXGO:
                G.err = E_STATE
                return -1
            best = v
            out[0] = cand[i]
            for j in range(tn):
                out[1 + j] = sub[j]
            nout[0] = tn + 1
    return best


cdef int join_runs(const GRules* g, TMeld* ms, int k) noexcept nogil:
    """melds._join_runs: adjacent pieces of one run joined (the joined meld goes last)."""
    cdef int changed = 1, i, j
    while changed:
        changed = 0
        for i in range(k):
            if ms[i].kind != RUN:
                continue
            for j in range(k):
                if i == j or ms[j].kind != RUN or ms[j].reps[0] // 13 != ms[i].reps[0] // 13:
                    continue
                if ms[j].reps[0] % 13 != ms[i].reps[0] % 13 + ms[i].n:
                    continue
                if meld_jokers(&ms[i]) + meld_jokers(&ms[j]) > g.mj:
                    continue
                if ms[i].n + ms[j].n > MAXMC:
                    continue
                k = join_pair(ms, k, i, j)
                changed = 1
                break
            if changed:
                break
    return k


cdef int go_out_melds(Game* G, const int* hand_cnt, int n, TMeld* ms) noexcept nogil:
    """melds.go_out_melds(hand): returns how many melds (-1: none)."""
    cdef int cnt[53]
    cdef int k = 0, r
    if n - 1 < 3 and n != 1:
        return -1
    memcpy(cnt, hand_cnt, sizeof(cnt))
    r = cover(G, cnt, n, 1, ms, &k)
    if r < 0:
        return -1
    return join_runs(G.g, ms, k)


cdef int finishable(Game* G, const int* rest, int n) noexcept nogil:
    """_MoveRules._finishable."""
    cdef TMeld ms[MAXGO]
    if n == 1:
        return 1
    if n < 4:
        return 0
    return go_out_melds(G, rest, n, ms) >= 0


cdef int can_lay(Game* G, const TMeld* ms, int k) noexcept nogil:
    """view.can_lay_down(LayDown.of(ms)) for melds read from this hand (each a valid meld
    within the joker limit): the card count, the opening's value, the taken card, the
    freed joker, the bottom card's commitment."""
    cdef int p = G.current
    cdef int used[53]
    cdef int i, j, nu = 0, value = 0, taken
    memset(used, 0, sizeof(used))
    for i in range(k):
        value += meld_value(G.g, &ms[i])
        for j in range(ms[i].n):
            used[ms[i].cards[j]] += 1
            nu += 1
    for i in range(53):
        if used[i] > G.cnt[p][i]:
            return 0
    if nu >= G.hn[p]:
        return 0
    if not G.opened[p]:
        if value < G.g.threshold:
            return 0
        taken = drawn_taken(G)
        if G.must_open and G.g.must_meld and taken >= 0 and used[taken] == 0:
            return 0
    if G.freed and used[JOKER] < 1:
        return 0
    if G.tbottom:
        for i in range(53):
            used[i] = G.cnt[p][i] - used[i]
        if not finishable(G, used, G.hn[p] - nu):
            return 0
    return 1


cdef int go_out_lay_down(Game* G, TMeld* ms) noexcept nogil:
    """bots._go_out_lay_down: the melds (their count, 0 if none) of a lay-down of all but
    one card when the hand can go out at once."""
    cdef uint8_t codes[MAXCODES]
    cdef int path[MAX_DEPTH]
    cdef int p = G.current, n, v, depth = 0, k, i, laid = 0
    if G.hn[p] < 4 or not ask(G, MODE_GO_OUT, 0, -1, -1, -1):
        return 0
    n = hand_codes(G, p, codes, -1, -1)
    v = qsolve(G, codes, n, MODE_BEST, 1, must_use(G), path, &depth)
    for i in range(depth):
        laid += G.g.cat_n[path[i]]
    if depth > 0 and v >= G.g.threshold and G.hn[p] - laid == 1:
        k = opening_melds(G, path, depth, ms)
    else:
        k = go_out_melds(G, G.cnt[p], G.hn[p], ms)
        if k < 0:
            return 0
    return k if can_lay(G, ms, k) else 0


cdef int discard_cands(const Game* G, int* out) noexcept nogil:
    """bots._discardable: the distinct cards the rules let the player discard, ascending."""
    cdef int c, k = 0, p = G.current
    if G.freed or (G.must_open and not G.opened[p]) or (G.tbottom and G.hn[p] > 1):
        return 0
    for c in range(53):
        if G.cnt[p][c] and may_discard(G, c):
            out[k] = c
            k += 1
    return k


cdef inline int feeds(const Game* G, int c) noexcept nogil:
    """TacticianBot._feeds."""
    cdef int nxt = (G.current + 1) % G.n
    return G.opened[nxt] and c != JOKER and fits_table(G, c)
