# _core_api.pxi: the Python-facing wrappers of the solver.
#
# CoreRules (the compiled rules), the one-line error texts, solve_one and
# solve_batch (validate with the GIL, then release it around the loop), and the
# test hooks _py_root_bound and _py_useful_mask.
#
# (Included by _core.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _core.pyx.)

# ---------------------------------------------------------------------------
# Python-facing wrappers


_MODES = {"best": MODE_BEST, "can_open": MODE_CAN_OPEN, "go_out": MODE_GO_OUT,
          "deadwood": MODE_DEADWOOD}


cdef class CoreRules:
    """A RuleSet compiled for the core: scalars, per-card bounds and the catalogue.

    Built by ``rummy51.solver`` from a ``RuleSet`` and its ``Catalogue``; it keeps
    the catalogue arrays alive while the C struct points into them."""
    cdef Rules r
    cdef object _keep
    cdef readonly object deck        # uint8 codes of the full deck
    cdef readonly int decks, jokers, threshold

    def __init__(self, rules, catalogue, maxval, hval, int jmax):
        cdef int c
        self.r.decks = rules.decks
        self.r.jokers = rules.jokers
        self.r.threshold = rules.threshold
        self.r.mj = rules.max_jokers_per_meld
        self.r.ace_high = 1 if rules.ace_high else 0
        self.r.joker_penalty = rules.joker_penalty
        self.r.bottom_card = 1 if rules.bottom_card else 0
        self.r.reshuffle_stock = 1 if rules.reshuffle_stock else 0
        self.r.jmax = jmax
        self.r.opening_run = ("any", "run", "pure_run").index(rules.opening_run)
        self.r.orun_lo = catalogue.start[52]
        self.r.orun_hi = catalogue.start[52] + catalogue.opening_runs
        if self.r.opening_run and catalogue.opening_runs == 0:
            raise ValueError("the catalogue lists no opening runs for rules.opening_run")
        self.decks = rules.decks
        self.jokers = rules.jokers
        self.threshold = rules.threshold
        cdef int lane, bitn, tv, tw
        for c in range(52):
            self.r.maxval[c] = maxval[c]
            self.r.hval[c] = hval[c]
        # per-lane sums (card values depend on the rank only, not the suit)
        for lane in range(16384):
            tv = 0
            tw = 0
            for bitn in range(14):
                if lane & (1 << bitn):
                    tv += self.r.maxval[bitn % 13]
                    tw += self.r.hval[bitn % 13]
            self.r.tabv[lane] = tv
            self.r.tabw[lane] = tw
        self.r.vmax = max(maxval)
        # run positions: 0 the low ace, 1..12 = 2..K, 13 the high ace
        self.r.pvsum[0] = 0
        for c in range(14):
            self.r.posval[c] = (rules.ace_low_value if c == 0 else
                                rules.ace_value if c == 13 else min(c + 1, 10))
            self.r.pvsum[c + 1] = self.r.pvsum[c] + self.r.posval[c]

        self.r.hmax = max(hval)
        # one-joker runs by suit pattern (joker_melds)
        lane_start = np.empty(8193, np.uint32)
        lane_run = np.empty(max(1, lane_runs(&self.r, NULL, NULL)), np.uint32)
        cdef uint32_t[::1] ls = lane_start
        cdef uint32_t[::1] lr = lane_run
        lane_runs(&self.r, &ls[0], &lr[0])
        self.r.lane_start = &ls[0]
        self.r.lane_run = &lr[0]
        arrays = (
            np.ascontiguousarray(catalogue.start, np.int32),
            np.ascontiguousarray(catalogue.joker_start, np.int32),
            np.ascontiguousarray(catalogue.mask, np.uint64),
            np.ascontiguousarray(catalogue.value, np.int32),
            np.ascontiguousarray(catalogue.weight, np.int32),
            np.ascontiguousarray(catalogue.ncards, np.uint8),
            np.ascontiguousarray(catalogue.njokers, np.uint8),
            np.ascontiguousarray(catalogue.skip, np.int32),
        )
        self._keep = arrays + (lane_start, lane_run)
        cdef const int32_t[::1] start = arrays[0]
        cdef const int32_t[::1] jstart = arrays[1]
        cdef const uint64_t[::1] mask = arrays[2]
        cdef const int32_t[::1] value = arrays[3]
        cdef const int32_t[::1] weight = arrays[4]
        cdef const uint8_t[::1] ncards = arrays[5]
        cdef const uint8_t[::1] njokers = arrays[6]
        cdef const int32_t[::1] skip = arrays[7]
        if start.shape[0] != 53 or jstart.shape[0] != 52 or mask.shape[0] == 0:
            raise ValueError("malformed meld catalogue")
        self.r.start = &start[0]
        self.r.jstart = &jstart[0]
        self.r.mask = &mask[0]
        self.r.value = &value[0]
        self.r.weight = &weight[0]
        self.r.ncards = &ncards[0]
        self.r.njokers = &njokers[0]
        self.r.skip = &skip[0]
        self.deck = np.asarray(rules.deck(), dtype=np.uint8)


