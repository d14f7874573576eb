# Included at the end of _carousel.pyx, after _carousel_game.pxi (it uses CGame, GRules,
# CGCtx, _cg_meld, _cg_apply, _cg_points, _cg_empty and the solver's _solve_play).
"""The Carousel search bot's decisions, and its determinized rollouts, in C.

``rummy51.carousel.bots.SearchBot`` states the strategy; this is its machinery. A
decision sees only what the player sees (a ``CSView``: its own hand, the table as
counts, every hand's size, the stock's size, the draws of this turn and whether it
found the stock empty in this turn). Its candidates:

* ``CS_MELD`` (after a first or second draw) and ``CS_NODRAW`` (the player found the
  stock empty in this turn, with a meld still allowed): the solver's best play
  (candidate 0, the greedy bot's move); no play (draw again, or end the turn); the best
  play with the hand's jokers kept back; the best play with the highest card the best
  play places kept back (every copy of it); the single hand card worth the most that
  can be played alone (the smallest play that ends the drawing). Each play is
  ``_solve_play`` of the hand less the cards kept back, so it is the play
  ``carousel.solver.best_play`` makes of that part of the hand; plays that leave the
  same table are tried once. With no legal play the answer is "no play" at once (no
  random number drawn); with more than 7 jokers (no readable path) the greedy move.
* ``CS_KNOCK`` (at the end of a turn whose hand may knock): knock (candidate 0) or pass.

Each candidate is scored on the same determinizations (common random numbers): the
cards the player has not seen (the deck less its hand and the table) shuffled with
the bot's generator and dealt to the other hands (their known sizes, in seat order)
and then to the stock (top first). From the candidate, every seat (the bot's own too)
plays the greedy bot's moves to the end of the round (the kernel's greedy turn; the
last turns after the stock runs out as in ``_cg_play``, from the exhauster or the finder
by ``rules.stock_out``), and the candidate scores the **margin**: the bot's round score
less the mean round score of the other players (moves.score_round: the winners score
the differences and bonuses, the others 0).

**The default search** (``SearchBot``; ``PlainSearchBot`` is the above, unchanged) adds
two things. Without a model (``model=None``) a knock decision's pass is tried three
ways (``HOLD_*``: the player's rollouts knock at the next chance, or hold on to go out,
or hold until another hand is small). With the learned model (``_carousel_learned.pxi``,
the default) the candidates of a meld decision are the learned bot's (the best play, no
play, the jokers kept back), every seat of a rollout plays the learned bot's moves, and a
rollout stops when the player's turn begins again after the others have answered (with
``horizon`` > 0 that many turns of its own later; a knock decision's pass one turn of its
own later still, so that its own next knock is the model's), where the model scores
the position; a round that ends sooner is scored as it ends. The move played unless
the rollouts beat it by ``z_play`` is the learned bot's choice (the plain search's is the
greedy move).

The determinizations come in batches of ``CS_BATCH``; after each batch the candidate
with the best mean is the leader, and a candidate whose paired differences to the
leader (the same determinizations) have a z statistic of at least ``z_stop`` is
dropped (two candidates equal on every determinization after ``2 * CS_BATCH`` are the
same to the search: the later one is dropped). When half, then three quarters of the
budget are spent, the worse half of the candidates left (by mean) is dropped
(sequential halving). The search stops when one candidate is left or the next batch
would pass the budget (``rollouts``: candidate evaluations, each a rollout). The
answer is the best mean (ties: the earlier candidate), unless the move played by
default (the greedy move, candidate 0; with a model the learned bot's) is still in and
the best beats it by a paired z below ``z_play``.
"""

from libc.math cimport sqrt
from libc.string cimport memcmp

DEF CS_MAXCAND = 6
DEF CS_BATCH = 4
DEF CS_MAXROLL = 100000   # rollouts a decision, at most
DEF CS_MAXHORIZON = 50    # own turns before the model's cut, at most

# decisions
DEF CS_MELD = 0
DEF CS_NODRAW = 1
DEF CS_KNOCK = 2

# answers of _cs_decide beyond a candidate's index
DEF CS_GREEDY = -100       # no readable path: play the greedy move

# rollout steps
DEF ST_TURN = 0
DEF ST_DRAW = 1
DEF ST_MELDQ = 2
DEF ST_NODRAW = 3
DEF ST_END = 4
DEF ST_LAST = 5
DEF ST_NEXT = 6

#: The bot kind of a search seat in CGame.kind
DEF CS_KIND = 2

# the learned evaluator's features (_carousel_learned.pxi) and the learned bot's kind
DEF CL_VERSION = 1
DEF CL_HAND = 0           # [53] the player's hand: copies of each card code (52: jokers)
DEF CL_TABLE = 53         # [52] the table: its cards standing for each card (naturals and
                          #      jokers declared as it)
DEF CL_S = 105            # the scalars
DEF CL_NF = CL_S + 38
DEF CL_KIND = 3
# the phase of a valued position: what comes next for the player
DEF PH_PASSED = 0         # its turn ended without a knock
DEF PH_DRAW2 = 1          # no play after its first draw: it draws a second card
DEF PH_DRAW3 = 2          # no play after its second draw: it draws a third
DEF PH_KNOCKED = 3        # it knocked: the round is scored now
DEF PH_DRAW1 = 4          # its turn begins: it draws its first card

# how the searching seat knocks in a rollout after a pass (RState.hold, CSCand.hold)
DEF HOLD_GREEDY = 0       # at its first chance (the greedy bot; every other seat)
DEF HOLD_OUT = 1          # only when the stock is about to run out: it plays to go out
DEF HOLD_NEAR = 2         # HOLD_OUT, or once another hand holds HOLD_SIZE cards or fewer
DEF HOLD_SIZE = 3


