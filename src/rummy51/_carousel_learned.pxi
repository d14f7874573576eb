# Included at the end of _carousel.pyx, after _carousel_search.pxi (it uses CSView, CSCand,
# CSOpts, RState, CGame, _cs_candidates, _cs_view_of, _cg_meld_seat, _cg_knocks, _cs_score,
# _ca_won, and the forward pass of _net.pxd cimported at the top of _carousel.pyx).
"""Carousel's learned evaluator in C: the features a player sees, the model's value of a
position, the learned bot, and the self-play recorder that makes the training data.

**Features** (``_cl_features``, ``CL_NF`` of them, version ``CL_VERSION``): what the
deciding player sees and nothing else: its hand (copies of each card, the jokers), the
table (for each card, the table's cards standing for it: naturals and jokers declared
as it; the table jokers), every other hand's size (in seat order after the player), the
stock's size, whether the stock ran out, and counts made of those (the hand's points and
cards, how many hand cards have a partner for a set or a run in hand or on the table and
what the others are worth, the cards not seen, ...), and the **phase**: what comes next
for the player in the position valued. ``PH_PASSED``: its turn ended without a knock;
``PH_DRAW2`` / ``PH_DRAW3``: it made no play after its first (second) draw and draws
again; ``PH_KNOCKED``: it knocked, the round is scored now; ``PH_DRAW1``: its turn
begins, it draws its first card. The other hands' cards and
the stock's order are never read (the cards not seen enter only as their count).

**Value** (``_cl_value``): the model's margin of the features: the player's expected
round score less the mean of the others' (``_cs_margin``'s margin), under the play of the
games it was trained on.

**The learned bot** (``_cl_decide``): the model's greedy policy. A meld decision's
candidates are the search bot's (``_cs_candidates``, the plain search's); a play that
melds every card is worth the going-out bonus and the other hands' expected points (each
hand's size times the mean value of the cards not seen); another play ends the turn and
is worth the model's value after it (with a hand that may knock, the better of knocking
and passing); no play is the model's value of drawing again (after a first or second
draw) or of the turn's end (the stock found empty). A knock decision compares the
model's value of knocking with that of passing. Ties go to the earlier candidate (the
greedy move first).

**The recorder** (``record_round``): one round played from a given deck by the kernel's
seats (greedy, careful, search, search-plain, learned: ``play_greedy_game``'s ``bots``),
in which a seat's decision is, with chance ``explore``, a random one of its candidates
(meld decisions: the search's candidates; a knock: knock or pass at even odds), and the
position after each of its choices that the model values (no play and a draw again, the
end of a turn with or without a knock) is recorded, with chance ``rate``, as that seat's
features. The recorder's chances come from its own generator, never the bots'.
"""

# CL_VERSION, CL_HAND, CL_TABLE, CL_S, CL_NF and CL_KIND: at the top of
# _carousel_search.pxi (which reads them first)

# the phases PH_*: at the top of _carousel_search.pxi

DEF CL_MAXCAND = 6        # CS_MAXCAND
DEF CL_LITE = 1


cdef int32_t _cl_view_best(const CRules* r, const CSView* v, CGCtx* cx) noexcept nogil:
    """The solver's best play of ``v``'s hand on its table (``_cg_solve``: its value, or
    -1 / -2 as that returns)."""
    cdef Pos sp
    memcpy(sp.T, v.T, 52)
    memcpy(sp.D, v.D, 52)
    memcpy(sp.H, v.H, 52)
    sp.JT = v.JT
    sp.JH = v.JH
    return _cg_solve(r, &sp, 0, 0, cx)


