# cython: language_level=3
"""rummy51 game kernel: whole deals of 2..8 built-in bots (random, greedy, hand-hunter,
tactician) in C.

Private module: the public road is ``rummy51.fastgame`` (and ``simulate_games``,
which takes it when every seat is a built-in bot).

This is the Python engine (``rummy51.engine``) and the bots of ``rummy51.bots``
(``GreedyBot`` first; ``HandHunterBot``, ``TacticianBot`` and ``RandomBot``, whose
``legal_actions()`` list and ``integers`` draws are mirrored, since issue 13)
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
from libc.stdint cimport int8_t, uint8_t, int32_t, uint32_t, uint64_t
from libc.string cimport memset, memcpy
from cpython.mem cimport PyMem_Malloc, PyMem_Free

from numpy.random cimport bitgen_t

from rummy51._core cimport (Rules, Hand, parse_hand, solve, core_rules_of, _bitgen_of,
                            MODE_BEST, MODE_CAN_OPEN, MODE_GO_OUT, MODE_DEADWOOD, MAX_DEPTH)

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

cdef enum:
    # the bots (rummy51.bots), by the code fastgame.BOT_CODES gives them
    B_RANDOM = 0
    B_GREEDY = 1
    B_HAND_HUNTER = 2
    B_TACTICIAN = 3


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
    int deckcnt[53]     # copies of each code in the deck
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
    # the seats' bots and their parameters
    int bot[MAXP]
    bitgen_t* brng[MAXP]        # RandomBot's generator
    double p_hold[MAXP]         # HandHunterBot
    int max_round[MAXP]
    int min_opp[MAXP]
    int take_gain[MAXP]         # TacticianBot
    int feed_pen[MAXP]


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
    cdef int k = 0, c, i, j, a, b, na, nb, x, y, lo, hi, wa, wb, q, suit
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


cdef void tact_play(Game* G) noexcept nogil:
    """TacticianBot._play: go out at once when it can, else greedy (with its discard)."""
    cdef TMeld ms[MAXGO]
    cdef int k
    if not G.opened[G.current] and not G.freed:
        k = go_out_lay_down(G, ms)
        if k:
            lay_melds(G, ms, k)
            return
    greedy_play(G)


cdef int bot_discard(Game* G) noexcept nogil:
    """The discard of GreedyBot._play: the bot's own ``_discard``."""
    if G.bot[G.current] == B_TACTICIAN:
        return tact_discard(G)
    return greedy_discard(G, G.opened[G.current])


cdef void play(Game* G, Moves* M) noexcept nogil:
    cdef int steps = 0, turn = 0, b
    while G.phase != PH_OVER and not G.err:
        b = G.bot[G.current]
        if b == B_RANDOM:
            random_move(G, M)
        elif G.phase == PH_DRAW:
            if b == B_TACTICIAN:
                tact_draw(G)
            elif b == B_HAND_HUNTER:
                hh_draw(G)
            else:
                greedy_draw(G)
        else:
            if b == B_TACTICIAN:
                tact_play(G)
            elif b == B_HAND_HUNTER:
                hh_play(G)
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
        cdef int i
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
        for i in range(53):
            g.deckcnt[i] = 0
        for i in range(g.deck_n):
            g.deckcnt[d[i]] += 1
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
    return play_table(k, rng, players, first, None, None, None, log)


