# _game_analyse.pxi: rollout analysis of one decision.
#
# For the player on turn in a view (search.view_position: the others' hands hold their
# known cards only, the unseen cards in a pool), take the search bot's candidate moves
# (list_cands: the tactician's own move first, the other draw, openings and waiting,
# lay-downs, lay-offs, joker swaps, discards) plus the move actually played when none of
# them makes the same position, and play every candidate on the same determinizations
# (determinize: common random numbers, the same reshuffles) a fixed number of times to
# the end of the deal, the kernel's tactician in every seat. No race and no early stop:
# every candidate gets every determinization, so the equities are plain means.
#
# (Included by _game.pyx after _game_searchbot.pxi, textually: one extension module, one
# C namespace; it calls the search bot's list_cands, apply_cand and determinize and
# changes neither.)

# --------------------------------------------------------------------------- the work
cdef enum:
    AN_MAX = MAXCAND + 1     # the search bot's candidates and the played move
    AN_MAXLAY = MAXT         # melds of a played lay-down
    AN_PLAYED = -1           # index given to the played move when it is its own candidate


ctypedef struct AnalyseWork:
    SearchWork S
    Game P                   # the view after the played move / a candidate's (comparison)
    Game Q
    int nc                   # candidates, the played move included when it is separate
    int played               # the played move's candidate index (-1: none given)
    int pkind, pa, pb, pc    # the played move: A_DRAW .. A_DISCARD and its arguments
    int pn                   # melds of a played lay-down
    TMeld pm[AN_MAXLAY]
    double s1[AN_MAX]        # margins: sum
    double s2[AN_MAX]        # ... sum of squares
    int wins[AN_MAX]
    int n                    # determinizations played
    int32_t plog[LOGCAP]     # the played move as the kernel logs it
    Py_ssize_t plogn


cdef int apply_played(Game* G, AnalyseWork* A) noexcept nogil:
    """Make the played move for the player on turn (0; -1 if it is not a move here)."""
    cdef int p = G.current, i
    if A.pkind == A_DRAW:
        if G.phase != PH_DRAW:
            return -1
        if (A.pa == SRC_STOCK and G.stock_n > 0) or (A.pa == SRC_DISCARD and G.pile_n > 0) \
                or (A.pa == SRC_BOTTOM and G.bottom >= 0):
            do_draw(G, A.pa)
            return 0
        return -1
    if G.phase != PH_PLAY:
        return -1
    if A.pkind == A_DISCARD:
        if not 0 <= A.pa <= JOKER or G.cnt[p][A.pa] <= 0 or not may_discard(G, A.pa):
            return -1
        do_discard(G, A.pa)
    elif A.pkind == A_LAY_OFF:
        if not 0 <= A.pa <= JOKER or G.cnt[p][A.pa] <= 0 or not 0 <= A.pb < G.table_n:
            return -1
        if G.table[A.pb].n >= MAXMC:
            return -1
        do_lay_off(G, A.pa, A.pb, A.pc)
    elif A.pkind == A_SWAP:
        if not 0 <= A.pa < JOKER or G.cnt[p][A.pa] <= 0 or not 0 <= A.pb < G.table_n:
            return -1
        do_swap(G, A.pa, A.pb)
    elif A.pkind == A_LAY_DOWN:
        if A.pn < 1 or G.table_n + A.pn > MAXT:
            return -1
        lay_melds(G, A.pm, A.pn)
    else:
        return -1
    return 0


cdef int an_apply(Game* G, AnalyseWork* A, int i) noexcept nogil:
    """Make candidate ``i`` (the played move when it is the last and separate)."""
    if i < A.S.ncand:
        return apply_cand(G, &A.S, &A.S.cand[i])
    return apply_played(G, A)


cdef int same_meld(const TMeld* a, const TMeld* b) noexcept nogil:
    cdef int j
    if a.kind != b.kind or a.n != b.n or a.owner != b.owner:
        return 0
    for j in range(a.n):
        if a.cards[j] != b.cards[j] or a.reps[j] != b.reps[j]:
            return 0
    return 1


cdef int same_result(const Game* a, const Game* b) noexcept nogil:
    """Whether two moves from the same view left the same position (the same hand, table,
    piles and turn state): then they are the same move."""
    cdef int p = a.current, c, i
    if (a.phase != b.phase or a.current != b.current or a.turn != b.turn
            or a.table_n != b.table_n or a.pile_n != b.pile_n or a.stock_n != b.stock_n
            or a.bottom != b.bottom or a.src != b.src or a.drawn != b.drawn
            or a.must_open != b.must_open or a.tbottom != b.tbottom or a.freed != b.freed
            or a.touched != b.touched or a.winner != b.winner or a.how != b.how):
        return 0
    for i in range(a.n):
        if a.hn[i] != b.hn[i] or a.opened[i] != b.opened[i]:
            return 0
        for c in range(53):
            if a.cnt[i][c] != b.cnt[i][c]:
                return 0
    for i in range(a.pile_n):
        if a.pile[i] != b.pile[i]:
            return 0
    for i in range(a.table_n):
        if not same_meld(&a.table[i], &b.table[i]):
            return 0
    return 1


