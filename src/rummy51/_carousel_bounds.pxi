# _carousel_bounds.pxi: bounds of a position's value (experiments).
#
# (Included by _carousel.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _carousel.pyx.)


# tuning (experiments): the cards from which bounds go first, the widths of the beams
cdef int _bf_from = 40
cdef int64_t _bf_full[4]
_bf_full[0] = 8
_bf_full[1] = 64
_bf_full[2] = 512
_bf_full[3] = 0
cdef int64_t _bf_lb = 16



def _set_bounds_params(int from_cards, full_beams, int64_t lb_beam):
    global _bf_from, _bf_lb
    cdef int i
    _bf_from = from_cards
    for i in range(4):
        _bf_full[i] = full_beams[i] if i < len(full_beams) else 0
    _bf_lb = lb_beam


cdef inline int _bounds_first(const CRules* r, const Pos* pos) noexcept nogil:
    """Whether ``_solve_bounded`` answers ``pos`` (its forced jokers fixed, its hand
    pruned): a hand card to place and at least ``_bf_from`` cards in the position."""
    cdef int c, n = pos.JT + pos.JH
    for c in range(52):
        n += pos.T[c] + pos.H[c]
    return 1 if n >= _bf_from else 0


cdef inline int _stop(int32_t v) noexcept nogil:
    return 1 if (v == -2 or v == -4 or v == -5) else 0


cdef int32_t _solve_bounded(const CRules* r, const Pos* pos, Work* w, int32_t full,
                            Path* path) noexcept nogil:
    """The exact value of ``pos`` (forced jokers fixed, hand pruned; ``full`` the value
    of placing its whole hand) and, with ``path``, its play, by bounds first:

    1. beam searches, wider and wider, for a play placing every hand card (``want`` =
       ``full``, the upper bound): one found is the answer;
    2. else a beam search for any play: the best value found, ``lb``, is a real play's;
    3. the program keeping only the states that can still beat ``lb`` (``want`` = lb + 1,
       which keeps every state of every better play): a value it finds is exact, and
       if it finds none ``lb`` is the answer.
    The same value as the plain program (a play of that value: with ties, perhaps
    another than the plain program's)."""
    cdef int32_t v, lb = -1
    cdef int i, lb_run = -1
    cdef int64_t b
    for i in range(4):
        b = _bf_full[i]
        if b <= 0:
            break
        v = _solve_dp(r, pos, w, full, path, b, _bf_debt)
        if v == full or _stop(v):
            return v
        if v > lb:
            lb = v
            lb_run = i
    if _bf_lb > 0:
        v = _solve_dp(r, pos, w, 0, path, _bf_lb, _bf_debt)
        if _stop(v):
            return v
        if v > lb:
            lb = v
            lb_run = 4
    if lb < 0:
        # no arrangement found: the plain program (want 1 for a path, as _solve_play asks)
        return _solve_dp(r, pos, w, 1 if path != NULL else 0, path)
    v = _solve_dp(r, pos, w, lb + 1, path)
    if v > lb or _stop(v):
        return v
    if path != NULL and lb > 0:
        # the play of value lb: its beam search again, keeping its path
        if lb_run == 4:
            v = _solve_dp(r, pos, w, 0, path, _bf_lb, _bf_debt)
        else:
            v = _solve_dp(r, pos, w, full, path, _bf_full[lb_run], _bf_debt)
        if _stop(v):
            return v
    return lb


def _debug_bounds(CoreRules rules, const uint8_t[::1] T, const uint8_t[::1] H,
                  const uint8_t[::1] D, int JT, int JH):
    cdef Pos pos
    cdef Work w
    cdef int32_t v
    cdef int64_t s0
    cdef int b
    _counts_pos(T, H, D, JT, JH, 15, &pos)
    _fix_forced_jokers(&rules.r, &pos)
    _prune_hand_fixpoint(&rules.r, &pos)
    out = {"full": _hand_value(&rules.r, &pos)}
    if _work_init(&w) != 0:
        raise MemoryError()
    for b in (4, 16, 64, 256):
        s0 = _n_states
        v = _solve_dp(&rules.r, &pos, &w, 0, NULL, b)
        out[f"beam{b}"] = (v, _n_states - s0)
    for b in (4, 16, 64, 256):
        s0 = _n_states
        v = _solve_dp(&rules.r, &pos, &w, out["full"], NULL, b)
        out[f"fbeam{b}"] = (v, _n_states - s0)
    s0 = _n_states
    v = _solve_dp(&rules.r, &pos, &w, 0, NULL)
    out["exact"] = (v, _n_states - s0)
    s0 = _n_states
    out["want_exact"] = (_solve_dp(&rules.r, &pos, &w, v, NULL), _n_states - s0)
    s0 = _n_states
    out["want_exact1"] = (_solve_dp(&rules.r, &pos, &w, v + 1, NULL), _n_states - s0)
    s0 = _n_states
    out["want_full"] = (_solve_dp(&rules.r, &pos, &w, out["full"], NULL), _n_states - s0)
    _work_free(&w)
    return out


def _debug_states(CoreRules rules, const uint8_t[::1] T, const uint8_t[::1] H,
                  const uint8_t[::1] D, int JT, int JH, int32_t want, int64_t beam):
    cdef Pos pos
    cdef Work w
    cdef int32_t v
    cdef int64_t s0
    _counts_pos(T, H, D, JT, JH, 15, &pos)
    _fix_forced_jokers(&rules.r, &pos)
    _prune_hand_fixpoint(&rules.r, &pos)
    if _work_init(&w) != 0:
        raise MemoryError()
    s0 = _n_states
    v = _solve_dp(&rules.r, &pos, &w, want, NULL, beam)
    _work_free(&w)
    return v, _n_states - s0
