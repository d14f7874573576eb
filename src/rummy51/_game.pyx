# cython: language_level=3
"""rummy51 game kernel: whole deals of four (or 2..8) greedy bots in C.

Private module: the public road is ``rummy51.fastgame`` (and ``simulate_games``,
which takes it when every seat is ``"greedy"``).

This is the Python engine (``rummy51.engine``) and ``GreedyBot`` (``rummy51.bots``)
written again over plain C data, move for move: the same shuffle (numpy's
``Generator.permutation`` algorithm on the same bit generator), the same solver
calls (``_core.solve``), the same table-meld model (``rummy51.melds``: a meld keeps
its cards and the card each slot stands for), the same tie-breaks. Tests replay
the kernel's action log through the Python engine (every move legal, same result)
and compare it with ``GreedyBot``'s moves, deal for deal.

State: a hand is a count per card code (0..52), the stock and the discard pile are
arrays (top last), the table is an array of melds. The only randomness is the
deck's shuffle and the reshuffles of an empty stock, both from one bit generator.

Supported rules: everything in ``RuleSet`` except ``max_jokers_per_meld=2`` (the
freed-joker meld search assumes at most one joker per meld); ``fastgame.supported``
says so and the callers fall back to the Python engine.
"""
from libc.stdint cimport uint8_t, int32_t, uint32_t, uint64_t
from libc.string cimport memset, memcpy

from numpy.random cimport bitgen_t

from rummy51._core cimport (Rules, Hand, parse_hand, solve, core_rules_of, _bitgen_of,
                            MODE_BEST, MODE_CAN_OPEN, MODE_DEADWOOD, MAX_DEPTH)

import numpy as np

cdef enum:
    JOKER = 52
    MAXP = 8            # players
    MAXT = 64           # melds on the table (108 cards / 3 = 36)
    MAXMC = 16          # cards in one table meld (A..A is 14)
    MAXDECK = 128
    MAXCODES = 130      # a hand's codes plus one

cdef enum:
    RUN = 0
    SET = 1

cdef enum:
    PH_DRAW = 0
    PH_PLAY = 1
    PH_OVER = 2

cdef enum:
    SRC_NONE = -1
    SRC_STOCK = 0
    SRC_DISCARD = 1
    SRC_BOTTOM = 2

cdef enum:
    # how a deal ends: the order of rummy51.games.ENDS
    END_OUT = 0
    END_HAND = 1
    END_HAND_BOTTOM = 2
    END_CAPPED = 3
    END_STOCK_OUT = 4

cdef enum:
    # action log codes (see _decode in rummy51.fastgame)
    A_DRAW = 0
    A_LAY_DOWN = 1
    A_LAY_OFF = 2
    A_SWAP = 3
    A_DISCARD = 4

cdef enum:
    # errors
    E_SOLVER = 1
    E_STEPS = 2
    E_STATE = 3

cdef enum:
    MAX_TURN_STEPS = 1000   # moves in one turn (a hand holds at most 108 cards)


ctypedef struct TMeld:
    int kind            # RUN or SET
    int owner
    int n
    int cards[MAXMC]    # in slot order (a run from its low end), 52 = joker
    int reps[MAXMC]     # the card each slot stands for


ctypedef struct GRules:
    int threshold, mj, ace_high, top
    int ace_value, ace_low_value, joker_penalty
    int hand_size, bottom_card, reshuffle, must_meld, free_rounds, taken_ok, max_turns
    int score_out, score_hand, score_hand_bottom, score_unopened, hand_doubles, draw_zero
    int deck_n
    const uint8_t* deck
    const uint8_t* cat_kind     # catalogue: 1 run, 0 set
    const uint8_t* cat_n
    const uint8_t* cat_laid     # [id * 5 + slot]
    const uint8_t* cat_reps