cdef struct CSView:
    int me
    int n
    uint8_t T[52]
    uint8_t D[52]
    uint8_t H[52]
    int JT
    int JH
    int sizes[CG_MAXP]
    int stock
    int draws
    int stock_out


cdef struct CSCand:
    int none              # 1: no play
    int hold              # a pass (CS_KNOCK): how the player's seat knocks in its rollouts
    uint8_t H[52]         # the hand offered to the solver
    int JH
    uint8_t nT[52]        # the table after the play
    uint8_t nD[52]
    int nJT


cdef struct RState:
    CGame g
    uint8_t stock[CG_MAXDECK]
    int sp
    int S
    int cur
    int draws
    int melded
    int finder
    int last_k
    int is_last
    int knocker           # set by _cs_rollout: the round's knocker (-1: none), how it ended
    int how
    int me                # the searching seat, and how it knocks in the rollout (HOLD_*)
    int hold
    const Net* net        # the model that scores the cut (NULL: none), and the searching
    int cut               # seat's turn ends still to play before it; with a model every
                          # seat plays the learned bot's moves (_cl_decide)


cdef struct CSOpts:
    int hold              # 1: a knock decision's candidates hold back (the default search)
    const Net* net        # the learned model scoring the horizon (NULL: rollouts to the end)
    int horizon           # the player's own turns played after this one before the cut
    int lite              # 1: a meld decision's candidates are the best play, no play and
                          # the best play with the jokers kept back only (the learned bot)


cdef inline int _cs_below(bitgen_t* bg, int k) noexcept nogil:
    """A random int in 0..k-1 from the bot's generator."""
    cdef int i = <int>(bg.next_double(bg.state) * k)
    return k - 1 if i >= k else i


cdef void _cs_score(const GRules* gr, const int32_t* pts, int n, int knocker, int how,
                    int32_t* score) noexcept nogil:
    """``moves.score_round`` (as ``_cg_play`` scores a round)."""
    cdef int p, k, ntied = 0, undercut
    cdef int win[CG_MAXP]
    cdef int32_t low = pts[0]
    for p in range(1, n):
        if pts[p] < low:
            low = pts[p]
    for p in range(n):
        win[p] = 1 if pts[p] == low else 0
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
                score[p] += pts[k] - pts[p]
        if undercut:
            score[p] += gr.undercut_bonus
        if how == 1 and p == knocker:
            score[p] += gr.going_out_bonus


cdef double _cs_margin(const GRules* gr, const int32_t* pts, int n, int me, int knocker,
                       int how) noexcept nogil:
    """The bot's round score less the mean of the others'."""
    cdef int32_t score[CG_MAXP]
    cdef double others = 0.0
    cdef int p
    _cs_score(gr, pts, n, knocker, how, score)
    for p in range(n):
        if p != me:
            others += score[p]
    return score[me] - others / (n - 1)


cdef int _cs_rollout_knocks(const CRules* r, const GRules* gr, const RState* s, int p,
                            CGCtx* x) noexcept nogil:
    """Whether seat ``p``, whose hand may knock at the end of a turn of a rollout, does:
    every seat knocks at once (the greedy bot), but the searching seat after a pass that
    holds back (``s.hold``): ``HOLD_OUT`` knocks only when the stock holds fewer cards
    than there are players (the round is about to end without a knocker), else it plays
    on to go out; ``HOLD_NEAR`` as ``HOLD_OUT``, and it knocks too as soon as another hand
    holds ``HOLD_SIZE`` cards or fewer. With a model (``s.net``) every seat knocks as
    the learned bot does: when the model values knocking at least as high as passing
    (on a last turn: always)."""
    cdef int o, c, k
    cdef CSView v
    if s.net != NULL:
        if s.is_last:
            return 1
        _cs_view_of(&s.g, gr.players, p, s.S - s.sp, 0, 1 if s.finder >= 0 else 0, &v)
        return _cl_knocks(s.net, r, gr, &v, x)
    if p != s.me or s.hold == HOLD_GREEDY:
        return 1
    if s.S - s.sp < gr.players:
        return 1
    if s.hold == HOLD_NEAR:
        for o in range(gr.players):
            if o == p:
                continue
            k = s.g.JH[o]
            for c in range(52):
                k += s.g.H[o][c]
            if k <= HOLD_SIZE:
                return 1
    return 0


cdef int _cl_rollout_meld(const CRules* r, const GRules* gr, RState* s, int p, int nodraw,
                          CGCtx* x, Rebuild* rb, int* detail) noexcept nogil:
    """Seat ``p``'s meld question in a rollout with a model: the learned bot's answer from
    what ``p`` sees of the rollout's game. 1 melded, 0 not, or a negative status."""
    cdef CSView v
    cdef CSCand c
    cdef int res
    _cs_view_of(&s.g, gr.players, p, s.S - s.sp, s.draws, nodraw, &v)
    res = _cl_decide(r, gr, &v, CS_NODRAW if nodraw else CS_MELD, s.net, x, &c)
    if res == CS_GREEDY:
        return _cg_meld(r, &s.g, p, x, rb, detail)
    if res < 0:
        return res
    if c.none:
        return 0
    return _cg_apply(r, &s.g, p, c.nT, c.nD, c.nJT)