cdef int analyse_decide(AnalyseWork* A, Moves* M, bitgen_t* bg, int rollouts, int want,
                        double ms) noexcept nogil:
    """List the candidates (and place the played move among them), then play each on
    ``rollouts`` determinizations (or, with ``ms`` > 0, as many as fit in that many
    milliseconds, at least 2 and at most ``rollouts``). 0; -1 on a kernel error, -2 if the
    played move is not a move here."""
    cdef SearchWork* W = &A.S
    cdef int i, q, r, me = W.V.current
    cdef double others, margin, deadline = 0.0
    cdef uint64_t seed, sm_state = 0
    cdef bitgen_t smg
    smg.state = &sm_state
    smg.next_uint64 = sm_next64
    smg.next_uint32 = sm_next32
    smg.next_double = sm_double
    smg.next_raw = sm_raw
    W.V.log = NULL
    W.V.log_n = 0
    W.V.log_cap = 0
    W.rollouts = 0
    for q in range(W.V.n):
        W.V.bot[q] = B_TACTICIAN
        W.V.take_gain[q] = 6
        W.V.feed_pen[q] = 6
    list_cands(&W.V, W, M, want)
    if W.V.err:
        return -1
    A.nc = W.ncand
    if A.played >= 0:
        # the played move, logged on a copy of the view; the candidate making the same
        # position is the played move, else it is a candidate of its own (the last)
        A.P = W.V
        A.P.bg = &smg
        A.P.log = &A.plog[0]
        A.P.log_n = 0
        A.P.log_cap = LOGCAP
        if apply_played(&A.P, A) < 0 or A.P.err or A.P.log_n > LOGCAP:
            return -2
        A.plogn = A.P.log_n
        A.played = W.ncand
        for i in range(W.ncand):
            A.Q = W.V
            A.Q.bg = &smg
            sm_state = 0
            if apply_cand(&A.Q, W, &W.cand[i]) < 0 or A.Q.err:
                continue
            if same_result(&A.P, &A.Q):
                A.played = i
                break
        if A.played == W.ncand:
            A.nc = W.ncand + 1
    for i in range(A.nc):
        A.s1[i] = 0
        A.s2[i] = 0
        A.wins[i] = 0
    A.n = 0
    if ms > 0:
        deadline = now_ms() + ms
    for r in range(rollouts):
        if ms > 0 and r >= 2 and now_ms() >= deadline:
            break
        determinize(W, bg, &seed)
        for i in range(A.nc):
            W.G = W.B
            sm_state = seed
            W.G.bg = &smg
            if an_apply(&W.G, A, i) < 0:
                W.V.err = E_STATE
                return -1
            play(&W.G, M)
            if W.G.err:
                W.V.err = W.G.err
                return -1
            others = 0
            for q in range(W.G.n):
                if q != me:
                    others += W.G.scores[q]
            margin = others / (W.G.n - 1) - W.G.scores[me]
            A.s1[i] += margin
            A.s2[i] += margin * margin
            if W.G.winner == me:
                A.wins[i] += 1
            W.rollouts += 1
        A.n += 1
    return 0


cdef int load_played(AnalyseWork* A, played) except -1:
    """The played move from its Python form: ``(0, source)``, ``(4, card)``, ``(2, card,
    meld, side)`` (side 0 high / only end, 1 low, 2 high), ``(3, card, meld)`` or ``(1,
    melds)`` with ``melds`` a list of ``(kind, cards, stand-ins)`` in slot order."""
    cdef int i, j, k
    cdef TMeld* m
    A.played = -1
    if played is None:
        return 0
    kind = int(played[0])
    A.pkind = kind
    A.pa = A.pb = A.pc = 0
    A.pn = 0
    if kind == A_DRAW or kind == A_DISCARD:
        A.pa = int(played[1])
    elif kind == A_LAY_OFF:
        A.pa, A.pb, A.pc = int(played[1]), int(played[2]), int(played[3])
        if not 0 <= A.pc <= 2:
            raise ValueError(f"played lay-off side {A.pc} is not 0..2")
    elif kind == A_SWAP:
        A.pa, A.pb = int(played[1]), int(played[2])
    elif kind == A_LAY_DOWN:
        melds = played[1]
        k = len(melds)
        if not 1 <= k <= AN_MAXLAY:
            raise ValueError(f"a played lay-down of {k} melds")
        for i, (mk, cards, reps) in enumerate(melds):
            if len(cards) != len(reps) or not 3 <= len(cards) <= MAXMC:
                raise ValueError(f"played meld {i}: {len(cards)} cards, {len(reps)} stand-ins")
            m = &A.pm[i]
            m.kind = int(mk)
            m.owner = -1
            m.n = len(cards)
            for j in range(m.n):
                m.cards[j] = int(cards[j])
                m.reps[j] = int(reps[j])
                if not 0 <= m.cards[j] <= JOKER or not 0 <= m.reps[j] < JOKER:
                    raise ValueError(f"played meld {i}: a card code out of range")
        A.pn = k
    else:
        raise ValueError(f"played move kind {kind} is not 0..4")
    if not 0 <= A.pa <= JOKER:
        raise ValueError(f"played move card or source {A.pa} out of range")
    A.played = 0
    return 0


