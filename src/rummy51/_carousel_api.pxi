# _carousel_api.pxi: the Python-facing wrappers of the solver.
#
# CoreRules (the rules compiled once), filling a position from count rows (_fill)
# with its one-line errors (_row_error), solve_counts and solve_batch.
#
# (Included by _carousel.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _carousel.pyx.)

# --------------------------------------------------------------------------- Python side
cdef class CoreRules:
    """The rules the kernel reads, compiled once from a ``CarouselRules``."""
    cdef CRules r

    def __cinit__(self, rules, cards_only=False):
        """``cards_only``: every card worth 0 points, so a solve's value is the most
        hand cards a legal play places (``carousel.max_cards_played``)."""
        cdef int c
        self.r.ace_high = 1 if rules.ace_high else 0
        self.r.mj = 99 if rules.max_jokers_per_meld is None else int(rules.max_jokers_per_meld)
        self.r.decks = int(rules.decks)
        self.r.jokers = int(rules.jokers)
        for c in range(53):
            self.r.val[c] = 0 if cards_only else int(rules.card_value(c))
        _set_types(&self.r)


cdef void _set_types(CRules* r) noexcept nogil:
    """The set types for each joker count 0..3 (a set holds at most 3 jokers): a suit
    mask of 3 or 4 suits and the suits filled by jokers, within the per-meld limit."""
    cdef int k, sm, jm, size, jn, n
    for k in range(4):
        n = 0
        for sm in range(16):
            size = (sm & 1) + ((sm >> 1) & 1) + ((sm >> 2) & 1) + ((sm >> 3) & 1)
            if size < 3:
                continue
            for jm in range(16):
                if (jm & ~sm) != 0 or jm == sm:
                    continue
                jn = (jm & 1) + ((jm >> 1) & 1) + ((jm >> 2) & 1) + ((jm >> 3) & 1)
                if jn > r.mj or jn > k:
                    continue
                r.stm[k][n] = <uint8_t>sm
                r.stj[k][n] = <uint8_t>jm
                r.stn[k][n] = <uint8_t>jn
                n += 1
        r.nst[k] = n


cdef int _fill(Pos* pos, const uint8_t* trow, Py_ssize_t nt, const uint8_t* hrow,
               Py_ssize_t nh, const CRules* r, int32_t* hand_points, int* detail) noexcept nogil:
    """Counts from one row of tables and hands; 0, or a negative error code with
    ``detail``: -10 bad table code (detail: its column), -11 bad hand code (column),
    -12 too many copies (detail: the card), -13 too many jokers (detail: how many)."""
    cdef Py_ssize_t i
    cdef int x, jt = 0, jh = 0
    cdef int32_t hp = 0
    memset(pos, 0, sizeof(Pos))
    for i in range(nt):
        x = trow[i]
        if x == 255:
            continue
        if x < 52:
            pos.T[x] += 1
        elif 53 <= x < 105:
            pos.D[x - 53] += 1
            jt += 1
        else:
            detail[0] = <int>i
            return -10
    for i in range(nh):
        x = hrow[i]
        if x == 255:
            continue
        if x < 52:
            pos.H[x] += 1
            hp += r.val[x]
        elif x == 52:
            jh += 1
            hp += r.val[52]
        else:
            detail[0] = <int>i
            return -11
    for i in range(52):
        if pos.T[i] + pos.H[i] > r.decks:
            detail[0] = <int>i
            return -12
    if jt + jh > r.jokers:
        detail[0] = jt + jh
        return -13
    pos.JT = jt
    pos.JH = jh
    hand_points[0] = hp
    return 0


_SUITS = "SHDC"
_RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]


def _row_error(int err, int detail, Py_ssize_t i, Py_ssize_t row, tables, hands, CoreRules rules):
    """The ValueError of bad batch row ``i`` (row ``row`` of the caller's arrays),
    naming the row and what is wrong."""
    if err == -10:
        return ValueError(f"tables row {row}, column {detail}: {tables[i, detail]} is not a table "
                          "code (0..51 a natural, 53..104 a table joker declared as code - 53, "
                          "255 padding)")
    if err == -11:
        return ValueError(f"hands row {row}, column {detail}: {hands[i, detail]} is not a hand "
                          "code (0..51 a natural, 52 a joker, 255 padding)")
    if err == -12:
        n = 0
        for x in tables[i]:
            n += x == detail
        for x in hands[i]:
            n += x == detail
        return ValueError(f"row {row}: table and hand hold {n} copies of "
                          f"{_RANKS[detail % 13]}{_SUITS[detail // 13]}, but rules.decks is "
                          f"{rules.r.decks}")
    return ValueError(f"row {row}: table and hand hold {detail} jokers, but rules.jokers is "
                      f"{rules.r.jokers}")


