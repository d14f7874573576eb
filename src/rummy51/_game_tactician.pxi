# _game_tactician.pxi: the tactician bot (TacticianBot): its draw and its discard.
#
# (Included by _game.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _game.pyx.)

# --------------------------------------------------------------------------- tactician
cdef void near_add(const GRules* g, int y, int d, int* near) noexcept nogil:
    """Add ``d`` to ``near[x]`` for each card x a natural y could share a meld with: its
    rank in another suit, its suit one or two run positions away."""
    cdef int s = y // 13, r = y % 13, q, dd, np_, i
    cdef int pos[2]
    for q in range(4):
        if q != s:
            near[q * 13 + r] += d
    np_ = positions_of(g, y, pos)
    for i in range(np_):
        for dd in range(-2, 3):
            if dd != 0 and 0 <= pos[i] + dd <= g.top:
                near[pcard(pos[i] + dd, s)] += d


cdef void near_cards(const Game* G, int p, int* near) noexcept nogil:
    """``near[x] > 0``: card x could lie in a meld with player p's cards (a joker always
    could). With at most one joker a meld, a natural x in a meld has another natural of
    its rank in another suit, or of its suit one or two run positions away; any other x
    lies in no meld, so adding it changes no opening. (Counts: ``near_add(c, -1)``
    takes one copy of c out.)"""
    cdef int y
    memset(near, 0, 53 * sizeof(int))
    near[JOKER] = 1
    for y in range(52):
        if G.cnt[p][y]:
            near_add(G.g, y, G.cnt[p][y], near)