cdef int _cl_features(const CRules* r, const GRules* gr, const CSView* v, int phase,
                      CGCtx* cx, float* x, int32_t known=-1) noexcept nogil:
    """The ``CL_NF`` features of ``v`` (the player ``v.me``'s view) in the phase ``phase``
    (``cx``: the solver's work area; ``known`` >= 0: the value of ``v``'s best play,
    already proven, so the solver is not asked). 0, or -CG_NO_MEMORY / -CG_BAD_TABLE."""
    cdef int32_t best
    cdef int c, o, k, s, q, rank, suit, d, pos, others, mn, npart, nrun, iso, n = v.n
    cdef int set_ok, run_ok, pts = 0, cards = 0, top = 0, high = 0, tab = 0, unseen = 0
    cdef int iso_pts = 0, pairs = 0, P = 14 if r.ace_high else 13
    cdef int present[52]
    for c in range(CL_NF):
        x[c] = 0.0
    for c in range(52):
        x[CL_HAND + c] = v.H[c]
        x[CL_TABLE + c] = v.T[c] + v.D[c]
        present[c] = v.H[c] + v.T[c] + v.D[c]
        pts += v.H[c] * r.val[c]
        cards += v.H[c]
        tab += v.T[c]
        if v.H[c] and r.val[c] > top:
            top = r.val[c]
        if v.H[c] and r.val[c] >= 10:
            high += v.H[c]
    x[CL_HAND + 52] = v.JH
    pts += v.JH * r.val[52]
    cards += v.JH
    if v.JH:
        top = r.val[52] if r.val[52] > top else top
        if r.val[52] >= 10:
            high += v.JH
    # hand cards with a partner for a set (two other suits of the rank in hand or on the
    # table) or a run (a card of the suit one or two positions away)
    npart = 0
    nrun = 0
    iso = 0
    for c in range(52):
        if v.H[c] == 0:
            continue
        suit = c // 13
        rank = c % 13
        k = 0
        for s in range(4):
            if s != suit and present[13 * s + rank] > 0:
                k += 1
        set_ok = 1 if k >= 2 else 0
        run_ok = 0
        q = rank + 1                       # positions 1..13, the ace also 14
        for d in range(-2, 3):
            if d == 0:
                continue
            pos = q + d
            if 1 <= pos <= P and present[_card_at(suit, pos)] > 0:
                run_ok = 1
            if rank == 0 and r.ace_high:
                pos = 14 + d
                if 1 <= pos <= P and present[_card_at(suit, pos)] > 0:
                    run_ok = 1
        npart += v.H[c] * set_ok
        nrun += v.H[c] * run_ok
        if not set_ok and not run_ok:
            iso += v.H[c]
            iso_pts += v.H[c] * r.val[c]
        if v.H[c] >= 2:
            pairs += 1
    others = 0
    mn = 1000
    for k in range(1, n):
        o = (v.me + k) % n
        x[CL_S + 6 + k] = v.sizes[o]       # CL_S + 7 .. CL_S + 11
        others += v.sizes[o]
        if v.sizes[o] < mn:
            mn = v.sizes[o]
    unseen = others + v.stock
    x[CL_S + 0] = n
    x[CL_S + 1] = v.stock
    x[CL_S + 2] = cards
    x[CL_S + 3] = pts
    x[CL_S + 4] = v.JH
    x[CL_S + 5] = tab + v.JT
    x[CL_S + 6] = v.JT
    x[CL_S + 12] = mn
    x[CL_S + 13] = others
    x[CL_S + 14 + phase] = 1.0            # CL_S + 14 .. CL_S + 18
    x[CL_S + 19] = 1.0 if (v.stock_out or v.stock == 0) else 0.0
    x[CL_S + 20] = npart
    x[CL_S + 21] = nrun
    x[CL_S + 22] = iso
    x[CL_S + 23] = iso_pts
    x[CL_S + 24] = top
    x[CL_S + 25] = high
    x[CL_S + 26] = unseen
    x[CL_S + 27] = r.jokers - v.JH - v.JT
    x[CL_S + 28] = 1.0 if pts <= gr.knock_limit else 0.0
    x[CL_S + 29] = gr.knock_limit
    x[CL_S + 30] = pts - gr.knock_limit if pts > gr.knock_limit else 0
    x[CL_S + 31] = pairs
    x[CL_S + 32] = v.draws
    # the solver's best play of the hand on the table as it is (what a play could leave)
    best = known if known >= 0 else _cl_view_best(r, v, cx)
    if best == -2:
        return -CG_NO_MEMORY
    if best < 0:
        return -CG_BAD_TABLE
    x[CL_S + 33] = 1.0 if best > 0 else 0.0
    x[CL_S + 34] = pts - best // VALMUL
    x[CL_S + 35] = cards - best % VALMUL
    x[CL_S + 36] = 1.0 if cards - best % VALMUL == 0 else 0.0
    x[CL_S + 37] = 1.0 if pts - best // VALMUL <= gr.knock_limit else 0.0
    return 0


cdef double _cl_value(const Net* net, const CRules* r, const GRules* gr, const CSView* v,
                      int phase, CGCtx* cx) noexcept nogil:
    """The model's margin of ``v`` in ``phase`` (a failed solver: -1e9, a value no
    candidate takes; the kernel then finds the failure itself on its next question)."""
    cdef float x[CL_NF]
    cdef float out[2]
    if _cl_features(r, gr, v, phase, cx, x) != 0:
        return -1e9
    net_forward(net, x, out)
    return out[0]


