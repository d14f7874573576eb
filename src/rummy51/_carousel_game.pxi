# Included at the end of _carousel.pyx. It uses the solver's CRules, Pos, Work, Rebuild
# and _solve, _fix_forced_jokers, _prune_hand, _rb_candidates, _work_init/_work_free
# through their signatures there; nothing else in that file changes.
"""Whole Carousel games for tables where every seat is the greedy bot, in C.

``play_greedy_game`` plays one game (rounds to the target score) on decks drawn by the
caller, move for move as ``rummy51.carousel.engine.GameState`` with
``rummy51.carousel.bots.GreedyBot`` in every seat, and writes the study's records (one
row per round and seat, the columns of ``studies._carousel_plan.CHUNK_COLUMNS``).

The table is kept as counts (table naturals T, jokers declared D, table jokers JT):
the solver's value depends on nothing else, and ``carousel.solver.best_play`` takes
the table after the play from the dynamic program's path as counts
(``_solve_play``), then only arranges those cards into melds. So the kernel takes the
same counts from the same call and never builds melds. (``_rebuild`` with this file's
context, ``CGCtx``, serves positions whose path cannot be read: more than 7 jokers,
none in a real game.) A greedy turn:

* draw; after a first or second draw that took a card, meld the best play if one
  exists (``_solve`` > 0), otherwise draw again; the third card ends the drawing;
* an empty stock stops the drawing: the finder may still meld (after a first or
  second draw; the hand is unchanged since the last question of the same turn, so
  only a first-draw finder asks);
* when the turn of the player who took the last card (``rules.stock_out``
  "exhauster"; "finder": who found the stock empty) ends, every player, from that
  player's left round to that player, has one last turn (meld if possible, no draw,
  no knock unless ``last_turn_knock``); a deal that leaves no stock starts them at
  once, from the dealer's left ("exhauster": the deal took the last card);
* at the end of the turn: knock with ``knock_limit`` points or fewer, else pass;
  melding every card goes out at once.
"""

from libc.string cimport memcpy

DEF CG_COLS = 18          # the columns of CHUNK_COLUMNS, in that order
DEF CG_MAXP = 6
DEF CG_MAXDECK = 112      # 2 decks and 4 jokers are 108 cards
DEF CG_MAX_ROUNDS = 10000

# status codes of _cg_play (and of play_greedy_game)
DEF CG_OK = 0
DEF CG_NEED_DECKS = 1     # the game needs more rounds than decks were given
DEF CG_TOO_LONG = 2       # more than CG_MAX_ROUNDS rounds
DEF CG_FULL = 3           # the output (or trace) buffer is too small (a caller bug)
DEF CG_GAVE_UP = 4        # the meld reconstruction failed (detail: its status * 64 + card)
DEF CG_BAD_TABLE = 5      # the solver found the table cannot be arranged (a bug)
DEF CG_NO_MEMORY = 6

# trace events (tests: move for move against the Python engine)
DEF EV_DRAW = 0           # a = card drawn, -1 the stock was empty
DEF EV_MELD = 1           # a = cards played, b = hand points after
DEF EV_KNOCK = 2          # a = hand points
DEF EV_PASS = 3           # b = 1: the hand could have knocked (a knock held back)


cdef struct GRules:
    int players
    int hand_size
    int deck_size
    int knock_limit
    int undercut_bonus
    int going_out_bonus
    int target
    int game_bonus
    int round_won_bonus
    int bonus_for_all
    int last_turn_knock     # rules.last_turn_knock
    int play_on             # rules.game_tie == "play_on"
    int exhauster           # rules.stock_out == "exhauster" (0: "finder")


cdef struct CGame:
    # the table (naturals, jokers declared as each card, table jokers)
    uint8_t T[52]
    uint8_t D[52]
    int JT
    # the hands
    uint8_t H[CG_MAXP][52]
    int JH[CG_MAXP]
    int32_t pts[CG_MAXP]
    # the bot of each seat: 0 greedy, 1 careful, 2 search, 3 learned (its generator and
    # parameters)
    int kind[CG_MAXP]
    bitgen_t* bg[CG_MAXP]
    double max_risk[CG_MAXP]
    int samples[CG_MAXP]
    double param[CG_MAXP][6]   # a search seat's (_carousel_search.pxi)
    Net net[CG_MAXP]           # a search or learned seat's model (nin 0: none)
    int search_err             # a search seat's failure (a CG_ status)
    int32_t* trace        # 5 ints per event (round, seat, kind, a, b), or NULL
    int64_t trace_cap
    int64_t trace_n
    int round


