# _game_handhunter.pxi: the hand-hunter bot (HandHunterBot): its draw and its play.
#
# (Included by _game.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _game.pyx.)

# --------------------------------------------------------------------------- hand hunter
cdef void hh_draw(Game* G) noexcept nogil:
    """HandHunterBot._draw."""
    cdef int p = G.current, top
    if G.opened[p]:
        greedy_draw(G)
        return
    if can_take_bottom(G):
        do_draw(G, SRC_BOTTOM)
        return
    if G.pile_n > 0 and can_take_discard(G):
        top = G.pile[G.pile_n - 1]
        if ask(G, MODE_GO_OUT, 0, -1, top, -1):
            do_draw(G, SRC_DISCARD)
            return
        if free_round(G):
            if ask(G, MODE_BEST, 1, top, top, -1) > 0:
                do_draw(G, SRC_DISCARD)
                return
        elif ask(G, MODE_CAN_OPEN, 1, top, top, -1):
            do_draw(G, SRC_DISCARD)
            return
    do_draw(G, SRC_STOCK)


cdef int holding_allowed(const Game* G) noexcept nogil:
    cdef int p = G.current, q
    if G.turn // G.n >= G.max_round[p]:
        return 0
    for q in range(G.n):
        if q != p and G.hn[q] <= G.min_opp[p]:
            return 0
    return 1


cdef void hh_play(Game* G) noexcept nogil:
    """HandHunterBot._play (an opened player, or a freed joker, plays as greedy)."""
    cdef uint8_t codes[MAXCODES]
    cdef int path[MAX_DEPTH]
    cdef int cands[53]
    cdef int u[53]
    cdef TMeld ms[MAXGO]
    cdef Hand h, hx
    cdef int p = G.current, k, nc, n, v, depth = 0, i, c, x, hits, total, bc = -1, bh = 0
    cdef int bw = 0, w, m
    cdef double prob = 0.0
    if G.opened[p] or G.freed:
        greedy_play(G)
        return
    k = go_out_lay_down(G, ms)
    if k:
        lay_melds(G, ms, k)
        return
    nc = discard_cands(G, cands)
    n = hand_codes(G, p, codes, -1, -1)
    v = qsolve(G, codes, n, MODE_BEST, 1, must_use(G), path, &depth)
    if depth > 0 and v >= G.g.threshold:
        if G.must_open or not holding_allowed(G) or nc == 0:
            lay_melds(G, ms, opening_melds(G, path, depth, ms))
            return
        total = unseen_counts(G, u)
        for i in range(nc):
            c = cands[i]
            if c == JOKER:
                continue
            hits = 0
            if total:
                hand_of(G, p, c, &h)
                for x in range(53):
                    if u[x]:
                        if hand_plus(&h, x, &hx) == 0 and hsolve(G, &hx, MODE_GO_OUT, 0):
                            hits += u[x]
            w = cval(G.g, c)
            if bc < 0 or hits > bh or (hits == bh and w > bw):
                bc = c
                bh = hits
                bw = w
        if bc < 0:
            bc = cands[0]
            prob = 0.0
        else:
            prob = (<double>bh) / total if total else 0.0
        if prob >= G.p_hold[p]:
            do_discard(G, bc)
        else:
            lay_melds(G, ms, opening_melds(G, path, depth, ms))
        return
    if nc == 0:
        G.err = E_STATE
        return
    c = greedy_discard(G, 1)
    do_discard(G, c)