cdef double _cl_state_value(const CRules* r, const GRules* gr, const RState* s,
                            int me, CGCtx* cx, int phase) noexcept nogil:
    """The model's value for ``me`` of a rollout's position in ``phase`` (what ``me``
    sees there: its hand, the table, the hands' sizes, the stock)."""
    cdef CSView v
    _cs_view_of(&s.g, gr.players, me, s.S - s.sp, 0, 1 if s.finder >= 0 else 0, &v)
    return _cl_value(s.net, r, gr, &v, phase, cx)


cdef double _cl_turn_end(const Net* net, const CRules* r, const GRules* gr,
                         const CSView* v, CGCtx* cx, int32_t known=-1) noexcept nogil:
    """The value of ending the turn in ``v``: passing, or the better of knocking and
    passing when the hand may knock (``known``: as ``_cl_features``')."""
    cdef float x[CL_NF]
    cdef float out[2]
    cdef double a
    if _cl_features(r, gr, v, PH_PASSED, cx, x, known) != 0:
        return -1e9
    net_forward(net, x, out)
    a = out[0]
    if _cg_points(r, v.H, v.JH) <= gr.knock_limit:
        # the same features in the phase "knocked"
        x[CL_S + 14 + PH_PASSED] = 0.0
        x[CL_S + 14 + PH_KNOCKED] = 1.0
        net_forward(net, x, out)
        if out[0] > a:
            return out[0]
    return a


cdef int _cl_knocks(const Net* net, const CRules* r, const GRules* gr, const CSView* v,
                    CGCtx* cx) noexcept nogil:
    """Whether the model values knocking in ``v`` at least as high as passing."""
    cdef float x[CL_NF]
    cdef float out[2]
    cdef float a
    if _cl_features(r, gr, v, PH_PASSED, cx, x) != 0:
        return 1
    net_forward(net, x, out)
    a = out[0]
    x[CL_S + 14 + PH_PASSED] = 0.0
    x[CL_S + 14 + PH_KNOCKED] = 1.0
    net_forward(net, x, out)
    return 1 if out[0] >= a else 0


cdef double _cl_out_value(const CRules* r, const GRules* gr, const CSView* v) noexcept nogil:
    """The expected margin of going out now: the bonus and every other hand's expected
    points (its size times the mean value of the cards the player has not seen)."""
    cdef double tot = 0.0, m = 0.0, others = 0.0
    cdef int c, k, o
    for c in range(52):
        k = r.decks - v.H[c] - v.T[c]
        if k > 0:
            tot += k * r.val[c]
            m += k
    k = r.jokers - v.JH - v.JT
    if k > 0:
        tot += k * r.val[52]
        m += k
    for o in range(v.n):
        if o != v.me:
            others += v.sizes[o]
    if m <= 0:
        return gr.going_out_bonus
    return gr.going_out_bonus + others * tot / m


cdef int _cl_after(const CSView* v, const CSCand* c, CSView* a) noexcept nogil:
    """``a``: the view after candidate ``c`` (a play): the hand less the cards played, the
    table after it. Returns the cards left in hand."""
    cdef int i, left = 0
    a[0] = v[0]
    for i in range(52):
        a.H[i] = v.H[i] - (c.nT[i] - v.T[i])
        a.T[i] = c.nT[i]
        a.D[i] = c.nD[i]
        left += a.H[i]
    a.JH = v.JH - (c.nJT - v.JT)
    a.JT = c.nJT
    left += a.JH
    a.sizes[v.me] = left
    return left


cdef int _cl_decide(const CRules* r, const GRules* gr, const CSView* v, int decision,
                    const Net* net, CGCtx* x, CSCand* chosen) noexcept nogil:
    """The learned bot's answer to ``decision`` (the module docstring): the chosen
    candidate's index (0 the greedy move; a knock decision: 0 knock, 1 pass; its play in
    ``chosen``), CS_GREEDY, or a negative CG_ status."""
    cdef CSCand cand[CL_MAXCAND]
    cdef CSOpts plain
    cdef int K, best
    if decision == CS_KNOCK:
        memset(chosen, 0, sizeof(CSCand))
        if _cl_knocks(net, r, gr, v, x):
            return 0
        chosen.none = 1
        return 1
    memset(&plain, 0, sizeof(CSOpts))
    plain.lite = CL_LITE
    K = _cs_candidates(r, v, decision, &plain, x, cand)
    if K < 0 or K == CS_GREEDY:
        return K
    best = _cl_best(r, gr, v, decision, net, x, cand, K)
    chosen[0] = cand[best]
    return best