def analyse(Position pos, int32_t[::1] pool, int32_t[::1] hidden, rng, int rollouts,
            int want=3, double ms=0.0, played=None):
    """Rollout analysis of the decision of the player on turn in a view loaded into
    ``pos`` (``search.view_position``: ``pool`` the unseen cards ascending, ``hidden[q]``
    how many of them seat ``q`` holds beyond its known cards).

    The candidates are the search bot's (``want`` discard candidates), the tactician's
    move first; ``played`` (see ``load_played``), if given, is the candidate that makes
    the same position, or a candidate of its own (the last). Every candidate is played
    on the same ``rollouts`` determinizations (drawn from ``rng``; with ``ms`` > 0, as
    many as fit in that many milliseconds, at least 2) to the end of the deal with the
    tactician in every seat. Returns ``(logs, stats, played, determinizations,
    separate)``: each candidate's move as the kernel logs it, its ``(n, sum, sum of
    squares, wins)`` of the margin (the others' mean score less the player's own) and
    wins (the player won the deal), the played move's candidate index (-1: none given) and whether it is a
    candidate of its own (no search candidate makes the same position)."""
    cdef AnalyseWork* A
    cdef SearchWork* W
    cdef Moves* M
    cdef int q, i, c, sn, res = 0
    cdef Game* G = &pos.G
    if hidden.shape[0] != pos.players:
        raise ValueError(f"hidden needs one count a seat, got {hidden.shape[0]}")
    if pool.shape[0] > MAXDECK:
        raise ValueError("pool larger than a deck")
    if not 1 <= rollouts <= 10**7:
        raise ValueError(f"rollouts must be 1..10**7, got {rollouts}")
    if not 1 <= want <= 16:
        raise ValueError(f"discard candidates {want} is not 1..16")
    if not 0 <= ms < float("inf"):
        raise ValueError(f"ms {ms} out of range")
    sn = <int>pool.shape[0]
    for q in range(pos.players):
        if hidden[q] < 0 or (q == G.current and hidden[q] != 0):
            raise ValueError(f"hidden[{q}] is {hidden[q]}")
        sn -= hidden[q]
    if sn < 0:
        raise ValueError("the pool holds fewer cards than the hidden hands")
    for i in range(pool.shape[0]):
        if not 0 <= pool[i] <= JOKER or (i and pool[i] < pool[i - 1]):
            raise ValueError("pool must be card codes, ascending")
    if G.phase == PH_OVER:
        raise ValueError("the deal is over")
    A = <AnalyseWork*>malloc(sizeof(AnalyseWork))
    M = <Moves*>PyMem_Malloc(sizeof(Moves))
    if A == NULL or M == NULL:
        free(A)
        PyMem_Free(M)
        raise MemoryError()
    try:
        load_played(A, played)
        W = &A.S
        W.V = G[0]
        W.npool = <int>pool.shape[0]
        for i in range(W.npool):
            W.pool[i] = pool[i]
        for q in range(pos.players):
            W.hidden[q] = hidden[q]
            W.V.hn[q] += hidden[q]
            if q != G.current:
                for c in range(53):
                    W.V.known[q][c] = W.V.cnt[q][c]
        W.V.stock_n = sn
        W.V.err = 0
        bitgen = rng.bit_generator
        bg = _bitgen_of(bitgen)
        with bitgen.lock, nogil:
            res = analyse_decide(A, M, bg, rollouts, want, ms)
        if res == -2:
            raise ValueError("the played move is not a move in this position")
        if res < 0:
            err = W.V.err
            raise RuntimeError(f"game kernel: {_ERRORS.get(err, err)} in an analysis")
        logs = [[W.logs[i][j] for j in range(W.logn[i])] for i in range(W.ncand)]
        if A.nc > W.ncand:
            logs.append([A.plog[j] for j in range(A.plogn)])
        stats = [(A.n, A.s1[i], A.s2[i], A.wins[i]) for i in range(A.nc)]
        return logs, stats, A.played, A.n, A.nc > W.ncand
    finally:
        free(A)
        PyMem_Free(M)
