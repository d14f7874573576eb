# Included at the end of _carousel.pyx, after _carousel_search.pxi (it uses CSView, CSCand,
# RState, _cs_candidates, _cs_unseen, _cs_determinize, _cs_rollout, _cs_margin, _cs_grules).
"""The rollout analysis of one Carousel decision, in C (``rummy51.analysis.carousel``).

The search bot's machinery with every candidate played to the end: the candidates of a
decision are the search bot's (``_cs_candidates``), plus the move actually played when
no candidate plays the same cards, and each is played on the same determinizations
(common random numbers: ``_cs_determinize`` with the analysis' generator), a fixed
number of them (no early stop, no halving: every candidate's estimate is wanted), from
the candidate on with the greedy bot in every seat (``_cs_rollout``). Per candidate:
the rollouts, the sum and the sum of squares of the margins (the search bot's: the
player's round score less the mean of the others') and the rollouts the player **won
the round**: was one of the round's winners of ``moves.score_round`` (the lowest hand,
a knocker tied for it losing the tie; the rule ``_cs_score`` scores), whatever the
score.

What a candidate does (``CA_*``):

* ``CA_PLAY``: its play (the table after it), then the end of the turn as the greedy
  bot plays it (going out, a knock when the hand may);
* ``CA_DRAW``: no play after a first or second draw, the next draw;
* ``CA_PASS``: end the turn without a meld and without a knock (the decision ``CS_NODRAW``,
  the stock found empty: "pass"; the decision ``CS_KNOCK``: "pass");
* ``CA_KNOCK``: knock now (``CS_KNOCK``, and ``CS_NODRAW`` without a meld when the hand
  may knock).

Two candidates that play the same hand cards (a different arrangement of the table)
are one candidate: the first is kept. The played move is a candidate only when it makes
the same table (the same cards, each joker standing for the same card: its text is the
same, ``carousel.notation``); a played move playing those cards otherwise is a
candidate of its own, scored on its own arrangement.
"""

DEF CA_MAXCAND = 8          # CS_MAXCAND, the played move, a knock

DEF CA_PLAY = 0
DEF CA_DRAW = 1
DEF CA_PASS = 2
DEF CA_KNOCK = 3


cdef int _ca_won(const int32_t* pts, int n, int me, int knocker) noexcept nogil:
    """Whether ``me`` is one of the round's winners (``_cs_score``'s ``win``)."""
    cdef int p
    for p in range(n):
        if pts[p] < pts[me]:
            return 0
    if knocker == me:
        for p in range(n):
            if p != me and pts[p] == pts[me]:
                return 0
    return 1


cdef int _ca_same_cards(const CSView* v, const CSCand* a, const CSCand* b) noexcept nogil:
    """Whether two plays place the same hand cards (the same table counts: every table
    card stays on the table, so the cards played are the new counts less the old)."""
    return a.nJT == b.nJT and memcmp(a.nT, b.nT, 52) == 0


cdef int _ca_same_table(const CSCand* a, const CSCand* b) noexcept nogil:
    """Whether two plays make the same table: the same counts, each joker standing for
    the same card (one move text names both)."""
    return a.nJT == b.nJT and memcmp(a.nT, b.nT, 52) == 0 and memcmp(a.nD, b.nD, 52) == 0


cdef int _ca_eval(const CRules* r, const GRules* gr, const CSView* v, const CSCand* c,
                  int what, const RState* base, CGCtx* x, Rebuild* rb, double* margin,
                  int* won) noexcept nogil:
    """Candidate ``c`` (doing ``what``) on the determinization ``base``: its margin and
    whether the player won the round. 0, or a CG_ status."""
    cdef RState s = base[0]
    cdef int step, res
    if what == CA_KNOCK:
        margin[0] = _cs_margin(gr, s.g.pts, v.n, v.me, v.me, 0)
        won[0] = _ca_won(s.g.pts, v.n, v.me, v.me)
        return 0
    if what == CA_PLAY:
        res = _cg_apply(r, &s.g, v.me, c.nT, c.nD, c.nJT)
        if res < 0:
            return -res
        s.melded = 1
        step = ST_END
    elif what == CA_DRAW:
        step = ST_DRAW
    else:
        step = ST_NEXT
    res = _cs_rollout(r, gr, &s, step, v.me, x, rb, margin)
    if res != 0:
        return res
    won[0] = _ca_won(s.g.pts, v.n, v.me, s.knocker)
    return 0