cdef int _cl_best(const CRules* r, const GRules* gr, const CSView* v, int decision,
                  const Net* net, CGCtx* x, const CSCand* cand, int K) noexcept nogil:
    """The learned bot's choice among the candidates ``cand`` of a meld decision (its
    values, the module docstring; the earlier candidate on a tie), or of a knock
    decision (0 knock, another index pass)."""
    cdef CSView a
    cdef int i, c, best = 0
    cdef int32_t now = -3, played
    cdef double val, bestv = 0.0
    if decision == CS_KNOCK:
        return 0 if _cl_knocks(net, r, gr, v, x) else 1
    for i in range(K):
        if cand[i].none:
            if decision == CS_MELD:
                val = _cl_value(net, r, gr, v, PH_DRAW2 if v.draws <= 1 else PH_DRAW3, x)
            else:
                val = _cl_turn_end(net, r, gr, v, x)
        elif _cl_after(v, &cand[i], &a) == 0:
            val = _cl_out_value(r, gr, &a)
        else:
            # a play worth the best play of the position leaves nothing more to play (a
            # play of what it leaves, added to it, would beat the best): the features'
            # solver question after it is answered, 0, without asking (the position's
            # own value is asked once: the candidate "no play" asks it too)
            if now == -3:
                now = _cl_view_best(r, v, x)
            played = 0
            for c in range(52):
                played += (v.H[c] - a.H[c]) * (r.val[c] * VALMUL + 1)
            played += (v.JH - a.JH) * (r.val[52] * VALMUL + 1)
            val = _cl_turn_end(net, r, gr, &a, x, 0 if (now >= 0 and played == now) else -1)
        if i == 0 or val > bestv:
            best = i
            bestv = val
    return best


cdef int _cl_seat(CGame* g, int p, b) except -1:
    """A learned seat's entry of ``play_greedy_game``'s ``bots``: ``("learned", model)``."""
    try:
        _, model = b
    except (TypeError, ValueError):
        raise ValueError(f"bots[{p}]: ('learned', model), got {b!r}") from None
    if model is None:
        raise ValueError(f"bots[{p}]: the learned bot needs a model")
    net_bind(&g.net[p], model, [])     # the model's arrays live as long as ``bots`` does
    if g.net[p].nin != CL_NF:
        raise ValueError(f"bots[{p}]: the model reads {g.net[p].nin} features, Carousel's "
                         f"are {CL_NF}")
    g.kind[p] = CL_KIND
    return 0


# --------------------------------------------------------------------------- the recorder
cdef struct CLRec:
    bitgen_t* bg          # the recorder's generator (exploration, which positions)
    double rate
    double explore
    float* X              # cap rows of CL_NF
    int32_t* who
    int32_t* phase
    int cap
    int n                 # rows recorded (may pass cap: then only cap are written)
    int rollouts          # > 0: each row's target is the sum of this many rollouts' margins
    int64_t* y            # (times players - 1) from the recorded position, into y
    int err               # a rollout's failure (a CG_ status)


cdef void _cl_record(const CRules* r, const GRules* gr, CGame* g, int p, int stock_left,
                     int draws, int stock_out, int phase, CLRec* rec, CGCtx* cx) noexcept nogil:
    """Record seat ``p``'s view in ``phase``, with chance ``rec.rate``."""
    cdef CSView v
    if rec.rate < 1.0 and rec.bg.next_double(rec.bg.state) >= rec.rate:
        return
    if rec.n < rec.cap:
        _cs_view_of(g, gr.players, p, stock_left, draws, stock_out, &v)
        _cl_features(r, gr, &v, phase, cx, rec.X + <int64_t>rec.n * CL_NF)
        rec.who[rec.n] = p
        rec.phase[rec.n] = phase
        if rec.rollouts > 0:
            rec.y[rec.n] = _cl_rollout_target(r, gr, &v, phase, rec, cx)
    rec.n += 1


