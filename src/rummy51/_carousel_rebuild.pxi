# _carousel_rebuild.pxi: meld reconstruction: the melds of a best play, rebuilt meld by meld.
#
# As the Python reference (rummy51.carousel.solver._rebuild_python) does, each
# step checked against the solver's value; rebuild_counts.
#
# (Included by _carousel.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _carousel.pyx.)

# --------------------------------------------------------------------------- meld reconstruction
# The melds of a best play, rebuilt meld by meld exactly as the Python reference
# (``rummy51.carousel.solver._rebuild_python``) does, each step checked against the
# kernel's value of what is left (``_solve``, the function ``solve_counts`` wraps),
# with no Python object in the loop. Same candidate order (``_candidates``: shortest
# first; sets before runs of one length, runs by their lowest position), same filling
# order (``_fills``), same errors.

DEF RB_MAXCAND = 128     # candidate melds of one card (at most 4 sets + 91 runs)
DEF RB_MAXSLOTS = 512    # slots of the rebuilt table (a real one holds at most 3 * 52 + 7)
DEF RB_MAXMELDS = 256
DEF RB_GUARD = 1000      # steps before giving up (the reference's guard)

cdef struct Rebuild:
    int status            # 0 done, 1 did not converge, 2 ran out of cards, 3 no meld for
                          # ``detail``, 4 output full, -2 no memory
    int detail
    int nmelds
    int nslots
    int hand_jokers
    int32_t mlen[RB_MAXMELDS]
    uint8_t card[RB_MAXSLOTS]  # 52 = joker
    uint8_t rep[RB_MAXSLOTS]


# One reconstruction serves two callers, which differ in how they ask the solver (a
# fused type: each gets its own compiled copy, with nothing to choose at run time):
#
# * ``Work``: the solver's own (``rebuild_counts``, ``best_play``'s fallback): ``_solve``,
#   and on a hard big position first the candidates a beam search (``_solve_beam``)
#   proves right;
# * ``CGCtx``: the game kernel's (``_carousel_game.pxi``, for positions whose path
#   cannot be read): ``_cg_solve``, which remembers the solver's answers for the round
#   and refuses at once a remainder that cannot reach the value wanted, and each card's
#   candidates made once a game. The same melds.
cdef struct CGCtx           # defined in _carousel_game.pxi

ctypedef fused RbCtx:
    Work
    CGCtx


cdef inline int32_t _rb_solve(const CRules* r, const Pos* pos, int32_t want, int quick,
                              RbCtx* x) noexcept nogil:
    """The value of the remainder ``pos`` (a reconstruction step wants ``want``):
    ``_solve`` (``quick``: ``_solve_beam``), or the game kernel's ``_cg_solve``, which may
    answer -1 at once when the value cannot be ``want``."""
    if RbCtx is Work:
        return _solve_beam(r, pos, x) if quick else _solve(r, pos, x)
    else:
        return _cg_solve(r, pos, 1, want, x)


cdef int _rb_candidates(int card, int ace_high, uint8_t* cand, int* clen) noexcept nogil:
    """``_candidates``: melds (the cards their slots stand for) with a slot of ``card``,
    shortest first (a stable sort by length of: sets of 3, the set of 4, then runs by
    length and lowest position)."""
    cdef int rank = card % 13, suit = card // 13
    cdef int others[3]
    cdef int no = 0, s, i, j, n = 0, L, a, b, p, top, hit
    cdef int idx[3]
    for s in range(4):
        if s != suit:
            others[no] = s
            no += 1
    top = 14 if ace_high else 13
    for L in range(3, top + 1):
        if L == 3:
            # combinations(others, 2) in order: (0,1) (0,2) (1,2), slots in suit order
            for i in range(3):
                for j in range(i + 1, 3):
                    idx[0] = suit
                    idx[1] = others[i]
                    idx[2] = others[j]
                    _rb_sort3(idx)
                    for a in range(3):
                        cand[14 * n + a] = <uint8_t>(idx[a] * 13 + rank)
                    clen[n] = 3
                    n += 1
        elif L == 4:
            for s in range(4):
                cand[14 * n + s] = <uint8_t>(s * 13 + rank)
            clen[n] = 4
            n += 1
        for a in range(1, top - L + 2):
            b = a + L - 1
            hit = 0
            if a <= rank + 1 <= b:
                hit = 1
            if rank == 0 and 14 <= top and a <= 14 <= b:
                hit = 1
            if not hit:
                continue
            for p in range(a, b + 1):
                cand[14 * n + p - a] = <uint8_t>(suit * 13 + (p - 1 if p <= 13 else 0))
            clen[n] = L
            n += 1
    return n


