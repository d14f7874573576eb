# _game_learned.pxi: the learned evaluator in the Rummy 51 kernel.
#
# A position's features as one player sees them (r51_features: only that player's hand,
# the public cards, what the public history shows of other hands, counts; never another
# hand's unknown cards nor the stock's order), the model's value of a position
# (net_value, the forward pass of _net.pxd), the learned bot (learned_decide: each
# candidate move's resulting position valued by the model, the best taken; the draw
# compares taking the discard with the stock draw's afterstate), and the self-play
# recorder that makes the training data (record_deal).
#
# (Included by _game.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _game.pyx.)

# the defaults are the shipped bots; bench/r51_learned_pilot.py --tune sets the others
cdef int S_PRIOR = 0    # the search: the model's favourite candidate first (1) or the tactician's (0)
cdef int L_ALL = 1      # the learned bot compares every candidate (1) or the discards only (0)
cdef int L_DRAW = 0     # the learned bot's draw: the model's (1) or the tactician's (0)
cdef int S_SYM = 2      # the search's horizon: the model from my view (0), every seat's (1),
                        # half that and half the static margin (2)


def _learned_tune(int prior=0, int all_moves=1, int draw=0, int sym=2):
    """Pilot switches (bench/r51_learned_pilot.py ``--tune PRIOR ALL DRAW SYM``); the
    defaults are the shipped bots'. Process-wide: for measurements only."""
    global S_PRIOR, L_ALL, L_DRAW, S_SYM
    S_PRIOR = prior
    L_ALL = all_moves
    L_DRAW = draw
    S_SYM = sym


# --------------------------------------------------------------------------- features
cdef enum:
    R51_FEATURE_VERSION = 1
    F_OWN = 0           # [53] the player's hand, copies of each card code
    F_PUBLIC = 53       # [53] cards seen elsewhere: discard pile, table, bottom, known in other hands
    F_FITS = 106        # [53] 1 if the card can be laid off on the table now
    F_TOP = 159         # [53] the discard pile's top card
    F_NEXT = 212        # [53] cards the next player is known to hold
    F_S = 265           # the scalars below
    NF = F_S + 48