cdef int64_t _cl_rollout_target(const CRules* r, const GRules* gr, const CSView* v, int phase,
                                CLRec* rec, CGCtx* cx) noexcept nogil:
    """The sum over ``rec.rollouts`` determinizations of the position ``v`` (the cards the
    player has not seen dealt at random, the recorder's generator) of the player's round
    margin times ``players - 1`` (an integer), every seat greedy from the position on:
    the search's rollouts (``_cs_rollout``) from what comes next in ``phase``. (When the
    stock has run out the determinization starts the last turns after the player's
    turn, as the search does.)"""
    cdef uint8_t u[CG_MAXDECK]
    cdef RState s
    cdef Rebuild rb
    cdef int m, k, step, res, n = v.n, o
    cdef int64_t tot = 0
    cdef int32_t score[CG_MAXP]
    cdef double mg = 0.0
    m = _cs_unseen(r, v, u)
    if m < 0:
        rec.err = CG_BAD_TABLE
        return 0
    for k in range(rec.rollouts):
        _cs_determinize(r, gr, v, u, m, rec.bg, &s)
        if phase == PH_KNOCKED:
            s.knocker = v.me
            s.how = 0
        else:
            if phase == PH_DRAW1:
                step = ST_TURN
            elif phase == PH_DRAW2 or phase == PH_DRAW3:
                step = ST_DRAW
            else:
                step = ST_NEXT
            res = _cs_rollout(r, gr, &s, step, v.me, cx, &rb, &mg)
            if res != 0:
                rec.err = res
                return 0
        _cs_score(gr, s.g.pts, n, s.knocker, s.how, score)
        tot += (n - 1) * score[v.me]
        for o in range(n):
            if o != v.me:
                tot -= score[o]
    return tot


cdef int _cl_meld_choice(const CRules* r, const GRules* gr, CGame* g, int p, CGCtx* x,
                         Rebuild* rb, int* detail, int draws, int stock_left, int decision,
                         CLRec* rec) noexcept nogil:
    """Seat ``p``'s meld decision in a recorded round: its bot's, or (chance
    ``rec.explore``) a random candidate. 1 melded, 0 not, or a negative status."""
    cdef CSView v
    cdef CSCand cand[CL_MAXCAND]
    cdef CSOpts plain
    cdef int K, i, res
    if rec.explore > 0 and rec.bg.next_double(rec.bg.state) < rec.explore:
        _cs_view_of(g, gr.players, p, stock_left, draws, decision == CS_NODRAW, &v)
        memset(&plain, 0, sizeof(CSOpts))
        K = _cs_candidates(r, &v, decision, &plain, x, cand)
        if K < 0 and K != CS_GREEDY:
            return K
        if K != CS_GREEDY:
            i = _cs_below(rec.bg, K)
            if cand[i].none:
                return 0
            return _cg_apply(r, g, p, cand[i].nT, cand[i].nD, cand[i].nJT)
    return _cg_meld_seat(r, gr, g, p, x, rb, detail, draws, stock_left, decision)


