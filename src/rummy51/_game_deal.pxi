# _game_deal.pxi: the deal: small helpers, the deck's randomness, the deal's course.
#
# Card values, hand helpers and the solver calls (qsolve, hsolve), numpy's shuffle
# on the deal's bit generator (the same permutation as Generator.permutation), and
# the deal itself: a new deal, the turns, an empty stock reshuffled, the end and
# its scores, the free round.
#
# (Included by _game.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _game.pyx.)

# --------------------------------------------------------------------------- small helpers
cdef inline int cval(const GRules* g, int c) noexcept nogil:
    """rummy51.melds.card_value: a card left in hand, or a set member."""
    cdef int r
    if c == JOKER:
        return g.joker_penalty
    r = c % 13
    if r == 0:
        return g.ace_value
    return r + 1 if r < 9 else 10


cdef inline int posval(const GRules* g, int pos) noexcept nogil:
    """rummy51.melds.position_value."""
    if pos == 0:
        return g.ace_low_value
    if pos == 13:
        return g.ace_value
    return pos + 1 if pos < 9 else 10


cdef inline int pcard(int pos, int suit) noexcept nogil:
    """rummy51.melds.position_card."""
    return suit * 13 + (0 if pos == 13 else pos)


cdef inline void logv(Game* G, int v) noexcept nogil:
    if G.log != NULL:
        if G.log_n < G.log_cap:
            G.log[G.log_n] = v
        G.log_n += 1     # an overflow is seen by the caller (log_n > cap)


cdef inline int meld_jokers(const TMeld* m) noexcept nogil:
    cdef int i, k = 0
    for i in range(m.n):
        if m.cards[i] == JOKER:
            k += 1
    return k


cdef int hand_codes(const Game* G, int p, uint8_t* out, int extra, int minus) noexcept nogil:
    """Player p's cards, ascending, less one copy of ``minus`` (if >= 0), plus ``extra``
    (if >= 0) at the end. Returns the count."""
    cdef int c, m, k = 0, i
    for c in range(53):
        m = G.cnt[p][c]
        if c == minus:
            m -= 1
        for i in range(m):
            out[k] = <uint8_t>c
            k += 1
    if extra >= 0:
        out[k] = <uint8_t>extra
        k += 1
    return k


cdef int qsolve(Game* G, const uint8_t* codes, int n, int mode, int keep, int must,
                int* path, int* depth) noexcept nogil:
    """One solver question (as rummy51.solver asks it)."""
    cdef Hand h
    cdef int r
    if depth != NULL:
        depth[0] = 0
    if parse_hand(G.sr, codes, n, &h) != 0:
        G.err = E_SOLVER
        return 0
    r = solve(G.sr, &h, mode, keep, must, path, depth)
    if r < 0:
        G.err = E_SOLVER
        return 0
    return r