def solve_counts(CoreRules rules, const uint8_t[::1] T, const uint8_t[::1] H,
                 const uint8_t[::1] D, int JT, int JH, int64_t node_limit=0,
                 double time_limit=0):
    """Best value ``points * 256 + cards`` for raw counts (52 each), -1 if no
    arrangement keeps every required card, -4 / -5 past ``node_limit`` states /
    ``time_limit`` seconds (0: no limit). Used by the solver's reconstruction."""
    cdef Pos pos
    cdef Work w
    cdef int32_t v
    cdef int i
    _counts_pos(T, H, D, JT, JH, 7, &pos)
    if _work_init_kept(&w) != 0:
        raise MemoryError()
    with nogil:
        _set_limits(&w, node_limit, time_limit)
        v = _solve(&rules.r, &pos, &w)
    _work_free_kept(&w)
    if v == -2:
        raise MemoryError("the carousel solver ran out of memory")
    return v


def solve_batch(CoreRules rules, const uint8_t[:, ::1] tables, const uint8_t[:, ::1] hands,
                int32_t[::1] points_left, int32_t[::1] cards_played, int64_t row0=0,
                int64_t node_limit=0, double time_limit=0, int64_t memory_limit=0):
    """Rows of ``tables`` and ``hands`` (uint8 codes, 255 pads; a table joker declared
    d is 53 + d) -> points left after the best play and cards it plays (GIL released).
    A row whose table cannot be arranged gets points_left -1; a row that gives up
    gets points_left -2 and cards_played naming why: -2 no memory, -4 more than
    ``node_limit`` states expanded, -5 more than ``time_limit`` seconds, -6 more than
    ``memory_limit`` bytes held (the node and time limits each row on its own, the
    memory limit this call's rows together, on its thread; 0: no limit)."""
    cdef Py_ssize_t n = tables.shape[0], i, nt = tables.shape[1], nh = hands.shape[1]
    cdef Pos pos
    cdef Work w
    cdef int32_t v, hp
    cdef int err = 0, detail = 0
    cdef Py_ssize_t bad = -1
    if hands.shape[0] != n or points_left.shape[0] != n or cards_played.shape[0] != n:
        raise ValueError("tables, hands and the outputs must have the same number of rows")
    cdef int64_t m_limit = r51_mem_limit(), m_base = r51_mem_base(), m_peak = r51_mem_peak()
    cdef int m_hit = r51_mem_hit()
    if memory_limit > 0:
        r51_mem_begin(memory_limit)     # this thread's rows hold at most the limit together
    if _work_init_kept(&w) != 0:
        if memory_limit > 0 and r51_mem_hit():
            # not even the work area fits the limit: every row gives up at it
            r51_mem_restore(m_limit, m_base, m_peak, m_hit)
            for i in range(n):
                points_left[i] = -2
                cards_played[i] = -6
            return
        r51_mem_restore(m_limit, m_base, m_peak, m_hit)
        raise MemoryError()
    with nogil:
        for i in range(n):
            hp = 0
            err = _fill(&pos, &tables[i, 0] if nt > 0 else NULL, nt,
                        &hands[i, 0] if nh > 0 else NULL, nh, &rules.r, &hp, &detail)
            if err != 0:
                bad = i
                break
            _set_limits(&w, node_limit, time_limit)
            v = _solve(&rules.r, &pos, &w)
            if memory_limit > 0 and r51_mem_hit():
                if v == -2:
                    v = -6
                r51_mem_restore(memory_limit, r51_mem_base(), r51_mem_peak(), 0)
            if v == -2 or v == -4 or v == -5 or v == -6:
                # gave up: no memory (-2), past the node (-4), time (-5) or memory (-6) limit
                points_left[i] = -2
                cards_played[i] = v
                continue
            if v < 0:
                points_left[i] = -1
                cards_played[i] = 0
            else:
                points_left[i] = hp - v // VALMUL
                cards_played[i] = v % VALMUL
    r51_mem_restore(m_limit, m_base, m_peak, m_hit)
    _work_free_kept(&w)
    if err != 0:
        raise _row_error(err, detail, bad, row0 + bad, np.asarray(tables), np.asarray(hands), rules)