cdef int _cs_rollout(const CRules* r, const GRules* gr, RState* s, int step, int me,
                     CGCtx* x, Rebuild* rb, double* margin) noexcept nogil:
    """Play the round in ``s`` on from ``step`` with the greedy bot in every seat (the
    turn of ``_cg_play``), or with a model (``s.net``) the learned bot in every seat, up
    to the end of the searching seat's ``s.cut``-th turn from here, where the model
    scores the position; the bot's margin in ``margin``. 0, or a CG_ status."""
    cdef int n = gr.players, p, res, how = -1, knocker = -1, detail = 0, c
    cdef CGame* g = &s.g
    while True:
        p = s.cur
        if step == ST_TURN:
            if p == me and s.net != NULL and s.cut < 0:
                # the horizon: the player's turn begins, the others have answered
                s.knocker = -1
                s.how = -1
                margin[0] = _cl_state_value(r, gr, s, me, x, PH_DRAW1)
                return 0
            s.draws = 0
            s.melded = 0
            step = ST_LAST if s.is_last else ST_DRAW
        elif step == ST_DRAW:
            s.draws += 1
            if s.sp < s.S:
                c = s.stock[s.sp]
                s.sp += 1
                if c == 52:
                    g.JH[p] += 1
                else:
                    g.H[p][c] += 1
                g.pts[p] += r.val[c]
                if s.sp == s.S and gr.exhauster and s.finder < 0:
                    s.finder = p        # rules.stock_out "exhauster": p took the last card
                step = ST_END if s.draws == 3 else ST_MELDQ
            else:
                if s.finder < 0:
                    s.finder = p        # "finder" (else p is the exhauster already)
                step = ST_NODRAW if s.draws < 3 else ST_END
        elif step == ST_MELDQ or step == ST_NODRAW:
            if s.net != NULL:
                res = _cl_rollout_meld(r, gr, s, p, step == ST_NODRAW, x, rb, &detail)
            else:
                res = _cg_meld(r, g, p, x, rb, &detail)
            if res < 0:
                return -res
            if res == 1:
                s.melded = 1
                step = ST_END
            elif step == ST_MELDQ:
                step = ST_DRAW
            else:
                step = ST_END
        elif step == ST_END:
            if s.melded and _cg_empty(g, p):
                how = 1
                knocker = p
                break
            if g.pts[p] <= gr.knock_limit and _cs_rollout_knocks(r, gr, s, p, x):
                how = 0
                knocker = p
                break
            step = ST_NEXT
        elif step == ST_LAST:
            res = _cg_meld(r, g, p, x, rb, &detail)
            if res < 0:
                return -res
            if res == 1 and _cg_empty(g, p):
                how = 1
                knocker = p
                break
            if (gr.last_turn_knock and g.pts[p] <= gr.knock_limit
                    and _cs_rollout_knocks(r, gr, s, p, x)):
                how = 0
                knocker = p
                break
            step = ST_NEXT
        else:   # ST_NEXT: the turn ended (GameState._end_turn)
            if p == me and s.net != NULL:
                s.cut -= 1          # below 0: the model scores the player's next turn's start
            if s.finder < 0:
                s.cur = (p + 1) % n
                step = ST_TURN
                continue
            s.last_k += 1
            if s.last_k <= n:
                s.cur = (s.finder + s.last_k) % n
                s.is_last = 1
                step = ST_TURN
                continue
            how = 2
            knocker = -1
            break
    s.knocker = knocker
    s.how = how
    margin[0] = _cs_margin(gr, g.pts, n, me, knocker, how)
    return 0


cdef int _cs_unseen(const CRules* r, const CSView* v, uint8_t* u) noexcept nogil:
    """The cards the player has not seen (deck order, jokers last) into ``u``: their
    count, or -1 when they are not the other hands and the stock (a bad view)."""
    cdef int m = 0, c, k, need
    for c in range(52):
        k = r.decks - v.H[c] - v.T[c]
        if k < 0:
            return -1
        while k > 0:
            u[m] = c
            m += 1
            k -= 1
    k = r.jokers - v.JH - v.JT
    if k < 0:
        return -1
    while k > 0:
        u[m] = 52
        m += 1
        k -= 1
    need = v.stock
    for c in range(v.n):
        if c != v.me:
            need += v.sizes[c]
    return m if m == need else -1


cdef void _cs_determinize(const CRules* r, const GRules* gr, const CSView* v,
                          const uint8_t* u, int m, bitgen_t* bg, RState* s) noexcept nogil:
    """One determinization: ``u`` shuffled, dealt to the other hands (seat order) and
    the stock; the table and the bot's hand as the view has them. The last turns start
    after this turn when the player found the stock empty in it, or (``stock_out``
    "exhauster") the stock is empty: in a turn that is not a last turn, only the
    player who took the last card sees an empty stock."""
    cdef uint8_t d[CG_MAXDECK]
    cdef int i, j, o, k, t
    memcpy(d, u, m)
    for i in range(m - 1, 0, -1):
        j = _cs_below(bg, i + 1)
        t = d[i]
        d[i] = d[j]
        d[j] = <uint8_t>t
    memset(&s.g, 0, sizeof(CGame))
    memcpy(s.g.T, v.T, 52)
    memcpy(s.g.D, v.D, 52)
    s.g.JT = v.JT
    k = 0
    for o in range(v.n):
        if o == v.me:
            memcpy(s.g.H[o], v.H, 52)
            s.g.JH[o] = v.JH
        else:
            for i in range(v.sizes[o]):
                if d[k] == 52:
                    s.g.JH[o] += 1
                else:
                    s.g.H[o][d[k]] += 1
                k += 1
        s.g.pts[o] = _cg_points(r, s.g.H[o], s.g.JH[o])
    s.S = m - k
    memcpy(s.stock, d + k, s.S)
    s.sp = 0
    s.cur = v.me
    s.draws = v.draws
    s.melded = 0
    s.finder = v.me if (v.stock_out or (gr.exhauster and v.stock == 0)) else -1
    s.last_k = 0
    s.is_last = 0
    s.me = v.me
    s.hold = HOLD_GREEDY
    s.net = NULL
    s.cut = 0