def play_table(GreedyKernel k, rng, int players, int first, bots=None, bot_rngs=None,
               params=None, int32_t[::1] log=None):
    """Play one deal; seat ``i`` plays bot ``bots[i]`` (0 random, 1 greedy, 2 hand-hunter,
    3 tactician; None: every seat greedy). ``bot_rngs[i]`` is a random seat's numpy
    Generator (RandomBot.rng: drawn from as the bot draws), ``params[i]`` a seat's
    parameters: ``(p_hold, max_round, min_opponent_cards)`` for a hand-hunter,
    ``(take_gain, feed_penalty)`` for a tactician (None: the bots' defaults).

    Returns what ``play_greedy`` returns."""
    cdef Game G
    cdef Moves* M
    cdef int i
    cdef list keep = []
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
    seat_bots(&G, players, bots, bot_rngs, params, keep)
    if log is not None and log.shape[0] > 0:
        G.log = &log[0]
        G.log_cap = log.shape[0]
    bitgen = rng.bit_generator
    G.bg = _bitgen_of(bitgen)
    M = <Moves*>PyMem_Malloc(sizeof(Moves))
    if M == NULL:
        raise MemoryError()
    try:
        with bitgen.lock, nogil:
            new_deal(&G, first)
            play(&G, M)
    finally:
        PyMem_Free(M)
    if G.err:
        raise RuntimeError(f"game kernel: {_ERRORS.get(G.err, G.err)} (turn {G.turn}, "
                           f"player {G.current})")
    return (G.winner, G.how, G.length, [G.scores[i] for i in range(players)],
            [bool(G.opened[i]) for i in range(players)],
            [G.turn_opened[i] for i in range(players)], G.log_n)


# --------------------------------------------------------------------------- positions (issue 13: the search bot)
cdef inline uint64_t sm_next64(void* st) noexcept nogil:
    """splitmix64: the rollouts' own small generator for reshuffles (one seed per
    determinization, so every candidate of a rollout meets the same reshuffles)."""
    cdef uint64_t* s = <uint64_t*>st
    cdef uint64_t z
    s[0] += <uint64_t>0x9E3779B97F4A7C15
    z = s[0]
    z = (z ^ (z >> 30)) * <uint64_t>0xBF58476D1CE4E5B9
    z = (z ^ (z >> 27)) * <uint64_t>0x94D049BB133111EB
    return z ^ (z >> 31)


cdef uint32_t sm_next32(void* st) noexcept nogil:
    return <uint32_t>(sm_next64(st) >> 32)


cdef double sm_double(void* st) noexcept nogil:
    return (sm_next64(st) >> 11) * (1.0 / 9007199254740992.0)


cdef uint64_t sm_raw(void* st) noexcept nogil:
    return sm_next64(st)


cdef int seat_bots(Game* G, int players, bots, bot_rngs, params, list keep) except -1:
    """Seat ``bots[i]`` (codes; None: greedy everywhere) with their parameters, as
    ``play_table`` takes them."""
    cdef int i, b
    if bots is not None and len(bots) != players:
        raise ValueError(f"{len(bots)} bots for {players} players")
    for i in range(players):
        b = B_GREEDY if bots is None else int(bots[i])
        if not B_RANDOM <= b <= B_TACTICIAN:
            raise ValueError(f"bot code {b} is not 0..3")
        G.bot[i] = b
        G.brng[i] = NULL
        G.p_hold[i] = 0.12
        G.max_round[i] = 6
        G.min_opp[i] = 5
        G.take_gain[i] = 6
        G.feed_pen[i] = 6
        par = None if params is None else params[i]
        if b == B_RANDOM:
            if bot_rngs is None or bot_rngs[i] is None:
                raise ValueError(f"seat {i} is a random bot: give its Generator in bot_rngs")
            bg = bot_rngs[i].bit_generator
            keep.append(bg)
            G.brng[i] = _bitgen_of(bg)
        elif b == B_HAND_HUNTER and par is not None:
            G.p_hold[i] = float(par[0])
            G.max_round[i] = int(par[1])
            G.min_opp[i] = int(par[2])
        elif b == B_TACTICIAN and par is not None:
            G.take_gain[i] = int(par[0])
            G.feed_pen[i] = int(par[1])
    return 0


cdef enum:
    # a candidate move of Position.rollouts
    C_NONE = -1         # no move: the seat's rollout bot plays on
    C_DRAW = 0          # Draw(source x)
    C_DISCARD = 4       # Discard(card x)