cdef str _error_text(int err, int row, int col, object rowcodes, CoreRules cr, bint batch):
    """The message for a parse_hand error at ``rowcodes[col]`` (row ``row`` of a batch)."""
    cards = [int(x) for x in rowcodes]
    code = cards[col]
    where = f"hands[{row}, {col}]" if batch else f"card {col}"
    who = f"hands[{row}]" if batch else "hand"
    if err == ERR_CODE:
        return (f"{where} is {code}, which is not a card code "
                "(0..51 naturals, 52 joker, 255 padding)")
    if err == ERR_COPIES:
        from .cards import card_text
        return (f"{who} holds {cards.count(code)} copies of {card_text(code)}, "
                f"but rules.decks is {cr.decks}")
    if err == ERR_JOKERS:
        n = cards.count(52)
        return f"{who} holds {n} joker{'s' if n != 1 else ''}, but rules.jokers is {cr.jokers}"
    if err == ERR_BUDGET:
        return (f"{who} is too large to solve exactly: the search gave up after "
                f"{NODE_LIMIT:,} nodes ({len([c for c in cards if c != 255])} cards; "
                "hands of up to about 30 cards solve in well under a second)")
    if err == ERR_LONG:
        who = f"hands[{row}]" if batch else "hand"
        return f"{who} holds more than {MAX_HAND} cards"
    return f"unknown error {err}"


def solve_one(CoreRules cr, const uint8_t[::1] codes, str mode, int keep, int must):
    """Solve one hand of card codes. Returns ``(result, meld_ids)``.

    ``mode`` is 'best', 'can_open', 'go_out' or 'deadwood'; ``must`` is -1 or the code
    of a card that must lie in a meld (checked to be in the hand by the caller)."""
    cdef Hand h
    cdef int path[MAX_DEPTH]
    cdef int depth = 0
    cdef int res, err, md
    md = _MODES[mode]
    if keep < 0:
        raise ValueError(f"keep must be >= 0, got {keep}")
    if must < -1 or must > 52:
        raise ValueError(f"must_use must be a card code 0..52, got {must}")
    err = parse_hand(&cr.r, &codes[0] if codes.shape[0] else NULL, codes.shape[0], &h)
    if err:
        raise ValueError(_error_text(err, 0, h.n, codes, cr, False))
    with nogil:
        res = solve(&cr.r, &h, md, keep, must, path, &depth)
    if res < 0:
        raise RuntimeError(_error_text(res, 0, 0, codes, cr, False))
    return res, [path[i] for i in range(depth)]


def solve_batch(CoreRules cr, const uint8_t[:, ::1] hands, str mode, int keep,
                int32_t[::1] out, Py_ssize_t row0=0):
    """Solve rows of a 2-D uint8 array of card codes (255 pads), GIL released.

    Writes one int32 per row into ``out``; ``row0`` only labels rows in errors.
    Stops at the first bad row and raises ValueError naming it."""
    cdef Py_ssize_t i, n = hands.shape[0], w = hands.shape[1]
    cdef Hand h
    cdef int md = _MODES[mode]
    cdef int err = 0
    cdef Py_ssize_t bad = -1
    if out.shape[0] != n:
        raise ValueError(f"out has {out.shape[0]} rows, hands has {n}")
    if keep < 0:
        raise ValueError(f"keep must be >= 0, got {keep}")
    if n == 0:
        return
    if w == 0:
        for i in range(n):
            out[i] = 0
        return
    with nogil:
        for i in range(n):
            err = parse_hand(&cr.r, &hands[i, 0], w, &h)
            if err:
                bad = i
                break
            out[i] = solve(&cr.r, &h, md, keep, -1, NULL, NULL)
            if out[i] < 0:
                err = out[i]
                bad = i
                break
    if err == ERR_BUDGET:
        raise RuntimeError(_error_text(err, <int>(row0 + bad), 0, hands[bad], cr, True))
    if err:
        raise ValueError(_error_text(err, <int>(row0 + bad), h.n, hands[bad], cr, True))


def _py_root_bound(CoreRules cr, const uint8_t[::1] codes, bint deadwood=False):
    """Testing hook: the root's upper bound on the opening value (or the melded
    deadwood weight) of a hand; never below the true best."""
    cdef Hand h
    cdef Search s
    cdef uint64_t u, u0
    cdef int gains
    err = parse_hand(&cr.r, &codes[0] if codes.shape[0] else NULL, codes.shape[0], &h)
    if err:
        raise ValueError(_error_text(err, 0, h.n, codes, cr, False))
    s.r = &cr.r
    if deadwood:
        s.val = cr.r.weight
        s.tab = &cr.r.tabw[0]
        s.jub = cr.r.joker_penalty
        s.vmax = cr.r.hmax
    else:
        s.val = cr.r.value
        s.tab = &cr.r.tabv[0]
        s.jub = cr.r.jmax
        s.vmax = cr.r.vmax
    u = useful_mask(h.once, h.jokers, &cr.r, &u0)
    s.root_u0 = u0
    s.gfloor = 0
    s.gtrunc = 0
    s.ng = 0
    s.jstar = -1
    if h.jokers > 0 and cr.r.mj > 0:
        joker_gain(&s, h.once & u, u0, h.jokers)
    return bound_of(&s, h.once & u, h.twice & u, h.jokers, &gains)


def _py_useful_mask(CoreRules cr, const uint8_t[::1] codes):
    """Testing hook: the root's useful-card mask of a hand (core bit layout)."""
    cdef Hand h
    cdef uint64_t u0
    err = parse_hand(&cr.r, &codes[0] if codes.shape[0] else NULL, codes.shape[0], &h)
    if err:
        raise ValueError(_error_text(err, 0, h.n, codes, cr, False))
    u = useful_mask(h.once, h.jokers, &cr.r, &u0)
    return int(u), int(u0)
