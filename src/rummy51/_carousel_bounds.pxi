# _carousel_bounds.pxi: bounds of a position's value (beam searches, then the proof).
#
# (Included by _carousel.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _carousel.pyx.)


DEF PROOF_BUDGET = 256    # states a proof may expand beyond twice the beams' (see _solve_bounded)

DEF BF_FROM = 40          # cards in a position from which bounds go first (_bounds_first)
DEF BF_LB = 16            # the narrowest beam of a search for any play (a lower bound)

# the widths of the beams, narrow to wide (_solve_bounded)
cdef int64_t _bf_full[4]
_bf_full[0] = 8
_bf_full[1] = 64
_bf_full[2] = 512
_bf_full[3] = 4096


cdef inline int _bounds_first(const CRules* r, const Pos* pos) noexcept nogil:
    """Whether ``_solve_bounded`` answers ``pos`` (its forced jokers fixed, its hand
    pruned): a hand card to place and at least ``BF_FROM`` cards in the position."""
    cdef int c, n = pos.JT + pos.JH
    for c in range(52):
        n += pos.T[c] + pos.H[c]
    return 1 if n >= BF_FROM else 0


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
    cdef int64_t width, lb_width = 0, s0 = w.expanded
    for i in range(5):
        width = _bf_full[i] if i < 4 else 0
        if width > 0:
            v = _solve_dp(r, pos, w, full, path, width, BF_DEBT)
            if v == full or _stop(v):
                return v
            if v > lb:
                lb = v
                lb_run = 0
                lb_width = width
            if width < BF_LB:
                width = BF_LB
            v = _solve_dp(r, pos, w, 0, path, width, BF_DEBT)
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
                      2 * (w.expanded - s0) + PROOF_BUDGET if width > 0 else 0)
        if v != -6:
            break
    if _stop(v) or v > lb or lb < 0:
        return v
    if path != NULL and lb > 0:
        # the play of value lb: its beam search again, keeping its path
        v = _solve_dp(r, pos, w, full if lb_run == 0 else 0, path, lb_width, BF_DEBT)
        if _stop(v):
            return v
    return lb


def _program_run(CoreRules rules, table, hand, int32_t want, bint below_full=False,
                 int64_t beam=0):
    """One run of the program on a position as ``best_play`` takes it (forced jokers
    fixed, hand pruned, as ``_solve`` does first): ``(value, states expanded, full)``,
    ``full`` the value of placing the whole pruned hand (the bound). ``want`` as
    ``_solve_dp`` takes it (0: the exact value; > 0: only the states that can still
    reach it, the value exact when it does); with ``below_full`` the run asks for
    ``full - want``; ``beam`` > 0: a beam search that wide (as ``_solve_bounded``'s:
    a real play's value, not always the best). None for a position the C reader does
    not take. A diagnostic of the program's work (bench/carousel_state_floor.py), not
    an API."""
    cdef Pos pos
    cdef Work w
    cdef Path path
    cdef int32_t hp = 0, v, full
    if _sp_position(&rules.r, table, hand, &pos, &hp, NULL, NULL, NULL, NULL, 1) != 0:
        return None
    if _work_init_single(&w, &path) != 0:
        raise MemoryError()
    with nogil:
        _fix_forced_jokers(&rules.r, &pos)
        _prune_hand(&rules.r, &pos)
        full = _hand_value(&rules.r, &pos)
        if below_full:
            want = full - want
        w.expanded = 0
        v = _solve_dp(&rules.r, &pos, &w, want, NULL, beam, BF_DEBT)
    _work_free_single(&w, &path)
    if v == -2:
        raise MemoryError("the carousel solver ran out of memory")
    return v, w.expanded, full