cdef int _cl_round(const CRules* r, const GRules* gr, const uint8_t* deck, int dealer,
                   CGame* g, CGCtx* x, Rebuild* rb, CLRec* rec, int32_t* score,
                   int* win) noexcept nogil:
    """One round from ``deck`` dealt by ``dealer`` (``_cg_play``'s round, move for move
    when nothing explores and nothing is recorded), its positions recorded into ``rec``;
    the round's scores and winners. 0, or a CG_ status."""
    cdef int n = gr.players, h = gr.hand_size, S = gr.deck_size
    cdef int i, k, c, p, seat, res, detail = 0, sp, current, finder, last_k, is_last
    cdef int draws, melded, how = -1, knocker = -1, knock, stage
    memset(g.T, 0, 52)
    memset(g.D, 0, 52)
    g.JT = 0
    for p in range(n):
        memset(g.H[p], 0, 52)
        g.JH[p] = 0
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
    sp = n * h
    current = (dealer + 1) % n
    finder = -1
    last_k = 0
    is_last = 0
    if sp == S and gr.exhauster:
        finder = dealer
        last_k = 1
        is_last = 1
    while True:
        p = current
        if is_last:
            res = _cg_meld(r, g, p, x, rb, &detail)
            if res < 0:
                return -res
            if res == 1 and _cg_empty(g, p):
                how = 1
                knocker = p
            elif gr.last_turn_knock and g.pts[p] <= gr.knock_limit:
                knock = _cg_knocks(r, gr, g, p, S - sp, 2, x, rb)
                _cl_record(r, gr, g, p, S - sp, 0, 1, PH_KNOCKED if knock else PH_PASSED, rec, x)
                if knock:
                    how = 0
                    knocker = p
        else:
            _cl_record(r, gr, g, p, S - sp, 0, finder >= 0, PH_DRAW1, rec, x)
            draws = 0
            melded = 0
            while draws < 3:
                draws += 1
                if sp < S:
                    c = deck[sp]
                    sp += 1
                    if sp == S and gr.exhauster:
                        finder = p
                    if c == 52:
                        g.JH[p] += 1
                    else:
                        g.H[p][c] += 1
                    g.pts[p] += r.val[c]
                    if draws == 3:
                        break
                    res = _cl_meld_choice(r, gr, g, p, x, rb, &detail, draws, S - sp, CS_MELD,
                                          rec)
                    if res < 0:
                        return -res
                    if res == 1:
                        melded = 1
                        break
                    _cl_record(r, gr, g, p, S - sp, draws, finder >= 0,
                               PH_DRAW2 if draws == 1 else PH_DRAW3, rec, x)
                else:
                    if finder < 0:
                        finder = p
                    if draws < 3:
                        res = _cl_meld_choice(r, gr, g, p, x, rb, &detail, draws, 0, CS_NODRAW,
                                              rec)
                        if res < 0:
                            return -res
                        melded = res
                    break
            if melded and _cg_empty(g, p):
                how = 1
                knocker = p
            else:
                knock = 0
                if g.pts[p] <= gr.knock_limit:
                    stage = 1 if finder >= 0 else 0
                    if rec.explore > 0 and rec.bg.next_double(rec.bg.state) < rec.explore:
                        knock = 1 if rec.bg.next_double(rec.bg.state) < 0.5 else 0
                    else:
                        knock = _cg_knocks(r, gr, g, p, S - sp, stage, x, rb)
                _cl_record(r, gr, g, p, S - sp, 0, finder >= 0,
                           PH_KNOCKED if knock else PH_PASSED, rec, x)
                if knock:
                    how = 0
                    knocker = p
        if g.search_err:
            return g.search_err
        if how >= 0:
            break
        if finder < 0:
            current = (current + 1) % n
            continue
        last_k += 1
        if last_k <= n:
            current = (finder + last_k) % n
            is_last = 1
            continue
        how = 2
        knocker = -1
        break
    _cs_score(gr, g.pts, n, knocker, how, score)
    for p in range(n):
        win[p] = _ca_won(g.pts, n, p, knocker)
    return rec.err


# --------------------------------------------------------------------------- Python
#: the features' version and count, and the phases
LEARNED_VERSION = CL_VERSION
LEARNED_FEATURES = CL_NF
PHASE_PASSED = PH_PASSED
PHASE_DRAW2 = PH_DRAW2
PHASE_DRAW3 = PH_DRAW3
PHASE_KNOCKED = PH_KNOCKED
PHASE_DRAW1 = PH_DRAW1


cdef int _cl_view_args(CSView* v, GRules* gr, game_rules, const uint8_t[::1] H, int JH,
                       const uint8_t[::1] T, const uint8_t[::1] D, int JT, sizes, int me,
                       int stock, int draws, bint stock_out) except -1:
    """A view from ``search_decide``'s arguments (ValueError on a malformed one)."""
    cdef int i
    _cs_grules(game_rules, gr)
    sizes = [int(s) for s in sizes]
    if len(sizes) != gr.players or not 0 <= me < gr.players:
        raise ValueError(f"sizes must hold {gr.players} hand sizes and me a seat")
    if H.shape[0] != 52 or T.shape[0] != 52 or D.shape[0] != 52:
        raise ValueError("H, T and D must hold 52 counts")
    if not 0 <= draws <= 3 or stock < 0 or JH < 0 or JT < 0 or min(sizes) < 0:
        raise ValueError("draws must be 0..3, and the stock, the jokers and the sizes >= 0")
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
    return 0


def learned_features(CoreRules core, game_rules, const uint8_t[::1] H, int JH,
                     const uint8_t[::1] T, const uint8_t[::1] D, int JT, sizes, int me,
                     int stock, int draws, bint stock_out, int phase):
    """The features (float32, ``LEARNED_FEATURES``) of a player's view in ``phase``
    (``PHASE_*``); the view's arguments as ``search_decide``'s."""
    cdef GRules gr
    cdef CSView v
    if not PH_PASSED <= phase <= PH_DRAW1:
        raise ValueError(f"phase must be 0..4, got {phase}")
    _cl_view_args(&v, &gr, game_rules, H, JH, T, D, JT, sizes, me, stock, draws, stock_out)
    out = np.zeros(CL_NF, np.float32)
    cdef float[::1] o = out
    cdef CGCtx* x = _cgctx_new()
    cdef int res
    if x == NULL:
        raise MemoryError()
    with nogil:
        res = _cl_features(&core.r, &gr, &v, phase, x, &o[0])
    _cgctx_done(x)
    if res == -CG_NO_MEMORY:
        raise MemoryError("the carousel solver ran out of memory")
    if res != 0:
        raise ValueError("learned_features: the view is not a position of the game")
    return out