cdef int _cs_eval(const CRules* r, const GRules* gr, const CSView* v, int decision,
                  const CSOpts* o, const CSCand* cand, int i, const RState* base, CGCtx* x,
                  Rebuild* rb, double* out) noexcept nogil:
    """Candidate ``i`` on the determinization ``base``: its margin in ``out`` (with a
    model, the rollout stops at the end of the player's ``o.horizon``-th turn after this
    one and the model scores the position there)."""
    cdef RState s = base[0]
    cdef int step, res
    if o.net != NULL and o.net.nin > 0:
        s.net = o.net
        # a pass is looked at one turn of the player's further than a meld decision
        s.cut = o.horizon + (1 if decision == CS_KNOCK else 0)
    if decision == CS_KNOCK:
        if i == 0:
            out[0] = _cs_margin(gr, s.g.pts, v.n, v.me, v.me, 0)
            return 0
        s.hold = cand[i].hold
        step = ST_NEXT
    elif cand[i].none:
        step = ST_DRAW if decision == CS_MELD else ST_END
    else:
        res = _cg_apply(r, &s.g, v.me, cand[i].nT, cand[i].nD, cand[i].nJT)
        if res < 0:
            return -res
        s.melded = 1
        step = ST_END
    return _cs_rollout(r, gr, &s, step, v.me, x, rb, out)


cdef int _cs_play_of(const CRules* r, const CSView* v, CGCtx* x, CSCand* c) noexcept nogil:
    """``c``'s play: the best play of the table and ``c.H``, ``c.JH`` (the solver's
    path). 1 a play, 0 none, -3 no readable path, or -CG_NO_MEMORY / -CG_BAD_TABLE."""
    cdef Pos pos
    cdef int32_t v2
    memcpy(pos.T, v.T, 52)
    memcpy(pos.D, v.D, 52)
    memcpy(pos.H, c.H, 52)
    pos.JT = v.JT
    pos.JH = c.JH
    c.none = 0
    c.nJT = 0
    v2 = _solve_play(r, &pos, &x.w, &x.path, c.nT, c.nD, &c.nJT)
    if v2 == -2:
        return -CG_NO_MEMORY
    if v2 == -1:
        return -CG_BAD_TABLE
    if v2 == -3:
        return -3
    if v2 > 0:
        # the position's exact value: the learned features ask it next
        if _cg_solve(r, &pos, 0, 0, x, v2) == -2:
            return -CG_NO_MEMORY
        return 1
    return 0


cdef int _cs_same(const CSCand* a, const CSCand* b) noexcept nogil:
    if a.none != b.none:
        return 0
    if a.none:
        return a.hold == b.hold
    return (a.nJT == b.nJT and memcmp(a.nT, b.nT, 52) == 0
            and memcmp(a.nD, b.nD, 52) == 0)


cdef int _cs_add(CSCand* cand, int k, const CSCand* c) noexcept nogil:
    """Append ``c`` unless a candidate leaves the same table; the count."""
    cdef int i
    for i in range(k):
        if _cs_same(&cand[i], c):
            return k
    cand[k] = c[0]
    return k + 1


cdef int _cs_candidates(const CRules* r, const CSView* v, int decision, const CSOpts* o,
                        CGCtx* x, CSCand* cand) noexcept nogil:
    """The decision's candidates (module docstring); their count, or CS_GREEDY, or a
    negative CG_ status."""
    cdef CSCand c
    cdef int k = 0, res, i, j, top, no
    cdef int order[52]
    if decision == CS_KNOCK:
        # the passes that hold back (HOLD_*); with a model one pass, after which the
        # player's knocks are the learned bot's
        k = 4 if (o.hold and o.net == NULL) else 2
        memset(cand, 0, k * sizeof(CSCand))
        for i in range(1, k):
            cand[i].none = 1
            cand[i].hold = i - 1       # HOLD_GREEDY, HOLD_OUT, HOLD_NEAR
        return k
    memcpy(c.H, v.H, 52)
    c.JH = v.JH
    res = _cs_play_of(r, v, x, &c)
    if res == -3:
        return CS_GREEDY
    if res < 0:
        return res
    if res == 0:
        cand[0].none = 1
        return 1
    k = _cs_add(cand, k, &c)
    c.none = 1
    k = _cs_add(cand, k, &c)
    # the jokers kept back
    if v.JH > 0 and cand[0].nJT > v.JT:
        memcpy(c.H, v.H, 52)
        c.JH = 0
        res = _cs_play_of(r, v, x, &c)
        if res < 0 and res != -3:
            return res
        if res == 1:
            k = _cs_add(cand, k, &c)
    if o.lite:
        return k
    # the highest card the best play places kept back
    top = -1
    for i in range(52):
        if cand[0].nT[i] > v.T[i] and (top < 0 or r.val[i] > r.val[top]):
            top = i
    if top >= 0:
        memcpy(c.H, v.H, 52)
        c.JH = v.JH
        c.H[top] = 0
        res = _cs_play_of(r, v, x, &c)
        if res < 0 and res != -3:
            return res
        if res == 1:
            k = _cs_add(cand, k, &c)
    # the smallest play: one hand card alone, the one worth the most (the first in deck
    # order among those worth as much): the cards tried from the most valuable down, the
    # first that plays is the answer
    no = 0
    for i in range(52):
        if v.H[i] == 0:
            continue
        j = no
        while j > 0 and r.val[order[j - 1]] < r.val[i]:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
        no += 1
    for j in range(no):
        i = order[j]
        memset(c.H, 0, 52)
        c.H[i] = 1
        c.JH = 0
        res = _cs_play_of(r, v, x, &c)
        if res < 0 and res != -3:
            return res
        if res == 1:
            k = _cs_add(cand, k, &c)
            break
    return k