cdef int apply_candidate(Game* G, int kind, int x) noexcept nogil:
    """Make one candidate move for the player on turn; -1 if it is not possible here."""
    cdef int p = G.current
    if kind == C_NONE:
        return 0
    if kind == C_DRAW:
        if G.phase != PH_DRAW:
            return -1
        if x == SRC_STOCK and G.stock_n > 0:
            do_draw(G, SRC_STOCK)
            return 0
        if x == SRC_DISCARD and G.pile_n > 0:
            do_draw(G, SRC_DISCARD)
            return 0
        if x == SRC_BOTTOM and G.bottom >= 0:
            do_draw(G, SRC_BOTTOM)
            return 0
        return -1
    if kind == C_DISCARD:
        if G.phase != PH_PLAY or not 0 <= x <= JOKER or G.cnt[p][x] <= 0 or G.freed:
            return -1
        do_discard(G, x)
        return 0
    return -1


cdef class Position:
    """One deal's state loaded into the kernel (``rummy51.fastgame.position``): the hands as
    counts per card code, the stock (top last), the discard pile (top last), the bottom
    card, the table melds, who opened, the turn and this turn's ``TurnInfo``.

    ``play`` plays the rest of the deal from it with kernel bots. ``rollouts`` plays it
    many times from determinizations: the cards of ``pool`` dealt at random to the hidden
    parts of the other hands and to the stock, each candidate move made, then the rest
    played; the search bot's rollouts (``rummy51.r51.search``)."""
    cdef Game G
    cdef GreedyKernel k
    cdef readonly int players

    def __init__(self, GreedyKernel k, int players, int current, int turn, int phase,
                 int32_t[:, ::1] cnt, int32_t[::1] stock, int32_t[::1] pile, int bottom,
                 table, opened, turn_opened, turn_info):
        cdef int i, j, c, n
        cdef TMeld* m
        if players < 2 or players > MAXP:
            raise ValueError(f"players must be 2..{MAXP}, got {players}")
        if not 0 <= current < players:
            raise ValueError(f"current must be a seat 0..{players - 1}, got {current}")
        if phase != PH_DRAW and phase != PH_PLAY:
            raise ValueError(f"phase must be 0 (draw) or 1 (play), got {phase}")
        if not 0 <= turn < k.g.max_turns:
            raise ValueError(f"turn {turn} is not 0..{k.g.max_turns - 1}")
        if cnt.shape[0] != players or cnt.shape[1] != 53:
            raise ValueError(f"cnt must be ({players}, 53), got ({cnt.shape[0]}, {cnt.shape[1]})")
        if stock.shape[0] > MAXDECK or pile.shape[0] > MAXDECK:
            raise ValueError("stock or discard pile longer than a deck")
        if len(table) > MAXT:
            raise ValueError(f"{len(table)} table melds: the kernel holds {MAXT}")
        if len(opened) != players or len(turn_opened) != players or len(turn_info) != 7:
            raise ValueError("opened and turn_opened need one entry a seat, turn_info 7 fields")
        if not -1 <= bottom <= JOKER:
            raise ValueError(f"bottom card {bottom} is not a card code (or -1)")
        self.k = k
        self.players = players
        memset(&self.G, 0, sizeof(Game))
        G = &self.G
        G.sr = core_rules_of(k.core)
        G.g = &k.g
        G.n = players
        for i in range(players):
            n = 0
            for c in range(53):
                if cnt[i, c] < 0:
                    raise ValueError(f"seat {i} holds a negative count of card {c}")
                G.cnt[i][c] = cnt[i, c]
                n += cnt[i, c]
            G.hn[i] = n
            G.opened[i] = 1 if opened[i] else 0
            G.turn_opened[i] = int(turn_opened[i])
        for i in range(stock.shape[0]):
            if not 0 <= stock[i] <= JOKER:
                raise ValueError(f"stock card {stock[i]} is not a card code")
            G.stock[i] = stock[i]
        G.stock_n = <int>stock.shape[0]
        for i in range(pile.shape[0]):
            if not 0 <= pile[i] <= JOKER:
                raise ValueError(f"discard pile card {pile[i]} is not a card code")
            G.pile[i] = pile[i]
        G.pile_n = <int>pile.shape[0]
        G.bottom = bottom
        for i, (kind, owner, cards, reps) in enumerate(table):
            if len(cards) != len(reps) or not 3 <= len(cards) <= MAXMC:
                raise ValueError(f"table meld {i}: {len(cards)} cards, {len(reps)} stand-ins")
            m = &G.table[i]
            m.kind = int(kind)
            m.owner = int(owner)
            m.n = len(cards)
            for j in range(m.n):
                m.cards[j] = int(cards[j])
                m.reps[j] = int(reps[j])
        G.table_n = len(table)
        G.turn = turn
        G.current = current
        G.phase = phase
        (G.src, G.drawn, G.must_open, G.tbottom, G.freed, G.touched,
         G.opened_at_start) = [int(v) for v in turn_info]
        G.winner = -1
        G.how = -1

    def complete(self):
        """Whether every card of the deck is in one place (a full state, not a view)."""
        cdef int u[53]
        cdef int c, i, j
        G = &self.G
        for c in range(53):
            u[c] = 0
        for i in range(G.n):
            for c in range(53):
                u[c] += G.cnt[i][c]
        for i in range(G.stock_n):
            u[G.stock[i]] += 1
        for i in range(G.pile_n):
            u[G.pile[i]] += 1
        for i in range(G.table_n):
            for j in range(G.table[i].n):
                u[G.table[i].cards[j]] += 1
        if G.bottom >= 0:
            u[G.bottom] += 1
        return all(u[c] == self.k.g.deckcnt[c] for c in range(53))

    def play(self, rng, bots=None, bot_rngs=None, params=None, int32_t[::1] log=None):
        """Play the rest of the deal (the position itself is kept) as ``play_table`` plays a
        deal: seat ``i`` plays kernel bot ``bots[i]``; an empty stock is refilled from the
        discard pile shuffled with ``rng``. Returns what ``play_table`` returns."""
        cdef Game G = self.G
        cdef Moves* M
        cdef list keep = []
        seat_bots(&G, self.players, bots, bot_rngs, params, keep)
        G.log = NULL
        G.log_n = 0
        G.log_cap = 0
        if log is not None and log.shape[0] > 0:
            G.log = &log[0]
            G.log_cap = log.shape[0]
        bitgen = rng.bit_generator
        G.bg = _bitgen_of(bitgen)
        M = <Moves*>PyMem_Malloc(sizeof(Moves))
        if M == NULL:
            raise MemoryError()
        try:
            with bitgen.lock, nogil:
                play(&G, M)
        finally:
            PyMem_Free(M)
        if G.err:
            raise RuntimeError(f"game kernel: {_ERRORS.get(G.err, G.err)} (turn {G.turn}, "
                               f"player {G.current})")
        return (G.winner, G.how, G.length, [G.scores[i] for i in range(self.players)],
                [bool(G.opened[i]) for i in range(self.players)],
                [G.turn_opened[i] for i in range(self.players)], G.log_n)

    def rollouts(self, int32_t[::1] pool, int32_t[::1] hidden, int32_t[:, ::1] cands, rng,
                 bots, params, int32_t[:, :, ::1] out):
        """``out.shape[1]`` determinized rollouts of every candidate (common random numbers:
        rollout ``r`` of each candidate starts from the same determinization and meets the
        same reshuffles).

        A determinization deals the cards of ``pool``, shuffled with ``rng``, ``hidden[q]``
        to seat ``q`` (on top of the cards the position gives it) and the rest to the stock
        (the position's stock is ignored: ``len(pool) - sum(hidden)`` cards). Candidate
        ``cands[i] = (kind, x, _)`` is -1 (no move), 0 (draw from source x: 0 stock,
        1 discard, 2 bottom) or 4 (discard card x), made by the player on turn; then
        every seat plays its kernel bot (``bots``: greedy, hand-hunter or tactician
        codes; ``params`` as for ``play_table``) to the end. ``out[i, r]`` gets the
        scores. The position is kept."""
        cdef Game B = self.G
        cdef Game G
        cdef Moves* M
        cdef list keep = []
        cdef int np_ = <int>pool.shape[0], nc = <int>cands.shape[0], nr = <int>out.shape[1]
        cdef int i, r, q, c, pos, sn, bad = -1, err = 0, errturn = 0
        cdef int deal[MAXDECK]
        cdef int kinds[256]
        cdef int xs[256]
        cdef uint64_t seed, sm_state
        cdef bitgen_t smg
        cdef bitgen_t* bg
        if hidden.shape[0] != self.players:
            raise ValueError(f"hidden needs one count a seat, got {hidden.shape[0]}")
        if out.shape[0] != nc or out.shape[2] != self.players:
            raise ValueError(f"out must be ({nc}, rollouts, {self.players})")
        if nc > 256:
            raise ValueError(f"{nc} candidates: at most 256")
        if np_ > MAXDECK:
            raise ValueError("pool larger than a deck")
        sn = np_
        for q in range(self.players):
            if hidden[q] < 0:
                raise ValueError(f"hidden[{q}] is negative")
            sn -= hidden[q]
        if sn < 0:
            raise ValueError("the pool holds fewer cards than the hidden hands")
        for i in range(np_):
            if not 0 <= pool[i] <= JOKER:
                raise ValueError(f"pool card {pool[i]} is not a card code")
        for i in range(nc):
            kinds[i] = cands[i, 0]
            xs[i] = cands[i, 1]
            if kinds[i] not in (C_NONE, C_DRAW, C_DISCARD):
                raise ValueError(f"candidate {i}: kind {kinds[i]} is not -1, 0 or 4")
        seat_bots(&B, self.players, bots, None, params, keep)
        for q in range(self.players):
            if B.bot[q] == B_RANDOM:
                raise ValueError("rollouts play greedy, hand-hunter or tactician seats only")
        B.log = NULL
        B.log_n = 0
        B.log_cap = 0
        smg.state = &sm_state
        smg.next_uint64 = sm_next64
        smg.next_uint32 = sm_next32
        smg.next_double = sm_double
        smg.next_raw = sm_raw
        bitgen = rng.bit_generator
        bg = _bitgen_of(bitgen)
        M = <Moves*>PyMem_Malloc(sizeof(Moves))
        if M == NULL:
            raise MemoryError()
        try:
            with bitgen.lock, nogil:
                for r in range(nr):
                    for i in range(np_):
                        deal[i] = pool[i]
                    np_shuffle(bg, deal, np_)
                    seed = bg.next_uint64(bg.state)
                    pos = 0
                    for q in range(B.n):
                        for c in range(hidden[q]):
                            B.cnt[q][deal[pos]] += 1
                            pos += 1
                        B.hn[q] += hidden[q]
                    for i in range(sn):
                        B.stock[i] = deal[pos + i]
                    B.stock_n = sn
                    for i in range(nc):
                        G = B
                        sm_state = seed
                        G.bg = &smg
                        if apply_candidate(&G, kinds[i], xs[i]) < 0:
                            bad = i
                            break
                        play(&G, M)
                        if G.err:
                            err = G.err
                            errturn = G.turn
                            break
                        for q in range(B.n):
                            out[i, r, q] = G.scores[q]
                    # undo the deal of the hidden cards
                    pos = 0
                    for q in range(B.n):
                        for c in range(hidden[q]):
                            B.cnt[q][deal[pos]] -= 1
                            pos += 1
                        B.hn[q] -= hidden[q]
                    if bad >= 0 or err:
                        break
        finally:
            PyMem_Free(M)
        if bad >= 0:
            raise ValueError(f"candidate {bad} ({kinds[bad]}, {xs[bad]}) is not a move here")
        if err:
            raise RuntimeError(f"game kernel: {_ERRORS.get(err, err)} in a rollout (turn {errturn})")