def learned_decide(CoreRules core, game_rules, model, int decision, const uint8_t[::1] H,
                   int JH, const uint8_t[::1] T, const uint8_t[::1] D, int JT, sizes, int me,
                   int stock, int draws, bint stock_out):
    """One decision of the learned bot (the kernel's own function) with ``model``:
    ``(choice, hand, jokers)`` as ``search_decide``'s first three (``choice`` -1: the
    greedy move, no path to read)."""
    cdef GRules gr
    cdef CSView v
    cdef CSCand c
    cdef Net net
    cdef CGCtx* x
    cdef int res
    if decision not in (CS_MELD, CS_NODRAW, CS_KNOCK):
        raise ValueError(f"decision must be 0, 1 or 2, got {decision}")
    _cl_view_args(&v, &gr, game_rules, H, JH, T, D, JT, sizes, me, stock, draws, stock_out)
    keep = []
    net_bind(&net, model, keep)
    if net.nin != CL_NF:
        raise ValueError(f"the model reads {net.nin} features, Carousel's are {CL_NF}")
    x = _cgctx_new()
    if x == NULL:
        raise MemoryError()
    with nogil:
        res = _cl_decide(&core.r, &gr, &v, decision, &net, x, &c)
    _cgctx_done(x)
    if res == CS_GREEDY:
        return -1, None, 0
    if res == -CG_NO_MEMORY:
        raise MemoryError("the carousel solver ran out of memory")
    if res < 0:
        raise ValueError(f"learned_decide: the view is not a position of the game (status {-res})")
    if decision == CS_KNOCK or c.none:
        return res, None, 0
    return res, bytes(c.H[:52]), c.JH


def record_round(CoreRules core, game_rules, const uint8_t[::1] deck, int dealer, bots,
                 rng, double rate, double explore, float[:, ::1] X, int32_t[::1] who,
                 int32_t[::1] phase, int rollouts=0, int64_t[::1] y=None):
    """Play one round from ``deck`` (top first; the dealer's left gets the first hand)
    with the kernel's seats ``bots`` (``play_greedy_game``'s) and record positions (the
    module docstring of ``_carousel_learned.pxi``): ``X`` (rows, ``LEARNED_FEATURES``),
    ``who`` and ``phase`` receive them (the recorder's chances from ``rng``); with
    ``rollouts`` > 0, ``y`` receives each row's rollout target (``_cl_rollout_target``:
    the sum of that many rollouts' margins times ``players - 1``, the determinizations
    from ``rng`` too). Returns
    ``(rows, scores, winners)``: the positions recorded (more than ``X`` holds: only
    those fit were written), the round's scores and whether each seat won it."""
    cdef GRules gr
    cdef CGame* g
    cdef CGCtx* x
    cdef Rebuild* rb
    cdef CLRec rec
    cdef int32_t score[CG_MAXP]
    cdef int win[CG_MAXP]
    cdef int res, i, n
    _cs_grules(game_rules, &gr)
    n = gr.players
    if gr.deck_size != 52 * core.r.decks + core.r.jokers or deck.shape[0] != gr.deck_size:
        raise ValueError(f"deck must hold the rules' {52 * core.r.decks + core.r.jokers} cards")
    if gr.hand_size < 1 or n * gr.hand_size > gr.deck_size or not 0 <= dealer < n:
        raise ValueError("the hands must fit the deck and dealer be a seat")
    for i in range(gr.deck_size):
        if deck[i] > 52:
            raise ValueError(f"deck[{i}] = {deck[i]} is not a card code")
    if not 0 <= rate <= 1 or not 0 <= explore < 1:
        raise ValueError("rate must be 0..1 and explore 0..<1")
    if X.shape[1] != CL_NF or who.shape[0] < X.shape[0] or phase.shape[0] < X.shape[0]:
        raise ValueError(f"X must be (rows, {CL_NF}), who and phase as long")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy Generator, got {type(rng).__name__}")
    if not 0 <= rollouts <= CS_MAXROLL or (rollouts > 0 and (y is None or y.shape[0] < X.shape[0])):
        raise ValueError("rollouts must be 0..100000, with y as long as X when > 0")
    g = <CGame*>calloc(1, sizeof(CGame))
    rb = <Rebuild*>malloc(sizeof(Rebuild))
    x = _cgctx_new()
    if g == NULL or rb == NULL or x == NULL:
        free(g)
        free(rb)
        _cgctx_done(x)
        raise MemoryError()
    try:
        _cg_seat_bots(g, bots, n)
        rec.bg = _cr_bitgen(rng)
        rec.rate = rate
        rec.explore = explore
        rec.X = &X[0, 0] if X.shape[0] > 0 else NULL
        rec.who = &who[0] if X.shape[0] > 0 else NULL
        rec.phase = &phase[0] if X.shape[0] > 0 else NULL
        rec.cap = X.shape[0]
        rec.n = 0
        rec.rollouts = rollouts
        rec.y = &y[0] if rollouts > 0 and X.shape[0] > 0 else NULL
        rec.err = 0
        with rng.bit_generator.lock, nogil:
            res = _cl_round(&core.r, &gr, &deck[0], dealer, g, x, rb, &rec, score, win)
    finally:
        _cgctx_done(x)
        free(g)
        free(rb)
    if res == CG_NO_MEMORY:
        raise MemoryError("the carousel solver ran out of memory")
    if res != 0:
        raise RuntimeError(f"record_round: the round failed (status {res})")
    return rec.n, [int(score[i]) for i in range(n)], [bool(win[i]) for i in range(n)]