cdef inline void hand_minus(Hand* h, int c) noexcept nogil:
    """Take one copy of ``c`` (held) out of ``h``."""
    cdef uint64_t bit
    h.n -= 1
    if c == JOKER:
        h.jokers -= 1
        return
    bit = (<uint64_t>1) << ((c // 13) * 16 + c % 13)
    if h.twice & bit:
        h.twice &= ~bit
    else:
        h.once &= ~bit


cdef void tact_draw(Game* G) noexcept nogil:
    """TacticianBot._draw."""
    cdef int p = G.current, top, gain
    if G.opened[p]:
        greedy_draw(G)
        return
    if can_take_bottom(G):
        do_draw(G, SRC_BOTTOM)
        return
    if G.pile_n > 0 and can_take_discard(G):
        top = G.pile[G.pile_n - 1]
        if (ask(G, MODE_GO_OUT, 0, -1, top, -1)
                or ask(G, MODE_CAN_OPEN, 1, top, top, -1)):
            do_draw(G, SRC_DISCARD)
            return
        if free_round(G):
            gain = (ask(G, MODE_BEST, 1, top, top, -1) - ask(G, MODE_BEST, 0, -1, -1, -1))
            if gain >= G.take_gain[p]:
                do_draw(G, SRC_DISCARD)
                return
    do_draw(G, SRC_STOCK)


cdef enum:
    # bit planes (_core.pxd: bit 16 * suit + rank index)
    PLANE_SPAN = 16


cdef inline uint64_t run_lanes(uint64_t once, int ace_high) noexcept nogil:
    """``once`` with each ace also at run position 13 (when aces are high), shifted up
    two so positions -2 and -1 read as bits too."""
    cdef uint64_t aces = (<uint64_t>1) | ((<uint64_t>1) << 16) | ((<uint64_t>1) << 32) \
        | ((<uint64_t>1) << 48)
    cdef uint64_t L = once
    if ace_high:
        L |= (once & aces) << 13
    return L << 2


cdef inline int lane_bit(uint64_t L, int b) noexcept nogil:
    return b <= 63 and (L >> b) & 1


cdef inline int melds_with_two(const Hand* h, uint64_t L, int x, int ace_high) noexcept nogil:
    """A natural x makes a meld of three naturals with two cards of ``h`` (``L`` its
    run_lanes): two others of its rank in other suits, or two of its suit next to it in a
    run. For a jokerless h, an x that does not lies in no meld of h + x, so adding it
    leaves h's answer as it was."""
    cdef int s = x // 13, r = x % 13, k = 0, q, P, b, i, n = 1
    cdef int pos[2]
    for q in range(4):
        if q != s and (h.once >> (q * PLANE_SPAN + r)) & 1:
            k += 1
    if k >= 2:
        return 1
    pos[0] = r
    if r == 0 and ace_high:
        pos[1] = 13
        n = 2
    for i in range(n):
        P = pos[i]
        b = s * PLANE_SPAN + P + 2
        if lane_bit(L, b - 1) and (lane_bit(L, b - 2) or lane_bit(L, b + 1)):
            return 1
        if lane_bit(L, b + 1) and lane_bit(L, b + 2):
            return 1
    return 0


cdef enum:
    NO_VALUE = -1000000         # tact_discard: a rest's value not asked yet


cdef inline int tact_beats(int v, int w, int c, int bv, int bw, int bc) noexcept nogil:
    """The tactician's tie-break at equal outs: higher value kept, then the dearer card,
    then the higher code."""
    return v > bv or (v == bv and (w > bw or (w == bw and c > bc)))


cdef enum:
    NO_OPENING = 127            # FullOpen.usedj: no opening known for hand + x


cdef struct FullOpen:
    # tact_discard's questions of the whole hand plus one card x (see full_open)
    int8_t asked[53]            # -1 not asked yet, else whether hand + x opens (keep 2)
    uint64_t used1[53]          # an opening found: the naturals it uses once or more
    uint64_t used2[53]          # ... twice
    int8_t usedj[53]            # ... the jokers it uses


cdef int full_open(Game* G, const Hand* hfull, int x, FullOpen* F) noexcept nogil:
    """Whether the whole hand plus ``x`` opens keeping two cards, and the cards of an
    opening it found (``F``). A rest (the hand less one card) plus x that opens keeping
    one card uses cards of the hand plus x and leaves two of them, so when this is false
    no rest opens with x: one question a card instead of one a card and candidate."""
    cdef Hand hx
    cdef int path[MAX_DEPTH]
    cdef int depth = 0, i, r, id_
    cdef uint64_t m
    if F.asked[x] >= 0:
        return F.asked[x]
    F.used1[x] = 0
    F.used2[x] = 0
    F.usedj[x] = NO_OPENING     # every rest is asked on its own
    if hand_plus(hfull, x, &hx) != 0:
        # a third copy cannot join the whole hand, but may join a rest without one
        F.asked[x] = 1
        return 1
    # (the path only serves spared(), which a jokerless hand never asks of a joker: the
    # solver's joker shortcuts need no path)
    r = solve(G.sr, &hx, MODE_CAN_OPEN, 2, -1,
              NULL if x == JOKER and hfull.jokers == 0 else path, &depth)
    if r < 0:
        G.err = E_SOLVER
        r = 0
    F.asked[x] = <int8_t>(r != 0)
    if r and depth > 0:
        F.usedj[x] = 0
        for i in range(depth):
            id_ = path[i]
            m = G.sr.mask[id_]
            F.used2[x] |= F.used1[x] & m
            F.used1[x] |= m
            F.usedj[x] += G.sr.njokers[id_]
    return F.asked[x]


cdef inline int spared(const Game* G, const Hand* hfull, int c, int x,
                       const FullOpen* F) noexcept nogil:
    """The opening full_open found for hand + x leaves a copy of ``c`` out: the rest
    without c plus x holds it too (keeping one card), so it opens with no question."""
    cdef uint64_t bit
    cdef int have, used
    if F.usedj[x] == NO_OPENING:
        return 0
    if c == JOKER:
        return hfull.jokers + (x == JOKER) - F.usedj[x] >= 1
    bit = (<uint64_t>1) << ((c // 13) * 16 + c % 13)
    have = G.cnt[G.current][c] + (x == c)
    used = ((F.used1[x] & bit) != 0) + ((F.used2[x] & bit) != 0)
    return have - used >= 1


cdef int tact_discard(Game* G) noexcept nogil:
    """TacticianBot._discard.

    Unopened, the bot keeps the rest with the most outs (unseen cards that would let it
    open), then the higher value. Counting outs naively is one solve per candidate and
    unseen card; here it is one per unseen card x (does the whole hand plus x open,
    keeping two? see full_open), whose opening proves x an out of every rest it spares,
    plus one per candidate and card for the few rests that lose a card of it. The
    candidates go in order of an upper bound on their outs and a candidate stops being
    counted once it cannot reach the best so far: the same discard as counting every one,
    since the order (outs, value, card value, code) is total."""
    cdef int cands[53]
    cdef int u[53]
    cdef int near[53]
    cdef int vs[53]
    cdef int lo[53]
    cdef int hi[53]
    cdef uint64_t pend[53]
    cdef int opens[53]
    cdef int order[53]
    cdef FullOpen F
    cdef Hand h, hx, hfull
    cdef uint64_t L, Lf
    cdef int p = G.current, nc, k = 0, i, j, c, x, total, outs, v, w, need, left
    cdef int bc = -1, bo = 0, bv = 0, bw = 0, any_open, jo
    nc = discard_cands(G, cands)
    for i in range(nc):
        if cands[i] != JOKER:
            cands[k] = cands[i]
            k += 1
    if k:
        nc = k
    if nc == 0:
        return -1
    if not G.opened[p]:
        total = unseen_counts(G, u)
        near_cards(G, p, near)
        hand_of(G, p, -1, &hfull)
        memset(F.asked, -1, sizeof(F.asked))
        # a rest that opens (keeping none) is an opening of the whole hand keeping one
        any_open = hsolve(G, &hfull, MODE_CAN_OPEN, 1)
        for i in range(nc):
            h = hfull
            hand_minus(&h, cands[i])
            vs[i] = NO_VALUE
            opens[i] = any_open and hsolve(G, &h, MODE_CAN_OPEN, 0)
            lo[i] = total if opens[i] else 0
            hi[i] = lo[i]
            pend[i] = 0
        # pass 1, card by card: an unseen x near the hand (else it lies in no meld with
        # it) with which the whole hand opens (full_open) is an out of every rest that
        # the opening found spares (lo), and may be one of the others (pend, hi); with
        # no such opening, x is an out of no rest
        Lf = run_lanes(hfull.once, G.g.ace_high)
        for x in range(53):
            if not u[x] or near[x] <= 0:
                continue
            if (hfull.jokers == 0 and x != JOKER and not any_open
                    and not melds_with_two(&hfull, Lf, x, G.g.ace_high)):
                continue        # in no meld of hand + x, and the hand does not open
            if not full_open(G, &hfull, x, &F):
                continue
            for i in range(nc):
                if opens[i]:
                    continue
                hi[i] += u[x]
                if spared(G, &hfull, cands[i], x, &F):
                    lo[i] += u[x]
                else:
                    pend[i] |= (<uint64_t>1) << x
        # the candidates by bound, highest first (insertion sort: a hand's few cards)
        for i in range(nc):
            j = i
            while j > 0 and hi[order[j - 1]] < hi[i]:
                order[j] = order[j - 1]
                j -= 1
            order[j] = i
        # pass 2: exact outs (the pending cards asked one by one) where they can still
        # reach the best so far; the rest's value (the tie-break) only for those that do
        for j in range(nc):
            i = order[j]
            c = cands[i]
            w = cval(G.g, c)
            need = 0 if bc < 0 else bo
            if hi[i] < need:
                continue
            h = hfull
            hand_minus(&h, c)
            outs = lo[i]
            if pend[i]:
                left = hi[i] - lo[i]
                # a jokerless rest: a joker does all any card x does there (it stands for
                # x in x's meld, worth as much), so if the rest cannot open with a joker
                # it cannot with any card (asked only while no out is proved: an out
                # proves the rest opens with a joker too)
                jo = -1
                if outs == 0 and h.jokers == 0 and G.g.mj >= 1:
                    hand_plus(&h, JOKER, &hx)
                    jo = hsolve(G, &hx, MODE_CAN_OPEN, 1)
                    if not jo:
                        left = 0
                        pend[i] = 0
                L = run_lanes(h.once, G.g.ace_high)
                for x in range(53):
                    if not (pend[i] >> x) & 1:
                        continue
                    left -= u[x]
                    if h.jokers == 0 and x != JOKER and not melds_with_two(&h, L, x,
                                                                           G.g.ace_high):
                        pass        # in no meld of rest + x: the rest (no opening) cannot
                    elif x == JOKER and jo >= 0:
                        outs += u[x]    # the joker test above found the rest + joker opens
                    elif hand_plus(&h, x, &hx) == 0 and hsolve(G, &hx, MODE_CAN_OPEN, 1):
                        outs += u[x]
                    if outs + left < need:
                        break
                if outs + left < need:
                    continue
            if vs[i] == NO_VALUE:
                vs[i] = hsolve(G, &h, MODE_BEST, 0) - (G.feed_pen[p] if feeds(G, c) else 0)
            v = vs[i]
            if bc < 0 or outs > bo or tact_beats(v, w, c, bv, bw, bc):
                bc = c
                bo = outs
                bv = v
                bw = w
        return bc
    for i in range(nc):
        c = cands[i]
        v = ask(G, MODE_DEADWOOD, 0, -1, -1, c)
        if feeds(G, c):
            v += G.feed_pen[p]
        w = cval(G.g, c)
        if bc < 0 or v < bv or (v == bv and (w > bw or (w == bw and c > bc))):
            bc = c
            bv = v
            bw = w
    return bc