cdef inline void _cg_event(CGame* g, int seat, int kind, int a, int b) noexcept nogil:
    cdef int64_t k
    if g.trace == NULL:
        return
    if g.trace_n < g.trace_cap:
        k = 5 * g.trace_n
        g.trace[k] = g.round
        g.trace[k + 1] = seat
        g.trace[k + 2] = kind
        g.trace[k + 3] = a
        g.trace[k + 4] = b
    g.trace_n += 1


cdef inline int32_t _cg_points(const CRules* r, const uint8_t* H, int JH) noexcept nogil:
    cdef int32_t s = JH * r.val[52]
    cdef int c
    for c in range(52):
        if H[c]:
            s += H[c] * r.val[c]
    return s


# --------------------------------------------------------------------------- the rebuild
# ``_rebuild`` and ``_rb_place`` (_carousel_rebuild.pxi) with this file's context
# (``CGCtx``): the same candidates, the same fillings in the same order, the same first
# accepted, with two changes, neither of which changes an answer:
#
# * every question goes through ``_cg_solve``, which remembers the answers of the round
#   (the same remainder comes back within a rebuild and between turns);
# * before a filling's remainder is solved, two exact tests may show that its value
#   cannot be the one wanted, and then the solver is not asked (its answer would be
#   "no"). Both are made on the position the program would see (forced jokers fixed,
#   then the hand cards no meld can hold dropped, again until none drops: a dropped
#   card is in no play, so it supports nothing):
#
# * the remainder's hand cards are worth less than the value wanted (a play places
#   only hand cards, so its value is at most theirs);
# * a card the remainder must keep on the table (a table natural, or a card a table
#   joker is declared as) fits in no meld at all: no set (fewer than two other suits
#   of its rank in table and hand, jokers counted) and no three consecutive positions
#   of its suit (the missing ones more than the jokers a meld may hold), so no
#   arrangement exists (the solver would say -1).


cdef int _cg_stranded(const CRules* r, const Pos* pos) noexcept nogil:
    """1 if a card that must stay on the table fits in no meld (see above)."""
    cdef int P = 14 if r.ace_high else 13
    cdef int J = pos.JT + pos.JH
    cdef int c
    if J > r.mj:
        J = r.mj
    for c in range(52):
        if (pos.T[c] != 0 or pos.D[c] != 0) and not _card_fits(r, pos, c, J, P):
            return 1
    return 0


# A memo of the solver's answers within a round: the key is the position the dynamic
# program is given (``_fix_forced_jokers`` then ``_prune_hand``, what ``_solve`` does
# first), packed 7 bits a card (T 2, H 2, D 3) with the joker counts; the solver is
# exact, so one key has one value.
DEF MEMO_BITS = 13
DEF MEMO_SIZE = 8192      # 1 << MEMO_BITS entries; a round asks a few hundred questions
DEF MEMO_KW = 6
DEF MEMO_BELOW = -3       # a value MEMO_BELOW - u: the exact value is below u

cdef struct Memo:
    uint64_t key[MEMO_SIZE][MEMO_KW]
    int32_t val[MEMO_SIZE]
    uint32_t gen[MEMO_SIZE]   # an entry is live when its gen is the memo's
    uint32_t cur
    int n

cdef struct CGCtx:
    Work w
    Memo* memo
    # each card's candidate melds (_rb_candidates), made on first use in the game
    int ncand[52]             # 0: not made yet
    int clen[52][RB_MAXCAND]
    uint8_t cand[52][RB_MAXCAND * 14]
    Path path                 # the program's steps of the last meld question


cdef inline void _memo_reset(Memo* m) noexcept nogil:
    m.cur += 1
    m.n = 0
    if m.cur == 0:          # wrapped around: clear the generations once
        memset(m.gen, 0, sizeof(m.gen))
        m.cur = 1


cdef void _cgctx_free(void* p) noexcept nogil:
    cdef CGCtx* x = <CGCtx*>p
    if x != NULL:               # its work already given back (_cgctx_done)
        free(x.path.par)
        free(x.path.info)
        free(x.memo)
        free(x)


rummy51_tls_init(TLS_GAME, _cgctx_free)


cdef void _drop_kept_game() noexcept nogil:
    cdef void* p = rummy51_tls_get(TLS_GAME)
    if p != NULL and rummy51_tls_set(TLS_GAME, NULL) == 0:
        _cgctx_free(p)