cdef inline void hand_of(const Game* G, int p, int minus, Hand* h) noexcept nogil:
    """Player p's hand less one ``minus`` (if >= 0) in the solver's bit planes (the
    layout of _core.pxd: bit 16 * suit + rank index), as parse_hand builds it."""
    cdef int c, m
    cdef uint64_t bit
    h.once = 0
    h.twice = 0
    h.jokers = G.cnt[p][JOKER] - (1 if minus == JOKER else 0)
    h.n = h.jokers
    for c in range(52):
        m = G.cnt[p][c] - (1 if c == minus else 0)
        if m > 0:
            bit = (<uint64_t>1) << ((c // 13) * 16 + c % 13)
            h.once |= bit
            if m > 1:
                h.twice |= bit
            h.n += m


cdef inline int hand_plus(const Hand* h, int c, Hand* out) noexcept nogil:
    """``h`` plus card ``c``; 0, or 1 if the deck cannot hold it (a third copy)."""
    cdef uint64_t bit
    out[0] = h[0]
    out.n += 1
    if c == JOKER:
        out.jokers += 1
        return 0
    bit = (<uint64_t>1) << ((c // 13) * 16 + c % 13)
    if out.once & bit:
        if out.twice & bit:
            return 1
        out.twice |= bit
    else:
        out.once |= bit
    return 0


cdef inline int hsolve(Game* G, const Hand* h, int mode, int keep) noexcept nogil:
    """qsolve of a hand already in bit planes (no must-use card, no path)."""
    cdef int r = solve(G.sr, h, mode, keep, -1, NULL, NULL)
    if r < 0:
        G.err = E_SOLVER
        return 0
    return r


# --------------------------------------------------------------------------- randomness
cdef inline uint64_t random_interval(bitgen_t* bg, uint64_t mx) noexcept nogil:
    """numpy's random_interval: uniform in [0, mx] by masked rejection."""
    cdef uint64_t mask, value
    if mx == 0:
        return 0
    mask = mx
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> 4
    mask |= mask >> 8
    mask |= mask >> 16
    mask |= mask >> 32
    if mx <= 0xffffffffUL:
        while True:
            value = bg.next_uint32(bg.state) & mask
            if value <= mx:
                return value
    while True:
        value = bg.next_uint64(bg.state) & mask
        if value <= mx:
            return value


cdef void np_shuffle(bitgen_t* bg, int* a, int n) noexcept nogil:
    """numpy Generator.shuffle of a 1-D array (so ``permutation`` gives the same order)."""
    cdef int i, j, t
    for i in range(n - 1, 0, -1):
        j = <int>random_interval(bg, <uint64_t>i)
        t = a[i]
        a[i] = a[j]
        a[j] = t


# --------------------------------------------------------------------------- the deal
cdef inline void start_turn(Game* G) noexcept nogil:
    """A fresh TurnInfo for the player on turn."""
    G.src = SRC_NONE
    G.drawn = -1
    G.must_open = 0
    G.tbottom = 0
    G.freed = 0
    G.touched = 0
    G.opened_at_start = G.opened[G.current]


cdef void new_deal(Game* G, int first) noexcept nogil:
    """GameState.new + _deal."""
    cdef const GRules* g = G.g
    cdef int order[MAXDECK]
    cdef int i, k, seat, size, pos = 0, rn
    for i in range(g.deck_n):
        order[i] = g.deck[i]
    np_shuffle(G.bg, order, g.deck_n)
    memset(G.cnt, 0, sizeof(G.cnt))
    for i in range(G.n):
        seat = (first + i) % G.n
        size = g.hand_size + (1 if i == 0 else 0)
        for k in range(size):
            G.cnt[seat][order[pos + k]] += 1
        G.hn[seat] = size
        pos += size
    rn = g.deck_n - pos
    if g.bottom_card:
        G.bottom = order[g.deck_n - 1]
        rn -= 1
    else:
        G.bottom = -1
    for k in range(rn):
        G.stock[k] = order[pos + rn - 1 - k]      # the top (order[pos]) last
    G.stock_n = rn
    G.pile_n = 0
    G.table_n = 0
    for i in range(G.n):
        G.opened[i] = 0
        G.turn_opened[i] = -1
        G.scores[i] = 0
    G.current = first
    G.phase = PH_PLAY
    G.turn = 0
    start_turn(G)
    G.winner = -1
    G.how = -1
    G.length = 0
    G.err = 0


cdef int hand_points(const Game* G, int p) noexcept nogil:
    cdef int c, s = 0
    if not G.opened[p]:
        return G.g.score_unopened
    for c in range(53):
        s += G.cnt[p][c] * cval(G.g, c)
    return s


cdef void end_deal(Game* G, int winner, int how) noexcept nogil:
    """GameState._end / _scores."""
    cdef const GRules* g = G.g
    cdef int p, base, mult
    G.phase = PH_OVER
    G.winner = winner
    G.how = how
    # turns played: up to the last move's turn (an empty stock ends the deal at the
    # start of a turn nobody played)
    G.length = G.turn + (0 if how == END_STOCK_OUT else 1)
    for p in range(G.n):
        if winner < 0:
            G.scores[p] = 0 if g.draw_zero else hand_points(G, p)
        else:
            base = g.score_out if how == END_OUT else (g.score_hand if how == END_HAND
                                                       else g.score_hand_bottom)
            mult = 2 if (how != END_OUT and g.hand_doubles) else 1
            G.scores[p] = base if p == winner else mult * hand_points(G, p)


cdef void next_turn(Game* G) noexcept nogil:
    """GameState._next_turn / _refill_stock."""
    cdef int order[MAXDECK]
    cdef int m, k
    if G.turn + 1 >= G.g.max_turns:
        end_deal(G, -1, END_CAPPED)
        return
    G.turn += 1
    G.current = (G.current + 1) % G.n
    G.phase = PH_DRAW
    start_turn(G)
    if G.stock_n == 0:
        if not G.g.reshuffle or G.pile_n < 2:
            end_deal(G, -1, END_STOCK_OUT)
            return
        m = G.pile_n - 1
        for k in range(m):
            order[k] = G.pile[k]
        np_shuffle(G.bg, order, m)
        G.pile[0] = G.pile[G.pile_n - 1]
        G.pile_n = 1
        for k in range(m):
            G.stock[k] = order[m - 1 - k]
        G.stock_n = m


cdef inline int free_round(const Game* G) noexcept nogil:
    return G.turn // G.n < G.g.free_rounds
