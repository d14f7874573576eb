# _carousel_bounds.pxi: bounds of a position's value (experiments).
#
# (Included by _carousel.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _carousel.pyx.)


DEF PROOF_BUDGET = 256    # states a proof may expand beyond twice the beams' (see _solve_bounded)

# tuning (experiments): the cards from which bounds go first, the widths of the beams
cdef int _bf_from = 40
cdef int64_t _bf_full[4]
_bf_full[0] = 8
_bf_full[1] = 64
_bf_full[2] = 512
_bf_full[3] = 4096
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
    of placing its whole hand) and, with ``path``, its play, by bounds first. For beam
    widths 8, 64, 512, 4096 in turn:

    1. a beam search for a play placing every hand card (``want`` = ``full``, the upper
       bound): one found is the answer;
    2. a beam search for any play (at least 16 wide): the best value found so far,
       ``lb``, is a real play's;
    3. the program keeping only the states that can still beat ``lb`` (``want`` = lb + 1,
       which keeps every state of every better play): a value it finds is exact, and if
       it finds none ``lb`` is the answer. How long that takes depends on how close
       ``lb`` is to the best, so it may expand at most twice the states the beams took
       so far; past that the next width tries for a better ``lb`` first.
    After the widest, the program runs to the end (``lb`` as far as it helps). The same
    value as the plain program (a play of that value: with ties, perhaps another than
    the plain program's)."""
    cdef int32_t v, lb = -1, want
    cdef int i, lb_run = -1
    cdef int64_t width, lb_width = 0, s0 = _n_states
    for i in range(5):
        width = _bf_full[i] if i < 4 else 0
        if width > 0:
            v = _solve_dp(r, pos, w, full, path, width, _bf_debt)
            if v == full or _stop(v):
                return v
            if v > lb:
                lb = v
                lb_run = 0
                lb_width = width
            if width < _bf_lb:
                width = _bf_lb
            v = _solve_dp(r, pos, w, 0, path, width, _bf_debt)
            if _stop(v):
                return v
            if v > lb:
                lb = v
                lb_run = 1
                lb_width = width
            if lb < 0:
                continue        # no play yet: wider beams before any proof
        # the proof, within twice the states the beams took (none after the widest)
        want = lb + 1 if lb >= 0 else (1 if path != NULL else 0)
        v = _solve_dp(r, pos, w, want, path, 0, BEAM_DEBT,
                      2 * (_n_states - s0) + PROOF_BUDGET if width > 0 else 0)
        if v != -6:
            break
    if _stop(v) or v > lb or lb < 0:
        return v
    if path != NULL and lb > 0:
        # the play of value lb: its beam search again, keeping its path
        v = _solve_dp(r, pos, w, full if lb_run == 0 else 0, path, lb_width, _bf_debt)
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


def _debug_states2(CoreRules rules, const uint8_t[::1] T, const uint8_t[::1] H,
                   const uint8_t[::1] D, int JT, int JH, int32_t want, int64_t beam, int64_t debt):
    cdef Pos pos
    cdef Work w
    cdef int32_t v
    cdef int64_t s0
    _counts_pos(T, H, D, JT, JH, 15, &pos)
    _fix_forced_jokers(&rules.r, &pos)
    _prune_hand(&rules.r, &pos)
    if _work_init(&w) != 0:
        raise MemoryError()
    s0 = _n_states
    v = _solve_dp(&rules.r, &pos, &w, want, NULL, beam, debt)
    _work_free(&w)
    return v, _n_states - s0


def _debug_full(CoreRules rules, const uint8_t[::1] T, const uint8_t[::1] H,
                const uint8_t[::1] D, int JT, int JH):
    cdef Pos pos
    _counts_pos(T, H, D, JT, JH, 15, &pos)
    _fix_forced_jokers(&rules.r, &pos)
    _prune_hand(&rules.r, &pos)
    return _hand_value(&rules.r, &pos)