cdef CGCtx* _cgctx_new() noexcept nogil:
    """A game context for one call from Python (a bot's single decision, the features of
    a view, ...): the thread's kept one, or a new one when the thread has none free (its
    first call, or a nested or concurrent one); NULL on no memory. Its solver work starts
    from the thread's kept tables and option cache (``_work_init_single``), its round
    memo empty, its candidate melds not made (another call may play other rules): the
    same answers as a fresh context's, without zeroing a round memo of 450 kB a call.
    Give it back with ``_cgctx_done``."""
    cdef CGCtx* x = <CGCtx*>rummy51_tls_get(TLS_GAME)
    if x == NULL or rummy51_tls_set(TLS_GAME, NULL) != 0:
        x = <CGCtx*>calloc(1, sizeof(CGCtx))
        if x == NULL:
            return NULL
    else:
        memset(x.ncand, 0, sizeof(x.ncand))
        if x.memo != NULL:
            _memo_reset(x.memo)
    if _work_init_single(&x.w, &x.path) != 0:
        free(x.memo)
        free(x)
        return NULL
    return x


cdef void _cgctx_done(CGCtx* x) noexcept nogil:
    """Give back ``_cgctx_new``'s context: its work's tables and cache to the thread's
    slots, the rest kept for the thread's next call (or freed when the slot is taken)."""
    if x == NULL:
        return
    _work_free_single(&x.w, &x.path)
    memset(&x.w, 0, sizeof(Work))
    if rummy51_tls_get(TLS_GAME) != NULL or rummy51_tls_set(TLS_GAME, x) != 0:
        _cgctx_free(x)


cdef inline void _memo_pack(const Pos* p, uint64_t* k) noexcept nogil:
    cdef int c, bit = 0, word = 0
    cdef uint64_t x
    for word in range(MEMO_KW):
        k[word] = 0
    word = 0
    for c in range(52):
        x = <uint64_t>(p.T[c] | (p.H[c] << 2) | (p.D[c] << 4))
        k[word] |= x << bit
        if bit + 7 > 64:
            k[word + 1] |= x >> (64 - bit)
        bit += 7
        if bit >= 64:
            bit -= 64
            word += 1
    k[MEMO_KW - 1] |= (<uint64_t>(p.JT * 8 + p.JH)) << 50


cdef int32_t _cg_solve(const CRules* r, const Pos* pos, int check, int32_t want,
                       CGCtx* x, int32_t known=-1) noexcept nogil:
    """``_solve(pos)``, remembered for the round. With ``check``: -1 as soon as the
    exact tests above show that the value cannot be ``want`` (made on the position
    the program would see, whose hand is pruned until nothing more drops out), or when
    its value is below ``want``; -2 no memory, -4 / -5 past a limit of the call.
    ``known`` >= 0 (without ``check``): the exact value, found by the caller's own
    program (a play read off its path), to remember without asking again."""
    cdef Pos key = pos[0]
    cdef uint64_t k[MEMO_KW]
    cdef uint64_t h = 0
    cdef Memo* m = x.memo
    if m == NULL:
        # the round memo serves only the meld-by-meld rebuild (no readable path)
        x.memo = m = <Memo*>calloc(1, sizeof(Memo))
        if m == NULL:
            return -2
        _memo_reset(m)
    cdef int i, j, same
    cdef int32_t v
    _fix_forced_jokers(r, &key)
    _prune_hand_fixpoint(r, &key)
    if check:
        if want < 0 or _hand_value(r, &key) < want:
            return -1
        if _cg_stranded(r, &key):
            return -1
    _memo_pack(&key, k)
    for j in range(MEMO_KW):
        h = (h ^ k[j]) * <uint64_t>0x9E3779B97F4A7C15ULL
        h ^= h >> 29
    i = <int>(h & (MEMO_SIZE - 1))
    while m.gen[i] == m.cur:
        same = 1
        for j in range(MEMO_KW):
            if m.key[i][j] != k[j]:
                same = 0
                break
        if same:
            v = m.val[i]
            if v > MEMO_BELOW:
                return v                # the exact value (or -1: no arrangement)
            if check and want >= MEMO_BELOW - v:
                return -1               # below a value no larger than want
            break                       # below a larger value: ask the program
        i = (i + 1) & (MEMO_SIZE - 1)
    # the key is the program's own position (forced jokers fixed, the hand pruned to
    # its fixed point); with ``check`` the program is asked only whether it reaches
    # ``want`` (a shorter answer is "no"), else the exact value comes from the API's own
    # solve (on big positions bounds first: a 54-card table with 26 cards in hand took
    # the plain program 100 ms, it takes 0.8)
    if check:
        v = _solve_dp(r, &key, &x.w, want, NULL)
    elif known >= 0:
        v = known
    else:
        v = _solve(r, &key, &x.w)
    if v == -2 or v == -4 or v == -5:
        return v                # no memory, or past a limit of the call: not remembered
    if check and v < want:
        v = MEMO_BELOW - want   # remembered as "below want" only
    if 2 * m.n < MEMO_SIZE:
        m.gen[i] = m.cur
        for j in range(MEMO_KW):
            m.key[i][j] = k[j]
        m.val[i] = v
        m.n += 1
    return -1 if v <= MEMO_BELOW else v   # below want: "no", as the exact tests say