cdef inline void _rb_sort3(int* x) noexcept nogil:
    cdef int t
    if x[0] > x[1]:
        t = x[0]; x[0] = x[1]; x[1] = t
    if x[1] > x[2]:
        t = x[1]; x[1] = x[2]; x[2] = t
    if x[0] > x[1]:
        t = x[0]; x[0] = x[1]; x[1] = t


cdef int _rb_place(const CRules* r, Pos* st, int32_t* target, const uint8_t* meld, int n,
                   int anchor_natural, int anchor_card, int hand_phase, RbCtx* x,
                   Rebuild* out, int quick) noexcept nogil:
    """``_fills`` of one candidate meld, in its order; the first filling whose remaining
    value plus gain is the target is applied (1), or none is (0); -2 on no memory.
    ``quick``: the remaining value from a beam search (``_solve_beam``), which proves
    a filling right when it reaches the target but never proves one wrong."""
    cdef int limit = r.mj
    cdef int jokers = st.JT + st.JH
    cdef int anchor = -1, i, k, opt, n_opts, anchor_nat, max_j, nj, nr, ok, d, t
    cdef int from_table, from_hand, m
    cdef int rest[14]
    cdef int comb[14]
    cdef uint8_t isj[14]
    cdef int32_t gain, v
    cdef Pos nst
    for i in range(n):
        if meld[i] == anchor_card:
            anchor = i
            break
    if anchor < 0:
        return 0
    nr = 0
    for i in range(n):
        if i != anchor:
            rest[nr] = i
            nr += 1
    n_opts = 1 if anchor_natural else 2
    for opt in range(n_opts):
        anchor_nat = 1 if opt == 0 else 0
        max_j = jokers - (0 if anchor_nat else 1)
        if n - 1 < max_j:
            max_j = n - 1
        if limit - (0 if anchor_nat else 1) < max_j:
            max_j = limit - (0 if anchor_nat else 1)
        if max_j < 0:
            max_j = 0
        for nj in range(max_j + 1):
            if nj > nr:
                break
            for i in range(nj):
                comb[i] = i
            while True:
                # one joker set: rest[comb[0..nj-1]], plus the anchor when it is a joker
                memset(isj, 0, 14)
                for i in range(nj):
                    isj[rest[comb[i]]] = 1
                if not anchor_nat:
                    isj[anchor] = 1
                k = nj + (0 if anchor_nat else 1)
                if not (k == n or k > limit):
                    nst = st[0]
                    gain = 0
                    ok = 1
                    for i in range(n):
                        d = meld[i]
                        if nst.D[d] > 0:
                            nst.D[d] -= 1
                        if isj[i]:
                            continue
                        if nst.T[d] > 0 and not hand_phase:
                            nst.T[d] -= 1
                        elif nst.H[d] > 0:
                            nst.H[d] -= 1
                            gain += r.val[d] * VALMUL + 1
                        else:
                            ok = 0
                            break
                    if ok:
                        from_table = k if k < st.JT else st.JT
                        from_hand = k - from_table
                        if from_hand <= st.JH:
                            gain += from_hand * (r.val[52] * VALMUL + 1)
                            nst.JT = st.JT - from_table
                            nst.JH = st.JH - from_hand
                            v = _rb_solve(r, &nst, target[0] - gain, quick, x)
                            if v == -2:
                                return -2
                            if v == -4 or v == -5:
                                return v - 10     # a limit of the call: -14 / -15
                            if v >= 0 and v + gain == target[0]:
                                if out.nmelds >= RB_MAXMELDS or out.nslots + n > RB_MAXSLOTS:
                                    return -4
                                m = out.nslots
                                for i in range(n):
                                    out.card[m + i] = 52 if isj[i] else meld[i]
                                    out.rep[m + i] = meld[i]
                                out.nslots += n
                                out.mlen[out.nmelds] = n
                                out.nmelds += 1
                                out.hand_jokers += from_hand
                                st[0] = nst
                                target[0] -= gain
                                return 1
                # next combination of nj indices out of nr, in lexicographic order
                i = nj - 1
                while i >= 0 and comb[i] == nr - nj + i:
                    i -= 1
                if i < 0:
                    break
                comb[i] += 1
                for t in range(i + 1, nj):
                    comb[t] = comb[t - 1] + 1
    return 0