ctypedef struct Game:
    const Rules* sr
    const GRules* g
    bitgen_t* bg
    int n
    int cnt[MAXP][53]
    int hn[MAXP]
    int stock[MAXDECK]
    int stock_n
    int pile[MAXDECK]
    int pile_n
    int bottom
    TMeld table[MAXT]
    int table_n
    int opened[MAXP]
    int turn, current, phase
    # this turn (engine.TurnInfo)
    int src, drawn, must_open, tbottom, freed, touched, opened_at_start
    # the end
    int winner, how, length
    int scores[MAXP]
    int turn_opened[MAXP]
    int err
    int32_t* log
    Py_ssize_t log_n, log_cap


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
    G.freed = 1
    if G.table[i].owner != p:
        G.touched = 1
    logv(G, A_SWAP)
    logv(G, c)
    logv(G, i)


cdef void do_discard(Game* G, int c) noexcept nogil:
    cdef int p = G.current
    G.cnt[p][c] -= 1
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


cdef int opening_melds(Game* G, const int* path, int depth, TMeld* ms) noexcept nogil:
    """rummy51.solver._build_opening's melds: the catalogue melds of ``path``, split runs
    joined again (_merge_runs), sorted by _meld_key. Returns how many."""
    cdef const GRules* g = G.g
    cdef int i, j, k = depth, ia, ib, merged, a_end, suit, id_, t
    cdef TMeld joined, tmp
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
                joined = ms[ia]
                for j in range(ms[ib].n):
                    joined.cards[joined.n + j] = ms[ib].cards[j]
                    joined.reps[joined.n + j] = ms[ib].reps[j]
                joined.n += ms[ib].n
                t = 0
                for j in range(k):
                    if j != ia and j != ib:
                        if t != j:
                            ms[t] = ms[j]
                        t += 1
                ms[t] = joined
                k = t + 1
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
    cdef int k = 0, c, i, j, a, b, na, nb, x, y, lo, hi, wa, wb, n, q, suit
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
                        lo = pa[x] if pa[x] < pb[y] else pb[y]
                        hi = pa[x] + pb[y] - lo
                        if hi - lo == 2:
                            wa = lo
                            wb = hi
                        elif hi - lo == 1:
                            if hi + 1 <= g.top:
                                wa = lo
                                wb = hi + 1
                            else:
                                wa = lo - 1
                                wb = hi
                        else:
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


cdef int greedy_discard(Game* G) noexcept nogil:
    """GreedyBot's discard, the largest of (not a joker, score, value, code) where the score
    is, before opening, the best value left (keep-best: ``best_opening(hand - c, keep=0)``)
    and, after opening, minus the deadwood left (``min_deadwood(hand - c, keep=0)``)."""
    cdef uint8_t codes[MAXCODES]
    cdef int p = G.current, c, n, v, bc = -1, bj = 0, bv = 0, bw = 0, nj, w
    cdef int opened = G.opened[p]
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
        c = greedy_discard(G)
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
    c = greedy_discard(G)
    if c < 0:
        G.err = E_STATE
        return
    do_discard(G, c)


cdef void play(Game* G) noexcept nogil:
    cdef int steps = 0, turn = 0
    while G.phase != PH_OVER and not G.err:
        if G.phase == PH_DRAW:
            greedy_draw(G)
        else:
            greedy_play(G)
        if G.turn != turn:
            turn = G.turn
            steps = 0
        steps += 1
        if steps > MAX_TURN_STEPS:     # a turn is a draw, a move per card, a discard
            G.err = E_STEPS