cdef int _cg_meld(const CRules* r, CGame* g, int p, CGCtx* x, Rebuild* rb,
                  int* detail) noexcept nogil:
    """GreedyBot's meld question for seat ``p``: when a legal play exists, make the
    solver's best play (``best_play(...).melds`` as the new table) and return 1; 0 when
    there is none; a negative status on failure."""
    cdef Pos pos
    cdef int32_t v
    cdef int c, k, i, old_jt
    cdef uint8_t nT[52]
    cdef uint8_t nD[52]
    cdef int nJT = 0
    memcpy(pos.T, g.T, 52)
    memcpy(pos.H, g.H[p], 52)
    memcpy(pos.D, g.D, 52)
    pos.JT = g.JT
    pos.JH = g.JH[p]
    # the play the program's path holds (best_play's, see _rebuild_path in
    # carousel/solver.py): the new table's counts at once
    v = _solve_play(r, &pos, &x.w, &x.path, nT, nD, &nJT)
    if v == -2:
        return -CG_NO_MEMORY
    if v == 0:
        return 0
    if v > 0:
        return _cg_apply(r, g, p, nT, nD, nJT)
    if v == -1:
        return -CG_BAD_TABLE
    # no path to read (more than 7 jokers): the play _rebuild builds
    v = _cg_solve(r, &pos, 0, 0, x)
    if v == -2:
        return -CG_NO_MEMORY
    if v < 0:
        return -CG_BAD_TABLE
    if v == 0:
        return 0
    _rebuild(r, &pos, v, x, rb)
    if rb.status == -2:
        return -CG_NO_MEMORY
    if rb.status != 0:
        detail[0] = rb.status * 64 + rb.detail
        return -CG_GAVE_UP
    memset(nT, 0, 52)
    memset(nD, 0, 52)
    for i in range(rb.nslots):
        c = rb.card[i]
        if c == 52:
            nD[rb.rep[i]] += 1
            nJT += 1
        else:
            nT[c] += 1
    return _cg_apply(r, g, p, nT, nD, nJT)


cdef int _cg_apply(const CRules* r, CGame* g, int p, const uint8_t* nT, const uint8_t* nD,
                   int nJT) noexcept nogil:
    """Seat ``p`` makes the table ``nT``, ``nD``, ``nJT`` (counts): 1, or -CG_BAD_TABLE
    when the engine would refuse it."""
    cdef int c, k, i, old_jt
    # the hand gives the naturals the new table holds beyond the old one, and the
    # jokers beyond the old table's (check_meld_play's from_hand and hand_jokers)
    k = 0
    for c in range(52):
        if nT[c] < g.T[c]:      # a table card taken off: the engine would refuse it
            return -CG_BAD_TABLE
        if nT[c] > g.T[c]:
            i = nT[c] - g.T[c]
            if i > g.H[p][c]:
                return -CG_BAD_TABLE
            g.H[p][c] -= i
            k += i
    old_jt = g.JT
    if nJT - old_jt > g.JH[p] or nJT < old_jt:
        return -CG_BAD_TABLE
    g.JH[p] -= nJT - old_jt
    k += nJT - old_jt
    memcpy(g.T, nT, 52)
    memcpy(g.D, nD, 52)
    g.JT = nJT
    g.pts[p] = _cg_points(r, g.H[p], g.JH[p])
    _cg_event(g, p, EV_MELD, k, g.pts[p])
    return 1


cdef inline int _cg_empty(CGame* g, int p) noexcept nogil:
    cdef int c
    if g.JH[p]:
        return 0
    for c in range(52):
        if g.H[p][c]:
            return 0
    return 1


DEF CG_STATE = 2 + 2 * CG_MAXP   # a game between calls: round, dealer, totals, rounds won