cdef void _rebuild(const CRules* r, Pos* st, int32_t target, RbCtx* x,
                   Rebuild* out) noexcept nogil:
    """``_rebuild_python`` in C: melds placing every required card and reaching
    ``target`` (the kernel's value of ``st``). The limits set in its work (``_set_limits``)
    cover every solve of it together: status -4 / -5 past them."""
    cdef int guard = 0, c, low, anchor_natural, hand_phase, nc, j, res
    cdef uint8_t cand_made[RB_MAXCAND * 14]
    cdef int clen_made[RB_MAXCAND]
    cdef uint8_t* cand
    cdef int* clen
    cdef Pos skip
    cdef int32_t v
    out.status = 0
    out.detail = 0
    out.nmelds = 0
    out.nslots = 0
    out.hand_jokers = 0
    while True:
        guard += 1
        if guard > RB_GUARD:
            out.status = 1
            return
        low = -1
        for c in range(52):
            if st.T[c] > 0 or st.D[c] > 0:
                low = c
                break
        if low >= 0:
            anchor_natural = 1 if st.T[low] > 0 else 0
            hand_phase = 0
        else:
            if target == 0 and st.JT == 0:
                return
            for c in range(52):
                if st.H[c] > 0:
                    low = c
                    break
            if low < 0:
                out.status = 2
                return
            # leave this card in hand if the rest still reaches the target
            skip = st[0]
            skip.H[low] -= 1
            v = _rb_solve(r, &skip, target, 0, x)
            if v == -2 or v == -4 or v == -5:
                out.status = v
                return
            if v == target:
                st[0] = skip
                continue
            anchor_natural = 1
            hand_phase = 1
        if RbCtx is Work:
            nc = _rb_candidates(low, r.ace_high, cand_made, clen_made)
            cand = cand_made
            clen = clen_made
        else:
            if x.ncand[low] == 0:
                x.ncand[low] = _rb_candidates(low, r.ace_high, x.cand[low], x.clen[low])
            nc = x.ncand[low]
            cand = x.cand[low]
            clen = x.clen[low]
        res = 0
        if RbCtx is Work:
            if _hard_position(r, st):
                # a hard big position: first the candidates a beam search proves right
                # (most wrong ones take the exact program long to refute), then every
                # candidate
                for j in range(nc):
                    res = _rb_place(r, st, &target, &cand[14 * j], clen[j], anchor_natural,
                                    low, hand_phase, x, out, 1)
                    if res != 0:
                        break
        if res == 0:
            for j in range(nc):
                res = _rb_place(r, st, &target, &cand[14 * j], clen[j], anchor_natural, low,
                                hand_phase, x, out, 0)
                if res != 0:
                    break
        if res == -2 or res == -4:
            out.status = res if res == -2 else 4
            return
        if res == -14 or res == -15:
            out.status = res + 10
            return
        if res == 0:
            out.status = 3
            out.detail = low
            return


def rebuild_counts(CoreRules rules, const uint8_t[::1] T, const uint8_t[::1] H,
                   const uint8_t[::1] D, int JT, int JH, int32_t target,
                   int64_t node_limit=0, double time_limit=0, bint game=False):
    """The melds of a play of raw counts reaching ``target`` (the value ``solve_counts``
    gives them), rebuilt in C exactly as ``solver._rebuild_python`` does:
    ``(status, detail, melds, hand_jokers)``, ``melds`` a list of lists of
    ``(card, represents)`` pairs (52 = joker) in the order built; status 0 done, 1 did
    not converge, 2 ran out of cards, 3 found no meld for card ``detail``, 4 too many
    melds, -4 / -5 past ``node_limit`` states / ``time_limit`` seconds (every solve of
    the reconstruction together; 0: no limit). ``game``: the game kernel's way (its round
    memo of the solver's answers and shortcuts, for positions whose path cannot be read),
    which must give the same melds. The GIL is released; ``last_nodes()`` says how many
    states it expanded."""
    cdef Pos pos
    cdef Work w
    cdef CGCtx* x = NULL
    cdef Rebuild* out
    cdef int i, k, m, s
    _counts_pos(T, H, D, JT, JH, 7, &pos)
    out = <Rebuild*>malloc(sizeof(Rebuild))
    if out == NULL:
        raise MemoryError()
    if game:
        x = <CGCtx*>calloc(1, sizeof(CGCtx))
        if x == NULL or _work_init_kept(&x.w) != 0:
            free(x)
            free(out)
            raise MemoryError()
        with nogil:
            _set_limits(&x.w, node_limit, time_limit)
            _rebuild(&rules.r, &pos, target, x, out)
        _record_nodes(x.w.nodes)
        _work_free_kept(&x.w)
        free(x.path.par)
        free(x.path.info)
        free(x.memo)
        free(x)
    else:
        if _work_init_kept(&w) != 0:
            free(out)
            raise MemoryError()
        with nogil:
            _set_limits(&w, node_limit, time_limit)
            _rebuild(&rules.r, &pos, target, &w, out)
        _record_nodes(w.nodes)
        _work_free_kept(&w)
    try:
        if out.status == -2:
            raise MemoryError("the carousel solver ran out of memory")
        melds = []
        s = 0
        for m in range(out.nmelds):
            melds.append([(out.card[s + k], out.rep[s + k]) for k in range(out.mlen[m])])
            s += out.mlen[m]
        return out.status, out.detail, melds, out.hand_jokers
    finally:
        free(out)