cdef void table_fits(const Game* G, int* fits) noexcept nogil:
    """``fits[c]``: card ``c`` may be laid off on some table meld (lay_off_side >= 0)."""
    cdef int i, c, s, lo, hi, suit, nj
    cdef const TMeld* m
    cdef int have
    for c in range(53):
        fits[c] = 0
    for i in range(G.table_n):
        m = &G.table[i]
        nj = meld_jokers(m)
        if nj + 1 <= G.g.mj:
            if m.kind == RUN:
                lo = m.reps[0] % 13
                hi = lo + m.n - 1
                if hi < G.g.top or lo > 0:
                    fits[JOKER] = 1
            elif m.n < 4:
                fits[JOKER] = 1
        if m.kind == SET:
            if m.n >= 4:
                continue
            have = 0
            for c in range(m.n):
                if m.cards[c] != JOKER:
                    have |= 1 << (m.cards[c] // 13)
            for s in range(4):
                if not (have >> s) & 1:
                    fits[s * 13 + m.reps[0] % 13] = 1
        else:
            lo = m.reps[0] % 13
            hi = lo + m.n - 1
            suit = m.reps[0] // 13
            if hi < G.g.top:
                fits[pcard(hi + 1, suit)] = 1
            if lo > 0:
                fits[pcard(lo - 1, suit)] = 1


cdef int r51_features(Game* G, int p, int pending, float* x) noexcept nogil:
    """The features (NF values, integers) of ``G`` as player ``p`` sees it. ``pending``:
    the afterstate of a draw from the stock whose card is not seen yet (the player on
    turn, still in the draw phase). Reads ``p``'s hand, the table, the discard pile, the
    bottom card, every seat's known cards, hand sizes, who opened, the turn, the stock's
    size, and this turn's facts; of another seat's hand nothing but its size and known
    cards. Returns 0, or -1 on a solver error (G.err)."""
    cdef uint8_t codes[MAXCODES]
    cdef int fits[53]
    cdef int i, j, c, q, k, n, v, nxt, cur = G.current, me_on = G.current == p
    cdef int pts = 0, kn, kj, mino = 99, nopen = 0, swaps = 0, tj = 0, offs = 0, unseen
    cdef int targets[4]
    cdef int nt
    cdef float* s = x + F_S
    memset(x, 0, NF * sizeof(float))
    for c in range(53):
        x[F_OWN + c] = G.cnt[p][c]
        pts += G.cnt[p][c] * cval(G.g, c)
    for i in range(G.pile_n):
        x[F_PUBLIC + G.pile[i]] += 1
    for i in range(G.table_n):
        for j in range(G.table[i].n):
            x[F_PUBLIC + G.table[i].cards[j]] += 1
            if G.table[i].cards[j] == JOKER:
                tj += 1
    if G.bottom >= 0:
        x[F_PUBLIC + G.bottom] += 1
    nxt = (p + 1) % G.n
    for q in range(G.n):
        if q == p:
            continue
        for c in range(53):
            k = G.known[q][c]      # public (never more than the hand holds)
            if k:
                x[F_PUBLIC + c] += k
                if q == nxt:
                    x[F_NEXT + c] = k
    unseen = 0
    for c in range(53):
        unseen += G.g.deckcnt[c] - G.cnt[p][c] - <int>x[F_PUBLIC + c]
    table_fits(G, fits)
    for c in range(53):
        x[F_FITS + c] = fits[c]
        if fits[c] and G.cnt[p][c]:
            offs += 1
    if G.pile_n > 0:
        x[F_TOP + G.pile[G.pile_n - 1]] = 1
    s[0] = G.n
    s[1] = (cur - p + G.n) % G.n
    s[2] = 1 if G.phase == PH_PLAY else 0
    s[3] = pending
    s[4] = G.turn
    s[5] = G.turn // G.n
    s[6] = free_round(G)
    s[7] = G.stock_n
    s[8] = G.pile_n
    s[9] = G.table_n
    s[10] = 1 if G.bottom >= 0 else 0
    s[11] = G.hn[p]
    s[12] = G.opened[p]
    s[13] = pts
    s[14] = G.cnt[p][JOKER]
    n = hand_codes(G, p, codes, -1, -1)
    if n > 0:
        s[15] = qsolve(G, codes, n, MODE_BEST, 1, -1, NULL, NULL)
        s[16] = qsolve(G, codes, n, MODE_DEADWOOD, 0, -1, NULL, NULL)
        s[17] = qsolve(G, codes, n, MODE_GO_OUT, 0, -1, NULL, NULL) if n >= 2 else 0
    s[18] = 1 if (not G.opened[p] and s[15] >= G.g.threshold) else 0
    s[19] = G.turn_opened[p] if G.turn_opened[p] > 0 else 0
    if me_on:
        s[20] = 1 if G.src == SRC_STOCK else 0
        s[21] = 1 if G.src == SRC_DISCARD else 0
        s[22] = 1 if G.src == SRC_BOTTOM else 0
        s[23] = G.must_open
        s[24] = G.freed
        s[25] = G.tbottom
        s[26] = G.touched
    k = 0
    for j in range(1, G.n):
        q = (p + j) % G.n
        kn = 0
        kj = 0
        for c in range(53):
            v = G.known[q][c]
            kn += v
            if c == JOKER:
                kj = v
        if G.hn[q] < mino:
            mino = G.hn[q]
        nopen += G.opened[q]
        if j <= 3:
            s[27 + 5 * (j - 1)] = G.hn[q]
            s[28 + 5 * (j - 1)] = G.opened[q]
            s[29 + 5 * (j - 1)] = kn
            s[30 + 5 * (j - 1)] = kj
            s[31 + 5 * (j - 1)] = G.turn_opened[q] if G.turn_opened[q] > 0 else 0
    s[42] = mino
    s[43] = nopen
    for i in range(G.table_n):
        nt = swap_target_list(&G.table[i], targets)
        for j in range(nt):
            if G.cnt[p][targets[j]]:
                swaps += 1
    s[44] = swaps
    s[45] = tj
    s[46] = unseen
    s[47] = offs
    return -1 if G.err else 0


cdef inline double net_value(Game* G, int p, const Net* net, int pending) noexcept nogil:
    """The model's margin (points) of ``G`` for player ``p``."""
    cdef float x[NF]
    cdef float out[2]
    r51_features(G, p, pending, x)
    net_forward(net, x, out)
    return out[0]


cdef double horizon_value(Game* G, int me, const Net* net) noexcept nogil:
    """A rollout's value at the horizon for ``me``: the model's margin for ``me`` from
    ``me``'s view of the rollout's position, and (``S_SYM``) the same from every other
    seat's own view of it, the margins summing to zero: ``(V_me - sum of the others' V)
    / 2``. Each evaluation reads one seat's view only; the others' hands there are the
    rollout's determinization, drawn from what ``me`` has seen."""
    cdef double v = net_value(G, me, net, 0)
    cdef int q
    if not S_SYM:
        return v
    for q in range(G.n):
        if q != me:
            v -= net_value(G, q, net, 0)
    if S_SYM == 2:       # half the static margin, half the model's
        return (v / 2 + static_margin(G, me)) / 2
    return v / 2


# --------------------------------------------------------------------------- the learned bot
cdef enum:
    L_WANT = 3          # discard candidates (the search's list_cands)


cdef int learned_decide(SearchWork* W, Moves* M, const Net* net) noexcept nogil:
    """The learned bot's choice among W.V's candidates (W.cand; returns the index, -1 on a
    kernel error): every candidate's resulting position valued by the model for the
    player on turn, the best taken (the tactician's move, listed first, wins a tie); a
    move that goes out is always taken. In the draw phase: the bottom card when it may
    be taken (it goes out), else the discard pile's top against the stock, the stock
    valued as its afterstate (the drawn card not seen yet)."""
    cdef Game* V = &W.V
    cdef int p = V.current, q, i, best = 0
    cdef double v, bv = -1e18
    cdef uint64_t dummy = 0
    cdef bitgen_t smg
    smg.state = &dummy
    smg.next_uint64 = sm_next64
    smg.next_uint32 = sm_next32
    smg.next_double = sm_double
    smg.next_raw = sm_raw
    V.log = NULL
    V.log_n = 0
    V.log_cap = 0
    for q in range(V.n):
        V.bot[q] = B_TACTICIAN
        V.take_gain[q] = 6
        V.feed_pen[q] = 6
    W.ncand = 0
    W.nlays = 0
    if V.phase == PH_DRAW:
        if can_take_bottom(V):
            add_cand(W, K_DRAW, SRC_BOTTOM, 0, 0)
            return 0
        if V.stock_n > 0:
            add_cand(W, K_DRAW, SRC_STOCK, 0, 0)
        if V.pile_n > 0 and can_take_discard(V):
            add_cand(W, K_DRAW, SRC_DISCARD, 0, 0)
        if V.err or W.ncand == 0:
            V.err = V.err if V.err else E_STATE
            return -1
        if W.ncand == 1:
            return 0
        if not L_DRAW:
            W.G = V[0]
            W.G.bg = &smg
            tact_draw(&W.G)
            return 1 if W.G.src == SRC_DISCARD else 0
        bv = net_value(V, p, net, 1)
        W.G = V[0]
        W.G.bg = &smg
        do_draw(&W.G, SRC_DISCARD)
        v = net_value(&W.G, p, net, 0)
        if V.err or W.G.err:
            V.err = E_SOLVER
            return -1
        return 1 if v > bv else 0
    if L_ALL == 0:
        return learned_discard(W, net, &smg)
    list_cands(V, W, M, L_WANT)
    if V.err or W.ncand == 0:
        V.err = V.err if V.err else E_STATE
        return -1
    if W.ncand == 1:
        return 0
    for i in range(W.ncand):
        W.G = V[0]
        W.G.bg = &smg
        if apply_cand(&W.G, W, &W.cand[i]) < 0 or W.G.err:
            V.err = W.G.err if W.G.err else E_STATE
            return -1
        if W.G.phase == PH_OVER:
            v = 1e12 if W.G.winner == p else -1e12
        else:
            v = net_value(&W.G, p, net, 0)
            if W.G.err:
                V.err = W.G.err
                return -1
        if v > bv:
            bv = v
            best = i
    return best


cdef int model_first(SearchWork* W, const Net* net) noexcept nogil:
    """Put the candidate the model values most first (the move a challenger must beat),
    the others after it in their order; its log too. -1 on a kernel error."""
    cdef Game* V = &W.V
    cdef int p = V.current, i, best = 0, src
    cdef double v, bv = -1e18
    cdef uint64_t dummy = 0
    cdef bitgen_t smg
    cdef Cand c
    cdef Py_ssize_t ln
    cdef int32_t tmp[LOGCAP]
    smg.state = &dummy
    smg.next_uint64 = sm_next64
    smg.next_uint32 = sm_next32
    smg.next_double = sm_double
    smg.next_raw = sm_raw
    for i in range(W.ncand):
        W.G = V[0]
        W.G.bg = &smg
        W.G.log = NULL
        src = -1
        if V.phase == PH_DRAW:
            # the tactician's draw is logged as (A_DRAW, source)
            src = W.cand[i].a if W.cand[i].kind == K_DRAW else W.logs[i][1]
        if src == SRC_STOCK:
            v = net_value(V, p, net, 1)     # the stock's card is not seen yet
        else:
            if apply_cand(&W.G, W, &W.cand[i]) < 0 or W.G.err:
                V.err = W.G.err if W.G.err else E_STATE
                return -1
            if W.G.phase == PH_OVER:
                v = 1e12 if W.G.winner == p else -1e12
            else:
                v = net_value(&W.G, p, net, 0)
        if v > bv:
            bv = v
            best = i
    if best:
        c = W.cand[best]
        ln = W.logn[best]
        memcpy(&tmp[0], &W.logs[best][0], ln * sizeof(int32_t))
        for i in range(best, 0, -1):
            W.cand[i] = W.cand[i - 1]
            W.logn[i] = W.logn[i - 1]
            memcpy(&W.logs[i][0], &W.logs[i - 1][0], W.logn[i] * sizeof(int32_t))
        W.cand[0] = c
        W.logn[0] = ln
        memcpy(&W.logs[0][0], &tmp[0], ln * sizeof(int32_t))
    return 0


cdef int learned_discard(SearchWork* W, const Net* net, bitgen_t* smg) noexcept nogil:
    """The play phase of the learned bot: the tactician's move (its lay-down, lay-off or
    joker swap is played as it is), and when that move is a discard, the best of it and
    the other ``L_WANT`` best discards by the greedy bot's key, each valued by the model
    as the position after it (the next player's turn). Candidates in W.cand (the
    tactician's first); returns the chosen one's index, -1 on a kernel error."""
    cdef Game* V = &W.V
    cdef int p = V.current, i, best = 0, tc
    cdef double v, bv
    W.ncand = 0
    W.nlays = 0
    add_cand(W, K_BOT, 0, 0, 0)
    W.G = V[0]
    W.G.bg = smg
    W.G.log = &W.logs[0][0]
    W.G.log_n = 0
    W.G.log_cap = LOGCAP
    if apply_cand(&W.G, W, &W.cand[0]) < 0 or W.G.err:
        V.err = W.G.err if W.G.err else E_STATE
        return -1
    if W.G.log_n < 2 or W.logs[0][0] != A_DISCARD:
        return 0            # a lay-down, a lay-off or a joker swap: the tactician's
    if W.G.phase == PH_OVER:
        return 0            # it goes out
    tc = W.logs[0][1]
    bv = net_value(&W.G, p, net, 0)
    add_discards(V, W, L_WANT)
    for i in range(1, W.ncand):
        if W.cand[i].a == tc:
            continue
        W.G = V[0]
        W.G.bg = smg
        W.G.log = NULL
        if apply_cand(&W.G, W, &W.cand[i]) < 0 or W.G.err:
            V.err = W.G.err if W.G.err else E_STATE
            return -1
        if W.G.phase == PH_OVER:
            v = 1e12 if W.G.winner == p else -1e12
        else:
            v = net_value(&W.G, p, net, 0)
        if v > bv:
            bv = v
            best = i
    if V.err or W.G.err:
        V.err = E_SOLVER
        return -1
    return best


cdef void learned_move(Game* G, Moves* M) noexcept nogil:
    """The learned bot's move in a kernel deal: its view (view_of, as the search bot's),
    the choice, the chosen move."""
    cdef SearchWork* W
    cdef int p = G.current, best
    if G.net[p].nin != NF:
        G.err = E_STATE
        return
    W = <SearchWork*>malloc(sizeof(SearchWork))
    if W == NULL:
        G.err = E_STATE
        return
    if view_of(G, W) < 0:
        free(W)
        G.err = E_STATE
        return
    best = learned_decide(W, M, &G.net[p])
    if best < 0:
        G.err = W.V.err if W.V.err else E_STATE
        free(W)
        return
    apply_cand(G, W, &W.cand[best])
    free(W)


# --------------------------------------------------------------------------- training data
cdef struct Recorder:
    float* X            # [cap][NF]
    int32_t* who        # the seat each row is seen by
    int64_t* ysum       # rollout targets: the sum over the rollouts of margin * (players - 1)
    Py_ssize_t n, cap
    uint64_t st         # splitmix64 state: which positions are recorded, exploration
    uint64_t rst        # splitmix64 state of the rollouts' determinizations
    double rate         # each seat's view of each decision point is recorded with this chance
    double explore      # chance of a random draw or discard instead of the seat's bot
    int rollouts        # rollouts a recorded row (0: no rollout targets)
    SearchWork* W
    Moves* M


cdef inline double rec_u(Recorder* R) noexcept nogil:
    return sm_double(&R.st)


cdef int64_t rollout_target(Game* G, Recorder* R, int q, int pending) noexcept nogil:
    """The sum over R.rollouts determinized rollouts (as ``q`` sees ``G``: the unseen cards
    dealt at random to the other hands' hidden parts and the stock), each played to the
    deal's end by kernel tacticians, of ``q``'s margin times (players - 1)."""
    cdef SearchWork* W = R.W
    cdef int r, o, k
    cdef int64_t tot = 0
    cdef uint64_t seed, sm_state
    cdef bitgen_t rbg, smg
    rbg.state = &R.rst
    rbg.next_uint64 = sm_next64
    rbg.next_uint32 = sm_next32
    rbg.next_double = sm_double
    rbg.next_raw = sm_raw
    smg.state = &sm_state
    smg.next_uint64 = sm_next64
    smg.next_uint32 = sm_next32
    smg.next_double = sm_double
    smg.next_raw = sm_raw
    if view_for(G, q, W) < 0:
        G.err = E_STATE
        return 0
    W.V.log = NULL
    W.V.log_n = 0
    W.V.log_cap = 0
    W.V.err = 0
    for o in range(W.V.n):
        W.V.bot[o] = B_TACTICIAN
        W.V.take_gain[o] = 6
        W.V.feed_pen[o] = 6
    for r in range(R.rollouts):
        determinize(W, &rbg, &seed)
        W.G = W.B
        sm_state = seed
        W.G.bg = &smg
        if pending:
            do_draw(&W.G, SRC_STOCK)
        play(&W.G, R.M)
        if W.G.err:
            G.err = W.G.err
            return 0
        k = 0
        for o in range(W.G.n):
            if o != q:
                k += W.G.scores[o]
        tot += k - (W.G.n - 1) * W.G.scores[q]
    return tot


cdef void rec_row(Game* G, Recorder* R, int q, int pending) noexcept nogil:
    if R.n < R.cap:
        r51_features(G, q, pending, R.X + R.n * NF)
        R.who[R.n] = q
        if R.rollouts > 0:
            R.ysum[R.n] = rollout_target(G, R, q, pending)
    R.n += 1


cdef void play_record(Game* G, Moves* M, Recorder* R) noexcept nogil:
    """``play`` with every seat's view of each decision point recorded with chance
    R.rate (another seat's only at the start of a turn; and the afterstate of each draw
    from the stock, for the drawer), and with
    chance R.explore a random draw source or a random discard instead of the bot's move."""
    cdef int steps = 0, turn = 0, b, q, p, nc, k
    cdef int cands[53]
    while G.phase != PH_OVER and not G.err:
        p = G.current
        for q in range(G.n):
            # another seat's view mid-turn is not recorded (nobody values it: the bots
            # value their own turn and the turns that start after it)
            if rec_u(R) < R.rate and (q == p or G.phase == PH_DRAW):
                rec_row(G, R, q, 0)
        if R.explore > 0 and rec_u(R) < R.explore:
            if G.phase == PH_DRAW and not can_take_bottom(G):
                k = <int>(rec_u(R) * 2)
                if k == 1 and G.pile_n > 0 and can_take_discard(G):
                    do_draw(G, SRC_DISCARD)
                    continue
                if G.stock_n > 0:
                    if rec_u(R) < R.rate * 4:
                        R.W.G = G[0]
                        rec_row(&R.W.G, R, p, 1)
                    do_draw(G, SRC_STOCK)
                    continue
            elif G.phase == PH_PLAY:
                nc = discard_cands(G, cands)
                if nc > 0 and G.hn[p] > 1:
                    do_discard(G, cands[<int>(rec_u(R) * nc)])
                    continue
        b = G.bot[p]
        if G.phase == PH_DRAW and rec_u(R) < R.rate * 4:
            # the stock's afterstate, if the bot draws from it: the position before the draw
            R.W.B = G[0]
            step_bot(G, M, b)
            if G.src == SRC_STOCK:
                R.W.G = R.W.B
                rec_row(&R.W.G, R, p, 1)
        else:
            step_bot(G, M, b)
        if G.turn != turn:
            turn = G.turn
            steps = 0
        steps += 1
        if steps > MAX_TURN_STEPS:
            G.err = E_STEPS


cdef void step_bot(Game* G, Moves* M, int b) noexcept nogil:
    """One move of seat ``b``'s bot (the body of ``play``'s loop)."""
    if b == B_RANDOM:
        random_move(G, M)
    elif b == B_SEARCH or b == B_SEARCH_PLAIN:
        search_move(G, M)
    elif b == B_LEARNED:
        learned_move(G, M)
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


def r51_feature_count():
    """``(version, count)`` of the kernel's features."""
    return R51_FEATURE_VERSION, NF


def record_deal(GreedyKernel k, rng, int players, int first, bots, bot_rngs, params,
                float[:, ::1] X, int32_t[::1] who, uint64_t seed, double rate, double explore,
                int rollouts=0, int64_t[::1] ysum=None):
    """Play one deal as ``play_table`` does, recording features into ``X`` (rows) and the
    seat that sees each row into ``who``; ``seed`` drives which positions are recorded
    and the exploration (``rate``, ``explore``: see play_record) and the rollouts'
    determinizations. With ``rollouts`` each row's ``ysum`` is the sum over that many
    determinized tactician rollouts to the deal's end of the seat's margin times
    (players - 1) (``rollout_target``). Returns ``(rows, winner, scores)``; more rows
    than ``X`` holds are counted, not written."""
    cdef Game G
    cdef Moves* M
    cdef Recorder R
    cdef list keep = []
    if rollouts < 0 or rollouts > 10000:
        raise ValueError(f"rollouts must be 0..10000, got {rollouts}")
    if rollouts and (ysum is None or ysum.shape[0] != X.shape[0]):
        raise ValueError("rollout targets need ysum, one per row of X")
    if players < 2 or players > MAXP:
        raise ValueError(f"players must be 2..{MAXP}, got {players}")
    if X.shape[1] != NF or who.shape[0] != X.shape[0]:
        raise ValueError(f"X must be (rows, {NF}) with who of the same rows")
    if not 0 <= rate <= 1 or not 0 <= explore <= 1:
        raise ValueError("rate and explore must be 0..1")
    memset(&G, 0, sizeof(Game))
    G.sr = core_rules_of(k.core)
    G.g = &k.g
    G.n = players
    seat_bots(&G, players, bots, bot_rngs, params, keep)
    R.X = &X[0, 0] if X.shape[0] > 0 else NULL
    R.who = &who[0] if who.shape[0] > 0 else NULL
    R.ysum = &ysum[0] if (ysum is not None and ysum.shape[0] > 0) else NULL
    R.rollouts = rollouts if R.ysum != NULL else 0
    R.rst = seed ^ <uint64_t>0xD1B54A32D192ED03
    R.n = 0
    R.cap = X.shape[0]
    R.st = seed
    R.rate = rate
    R.explore = explore
    bitgen = rng.bit_generator
    G.bg = _bitgen_of(bitgen)
    M = <Moves*>PyMem_Malloc(sizeof(Moves))
    R.M = <Moves*>PyMem_Malloc(sizeof(Moves))
    R.W = <SearchWork*>malloc(sizeof(SearchWork))
    if M == NULL or R.M == NULL or R.W == NULL:
        PyMem_Free(M)
        PyMem_Free(R.M)
        free(R.W)
        raise MemoryError()
    try:
        with bitgen.lock, nogil:
            new_deal(&G, first)
            play_record(&G, M, &R)
    finally:
        PyMem_Free(M)
        PyMem_Free(R.M)
        free(R.W)
    if G.err:
        raise RuntimeError(f"game kernel: {_ERRORS.get(G.err, G.err)} (turn {G.turn}, "
                           f"player {G.current})")
    return R.n, G.winner, [G.scores[i] for i in range(players)]


# --------------------------------------------------------------------------- Python: positions
def position_features(Position pos, int player, int pending=0, hidden=None, int stock_n=-1):
    """The features (float32, NF values) of a position as ``player`` sees it (``pending``:
    the afterstate of a stock draw the player on turn has not seen yet). A view loaded by
    ``search.view_position`` gives its ``hidden`` counts and the stock's size."""
    cdef Game G = pos.G
    cdef int q, c
    if not 0 <= player < pos.players:
        raise ValueError(f"player must be a seat 0..{pos.players - 1}, got {player}")
    if hidden is not None:
        for q in range(pos.players):
            G.hn[q] += int(hidden[q])
            if q != player:     # a view's other hands hold their known cards only
                for c in range(53):
                    G.known[q][c] = G.cnt[q][c]
    if stock_n >= 0:
        G.stock_n = stock_n
    if pending and (player != G.current or G.phase != PH_DRAW):
        raise ValueError("pending: the player on turn's stock draw, in the draw phase")
    out = np.zeros(NF, np.float32)
    cdef float[::1] x = out
    G.err = 0
    G.log = NULL
    r51_features(&G, player, pending, &x[0])
    if G.err:
        raise RuntimeError(f"game kernel: {_ERRORS.get(G.err, G.err)} in the features")
    return out


def position_learned(Position pos, int32_t[::1] pool, int32_t[::1] hidden, model,
                     int32_t[::1] log):
    """The learned bot's move from a view loaded in ``pos`` (as ``Position.search``: the
    other hands hold their known cards, ``hidden[q]`` more each, ``pool`` the unseen
    cards), logged to ``log``. Returns ``(log_n, candidates, chosen)``."""
    cdef Net net
    cdef list keep = []
    cdef SearchWork* W
    cdef Moves* M
    cdef int q, c, sn, best
    cdef uint64_t dummy = 0
    cdef bitgen_t smg
    cdef Game* G = &pos.G
    net_bind(&net, model, keep)
    if net.nin != NF:
        raise ValueError(f"the model has {net.nin} features, the kernel computes {NF}")
    if hidden.shape[0] != pos.players:
        raise ValueError(f"hidden needs one count a seat, got {hidden.shape[0]}")
    sn = <int>pool.shape[0]
    for q in range(pos.players):
        if hidden[q] < 0 or (q == G.current and hidden[q] != 0):
            raise ValueError(f"hidden[{q}] is {hidden[q]}")
        sn -= hidden[q]
    if sn < 0:
        raise ValueError("the pool holds fewer cards than the hidden hands")
    if G.phase == PH_OVER:
        raise ValueError("the deal is over")
    W = <SearchWork*>malloc(sizeof(SearchWork))
    M = <Moves*>PyMem_Malloc(sizeof(Moves))
    if W == NULL or M == NULL:
        free(W)
        PyMem_Free(M)
        raise MemoryError()
    try:
        W.V = G[0]
        for q in range(pos.players):
            W.hidden[q] = hidden[q]
            W.V.hn[q] += hidden[q]
            if q != G.current:
                for c in range(53):
                    W.V.known[q][c] = W.V.cnt[q][c]
        W.V.stock_n = sn
        W.V.err = 0
        smg.state = &dummy
        smg.next_uint64 = sm_next64
        smg.next_uint32 = sm_next32
        smg.next_double = sm_double
        smg.next_raw = sm_raw
        with nogil:
            best = learned_decide(W, M, &net)
            if best >= 0:
                W.G = W.V
                W.G.log = &log[0]
                W.G.log_n = 0
                W.G.log_cap = log.shape[0]
                W.G.bg = &smg
                apply_cand(&W.G, W, &W.cand[best])
        if best < 0:
            raise RuntimeError(f"game kernel: {_ERRORS.get(W.V.err, W.V.err)} in a learned move")
        return W.G.log_n, W.ncand, best
    finally:
        free(W)
        PyMem_Free(M)