cdef int _cg_knocks(const CRules* r, const GRules* gr, CGame* g, int p,
                    int stock_left, int stage, CGCtx* x, Rebuild* rb) noexcept nogil:
    """Whether seat ``p``, whose hand may knock, does: the greedy bot always; the
    careful bot (``carousel.bots.CarefulBot._knock``) at 0 points, at 2 or fewer with
    fewer cards in the stock than players, else when ``undercut_risk`` (the C twin in
    _carousel_careful.pxi, on the same generator) is below its ``max_risk``."""
    cdef int32_t values[CR_MAXPOOL]
    cdef int sizes[CG_MAXP]
    cdef int m = 0, c, k, o
    cdef int32_t pts = g.pts[p]
    if g.kind[p] == 0:
        return 1
    if g.kind[p] >= 2:      # search, learned: stage 0 a turn, 1 the finder's, 2 a last turn
        return _cs_knocks(r, gr, g, p, stock_left, stage, x, rb)
    if pts == 0 or (stock_left < gr.players and pts <= 2):
        return 1
    # the cards p has not seen, in the sorted deck's order (jokers last)
    for c in range(52):
        for k in range(r.decks - g.H[p][c] - g.T[c]):
            values[m] = r.val[c]
            m += 1
    for k in range(r.jokers - g.JH[p] - g.JT):
        values[m] = r.val[52]
        m += 1
    for o in range(gr.players):
        sizes[o] = g.JH[o]
        for c in range(52):
            sizes[o] += g.H[o][c]
    return _cr_undercut_risk(g.bg[p], values, m, sizes, gr.players, p, pts,
                             g.samples[p]) < g.max_risk[p]