cdef double _cs_z(const double* a, const double* b, int n) noexcept nogil:
    """The paired z statistic of ``a - b`` over ``n`` determinizations (1e9 when every
    difference is the same positive number, 0 when all are 0, -1e9 negative)."""
    cdef double s = 0.0, ss = 0.0, d, mean, var
    cdef int i
    for i in range(n):
        d = a[i] - b[i]
        s += d
        ss += d * d
    mean = s / n
    var = ss / n - mean * mean
    if n > 1:
        var = var * n / (n - 1)
    if var <= 1e-12:
        if mean > 1e-12:
            return 1e9
        if mean < -1e-12:
            return -1e9
        return 0.0
    return mean / sqrt(var / n)


cdef int _cs_same_all(const double* a, const double* b, int n) noexcept nogil:
    """Whether two candidates scored the same on every determinization."""
    cdef int i
    for i in range(n):
        if a[i] != b[i]:
            return 0
    return 1


cdef int _cs_decide(const CRules* r, const GRules* gr, const CSView* v, int decision,
                    const CSOpts* o, int budget, double z_stop, double z_play, bitgen_t* bg,
                    CGCtx* x, Rebuild* rb, CSCand* chosen, int* used) noexcept nogil:
    """The search bot's answer to ``decision``: the chosen candidate's index (0 the
    greedy move; its play in ``chosen``), CS_GREEDY, or a negative CG_ status;
    ``used``: the rollouts made."""
    cdef CSCand cand[CS_MAXCAND]
    cdef uint8_t u[CG_MAXDECK]
    cdef int alive[CS_MAXCAND]
    cdef double mean[CS_MAXCAND]
    cdef int K, m, i, j, nd = 0, spent = 0, nalive, lead, res, b, half_done = 0, order, p0
    cdef int cap
    cdef double z
    cdef double* vals
    cdef RState base
    used[0] = 0
    K = _cs_candidates(r, v, decision, o, x, cand)
    if K < 0:
        return K
    if K == 1:
        chosen[0] = cand[0]
        return 0
    m = _cs_unseen(r, v, u)
    if m < 0:
        return -CG_BAD_TABLE
    # the move played unless the rollouts beat it: the greedy move, or with a model the
    # learned bot's choice among the same candidates
    p0 = 0
    if o.net != NULL:
        p0 = _cl_best(r, gr, v, decision, o.net, x, cand, K)
    cap = budget // 2 + CS_BATCH      # determinizations at most (two candidates left)
    vals = <double*>malloc(K * cap * sizeof(double))
    if vals == NULL:
        return -CG_NO_MEMORY
    for i in range(K):
        alive[i] = 1
    nalive = K
    while nalive > 1 and spent + CS_BATCH * nalive <= budget and nd + CS_BATCH <= cap:
        for b in range(CS_BATCH):
            _cs_determinize(r, gr, v, u, m, bg, &base)
            for i in range(K):
                if not alive[i]:
                    continue
                res = _cs_eval(r, gr, v, decision, o, cand, i, &base, x, rb,
                               &vals[i * cap + nd])
                if res != 0:
                    free(vals)
                    return -res
                spent += 1
            nd += 1
        # the leader, then the paired test against it
        lead = -1
        for i in range(K):
            if alive[i]:
                mean[i] = 0.0
                for j in range(nd):
                    mean[i] += vals[i * cap + j]
                mean[i] /= nd
                if lead < 0 or mean[i] > mean[lead]:
                    lead = i
        for i in range(K):
            if not alive[i] or i == lead:
                continue
            z = _cs_z(&vals[lead * cap], &vals[i * cap], nd)
            if z >= z_stop or (nd >= 2 * CS_BATCH
                               and _cs_same_all(&vals[lead * cap], &vals[i * cap], nd)):
                alive[i] = 0
                nalive -= 1
        # sequential halving at a half and three quarters of the budget
        if nalive > 2 and ((half_done == 0 and 2 * spent >= budget)
                           or (half_done == 1 and 4 * spent >= 3 * budget)):
            half_done += 1
            for j in range(nalive // 2):
                order = -1
                for i in range(K):
                    if alive[i] and i != lead and (order < 0 or mean[i] < mean[order]
                                                   or (mean[i] == mean[order] and i > order)):
                        order = i
                alive[order] = 0
                nalive -= 1
    # the answer
    lead = -1
    for i in range(K):
        if alive[i]:
            mean[i] = 0.0
            for j in range(nd):
                mean[i] += vals[i * cap + j]
            if nd:
                mean[i] /= nd
            if lead < 0 or mean[i] > mean[lead]:
                lead = i
    if (lead != p0 and alive[p0] and nd > 0
            and _cs_z(&vals[lead * cap], &vals[p0 * cap], nd) < z_play):
        lead = p0
    free(vals)
    used[0] = spent
    chosen[0] = cand[lead]
    return lead


# --------------------------------------------------------------------------- the kernel's seats
cdef inline void _cs_opts_of(const CGame* g, int p, CSOpts* o) noexcept nogil:
    """Search seat ``p``'s options (``g.param[p][3]``: 0 the plain search, 1 the default;
    ``g.param[p][4]`` the horizon, ``g.net[p]`` the model)."""
    memset(o, 0, sizeof(CSOpts))
    o.hold = 1 if g.param[p][3] > 0 else 0
    o.horizon = <int>g.param[p][4]
    o.net = &g.net[p] if g.net[p].nin > 0 else NULL
    o.lite = 1 if o.net != NULL else 0


cdef void _cs_view_of(const CGame* g, int n, int p, int stock_left, int draws, int stock_out,
                      CSView* v) noexcept nogil:
    """What seat ``p`` sees of ``g``."""
    cdef int o, c
    v.me = p
    v.n = n
    memcpy(v.T, g.T, 52)
    memcpy(v.D, g.D, 52)
    memcpy(v.H, g.H[p], 52)
    v.JT = g.JT
    v.JH = g.JH[p]
    for o in range(n):
        v.sizes[o] = g.JH[o]
        for c in range(52):
            v.sizes[o] += g.H[o][c]
    v.stock = stock_left
    v.draws = draws
    v.stock_out = stock_out


cdef int _cg_meld_seat(const CRules* r, const GRules* gr, CGame* g, int p, CGCtx* x,
                       Rebuild* rb, int* detail, int draws, int stock_left,
                       int decision) noexcept nogil:
    """Seat ``p``'s meld question (``decision`` CS_MELD or CS_NODRAW): ``_cg_meld`` for
    the greedy and careful bots, the search for a search seat. 1 melded, 0 not, or a
    negative status."""
    cdef CSView v
    cdef CSCand c
    cdef CSOpts o
    cdef int res, used
    if g.kind[p] != CS_KIND and g.kind[p] != CL_KIND:
        return _cg_meld(r, g, p, x, rb, detail)
    _cs_view_of(g, gr.players, p, stock_left, draws, decision == CS_NODRAW, &v)
    if g.kind[p] == CL_KIND:
        res = _cl_decide(r, gr, &v, decision, &g.net[p], x, &c)
        if res == CS_GREEDY:
            return _cg_meld(r, g, p, x, rb, detail)
        if res < 0:
            return res
        if c.none:
            return 0
        return _cg_apply(r, g, p, c.nT, c.nD, c.nJT)
    _cs_opts_of(g, p, &o)
    res = _cs_decide(r, gr, &v, decision, &o, <int>g.param[p][0], g.param[p][1],
                     g.param[p][2], g.bg[p], x, rb, &c, &used)
    if res == CS_GREEDY:
        return _cg_meld(r, g, p, x, rb, detail)
    if res < 0:
        return res
    if c.none:
        return 0
    return _cg_apply(r, g, p, c.nT, c.nD, c.nJT)


cdef int _cs_knocks(const CRules* r, const GRules* gr, CGame* g, int p, int stock_left,
                    int stage, CGCtx* x, Rebuild* rb) noexcept nogil:
    """Whether search seat ``p``, whose hand may knock, does (``stage`` 0: its turn, 1:
    the turn in which it found the stock empty, 2: a last turn, where it knocks as the
    greedy bot). A failure is kept in ``g.search_err`` (the answer is then a knock)."""
    cdef CSView v
    cdef CSCand c
    cdef CSOpts o
    cdef int res, used
    if stage == 2:
        return 1
    _cs_view_of(g, gr.players, p, stock_left, 0, stage == 1, &v)
    if g.kind[p] == CL_KIND:
        return 1 if _cl_decide(r, gr, &v, CS_KNOCK, &g.net[p], x, &c) == 0 else 0
    _cs_opts_of(g, p, &o)
    res = _cs_decide(r, gr, &v, CS_KNOCK, &o, <int>g.param[p][0], g.param[p][1],
                     g.param[p][2], g.bg[p], x, rb, &c, &used)
    if res < 0:
        if g.search_err == 0:
            g.search_err = -res
        return 1
    return 1 if res == 0 else 0


cdef int _cs_seat(CGame* g, int p, b) except -1:
    """A search seat's entry of ``play_greedy_game``'s ``bots``: ``(name, rng, rollouts,
    z_stop, z_play)``, ``name`` "search" (the default search: knocks held back),
    "search-plain" (the search before it) or "search-learned"; "search" and
    "search-learned" may add ``model, horizon`` (the learned model scoring the rollouts'
    cut, None for rollouts to the round's end)."""
    model, horizon = None, 0
    try:
        if len(b) == 7 and b[0] in ("search", "search-learned"):
            name, rng, rollouts, z_stop, z_play, model, horizon = b
        else:
            name, rng, rollouts, z_stop, z_play = b
    except (TypeError, ValueError):
        raise ValueError(f"bots[{p}]: ('search', rng, rollouts, z_stop, z_play), got {b!r}") from None
    if not 0 <= int(horizon) <= CS_MAXHORIZON:
        raise ValueError(f"bots[{p}]: the horizon must be 0..{CS_MAXHORIZON}, got {horizon}")
    net_bind(&g.net[p], model, [])     # the model's arrays live as long as ``bots`` does
    if g.net[p].nin and g.net[p].nin != CL_NF:
        raise ValueError(f"bots[{p}]: the model reads {g.net[p].nin} features, Carousel's "
                         f"are {CL_NF}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"bots[{p}]: rng must be a numpy Generator, got {type(rng).__name__}")
    _cs_check(int(rollouts), float(z_stop), float(z_play))
    g.kind[p] = CS_KIND
    g.bg[p] = _cr_bitgen(rng)
    g.param[p][0] = int(rollouts)
    g.param[p][1] = float(z_stop)
    g.param[p][2] = float(z_play)
    g.param[p][3] = 0.0 if name == "search-plain" else 1.0
    g.param[p][4] = int(horizon)
    return 0


cdef int _cs_check(int rollouts, double z_stop, double z_play) except -1:
    if not 1 <= rollouts <= CS_MAXROLL:
        raise ValueError(f"search bot: rollouts must be 1..{CS_MAXROLL}, got {rollouts}")
    if not z_stop > 0:
        raise ValueError(f"search bot: z_stop must be > 0, got {z_stop}")
    if not z_play >= 0:
        raise ValueError(f"search bot: z_play must be >= 0, got {z_play}")
    return 0


cdef int _cs_grules(game_rules, GRules* gr) except -1:
    cdef Py_ssize_t i
    vals = None
    if type(game_rules) is tuple and len(<tuple>game_rules) == 13:
        # game_rules()'s own tuple of ints, read in place (a bot's single decision reads
        # it every call)
        vals = game_rules
        for i in range(13):
            if type((<tuple>game_rules)[i]) is not int:
                vals = None
                break
    if vals is None:
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
    return 0


#: search_decide's decisions
SEARCH_MELD = CS_MELD
SEARCH_NODRAW = CS_NODRAW
SEARCH_KNOCK = CS_KNOCK


def search_decide(CoreRules core, game_rules, rng, int decision, const uint8_t[::1] H, int JH,
                  const uint8_t[::1] T, const uint8_t[::1] D, int JT, sizes, int me,
                  int stock, int draws, bint stock_out, int rollouts, double z_stop,
                  double z_play, bint hold=False, model=None, int horizon=0):
    """One decision of the search bot, from what its player sees (the kernel's own
    function, on the bot's generator ``rng``): ``decision`` ``SEARCH_MELD`` /
    ``SEARCH_NODRAW`` / ``SEARCH_KNOCK``; the hand ``H`` (52 counts), ``JH``; the table
    ``T``, ``D`` (jokers declared as each card), ``JT``; every hand's size; the seat
    ``me``; the stock's size; the draws of this turn; whether the stock ran out in this
    turn (the player found it empty, or took its last card: ``PlayerView.stock_out``).
    ``game_rules``: ``play_greedy_game``'s 13 ints. Returns ``(choice, hand, jokers,
    rollouts)``: ``choice``
    the candidate's index (0: the greedy move; knock: 0 knock, 1 or more pass), -1 for
    the greedy move without a search; for a meld decision ``hand`` (52 counts as bytes)
    and ``jokers``: the part of the hand whose best play (``carousel.solver.best_play``)
    is the chosen play, or None for no play. ``hold``: the default search's candidates
    (a knock decision's passes that hold back, ``HOLD_*``); False: the plain search's.
    ``model``: a learned model (``rummy51.learned.Model``) that scores each rollout at
    the end of the player's ``horizon``-th turn after this one; None: rollouts to the
    round's end."""
    cdef Net net
    cdef GRules gr
    cdef CSView v
    cdef CSCand c
    cdef CSOpts o
    cdef CGCtx* x
    cdef Rebuild* rb
    cdef bitgen_t* bg
    cdef int res, used = 0, i
    _cs_grules(game_rules, &gr)
    _cs_check(rollouts, z_stop, z_play)
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
    memset(&o, 0, sizeof(CSOpts))
    o.hold = 1 if hold else 0
    if not 0 <= horizon <= CS_MAXHORIZON:
        raise ValueError(f"horizon must be 0..{CS_MAXHORIZON}, got {horizon}")
    keep = []
    net_bind(&net, model, keep)
    if net.nin > 0:
        if net.nin != CL_NF:
            raise ValueError(f"the model reads {net.nin} features, Carousel's are {CL_NF}")
        o.net = &net
        o.horizon = horizon
        o.lite = 1
    bg = _cr_bitgen(rng)
    x = _cgctx_new()
    rb = <Rebuild*>malloc(sizeof(Rebuild))
    if x == NULL or rb == NULL:
        _cgctx_done(x)
        free(rb)
        raise MemoryError()
    with rng.bit_generator.lock, nogil:
        res = _cs_decide(&core.r, &gr, &v, decision, &o, rollouts, z_stop, z_play, bg, x,
                         rb, &c, &used)
    _cgctx_done(x)
    free(rb)
    if res == CS_GREEDY:
        return -1, None, 0, 0
    if res == -CG_NO_MEMORY:
        raise MemoryError("the carousel solver ran out of memory")
    if res < 0:
        raise ValueError(f"search_decide: the view is not a position of the game (status {-res})")
    if decision == CS_KNOCK or c.none:
        return res, None, 0, used
    return res, bytes(c.H[:52]), c.JH, used


def search_rollout_round(CoreRules core, game_rules, const uint8_t[::1] deck, int dealer):
    """Test hook: the search's rollout (``_cs_rollout``, greedy seats) of a whole round
    dealt from ``deck`` (the kernel's deal: the dealer's left gets the first hand) by
    ``dealer``, once for every seat as the bot. Returns ``(points, margins)``: each
    seat's hand points at the end of the round and each seat's margin (its round score
    less the mean of the others'), for a test against the kernel's greedy round."""
    cdef GRules gr
    cdef RState s
    cdef CGCtx* x
    cdef Rebuild* rb
    cdef int n, h, me, i, k, c, seat, res = 0
    cdef double m = 0.0
    _cs_grules(game_rules, &gr)
    n, h = gr.players, gr.hand_size
    if deck.shape[0] != gr.deck_size or not 0 <= dealer < n:
        raise ValueError(f"deck must hold {gr.deck_size} cards and dealer be a seat")
    x = _cgctx_new()
    rb = <Rebuild*>malloc(sizeof(Rebuild))
    if x == NULL or rb == NULL:
        _cgctx_done(x)
        free(rb)
        raise MemoryError()
    points, margins = [], []
    for me in range(n):
        memset(&s, 0, sizeof(RState))
        for i in range(n):
            seat = (dealer + 1 + i) % n
            for k in range(h):
                c = deck[i * h + k]
                if c == 52:
                    s.g.JH[seat] += 1
                else:
                    s.g.H[seat][c] += 1
        for i in range(n):
            s.g.pts[i] = _cg_points(&core.r, s.g.H[i], s.g.JH[i])
        s.S = gr.deck_size - n * h
        for i in range(s.S):
            s.stock[i] = deck[n * h + i]
        s.cur = (dealer + 1) % n
        s.finder = -1
        if s.S == 0 and gr.exhauster:
            s.finder = dealer       # the deal took the last card (as _cg_play)
            s.last_k = 1
            s.is_last = 1
        if x.memo != NULL:
            _memo_reset(x.memo)
        with nogil:
            res = _cs_rollout(&core.r, &gr, &s, ST_TURN, me, x, rb, &m)
        if res != 0:
            break
        points = [int(s.g.pts[i]) for i in range(n)]
        margins.append(m)
    _cgctx_done(x)
    free(rb)
    if res != 0:
        raise ValueError(f"search_rollout_round: status {res}")
    return points, margins


def _candidate_values(CoreRules core, game_rules, rng, int decision, const uint8_t[::1] H,
                      int JH, const uint8_t[::1] T, const uint8_t[::1] D, int JT, sizes,
                      int me, int stock, int draws, bint stock_out, int n, bint hold=True,
                      model=None, int horizon=0):
    """Test and bench hook: every candidate of ``decision`` (the search's, with the default
    search's options ``hold``, ``model``, ``horizon``) scored on the same ``n``
    determinizations, no early stop: ``(margins, plays)``, margins (candidates, n) and
    each candidate's table after it (None for no play; a knock decision: knock, then the
    passes)."""
    cdef GRules gr
    cdef CSView v
    cdef CSCand cand[CS_MAXCAND]
    cdef CSOpts o
    cdef RState base
    cdef Net net
    cdef uint8_t u[CG_MAXDECK]
    cdef CGCtx* x
    cdef Rebuild* rb
    cdef bitgen_t* bg
    cdef int i, d, m, K, res = 0
    _cl_view_args(&v, &gr, game_rules, H, JH, T, D, JT, sizes, me, stock, draws, stock_out)
    memset(&o, 0, sizeof(CSOpts))
    o.hold = 1 if hold else 0
    keep = []
    net_bind(&net, model, keep)
    if net.nin > 0:
        o.net = &net
        o.horizon = horizon
        o.lite = 1
    m = _cs_unseen(&core.r, &v, u)
    if m < 0:
        raise ValueError("the view is not a position of the game")
    bg = _cr_bitgen(rng)
    x = _cgctx_new()
    rb = <Rebuild*>malloc(sizeof(Rebuild))
    if x == NULL or rb == NULL:
        _cgctx_done(x)
        free(rb)
        raise MemoryError()
    K = _cs_candidates(&core.r, &v, decision, &o, x, cand)
    if K < 0:
        _cgctx_done(x)
        free(rb)
        raise ValueError(f"no candidates (status {K})")
    out = np.zeros((K, n))
    cdef double[:, ::1] ov = out
    with rng.bit_generator.lock, nogil:
        for d in range(n):
            _cs_determinize(&core.r, &gr, &v, u, m, bg, &base)
            for i in range(K):
                res = _cs_eval(&core.r, &gr, &v, decision, &o, cand, i, &base, x, rb, &ov[i, d])
                if res != 0:
                    break
            if res != 0:
                break
    _cgctx_done(x)
    free(rb)
    if res != 0:
        raise ValueError(f"a rollout failed (status {res})")
    plays = [None if (cand[i].none or decision == CS_KNOCK) else
             (bytes(cand[i].nT[:52]), bytes(cand[i].nD[:52]), cand[i].nJT) for i in range(K)]
    return out, plays


def _knock_values(CoreRules core, game_rules, rng, const uint8_t[::1] H, int JH,
                  const uint8_t[::1] T, const uint8_t[::1] D, int JT, sizes, int me,
                  int stock, bint stock_out, int n):
    """Test hook: a knock decision's candidates (knock, then the passes HOLD_GREEDY,
    HOLD_OUT, HOLD_NEAR) on the same ``n`` determinizations: their margins, (4, n)."""
    cdef GRules gr
    cdef CSView v
    cdef CSCand cand[4]
    cdef CSOpts o
    cdef RState base
    cdef uint8_t u[CG_MAXDECK]
    cdef CGCtx* x
    cdef Rebuild* rb
    cdef bitgen_t* bg
    cdef int i, d, m, res = 0
    cdef double[:, ::1] out = np.zeros((4, n))
    _cs_grules(game_rules, &gr)
    sizes = [int(s) for s in sizes]
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
    v.draws = 0
    v.stock_out = 1 if stock_out else 0
    memset(&o, 0, sizeof(CSOpts))
    o.hold = 1
    m = _cs_unseen(&core.r, &v, u)
    if m < 0:
        raise ValueError("not a position")
    bg = _cr_bitgen(rng)
    x = _cgctx_new()
    rb = <Rebuild*>malloc(sizeof(Rebuild))
    if x == NULL or rb == NULL:
        _cgctx_done(x)
        free(rb)
        raise MemoryError()
    _cs_candidates(&core.r, &v, CS_KNOCK, &o, x, cand)
    with rng.bit_generator.lock, nogil:
        for d in range(n):
            _cs_determinize(&core.r, &gr, &v, u, m, bg, &base)
            for i in range(4):
                res = _cs_eval(&core.r, &gr, &v, CS_KNOCK, &o, cand, i, &base, x, rb, &out[i, d])
                if res != 0:
                    break
    _cgctx_done(x)
    free(rb)
    return np.asarray(out)