def kernel_seat_decision(CoreRules core, game_rules, bots, int seat, hands, jokers,
                         const uint8_t[::1] T, const uint8_t[::1] D, int JT, int stock,
                         int draws, int decision):
    """Test hook: one decision of the kernel's seat ``seat`` (``bots``: ``play_greedy_game``'s
    seats) in a game whose hands (``hands``: 52 counts each, ``jokers``: each hand's
    jokers) and table are given and whose stock holds ``stock`` cards, asked as the game
    kernel asks it (``decision``: ``SEARCH_MELD`` / ``SEARCH_NODRAW`` after ``draws``
    draws, or ``SEARCH_KNOCK`` at the end of a turn, or the turn in which the seat found
    the stock empty when ``draws`` is 1). Returns ``(answer, T, D, JT, hand, hand_jokers)``:
    1 melded / knocked, 0 not, and the table and the seat's hand after it."""
    cdef GRules gr
    cdef CGame* g
    cdef CGCtx* x
    cdef Rebuild* rb
    cdef int res = 0, i, c, n, detail = 0
    _cs_grules(game_rules, &gr)
    n = gr.players
    if len(hands) != n or len(jokers) != n or not 0 <= seat < n:
        raise ValueError(f"hands and jokers: one a seat ({n}), and seat a seat")
    if decision not in (CS_MELD, CS_NODRAW, CS_KNOCK):
        raise ValueError(f"decision must be 0, 1 or 2, got {decision}")
    g = <CGame*>calloc(1, sizeof(CGame))
    rb = <Rebuild*>malloc(sizeof(Rebuild))
    x = _cgctx_new()
    if g == NULL or rb == NULL or x == NULL:
        free(g)
        free(rb)
        _cgctx_done(x)
        raise MemoryError()
    try:
        _cg_seat_bots(g, bots, n)
        for i in range(n):
            h = bytes(hands[i])
            if len(h) != 52:
                raise ValueError("each hand must hold 52 counts")
            for c in range(52):
                g.H[i][c] = h[c]
            g.JH[i] = int(jokers[i])
            g.pts[i] = _cg_points(&core.r, g.H[i], g.JH[i])
        for c in range(52):
            g.T[c] = T[c]
            g.D[c] = D[c]
        g.JT = JT
        with nogil:
            if decision == CS_KNOCK:
                res = _cg_knocks(&core.r, &gr, g, seat, stock, 1 if draws == 1 else 0, x, rb)
            else:
                res = _cg_meld_seat(&core.r, &gr, g, seat, x, rb, &detail, draws, stock,
                                    decision)
        if g.search_err:
            res = -g.search_err
        out = (res, bytes(g.T[:52]), bytes(g.D[:52]), g.JT, bytes(g.H[seat][:52]), g.JH[seat])
    finally:
        _cgctx_done(x)
        free(g)
        free(rb)
    if res < 0:
        raise ValueError(f"kernel_seat_decision: status {-res}")
    return out