cdef int _cg_play(const CRules* r, const GRules* gr, const uint8_t* decks, int ndecks,
                  int first, int64_t game, int32_t* out, int64_t cap_rows, int64_t* rows_out,
                  int64_t* turns_out, int* rounds_out, CGame* g, CGCtx* x, Rebuild* rb,
                  int* detail, int64_t* state) noexcept nogil:
    """One whole game, or its rounds from ``state`` on (``state[0]`` rounds played; the
    decks are those of the rounds from there); the records go to ``out`` (``cap_rows``
    rows of CG_COLS). Out of decks, ``state`` is left for the next call."""
    cdef int n = gr.players, h = gr.hand_size, S = gr.deck_size
    cdef int dealer = first, rnd = 0, rnd0, i, k, c, p, seat, res
    cdef int64_t row = 0, row0, turns_all = 0
    cdef const uint8_t* deck
    cdef int sp, turn, current, finder, last_k, is_last, draws, melded, how, knocker
    cdef int asked, low, ntied, undercut, reached, best
    cdef int32_t totals[CG_MAXP]
    cdef int32_t won_rounds[CG_MAXP]
    cdef int32_t score[CG_MAXP]
    cdef int32_t fin[CG_MAXP]
    cdef int turns[CG_MAXP]
    cdef int knock_turn[CG_MAXP]
    cdef int win[CG_MAXP]
    cdef int32_t* o
    for p in range(n):
        totals[p] = 0
        won_rounds[p] = 0
    if state[0] > 0:
        rnd = <int>state[0]
        dealer = <int>state[1]
        for p in range(n):
            totals[p] = <int32_t>state[2 + p]
            won_rounds[p] = <int32_t>state[2 + CG_MAXP + p]
    rnd0 = rnd
    while True:
        if rnd - rnd0 >= ndecks:
            state[0] = rnd
            state[1] = dealer
            for p in range(n):
                state[2 + p] = totals[p]
                state[2 + CG_MAXP + p] = won_rounds[p]
            rows_out[0] = row
            turns_out[0] = turns_all
            rounds_out[0] = rnd
            return CG_NEED_DECKS
        if (row + n) > cap_rows:
            return CG_FULL
        g.round = rnd
        if x.memo != NULL:
            _memo_reset(x.memo)
        deck = decks + <int64_t>(rnd - rnd0) * S
        # the deal: the dealer's left gets the first hand_size cards, and so on
        memset(g.T, 0, 52)
        memset(g.D, 0, 52)
        g.JT = 0
        for p in range(n):
            memset(g.H[p], 0, 52)
            g.JH[p] = 0
            turns[p] = 0
            knock_turn[p] = 0
        for i in range(n):
            seat = (dealer + 1 + i) % n
            for k in range(h):
                c = deck[i * h + k]
                if c == 52:
                    g.JH[seat] += 1
                else:
                    g.H[seat][c] += 1
        for p in range(n):
            g.pts[p] = _cg_points(r, g.H[p], g.JH[p])
        sp = n * h              # the stock's top
        current = (dealer + 1) % n
        turn = 0
        finder = -1             # the seat the last turns start after: exhauster or finder
        last_k = 0
        is_last = 0
        if sp == S and gr.exhauster:
            # GameState._deal: the deal took the last card; the last turns start now
            finder = dealer
            last_k = 1
            is_last = 1
        how = -1
        knocker = -1
        while True:
            p = current
            res = 0
            if is_last:
                # a last turn after the stock ran out: meld if possible, then it ends
                res = _cg_meld(r, g, p, x, rb, detail)
                if res < 0:
                    return -res
                if res == 1 and _cg_empty(g, p):
                    how = 1
                    knocker = p
                elif (gr.last_turn_knock and g.pts[p] <= gr.knock_limit
                      and _cg_knocks(r, gr, g, p, S - sp, 2, x, rb)):
                    # rules.last_turn_knock: the last turn ends like any other
                    _cg_event(g, p, EV_KNOCK, g.pts[p], 0)
                    how = 0
                    knocker = p
                elif res == 0 or gr.last_turn_knock:
                    _cg_event(g, p, EV_PASS, 0, 1 if (gr.last_turn_knock
                                                      and g.pts[p] <= gr.knock_limit) else 0)
            else:
                draws = 0
                melded = 0
                asked = 0
                while draws < 3:
                    draws += 1
                    if sp < S:
                        c = deck[sp]
                        sp += 1
                        if sp == S and gr.exhauster:
                            finder = p      # p exhausted the stock
                        if c == 52:
                            g.JH[p] += 1
                        else:
                            g.H[p][c] += 1
                        g.pts[p] += r.val[c]
                        _cg_event(g, p, EV_DRAW, c, 0)
                        if draws == 3:
                            break
                        res = _cg_meld_seat(r, gr, g, p, x, rb, detail, draws, S - sp, 0)
                        if res < 0:
                            return -res
                        asked = 1
                        if res == 1:
                            melded = 1
                            break
                    else:
                        if finder < 0:
                            finder = p      # "finder" (else p is the exhauster already)
                        _cg_event(g, p, EV_DRAW, -1, 0)
                        if draws < 3 and (not asked or g.kind[p] >= 2):
                            res = _cg_meld_seat(r, gr, g, p, x, rb, detail, draws, 0, 1)
                            if res < 0:
                                return -res
                            melded = res
                        break
                if melded and _cg_empty(g, p):
                    how = 1
                    knocker = p
                elif g.pts[p] <= gr.knock_limit and _cg_knocks(r, gr, g, p, S - sp,
                                                               finder >= 0, x, rb):
                    _cg_event(g, p, EV_KNOCK, g.pts[p], 0)
                    how = 0
                    knocker = p
                else:
                    _cg_event(g, p, EV_PASS, 0, 1 if g.pts[p] <= gr.knock_limit else 0)
            # the mover's turn ended: count the hand at its end (play_recorded's facts)
            turns[p] += 1
            if knock_turn[p] == 0 and g.pts[p] <= gr.knock_limit:
                knock_turn[p] = turns[p]
            if how >= 0:
                break
            # GameState._end_turn
            if finder < 0:
                turn += 1
                current = (current + 1) % n
                continue
            last_k += 1
            if last_k <= n:
                turn += 1
                current = (finder + last_k) % n
                is_last = 1
                continue
            how = 2
            knocker = -1
            break
        # score the round (moves.score_round)
        low = g.pts[0]
        for p in range(1, n):
            if g.pts[p] < low:
                low = g.pts[p]
        ntied = 0
        for p in range(n):
            win[p] = 1 if g.pts[p] == low else 0
            ntied += win[p]
        if knocker >= 0 and win[knocker] and ntied > 1:
            win[knocker] = 0
        undercut = 1 if (knocker >= 0 and not win[knocker]) else 0
        for p in range(n):
            score[p] = 0
            if not win[p]:
                continue
            for k in range(n):
                if k != p:
                    score[p] += g.pts[k] - g.pts[p]
            if undercut:
                score[p] += gr.undercut_bonus
            if how == 1 and p == knocker:
                score[p] += gr.going_out_bonus
        row0 = row
        for p in range(n):
            totals[p] += score[p]
            won_rounds[p] += win[p]
            o = out + (row0 + p) * CG_COLS
            o[0] = <int32_t>game
            o[1] = rnd
            o[2] = p
            o[3] = dealer
            o[4] = score[p]
            o[5] = g.pts[p]
            o[6] = win[p]
            o[7] = 1 if (how == 0 and knocker == p) else 0
            o[8] = 1 if (how == 1 and knocker == p) else 0
            o[9] = 1 if (undercut and knocker == p) else 0
            o[10] = turn + 1
            o[11] = how
            o[12] = knock_turn[p] if knock_turn[p] else -1
            o[13] = turns[p]
            o[14] = totals[p]
            o[15] = 0
            o[16] = 0
            o[17] = 0
        row += n
        turns_all += turn + 1
        rnd += 1
        if rnd > CG_MAX_ROUNDS:     # play_recorded's check, after every round
            rows_out[0] = row
            turns_out[0] = turns_all
            rounds_out[0] = rnd
            return CG_TOO_LONG
        best = totals[0]
        for p in range(1, n):
            if totals[p] > best:
                best = totals[p]
        if best >= gr.target:
            # moves.final_scores
            for p in range(n):
                reached = 1 if totals[p] >= gr.target else 0
                fin[p] = totals[p] + (gr.game_bonus if reached else 0)
                if not reached or gr.bonus_for_all:
                    fin[p] += gr.round_won_bonus * won_rounds[p]
            best = fin[0]
            for p in range(1, n):
                if fin[p] > best:
                    best = fin[p]
            k = 0
            for p in range(n):
                k += fin[p] == best
            if gr.play_on and k > 1:
                # rules.game_tie "play_on": a shared highest total deals another round
                dealer = (dealer + 1) % n
                continue
            for p in range(n):
                o = out + (row0 + p) * CG_COLS
                o[15] = 1
                o[16] = fin[p]
                o[17] = 1 if fin[p] == best else 0
            rows_out[0] = row
            turns_out[0] = turns_all
            rounds_out[0] = rnd
            return CG_OK
        dealer = (dealer + 1) % n


