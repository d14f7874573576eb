# _game_searchbot.pxi: the search bot's decision loop in C.
#
# At each of its decisions the search bot lists candidate moves (the tactician's own,
# the other draw, openings and waiting, lay-downs, lay-offs, joker swaps, discards),
# plays each out from many determinizations of what it has not seen (common random
# numbers: every candidate of a determinization meets the same deal of the unseen
# cards and the same reshuffles), and races them: a challenger that cannot beat the
# tactician's move is dropped early, the worse half is dropped at each checkpoint
# (sequential halving), and the last one is tested against the tactician's move on
# fresh determinizations, stopping as soon as the paired test is decided. The same
# code serves a kernel seat (search_move, inside play) and the Python SearchBot
# (Position.search, from a PlayerView): the same view, generator and moves.
#
# (Included by _game.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _game.pyx.)

# --------------------------------------------------------------------------- candidates
cdef enum:
    K_BOT = 0           # the rollout bot's (tactician's) own move
    K_DRAW = 1          # draw from source a
    K_DISCARD = 2       # discard card a
    K_LAYOFF = 3        # lay card a off on table meld b, side c
    K_SWAP = 4          # swap card a for the joker of table meld b
    K_LAY = 5           # lay down the melds lays[a]
    MAXCAND = 24
    MAXLAYC = 3
    MAX_OFFC = 6        # lay-off candidates (one a card)
    MAX_SWAPC = 4
    LOGCAP = 400        # a candidate's first move, logged (dedupe; the answer)
    SBATCH = 8          # determinizations between two looks at the statistics
    SMIN = 16           # determinizations of a paired test before it may stop
    SFIRST = 8          # determinizations of several challengers before the first look
    S_DEFAULT_BUDGET = 256
    S_DEFAULT_HORIZON = 4  # rollout turns before the static margin (0: to the end)


ctypedef struct Cand:
    int kind, a, b, c


ctypedef struct SearchWork:
    Game V              # the view: others' hands hold their known cards only
    Game B              # a determinization
    Game G              # a rollout
    int ncand
    Cand cand[MAXCAND]
    int nlays
    int lay_n[MAXLAYC]
    TMeld lays[MAXLAYC][MAXGO]
    int32_t logs[MAXCAND][LOGCAP]
    Py_ssize_t logn[MAXCAND]
    int alive[MAXCAND]
    double s1[MAXCAND]  # paired differences (candidate less the bot's move): sum
    double s2[MAXCAND]  # ... sum of squares
    double margin[MAXCAND]
    int n               # determinizations in s1, s2
    int pool[MAXDECK]
    int npool
    int hidden[MAXP]
    int deal[MAXDECK]
    # what the search did
    int rollouts        # kernel rollouts played
    int searched        # candidates beyond the bot's move were tested
    int switched        # the move is not the bot's
    int chosen


cdef inline double now_ms() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec * 1000.0 + ts.tv_nsec / 1e6


cdef int apply_cand(Game* G, SearchWork* W, const Cand* c) noexcept nogil:
    """Make candidate ``c`` for the player on turn (0; -1 if it is not a move here)."""
    cdef int p = G.current, save
    if c.kind == K_BOT:
        save = G.bot[p]
        G.bot[p] = B_TACTICIAN
        if G.phase == PH_DRAW:
            tact_draw(G)
        else:
            tact_play(G)
        G.bot[p] = save
        return 0
    if c.kind == K_DRAW:
        if G.phase != PH_DRAW:
            return -1
        if (c.a == SRC_STOCK and G.stock_n > 0) or (c.a == SRC_DISCARD and G.pile_n > 0) \
                or (c.a == SRC_BOTTOM and G.bottom >= 0):
            do_draw(G, c.a)
            return 0
        return -1
    if G.phase != PH_PLAY:
        return -1
    if c.kind == K_DISCARD:
        if not 0 <= c.a <= JOKER or G.cnt[p][c.a] <= 0 or not may_discard(G, c.a):
            return -1
        do_discard(G, c.a)
    elif c.kind == K_LAYOFF:
        do_lay_off(G, c.a, c.b, c.c)
    elif c.kind == K_SWAP:
        do_swap(G, c.a, c.b)
    elif c.kind == K_LAY:
        lay_melds(G, W.lays[c.a], W.lay_n[c.a])
    else:
        return -1
    return 0