cdef int _ca_batch(const CRules* r, const GRules* gr, const CSView* v, const CSCand* cand,
                   const int* what, int K, const uint8_t* u, int m, int nd, bitgen_t* bg,
                   CGCtx* x, Rebuild* rb, double* total, double* total_sq,
                   int64_t* wins) noexcept nogil:
    """``nd`` determinizations, every candidate on each; the sums grow. 0, or a CG_
    status."""
    cdef RState base
    cdef int d, i, res, won = 0
    cdef double mg = 0.0
    for d in range(nd):
        _cs_determinize(r, gr, v, u, m, bg, &base)
        for i in range(K):
            res = _ca_eval(r, gr, v, &cand[i], what[i], &base, x, rb, &mg, &won)
            if res != 0:
                return res
            total[i] += mg
            total_sq[i] += mg * mg
            wins[i] += won
    return 0


#: search_analyse's candidate kinds
ANALYSE_PLAY = CA_PLAY
ANALYSE_DRAW = CA_DRAW
ANALYSE_PASS = CA_PASS
ANALYSE_KNOCK = CA_KNOCK


def search_analyse(CoreRules core, game_rules, rng, int decision, const uint8_t[::1] H, int JH,
                   const uint8_t[::1] T, const uint8_t[::1] D, int JT, sizes, int me,
                   int stock, int draws, bint stock_out, played, int rollouts,
                   double seconds=0.0):
    """Every candidate of one decision scored by the same rollouts (the module
    docstring of ``_carousel_analyse.pxi``); the view's arguments as ``search_decide``'s,
    the determinizations on ``rng``. ``played``: None, or the table after the move played
    (``(T, D, JT)``, 52 counts each as bytes) for a meld decision: a candidate of its own
    unless one makes the same table. ``rollouts``: the determinizations (each candidate
    is played on every one), 1..100000; ``seconds`` > 0: stop after the first batch of 4
    that ends past it (the numbers then depend on the timing).

    Returns ``(candidates, played_index)``: a list of ``(what, nT, nD, nJT, n, total,
    total_sq, wins)``, ``what`` one of ``ANALYSE_PLAY`` / ``_DRAW`` / ``_PASS`` /
    ``_KNOCK`` (``nT``, ``nD`` bytes and ``nJT`` the table after a play, else None, None,
    0), and the index of the played table's candidate (-1 without one)."""
    import time
    cdef GRules gr
    cdef CSView v
    cdef CSCand cand[CA_MAXCAND]
    cdef CSCand raw[CS_MAXCAND]
    cdef CSCand pl
    cdef CSOpts plain
    cdef int what[CA_MAXCAND]
    cdef double total[CA_MAXCAND]
    cdef double total_sq[CA_MAXCAND]
    cdef int64_t wins[CA_MAXCAND]
    cdef uint8_t u[CG_MAXDECK]
    cdef CGCtx* x
    cdef Rebuild* rb
    cdef bitgen_t* bg
    cdef int res = 0, i, j, k, K = 0, nraw, m, nd = 0, nb, played_at = -1, dup
    _cs_grules(game_rules, &gr)
    if not 1 <= rollouts <= CS_MAXROLL:
        raise ValueError(f"rollouts must be 1..{CS_MAXROLL}, got {rollouts}")
    if decision not in (CS_MELD, CS_NODRAW, CS_KNOCK):
        raise ValueError(f"decision must be 0, 1 or 2, got {decision}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    sizes = [int(s) for s in sizes]
    if len(sizes) != gr.players or not 0 <= me < gr.players:
        raise ValueError(f"sizes must hold {gr.players} hand sizes and me a seat")
    if H.shape[0] != 52 or T.shape[0] != 52 or D.shape[0] != 52:
        raise ValueError("H, T and D must hold 52 counts")
    v.me = me
    v.n = gr.players
    for i in range(52):
        v.H[i] = H[i]
        v.T[i] = T[i]
        v.D[i] = D[i]
    v.JH = JH
    v.JT = JT
    for i in range(gr.players):
        v.sizes[i] = sizes[i]
    v.stock = stock
    v.draws = draws
    v.stock_out = 1 if stock_out else 0
    memset(&pl, 0, sizeof(CSCand))
    memset(&plain, 0, sizeof(CSOpts))     # the plain search's candidates
    if played is not None:
        if decision == CS_KNOCK:
            raise ValueError("played: a table is a meld's, not a knock decision's")
        pT, pD, pJT = played
        if len(pT) != 52 or len(pD) != 52:
            raise ValueError("played must be (T, D, JT) with 52 counts in T and D")
        for i in range(52):
            pl.nT[i] = pT[i]
            pl.nD[i] = pD[i]
        pl.nJT = int(pJT)
    m = _cs_unseen(&core.r, &v, u)
    if m < 0:
        raise ValueError("the view is not a position of the game: the cards not seen are "
                         "not the other hands and the stock (impossible card counts)")
    x = _cgctx_new()
    rb = <Rebuild*>malloc(sizeof(Rebuild))
    if x == NULL or rb == NULL:
        _cgctx_done(x)
        free(rb)
        raise MemoryError()
    try:
        # the candidates
        if decision == CS_KNOCK:
            memset(cand, 0, 2 * sizeof(CSCand))
            what[0] = CA_KNOCK
            what[1] = CA_PASS
            K = 2
        else:
            with nogil:
                nraw = _cs_candidates(&core.r, &v, decision, &plain, x, raw)
            if nraw == CS_GREEDY:
                raise ValueError("the position has more jokers than the solver's path reads")
            if nraw < 0:
                res = -nraw
            for i in range(max(nraw, 0)):
                if raw[i].none:
                    cand[K] = raw[i]
                    what[K] = CA_DRAW if decision == CS_MELD else CA_PASS
                    K += 1
                    continue
                dup = 0
                for j in range(K):
                    if what[j] == CA_PLAY and _ca_same_cards(&v, &cand[j], &raw[i]):
                        dup = 1
                if not dup:
                    cand[K] = raw[i]
                    what[K] = CA_PLAY
                    K += 1
            if res == 0 and decision == CS_NODRAW and _cg_points(&core.r, v.H, v.JH) <= gr.knock_limit:
                memset(&cand[K], 0, sizeof(CSCand))
                what[K] = CA_KNOCK
                K += 1
            if res == 0 and played is not None:
                for j in range(K):
                    if what[j] == CA_PLAY and _ca_same_table(&cand[j], &pl):
                        played_at = j
                if played_at < 0:
                    cand[K] = pl
                    what[K] = CA_PLAY
                    played_at = K
                    K += 1
        for i in range(K):
            total[i] = 0.0
            total_sq[i] = 0.0
            wins[i] = 0
        # the rollouts, in batches of CS_BATCH when a time budget is given
        bg = _cr_bitgen(rng)
        t0 = time.perf_counter()
        while res == 0 and nd < rollouts:
            nb = rollouts - nd
            if seconds > 0 and nb > CS_BATCH:
                nb = CS_BATCH
            with rng.bit_generator.lock, nogil:
                res = _ca_batch(&core.r, &gr, &v, cand, what, K, u, m, nb, bg, x, rb,
                                total, total_sq, wins)
            nd += nb
            if seconds > 0 and time.perf_counter() - t0 >= seconds:
                break
    finally:
        _cgctx_done(x)
        free(rb)
    if res == CG_NO_MEMORY:
        raise MemoryError("the carousel solver ran out of memory")
    if res != 0:
        raise ValueError(f"search_analyse: the view is not a position of the game (status {res})")
    out = []
    for i in range(K):
        if what[i] == CA_PLAY:
            out.append((what[i], bytes(cand[i].nT[:52]), bytes(cand[i].nD[:52]), cand[i].nJT,
                        nd, total[i], total_sq[i], int(wins[i])))
        else:
            out.append((what[i], None, None, 0, nd, total[i], total_sq[i], int(wins[i])))
    return out, played_at