#: play_greedy_game's status codes
GAME_OK = CG_OK
GAME_NEED_DECKS = CG_NEED_DECKS
GAME_TOO_LONG = CG_TOO_LONG
GAME_FULL = CG_FULL
GAME_GAVE_UP = CG_GAVE_UP
GAME_BAD_TABLE = CG_BAD_TABLE
GAME_NO_MEMORY = CG_NO_MEMORY
#: the columns play_greedy_game writes, in order (studies._carousel_plan.CHUNK_COLUMNS)
GAME_COLUMNS = ("game", "round", "seat", "dealer", "score", "points", "won", "knocked",
                "went_out", "undercut", "round_length", "end", "knock_turn", "turns",
                "total", "last_round", "final", "won_game")


GAME_STATE_SIZE = CG_STATE


cdef int _cg_seat_bots(CGame* g, bots, int n) except -1:
    """``play_greedy_game``'s ``bots`` into ``g`` (a ValueError names a bad entry)."""
    cdef int p
    for p in range(n):
        g.kind[p] = 0
    if bots is None:
        return 0
    bots = list(bots)
    if len(bots) != n:
        raise ValueError(f"bots: one entry a seat, {n}, got {len(bots)}")
    for p in range(n):
        b = bots[p]
        if b is None:
            continue
        if isinstance(b, tuple) and len(b) > 0 and isinstance(b[0], str):
            if b[0] in ("search", "search-plain", "search-learned"):
                _cs_seat(g, p, b)
                continue
            if b[0] == "learned":
                _cl_seat(g, p, b)
                continue
        try:
            rng, max_risk, samples = b
        except (TypeError, ValueError):
            raise ValueError(f"bots[{p}]: None or (rng, max_risk, samples), got {b!r}") from None
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"bots[{p}]: rng must be a numpy Generator, got "
                             f"{type(rng).__name__}")
        if int(samples) < 1:
            raise ValueError(f"bots[{p}]: samples must be >= 1, got {samples}")
        g.kind[p] = 1
        g.bg[p] = _cr_bitgen(rng)
        g.max_risk[p] = float(max_risk)
        g.samples[p] = int(samples)
    return 0