cdef void add_cand(SearchWork* W, int kind, int a, int b, int c) noexcept nogil:
    if W.ncand < MAXCAND:
        W.cand[W.ncand].kind = kind
        W.cand[W.ncand].a = a
        W.cand[W.ncand].b = b
        W.cand[W.ncand].c = c
        W.ncand += 1


cdef void add_lay_cand(Game* V, SearchWork* W, const uint8_t* codes, int n,
                       int must) noexcept nogil:
    """The best lay-down (keeping a card) of ``codes``, if the player may make it."""
    cdef int path[MAX_DEPTH]
    cdef int depth = 0, v, k
    if W.nlays >= MAXLAYC:
        return
    v = qsolve(V, codes, n, MODE_BEST, 1, must, path, &depth)
    if depth == 0 or (not V.opened[V.current] and v < V.g.threshold):
        return
    k = opening_melds(V, path, depth, W.lays[W.nlays])
    if not can_lay(V, W.lays[W.nlays], k):
        return
    W.lay_n[W.nlays] = k
    add_cand(W, K_LAY, W.nlays, 0, 0)
    W.nlays += 1


cdef void add_discards(Game* V, SearchWork* W, int want) noexcept nogil:
    """Up to ``want`` discards, best first by the greedy bot's key: unopened, the best
    opening value the rest keeps; opened, the least deadwood it leaves (less the
    tactician's penalty for a card that feeds the next player); a joker last."""
    cdef uint8_t codes[MAXCODES]
    cdef int cands[53]
    cdef int key[53]
    cdef int order[53]
    cdef int p = V.current, nc, i, j, c, n, v, t
    nc = discard_cands(V, cands)
    for i in range(nc):
        c = cands[i]
        n = hand_codes(V, p, codes, -1, c)
        if V.opened[p]:
            v = -qsolve(V, codes, n, MODE_DEADWOOD, 0, -1, NULL, NULL)
            if feeds(V, c):
                v -= V.feed_pen[p]
        else:
            v = qsolve(V, codes, n, MODE_BEST, 0, -1, NULL, NULL)
        key[i] = v * 64 + cval(V.g, c) - (1 << 24 if c == JOKER else 0)
        j = i
        while j > 0 and key[order[j - 1]] < key[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
    t = 0
    for i in range(nc):
        if t >= want:
            break
        add_cand(W, K_DISCARD, cands[order[i]], 0, 0)
        t += 1


cdef void list_cands(Game* V, SearchWork* W, Moves* M, int want) noexcept nogil:
    """The candidate moves of the player on turn in view ``V``: the tactician's move
    first, then the others (see SearchBot); duplicates of an earlier candidate's move
    are dropped by comparing their logged moves."""
    cdef uint8_t codes[MAXCODES]
    cdef int p = V.current, n, i, c, k, seen, nj
    cdef int cards_seen[53]
    cdef int32_t* saved_log = V.log
    cdef Py_ssize_t saved_n = V.log_n, saved_cap = V.log_cap
    cdef uint64_t dummy = 0
    cdef bitgen_t smg
    W.ncand = 0
    W.nlays = 0
    add_cand(W, K_BOT, 0, 0, 0)
    if V.phase == PH_DRAW:
        if can_take_bottom(V):
            return              # it goes out with it (-120): the tactician takes it
        if V.stock_n > 0:
            add_cand(W, K_DRAW, SRC_STOCK, 0, 0)
        if V.pile_n > 0 and can_take_discard(V):
            add_cand(W, K_DRAW, SRC_DISCARD, 0, 0)
    elif not V.freed and not V.tbottom:
        if not V.opened[p]:
            # which opening: the most valuable, or the most valuable keeping the jokers
            n = hand_codes(V, p, codes, -1, -1)
            add_lay_cand(V, W, codes, n, must_use(V))
            nj = V.cnt[p][JOKER]
            if nj > 0 and must_use(V) != JOKER:
                add_lay_cand(V, W, codes, n - nj, must_use(V))   # jokers sort last
            # or wait: a discard
            add_discards(V, W, want)
        else:
            if V.hn[p] > 3:
                n = hand_codes(V, p, codes, -1, -1)
                add_lay_cand(V, W, codes, n, -1)
            if list_plays(V, M) == 0:
                for i in range(M.nswap):
                    if i >= MAX_SWAPC:
                        break
                    add_cand(W, K_SWAP, M.swap_card[i], M.swap_meld[i], 0)
                memset(cards_seen, 0, sizeof(cards_seen))
                seen = 0
                for i in range(M.noff):
                    c = M.off_card[i]
                    if cards_seen[c] or seen >= MAX_OFFC:
                        continue
                    cards_seen[c] = 1
                    seen += 1
                    add_cand(W, K_LAYOFF, c, M.off_meld[i], M.off_side[i])
            add_discards(V, W, want)
    # each candidate's move, logged on a copy of the view; drop repeats
    smg.state = &dummy
    smg.next_uint64 = sm_next64
    smg.next_uint32 = sm_next32
    smg.next_double = sm_double
    smg.next_raw = sm_raw
    k = 0
    for i in range(W.ncand):
        W.G = V[0]
        W.G.bg = &smg
        W.G.log = &W.logs[k][0]
        W.G.log_n = 0
        W.G.log_cap = LOGCAP
        if apply_cand(&W.G, W, &W.cand[i]) < 0 or W.G.err or W.G.log_n > LOGCAP:
            continue
        W.logn[k] = W.G.log_n
        seen = 0
        for c in range(k):
            if W.logn[c] == W.logn[k] and memcmp(&W.logs[c][0], &W.logs[k][0],
                                                 W.logn[k] * sizeof(int32_t)) == 0:
                seen = 1
                break
        if not seen:
            W.cand[k] = W.cand[i]
            k += 1
    W.ncand = k
    V.log = saved_log
    V.log_n = saved_n
    V.log_cap = saved_cap


# --------------------------------------------------------------------------- the race
cdef inline double cand_z(const SearchWork* W, int i, double* mean) noexcept nogil:
    """Candidate i's paired mean difference (``mean``) over its standard error."""
    cdef double m, var
    m = W.s1[i] / W.n
    mean[0] = m
    if W.n < 2:
        return 0.0
    var = (W.s2[i] - W.n * m * m) / (W.n - 1)
    if var <= 1e-12:
        return 0.0 if m == 0 else (1e9 if m > 0 else -1e9)
    return m / sqrt(var / W.n)


cdef int determinize(SearchWork* W, bitgen_t* bg, uint64_t* seed) noexcept nogil:
    """W.B: the view with the unseen cards dealt at random to the hidden parts of the
    other hands and to the stock; ``seed`` the reshuffles' seed."""
    cdef int i, q, c, pos = 0, sn
    for i in range(W.npool):
        W.deal[i] = W.pool[i]
    np_shuffle(bg, W.deal, W.npool)
    seed[0] = bg.next_uint64(bg.state)
    W.B = W.V
    for q in range(W.B.n):
        for c in range(W.hidden[q]):
            W.B.cnt[q][W.deal[pos]] += 1
            pos += 1
    sn = W.npool - pos
    for i in range(sn):
        W.B.stock[i] = W.deal[pos + i]
    W.B.stock_n = sn
    return 0


cdef void play_to(Game* G, Moves* M, int horizon) noexcept nogil:
    """``play``, cut off at the start of the turn ``horizon`` turns on (0: no cut)."""
    cdef int steps = 0, turn = G.turn, stop = G.turn + horizon
    if horizon <= 0:
        play(G, M)
        return
    while G.phase != PH_OVER and not G.err:
        if G.phase == PH_DRAW and G.turn >= stop:
            return
        if G.phase == PH_DRAW:      # every seat of a rollout is the tactician
            tact_draw(G)
        else:
            tact_play(G)
        if G.turn != turn:
            turn = G.turn
            steps = 0
        steps += 1
        if steps > MAX_TURN_STEPS:
            G.err = E_STEPS


cdef double static_margin(Game* G, int me) noexcept nogil:
    """The margin (others' mean less ``me``'s) of a rollout cut off before the deal's
    end: each hand scored as if another player went out now (not opened: the unopened
    penalty; opened: its deadwood, what is left after laying its best melds)."""
    cdef uint8_t codes[MAXCODES]
    cdef int q, n, v
    cdef double others = 0, mine = 0
    for q in range(G.n):
        if not G.opened[q]:
            v = G.g.score_unopened
        else:
            n = hand_codes(G, q, codes, -1, -1)
            v = qsolve(G, codes, n, MODE_DEADWOOD, 0, -1, NULL, NULL)
        if q == me:
            mine = v
        else:
            others += v
    return others / (G.n - 1) - mine


cdef int search_decide(SearchWork* W, Moves* M, bitgen_t* bg, int budget, int want,
                       double z, double ms, int horizon, const Net* net) noexcept nogil:
    """Choose among W.V's candidates (list_cands) by racing determinized rollouts; returns
    the chosen candidate's index (0: the tactician's move), -1 on a kernel error. A
    rollout cut off at the horizon is scored by the learned model (``net``, when it has
    one: the margin it expects for the deciding player from what that player would see
    there) or else by the static margin."""
    cdef int i, j, r, q, k, me = W.V.current, alive, best, look, least, fresh = 0
    cdef double mean, zz, bz, bm, others, deadline = 0.0
    cdef double means[MAXCAND]
    cdef uint64_t seed, sm_state
    cdef bitgen_t smg
    smg.state = &sm_state
    smg.next_uint64 = sm_next64
    smg.next_uint32 = sm_next32
    smg.next_double = sm_double
    smg.next_raw = sm_raw
    W.rollouts = 0
    W.searched = 0
    W.switched = 0
    W.chosen = 0
    W.V.log = NULL
    W.V.log_n = 0
    W.V.log_cap = 0
    for q in range(W.V.n):
        W.V.bot[q] = B_TACTICIAN
        W.V.take_gain[q] = 6
        W.V.feed_pen[q] = 6
    list_cands(&W.V, W, M, want)
    if W.V.err:
        return -1
    if W.ncand < 2:
        return 0
    if net != NULL and net.nin > 0 and S_PRIOR:
        if model_first(W, net) < 0:
            return -1
    W.searched = 1
    if ms > 0:
        deadline = now_ms() + ms
    for i in range(W.ncand):
        W.alive[i] = 1
        W.s1[i] = 0
        W.s2[i] = 0
    W.n = 0
    alive = W.ncand - 1
    least = SMIN if W.ncand == 2 else SFIRST
    look = least
    while alive > 0:
        if W.n >= least and W.rollouts + (alive + 1) * SBATCH > budget:
            break
        if ms > 0 and W.n >= least and now_ms() >= deadline:
            break
        for r in range(SBATCH):
            determinize(W, bg, &seed)
            for i in range(W.ncand):
                if not W.alive[i]:
                    continue
                W.G = W.B
                sm_state = seed
                W.G.bg = &smg
                apply_cand(&W.G, W, &W.cand[i])
                play_to(&W.G, M, horizon)
                if W.G.err:
                    W.V.err = W.G.err
                    return -1
                if W.G.phase != PH_OVER:
                    if net != NULL and net.nin > 0:
                        W.margin[i] = horizon_value(&W.G, me, net)
                    else:
                        W.margin[i] = static_margin(&W.G, me)
                else:
                    others = 0
                    for q in range(W.G.n):
                        if q != me:
                            others += W.G.scores[q]
                    W.margin[i] = others / (W.G.n - 1) - W.G.scores[me]
                W.rollouts += 1
            for i in range(1, W.ncand):
                if W.alive[i]:
                    mean = W.margin[i] - W.margin[0]
                    W.s1[i] += mean
                    W.s2[i] += mean * mean
            W.n += 1
        if W.n < look:
            continue
        # drop a challenger that cannot beat the bot's move, or ties it everywhere
        for i in range(1, W.ncand):
            if W.alive[i]:
                zz = cand_z(W, i, &mean)
                means[i] = mean
                if zz < (0.0 if fresh or W.ncand == 2 else -1.0) or (mean <= 0 and W.s2[i] == 0):
                    W.alive[i] = 0
                    alive -= 1
        if alive > 2 and not fresh:
            # sequential halving: the better half (by mean) goes on
            k = alive // 2
            for j in range(alive - k):
                bm = 1e18
                best = -1
                for i in range(1, W.ncand):
                    if W.alive[i] and means[i] < bm:
                        bm = means[i]
                        best = i
                W.alive[best] = 0
            alive = k
        if alive == 1 and not fresh and W.ncand > 2:
            # the last challenger, chosen from several: a fresh test (no selection bias)
            fresh = 1
            for i in range(1, W.ncand):
                W.s1[i] = 0
                W.s2[i] = 0
            W.n = 0
            least = SMIN
            look = SMIN
            continue
        if alive == 1 and W.ncand == 2:
            fresh = 1
        look = W.n + SBATCH
        if fresh and alive == 1:
            best = 0
            for i in range(1, W.ncand):
                if W.alive[i]:
                    zz = cand_z(W, i, &mean)
                    if zz > 3.0 and mean > 0:
                        best = i
            if best:
                break               # decided: the challenger wins clearly
    # the move: the best live challenger if it beats the bot's by z standard errors
    bz = -1e18
    best = 0
    for i in range(1, W.ncand):
        if W.alive[i] and W.n >= 2:
            zz = cand_z(W, i, &mean)
            if mean > 0 and zz > z and zz > bz:
                bz = zz
                best = i
    W.chosen = best
    W.switched = best != 0
    return best


cdef int view_for(const Game* G, int me, SearchWork* W) noexcept nogil:
    """W.V, W.pool, W.hidden: what seat ``me`` sees in ``G`` (its hand, for every other
    seat the known cards and how many more it holds, the public cards), as
    search.view_position loads a PlayerView. -1 if the counts do not add up."""
    cdef int u[53]
    cdef int q, c, i, j, k = 0, h
    W.V = G[0]
    for c in range(53):
        u[c] = G.g.deckcnt[c] - G.cnt[me][c]
    for i in range(G.pile_n):
        u[G.pile[i]] -= 1
    for i in range(G.table_n):
        for j in range(G.table[i].n):
            u[G.table[i].cards[j]] -= 1
    if G.bottom >= 0:
        u[G.bottom] -= 1
    for q in range(G.n):
        if q == me:
            W.hidden[q] = 0
            continue
        h = 0
        for c in range(53):
            k = G.known[q][c] if G.known[q][c] < G.cnt[q][c] else G.cnt[q][c]
            W.V.cnt[q][c] = k
            W.V.known[q][c] = k
            u[c] -= k
            h += k
        W.hidden[q] = G.hn[q] - h
    k = 0
    for c in range(53):
        if u[c] < 0:
            return -1
        for i in range(u[c]):
            W.pool[k] = c
            k += 1
    W.npool = k
    return 0


cdef int view_of(const Game* G, SearchWork* W) noexcept nogil:
    """``view_for`` the player on turn, and -1 also when the hidden hands and the stock
    are not the pool."""
    cdef int q, h = 0
    if view_for(G, G.current, W) < 0:
        return -1
    for q in range(G.n):
        h += W.hidden[q]
    if h + G.stock_n != W.npool:
        return -1
    return 0


cdef void search_move(Game* G, Moves* M) noexcept nogil:
    """The search bot's move in a kernel deal: its view, the race, the chosen move."""
    cdef SearchWork* W
    cdef int p = G.current, best
    W = <SearchWork*>malloc(sizeof(SearchWork))
    if W == NULL:
        G.err = E_STATE
        return
    if view_of(G, W) < 0:
        free(W)
        G.err = E_STATE
        return
    best = search_decide(W, M, G.brng[p], G.s_budget[p], G.s_cands[p], G.s_z[p], G.s_ms[p],
                         G.s_horizon[p], &G.net[p] if G.bot[p] == B_SEARCH else NULL)
    if best < 0:
        G.err = W.V.err if W.V.err else E_STATE
        free(W)
        return
    apply_cand(G, W, &W.cand[best])
    free(W)