# --------------------------------------------------------------------------- Python
cdef class GreedyKernel:
    """A RuleSet compiled for the game kernel (built by ``rummy51.fastgame``)."""
    cdef GRules g
    cdef object core
    cdef object _keep

    def __init__(self, rules, core, catalogue):
        if rules.max_jokers_per_meld > 1:
            raise ValueError("the game kernel plays max_jokers_per_meld 0 or 1 only")
        core_rules_of(core)
        self.core = core
        g = &self.g
        g.threshold = rules.threshold
        g.mj = rules.max_jokers_per_meld
        g.ace_high = 1 if rules.ace_high else 0
        g.top = 13 if rules.ace_high else 12
        g.ace_value = rules.ace_value
        g.ace_low_value = rules.ace_low_value
        g.joker_penalty = rules.joker_penalty
        g.hand_size = rules.hand_size
        g.bottom_card = 1 if rules.bottom_card else 0
        g.reshuffle = 1 if rules.reshuffle_stock else 0
        g.must_meld = 1 if rules.discard_card_must_meld else 0
        g.free_rounds = rules.free_discard_rounds
        g.taken_ok = 1 if rules.discard_taken_card else 0
        g.max_turns = rules.max_turns
        g.score_out = rules.score_out
        g.score_hand = rules.score_hand
        g.score_hand_bottom = rules.score_hand_bottom
        g.score_unopened = rules.score_unopened
        g.hand_doubles = 1 if rules.hand_doubles else 0
        g.draw_zero = 1 if rules.draw_scoring == "zero" else 0
        deck = np.ascontiguousarray(core.deck, dtype=np.uint8)
        if deck.shape[0] > MAXDECK:
            raise ValueError(f"a deck of {deck.shape[0]} cards is more than the kernel's {MAXDECK}")
        kind = np.ascontiguousarray(catalogue.kind, dtype=np.uint8)
        ncards = np.ascontiguousarray(catalogue.ncards, dtype=np.uint8)
        laid = np.ascontiguousarray(catalogue.laid, dtype=np.uint8)
        reps = np.ascontiguousarray(catalogue.represents, dtype=np.uint8)
        if laid.ndim != 2 or laid.shape[1] != 5 or reps.shape[1] != 5:
            raise ValueError("malformed meld catalogue")
        self._keep = (deck, kind, ncards, laid, reps)
        cdef const uint8_t[::1] d = deck
        cdef const uint8_t[::1] k = kind
        cdef const uint8_t[::1] nc = ncards
        cdef const uint8_t[:, ::1] la = laid
        cdef const uint8_t[:, ::1] re = reps
        g.deck_n = <int>d.shape[0]
        g.deck = &d[0]
        g.cat_kind = &k[0]
        g.cat_n = &nc[0]
        g.cat_laid = &la[0, 0]
        g.cat_reps = &re[0, 0]


_ERRORS = {E_SOLVER: "the solver refused a hand", E_STEPS: "a turn did not end",
           E_STATE: "the kernel reached a state it cannot play"}


def play_greedy(GreedyKernel k, rng, int players, int first, int32_t[::1] log=None):
    """Play one deal of ``players`` greedy bots; ``first`` is the first player. The deck is
    shuffled with ``rng`` (a numpy Generator) as ``GameState.new(seed=rng)`` would.

    Returns ``(winner, how, length, scores, opened, turn_opened, log_n)``: ``how`` indexes
    ``rummy51.games.ENDS``; ``log_n`` is the length of the action log written to ``log``
    (when given; more than ``len(log)`` means it did not fit)."""
    cdef Game G
    cdef int i
    if players < 2 or players > MAXP:
        raise ValueError(f"players must be 2..{MAXP}, got {players}")
    if not 0 <= first < players:
        raise ValueError(f"first must be a seat 0..{players - 1}, got {first}")
    if players * k.g.hand_size + 2 + k.g.bottom_card > k.g.deck_n:
        raise ValueError(f"{players} players do not fit a deck of {k.g.deck_n} cards")
    G.sr = core_rules_of(k.core)
    G.g = &k.g
    G.n = players
    G.log = NULL
    G.log_n = 0
    G.log_cap = 0
    if log is not None and log.shape[0] > 0:
        G.log = &log[0]
        G.log_cap = log.shape[0]
    bitgen = rng.bit_generator
    G.bg = _bitgen_of(bitgen)
    with bitgen.lock, nogil:
        new_deal(&G, first)
        play(&G)
    if G.err:
        raise RuntimeError(f"game kernel: {_ERRORS.get(G.err, G.err)} (turn {G.turn}, "
                           f"player {G.current})")
    return (G.winner, G.how, G.length, [G.scores[i] for i in range(players)],
            [bool(G.opened[i]) for i in range(players)],
            [G.turn_opened[i] for i in range(players)], G.log_n)