def play_greedy_game(CoreRules core, game_rules, const uint8_t[:, ::1] decks, int first,
                     int64_t game, int32_t[:, ::1] out, int32_t[:, ::1] trace=None,
                     int64_t[::1] state=None, bots=None):
    """Play one whole game with the greedy bot in every seat, or the careful bot in
    some (GIL released).

    ``bots``: None (greedy everywhere), or one entry per seat: None for the greedy bot,
    ``(rng, max_risk, samples)`` for ``CarefulBot`` (``rng`` its numpy Generator,
    advanced exactly as the Python bot advances it), ``("search", rng, rollouts, z_stop,
    z_play)`` for ``SearchBot``, ``("search-plain", ...)`` for ``PlainSearchBot`` and
    ``("search-learned", ..., model, horizon)`` for ``LearnedSearchBot`` (their
    ``kernel_spec()``; _carousel_search.pxi).

    ``game_rules``: ``(players, hand_size, deck_size, knock_limit, undercut_bonus,
    going_out_bonus, target_score, game_bonus, round_won_bonus, round_bonus_for_all,
    last_turn_knock, game_tie == "play_on", stock_out == "exhauster")``;
    ``decks``: one deck order per round (top first, codes 0..52), as many rounds as the
    game may need; ``first``: the first dealer; ``game``: the number written in the
    ``game`` column; ``out``: int32 (rows, 18), one row per round and seat, the columns
    of ``GAME_COLUMNS``; ``trace``: None, or int32 (events, 5) that receives every move
    (round, seat, kind 0 draw / 1 meld / 2 knock / 3 pass, a, b: a draw's card or -1, a
    meld's cards played and points left, a knock's points, a pass's 1 when the hand could
    have knocked); ``state``: None (a
    new game), or an int64 array of ``GAME_STATE_SIZE`` zeros for a new game that
    may go on past the decks given.

    Returns ``(status, detail, rounds, rows, turns, events)``: status ``GAME_OK``, or
    ``GAME_NEED_DECKS`` (the game goes on past the decks given: with ``state``, call
    again with the next rounds' decks and the same ``state``, which holds the game so
    far; without, play it again with more decks), or an error code. ``rounds``: the
    rounds played in the game so far; ``rows``, ``turns`` (the rounds' lengths summed)
    and ``events``: those of this call."""
    cdef GRules gr
    cdef CGame* g
    cdef Rebuild* rb
    cdef CGCtx* x
    cdef int status, detail = 0, rounds = 0, c, i
    cdef int64_t rows = 0, turns = 0, cap = out.shape[0]
    cdef Py_ssize_t nd = decks.shape[0]
    vals = [int(v) for v in game_rules]
    if len(vals) != 13:
        raise ValueError(f"game_rules must hold 13 ints, got {len(vals)}")
    gr.players = vals[0]
    gr.hand_size = vals[1]
    gr.deck_size = vals[2]
    gr.knock_limit = vals[3]
    gr.undercut_bonus = vals[4]
    gr.going_out_bonus = vals[5]
    gr.target = vals[6]
    gr.game_bonus = vals[7]
    gr.round_won_bonus = vals[8]
    gr.bonus_for_all = vals[9]
    gr.last_turn_knock = vals[10]
    gr.play_on = vals[11]
    gr.exhauster = vals[12]
    if not 2 <= gr.players <= CG_MAXP:
        raise ValueError(f"players must be 2..{CG_MAXP}, got {gr.players}")
    if gr.deck_size != 52 * core.r.decks + core.r.jokers or gr.deck_size > CG_MAXDECK:
        raise ValueError(f"deck_size {gr.deck_size} is not the rules' deck "
                         f"({core.r.decks} decks, {core.r.jokers} jokers)")
    if gr.hand_size < 1 or gr.players * gr.hand_size > gr.deck_size:
        raise ValueError(f"hand_size {gr.hand_size} for {gr.players} players does not fit "
                         f"the {gr.deck_size}-card deck")
    if nd > 0 and decks.shape[1] != gr.deck_size:
        raise ValueError(f"decks must have {gr.deck_size} columns, got {decks.shape[1]}")
    if not 0 <= first < gr.players:
        raise ValueError(f"first must be a seat 0..{gr.players - 1}, got {first}")
    if out.shape[1] != CG_COLS:
        raise ValueError(f"out must have {CG_COLS} columns, got {out.shape[1]}")
    if trace is not None and trace.shape[1] != 5:
        raise ValueError(f"trace must have 5 columns, got {trace.shape[1]}")
    cdef int64_t fresh[CG_STATE]
    cdef int64_t* st = fresh
    memset(fresh, 0, sizeof(fresh))
    if state is not None:
        if state.shape[0] != CG_STATE:
            raise ValueError(f"state must hold {CG_STATE} ints, got {state.shape[0]}")
        if not 0 <= state[0] <= CG_MAX_ROUNDS or not 0 <= state[1] < gr.players:
            raise ValueError(f"state {list(state)} is not a game's state")
        st = &state[0]
    for i in range(nd):
        for c in range(gr.deck_size):
            if decks[i, c] > 52:
                raise ValueError(f"decks row {i}, column {c}: {decks[i, c]} is not a card code "
                                 "(0..51, 52 the joker)")
    g = <CGame*>calloc(1, sizeof(CGame))
    rb = <Rebuild*>malloc(sizeof(Rebuild))
    x = _cgctx_new()
    if g == NULL or rb == NULL or x == NULL:
        free(g)
        free(rb)
        _cgctx_done(x)
        raise MemoryError()
    try:
        _cg_seat_bots(g, bots, gr.players)
    except BaseException:
        _cgctx_done(x)
        free(g)
        free(rb)
        raise
    if trace is not None and trace.shape[0] > 0:
        g.trace = &trace[0, 0]
        g.trace_cap = trace.shape[0]
    with nogil:
        status = _cg_play(&core.r, &gr, &decks[0, 0] if nd > 0 else NULL, <int>nd, first, game,
                          &out[0, 0] if cap > 0 else NULL, cap, &rows, &turns, &rounds, g, x,
                          rb, &detail, st)
    events = g.trace_n
    if g.search_err and status == CG_OK:
        status = g.search_err
    if trace is not None and events > g.trace_cap:
        status = CG_FULL
    _cgctx_done(x)
    free(g)
    free(rb)
    if status == CG_NO_MEMORY:
        raise MemoryError("the carousel solver ran out of memory")
    return status, detail, rounds, rows, turns, events
