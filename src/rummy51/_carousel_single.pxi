# _carousel_single.pxi: one position as the API takes it, parsed, checked and solved in C.
#
# The single calls (carousel.best_play, can_meld, max_cards_played) and pack_positions
# read a position here: meld texts ("6S 7S JK(8S)"), a table as one text with " | "
# between the melds, TableMelds, a hand as text or a list of int codes. Each card
# token is parsed, each meld checked (as table.make_meld: at least 3 cards, one
# natural, the per-meld joker limit, a set or a run with the ace low or high), the
# copies and jokers counted against the deck, all in C, and the position solved with
# no Python object in between.
#
# This path only ever accepts: anything it does not read (another spelling of a card,
# a unicode suit, numpy integers, code lists, a bad card, a bad meld, too many copies)
# makes it answer None, and the caller takes the Python path (carousel/table.py), which
# gives the same answer or the one-line error naming what is wrong. So the errors stay
# Python's, word for word; tests/test_carousel_single.py checks the two paths agree on
# random texts, good and bad.
#
# Play, the type ``best_play`` returns, is here too: ``single_best`` makes it in C, its
# melds arranged only when asked for.
#
# (Included by _carousel.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _carousel.pyx.)

from cpython.bytes cimport PyBytes_FromStringAndSize

cdef extern from "Python.h":
    const char* PyUnicode_AsUTF8AndSize(object s, Py_ssize_t* size) except NULL
    int PyUnicode_IS_ASCII(object s)
    long PyLong_AsLongAndOverflow(object x, int* overflow) except? -1

DEF SP_MAXMELD = 16       # slots of one meld read here (a meld holds at most 14)
DEF SP_MAXROW = 255       # slots of a table / cards of a hand read here (a deck has 108)

cimport cython

from dataclasses import FrozenInstanceError

cdef object _TableMeld = None

_PLAY_FIELDS = ("points_left", "cards_played", "played", "melds", "can_meld", "can_knock",
                "hand_points")
cdef object _source_melds = None


@cython.no_gc
cdef class Play:
    """The best play of a position (RULES-carousel.md section 4).

    ``melds`` is the resulting table (every meld valid, each joker's card named),
    ``played`` the hand cards placed (sorted codes, 52 = joker), ``points_left`` the
    points still in hand; with no legal play ``can_meld`` is False, ``played`` empty
    and ``melds`` the table as it was.

    Immutable, compared, hashed, printed and pickled as a frozen dataclass of these
    seven fields, in this order (``Play(points_left, cards_played, played, melds,
    can_meld, can_knock, hand_points)``). ``best_play`` fills ``melds`` lazily: the
    core's play is kept as counts and arranged into ``TableMeld`` objects the first
    time ``melds`` (or ``text``, ``==``, ``hash``, ``repr``, a pickle) asks for them; a
    caller that wants only the figures never pays for the arrangement. Should that
    arrangement fail (never expected: it would be a bug) ``melds`` raises ``GaveUp``.

    (A type of the extension, made by ``best_play`` in C (``single_best``), which the
    cyclic garbage collector does not track: a Play holds ints, bools, tuples of ints
    and of TableMelds, bytes and the rules, none of which refers back to it, so it is
    never part of a cycle, and the many Plays a program makes never set a collection
    off. ``_played`` is the tuple, or in a lazy Play its codes as bytes; ``_melds`` the
    tuple, or None until made from ``_source`` and ``_rules``.)"""
    cdef readonly object points_left
    cdef readonly object cards_played
    cdef readonly object _played
    cdef readonly object _melds
    cdef readonly object can_meld
    cdef readonly object can_knock
    cdef readonly object hand_points
    cdef object _source
    cdef object _rules
    cdef object _core

    __match_args__ = _PLAY_FIELDS

    def __init__(self, points_left, cards_played, played, melds, can_meld, can_knock,
                 hand_points):
        self.points_left = points_left
        self.cards_played = cards_played
        self._played = played
        self._melds = melds
        self.can_meld = can_meld
        self.can_knock = can_knock
        self.hand_points = hand_points
        self._source = None
        self._rules = None
        self._core = None

    @property
    def played(self):
        """The hand cards placed (sorted codes, 52 = joker)."""
        if type(self._played) is bytes:
            self._played = tuple(self._played)
        return self._played

    @property
    def melds(self):
        """The table after the play (the table as it was, with no play)."""
        cdef const uint8_t* src
        if self._melds is None:
            got = None
            if self._core is not None:
                src = <const uint8_t*>(<bytes>self._source)
                if src[0] == 0:
                    # no play: the table as it was, its melds as the C reader checked them
                    got = _table_melds(src + 1, len(<bytes>self._source) - 1)
                else:
                    if src[0] == 2:
                        # a play with its path: its melds read off that path
                        # (_carousel_melds.pxi), no run of the program
                        got = _source_path_melds(<CoreRules>self._core, src,
                                                 len(<bytes>self._source))
                        if got is not None:
                            _record_nodes(0)     # no state expanded (last_nodes)
                    # else (no path, or it could not be read) _source_melds reads them
                    # off one run of the program on its counts, within the call's limits
            self._melds = got if got is not None else _source_melds(self._source, self._rules)
            self._source = None
            self._rules = None
            self._core = None
        return self._melds

    def _fields(self):
        return (self.points_left, self.cards_played, self.played, self.melds, self.can_meld,
                self.can_knock, self.hand_points)

    def __setattr__(self, name, value):
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name):
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __eq__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._fields() == other._fields()

    def __ne__(self, other):
        if type(other) is not type(self):
            return NotImplemented
        return self._fields() != other._fields()

    def __hash__(self):
        return hash(self._fields())

    def __repr__(self):
        return (type(self).__name__ + "("
                + ", ".join(f"{k}={v!r}" for k, v in zip(_PLAY_FIELDS, self._fields())) + ")")

    def __reduce__(self):
        return (type(self), self._fields())

    def text(self, unicode=False):
        """The table, one meld a line, then the cards played and the points left."""
        from rummy51.cards import cards_text
        lines = [m.text(unicode) for m in self.melds] or ["(empty table)"]
        lines.append("played: " + (cards_text(self.played, unicode) or "nothing"))
        lines.append(f"points left: {self.points_left}"
                     + (" (can knock)" if self.can_knock else ""))
        return "\n".join(lines)


def _set_classes(table_meld, source_melds):
    """The TableMeld class (carousel.table), whose instances the C path reads, and
    ``carousel.solver._source_melds``, which makes a lazy Play's melds."""
    global _TableMeld, _source_melds
    _TableMeld = table_meld
    _source_melds = source_melds


cdef object _lazy_play(int32_t left, int32_t cards, object played, bint can_meld, bint can_knock,
                       int32_t total, object source, object rules, object core=None):
    """A lazy Play (carousel/solver.py: ``played`` the codes as bytes, its melds made
    from ``source`` and ``rules`` when first asked for), without a Python frame."""
    cdef Play p = Play.__new__(Play)
    p.points_left = left
    p.cards_played = cards
    p._played = played
    p._melds = None
    p.can_meld = can_meld
    p.can_knock = can_knock
    p.hand_points = total
    p._source = source
    p._rules = rules
    p._core = core
    return p


cdef inline int _sp_small(object x, int hi) except -2:
    """An exact int 0..hi as a C int, or -1 (another type, or out of range)."""
    cdef int overflow = 0
    cdef long v
    if type(x) is not int:
        return -1
    v = PyLong_AsLongAndOverflow(x, &overflow)
    if overflow or v < 0 or v > hi:
        return -1
    return <int>v


cdef inline const char* _sp_ascii(object s, Py_ssize_t* n) except? NULL:
    """The characters of an ASCII str (its own buffer), or NULL for any other str."""
    if not PyUnicode_IS_ASCII(s):
        return NULL
    return PyUnicode_AsUTF8AndSize(s, n)


cdef inline int _sp_upper(int ch) noexcept nogil:
    return ch - 32 if 97 <= ch <= 122 else ch


cdef int _sp_card(const char* s, Py_ssize_t n) noexcept nogil:
    """One card token (no spaces) -> its code 0..52, or -1 for anything else: the
    ASCII spellings ``parse_card`` accepts (rank A 1..10 T J Q K 12 13 14 then suit
    S H D C, either case; JK, *, JOKER)."""
    cdef int a, b, suit, rank
    if n == 1:
        return 52 if s[0] == 42 else -1        # '*'
    if n < 2 or n > 5:
        return -1
    if n == 5:
        if (_sp_upper(s[0]) == 74 and _sp_upper(s[1]) == 79 and _sp_upper(s[2]) == 75
                and _sp_upper(s[3]) == 69 and _sp_upper(s[4]) == 82):   # JOKER
            return 52
        return -1
    a = _sp_upper(s[n - 1])
    if a == 83:        # S
        suit = 0
    elif a == 72:      # H
        suit = 1
    elif a == 68:      # D
        suit = 2
    elif a == 67:      # C
        suit = 3
    else:
        if n == 2 and _sp_upper(s[0]) == 74 and a == 75:   # JK
            return 52
        return -1
    if n == 2:
        a = _sp_upper(s[0])
        if 50 <= a <= 57:          # 2..9
            rank = a - 48
        elif a == 65 or a == 49:   # A, 1
            rank = 1
        elif a == 84:              # T
            rank = 10
        elif a == 74:              # J
            rank = 11
        elif a == 81:              # Q
            rank = 12
        elif a == 75:              # K
            rank = 13
        else:
            return -1
    elif n == 3:
        a = s[0]
        b = s[1]
        if a != 49:                # '1'
            return -1
        if b == 48:                # 10
            rank = 10
        elif b == 50:              # 12 the jack
            rank = 11
        elif b == 51:              # 13 the queen
            rank = 12
        elif b == 52:              # 14 the king
            rank = 13
        else:
            return -1
    else:
        return -1
    return suit * 13 + rank - 1


cdef int _sp_meld_text(const char* s, Py_ssize_t n, uint8_t* cards, uint8_t* reps) noexcept nogil:
    """The slots of a meld text (tokens split at spaces and commas; a table joker
    ``JK(8S)``, ``*(8S)`` or ``JOKER(8S)``): how many, or -1 (not read here)."""
    cdef Py_ssize_t i = 0, j, p, q
    cdef int k = 0, c, d, plen
    while i < n:
        if s[i] == 32 or s[i] == 44:
            i += 1
            continue
        j = i
        p = -1
        while j < n and s[j] != 32 and s[j] != 44:
            if s[j] == 40 and p < 0:      # '('
                p = j
            j += 1
        if k >= SP_MAXMELD:
            return -1
        if p >= 0:
            if s[j - 1] != 41 or j - 1 - (p + 1) < 1:    # ')' and something inside
                return -1
            plen = <int>(p - i)
            if plen == 1:
                if s[i] != 42:
                    return -1
            elif plen == 2 or plen == 5:
                if _sp_card(s + i, plen) != 52 or s[i] == 42:
                    return -1
            else:
                return -1
            d = _sp_card(s + p + 1, j - 1 - (p + 1))
            if d < 0 or d == 52:
                return -1
            cards[k] = 52
            reps[k] = <uint8_t>d
        else:
            c = _sp_card(s + i, j - i)
            if c < 0 or c == 52:          # a table joker needs its card: Python says so
                return -1
            cards[k] = <uint8_t>c
            reps[k] = <uint8_t>c
        k += 1
        i = j
    return k if k > 0 else -1


cdef int _sp_meld(const uint8_t* cards, const uint8_t* reps, int n, const CRules* r, Pos* pos,
                  int* jt, uint8_t* row, int* rn, int lens) noexcept nogil:
    """Check one meld (``make_meld``'s rules) and count it into ``pos``; with ``row``,
    its batch codes (a natural its code, a joker 53 + its card) in the canonical order
    (``meld_positions``: a set by suit, a run low to high) at ``row[rn[0]..]``, after
    a byte of its length with ``lens``. 0, or -1: not a valid meld (or not read here)."""
    cdef int i, j, nj = 0, rank0, suit0, same, mask = 0, na = 0, lo = 99, hi = 0, cnt = 0
    cdef int aces[3]
    cdef int key[SP_MAXMELD]
    cdef int idx[SP_MAXMELD]
    cdef int x, t
    if n < 3 or n > SP_MAXMELD:
        return -1
    for i in range(n):
        if cards[i] == 52:
            nj += 1
        elif cards[i] > 52 or cards[i] != reps[i]:
            return -1
        if reps[i] >= 52:
            return -1
    if nj == n or nj > r.mj:
        return -1
    rank0 = reps[0] % 13
    same = 1
    for i in range(1, n):
        if reps[i] % 13 != rank0:
            same = 0
            break
    if same:
        if n > 4:
            return -1
        for i in range(n):
            t = 1 << (reps[i] // 13)
            if mask & t:
                return -1
            mask |= t
            key[i] = reps[i] // 13
    else:
        suit0 = reps[0] // 13
        for i in range(n):
            if reps[i] // 13 != suit0:
                return -1
            if reps[i] % 13 == 0:
                if na == 2:
                    return -1
                aces[na] = i
                na += 1
            else:
                x = reps[i] % 13 + 1
                t = 1 << x
                if mask & t:
                    return -1
                mask |= t
                key[i] = x
                cnt += 1
                if x < lo:
                    lo = x
                if x > hi:
                    hi = x
        if hi - lo + 1 != cnt:          # the other cards follow each other
            return -1
        if na == 1:
            if lo == 2:
                key[aces[0]] = 1
            elif hi == 13 and r.ace_high:
                key[aces[0]] = 14
            else:
                return -1
        elif na == 2:
            if not (lo == 2 and hi == 13 and r.ace_high):
                return -1
            key[aces[0]] = 1
            key[aces[1]] = 14
    for i in range(n):
        if cards[i] == 52:
            pos.D[reps[i]] += 1
        elif pos.T[cards[i]] < 200:
            pos.T[cards[i]] += 1
    jt[0] += nj
    if row != NULL:
        if rn[0] + n + lens > SP_MAXROW:
            return -1
        if lens:
            row[rn[0]] = <uint8_t>n
            rn[0] += 1
        for i in range(n):
            idx[i] = i
        for i in range(1, n):
            x = idx[i]
            j = i - 1
            while j >= 0 and key[idx[j]] > key[x]:
                idx[j + 1] = idx[j]
                j -= 1
            idx[j + 1] = x
        for i in range(n):
            x = idx[i]
            row[rn[0] + i] = <uint8_t>(53 + reps[x]) if cards[x] == 52 else cards[x]
        rn[0] += n
    return 0


cdef int _sp_text_meld(object m, const CRules* r, Pos* pos, int* jt, uint8_t* row,
                       int* rn, int lens) except -2:
    """A meld text counted into ``pos`` (0), or -1."""
    cdef Py_ssize_t n = 0
    cdef const char* s = _sp_ascii(m, &n)
    cdef uint8_t cards[SP_MAXMELD]
    cdef uint8_t reps[SP_MAXMELD]
    cdef int k
    if s == NULL:
        return -1
    k = _sp_meld_text(s, n, cards, reps)
    if k < 0:
        return -1
    return _sp_meld(cards, reps, k, r, pos, jt, row, rn, lens)


cdef int _sp_object_meld(object m, const CRules* r, Pos* pos, int* jt, uint8_t* row,
                         int* rn, int lens) except -2:
    """A TableMeld counted into ``pos`` (0), or -1."""
    cdef uint8_t cards[SP_MAXMELD]
    cdef uint8_t reps[SP_MAXMELD]
    cdef Py_ssize_t n, i
    cdef object cs = m.cards
    cdef object rs = m.represents
    cdef object x
    if type(cs) is not tuple or type(rs) is not tuple:
        return -1
    n = len(<tuple>cs)
    if n != len(<tuple>rs) or n > SP_MAXMELD:
        return -1
    cdef int c, d
    for i in range(n):
        c = _sp_small((<tuple>cs)[i], 52)
        d = _sp_small((<tuple>rs)[i], 51)
        if c < 0 or d < 0:
            return -1
        cards[i] = <uint8_t>c
        reps[i] = <uint8_t>d
    return _sp_meld(cards, reps, <int>n, r, pos, jt, row, rn, lens)


cdef int _sp_position(const CRules* r, object table, object hand, Pos* pos, int32_t* hp,
                      uint8_t* trow, int* tn, uint8_t* hrow, int* hn, int lens) except -2:
    """A position as the API takes it, read, checked and counted into ``pos`` (with
    ``trow``/``hrow``: its batch rows, ``tn``/``hn`` long; with ``lens`` each meld of
    ``trow`` after a byte of its length): 0, or -1 when the Python path must take it
    (something to report, or a form not read here)."""
    cdef Py_ssize_t n, i, a
    cdef const char* s
    cdef int jt = 0, jh = 0, c, k, only_spaces
    cdef int32_t points = 0
    cdef int tdummy = 0
    cdef object m, x
    cdef uint8_t cards_buf[SP_MAXMELD]
    cdef uint8_t reps_buf[SP_MAXMELD]
    memset(pos, 0, sizeof(Pos))
    if tn == NULL:
        tn = &tdummy
    tn[0] = 0
    # the table
    if table is None:
        pass
    elif type(table) is list or type(table) is tuple:
        for m in table:
            if type(m) is str:
                k = _sp_text_meld(m, r, pos, &jt, trow, tn, lens)
            elif type(m) is _TableMeld:
                k = _sp_object_meld(m, r, pos, &jt, trow, tn, lens)
            else:
                return -1
            if k != 0:
                return -1
    elif type(table) is str:
        s = _sp_ascii(table, &n)
        if s == NULL:
            return -1
        only_spaces = 1
        for i in range(n):
            if s[i] != 32:
                only_spaces = 0
                break
        if not only_spaces:
            a = 0
            for i in range(n + 1):
                if i == n or s[i] == 124:       # '|'
                    k = _sp_meld_text(s + a, i - a, cards_buf, reps_buf)
                    if k < 0 or _sp_meld(cards_buf, reps_buf, k, r, pos, &jt, trow, tn, lens) != 0:
                        return -1
                    a = i + 1
    else:
        return -1
    # the hand
    k = 0
    if hand is None:
        pass
    elif type(hand) is str:
        s = _sp_ascii(hand, &n)
        if s == NULL:
            return -1
        i = 0
        while i < n:
            if s[i] == 32 or s[i] == 44:
                i += 1
                continue
            a = i
            while i < n and s[i] != 32 and s[i] != 44:
                i += 1
            c = _sp_card(s + a, i - a)
            if c < 0 or k >= SP_MAXROW:
                return -1
            if hrow != NULL:
                hrow[k] = <uint8_t>c
            k += 1
            points += r.val[c]
            if c == 52:
                jh += 1
            elif pos.H[c] < 200:
                pos.H[c] += 1
    elif type(hand) is list or type(hand) is tuple:
        for x in hand:
            c = _sp_small(x, 52)
            if c < 0 or k >= SP_MAXROW:
                return -1
            if hrow != NULL:
                hrow[k] = <uint8_t>c
            k += 1
            points += r.val[c]
            if c == 52:
                jh += 1
            elif pos.H[c] < 200:
                pos.H[c] += 1
    else:
        return -1
    if hn != NULL:
        hn[0] = k
    # the deck: copies and jokers (check_position); the core's own bounds
    for c in range(52):
        if pos.T[c] + pos.H[c] > r.decks or pos.T[c] + pos.H[c] > 3 or pos.D[c] > 7:
            return -1
    if jt + jh > r.jokers or jt + jh > 7:
        return -1
    pos.JT = jt
    pos.JH = jh
    hp[0] = points
    return 0


cdef inline int32_t _sp_card_value(const CRules* r, int c) noexcept nogil:
    """The value of one card played (``points * VALMUL + 1``; ``c`` 52: a joker)."""
    return r.val[c] * VALMUL + 1


cdef int32_t _sp_quick_play(const CRules* r, const Pos* pos, const uint8_t* trow,
                            int tn) noexcept nogil:
    """Some legal play's value seen without the program, or 0 when none is seen (which
    proves nothing): ``can_meld``'s quick answer. ``trow``: the table as laid, each meld
    its length then its batch codes in canonical order (``_sp_meld`` with ``lens``).
    Looked for, in this order: three hand cards of one rank in three suits, or of one
    suit in a row (jokers filling what the rules let a meld hold, one natural at least);
    a hand card that a set of fewer than four lacks, or that extends a run at an end; a
    hand joker that a set or a run may still take; a hand card doubling a run's card
    where the run splits into two of three or more (the hand card begins the second).
    Each is a play of the table's melds as they are, so a value here is a real play's."""
    cdef int c, s, k, p, q, i, n, j, nj, same, mask, rep, natural, hi
    cdef int rank = 0, suit = 0, p0 = 1
    cdef int top = 14 if r.ace_high else 13
    cdef int jh = pos.JH if pos.JH < r.mj else r.mj     # jokers one new meld may take
    cdef int32_t v
    # the hand alone: a set of one rank
    for rank in range(13):
        k = 0
        v = 0
        for s in range(4):
            c = 13 * s + rank
            if pos.H[c] > 0 and k < 3:
                k += 1
                v += _sp_card_value(r, c)
        if k >= 1 and k + jh >= 3:
            return v + (3 - k) * _sp_card_value(r, 52)
    # the hand alone: three positions of a suit in a row
    for suit in range(4):
        for p in range(1, top - 1):
            k = 0
            v = 0
            for q in range(p, p + 3):
                c = 13 * suit + (q - 1) % 13
                if pos.H[c] > 0:
                    k += 1
                    v += _sp_card_value(r, c)
            if k >= 1 and k + jh >= 3:
                return v + (3 - k) * _sp_card_value(r, 52)
    # the table's melds as laid
    i = 0
    while i < tn:
        n = trow[i]
        nj = 0
        same = 1
        for j in range(n):
            rep = trow[i + 1 + j]
            if rep >= 53:
                nj += 1
                rep -= 53
            if j == 0:
                rank = rep % 13
                suit = rep // 13
                p0 = rank + 1                 # a run's first card: an ace is position 1
            elif rep % 13 != rank:
                same = 0
        if same:                              # a set: the suits it lacks
            if n < 4:
                mask = 0
                for j in range(n):
                    rep = trow[i + 1 + j]
                    mask |= 1 << ((rep - 53 if rep >= 53 else rep) // 13)
                for s in range(4):
                    c = 13 * s + rank
                    if not (mask >> s) & 1 and pos.H[c] > 0:
                        return _sp_card_value(r, c)
                if pos.JH > 0 and nj < r.mj:
                    return _sp_card_value(r, 52)
        else:                                 # a run of positions p0 .. hi
            hi = p0 + n - 1
            if p0 > 1 and pos.H[13 * suit + p0 - 2] > 0:
                return _sp_card_value(r, 13 * suit + p0 - 2)
            if hi < top and pos.H[13 * suit + hi % 13] > 0:
                return _sp_card_value(r, 13 * suit + hi % 13)
            if pos.JH > 0 and nj < r.mj and (p0 > 1 or hi < top):
                return _sp_card_value(r, 52)
            natural = 0
            for j in range(n - 2):
                if trow[i + 1 + j] < 52:
                    natural = 1
                if j >= 2 and natural:
                    # the run splits after its card j; the hand's copy of it begins the
                    # second part (n - j cards)
                    c = 13 * suit + (p0 + j - 1) % 13
                    if pos.H[c] > 0:
                        return _sp_card_value(r, c)
        i += n + 1
    return 0


def single_value(CoreRules rules, table, hand, int64_t node_limit=0, double time_limit=0,
                 bint any_play=False):
    """The core's value (``solve_counts``'s: ``points * 256 + cards``, 0 no play, -1
    the table cannot be arranged, -2 no memory, -4 / -5 past ``node_limit`` /
    ``time_limit``) of a position as ``best_play`` takes it, read and checked here;
    None when the Python path must take it (see the top of this file). ``any_play``:
    only whether there is a play (some play's value, or 0): a play seen on the table as
    laid (``_sp_quick_play``) answers at once, else ``_solve``'s."""
    cdef Pos pos
    cdef Work w
    cdef Path path
    cdef uint8_t trow[SP_MAXROW]
    cdef int tn = 0
    cdef int32_t hp = 0, v
    if _sp_position(&rules.r, table, hand, &pos, &hp, <uint8_t*>trow if any_play else NULL,
                    &tn, NULL, NULL, 1) != 0:
        return None
    if any_play:
        v = _sp_quick_play(&rules.r, &pos, trow, tn)
        if v > 0:
            return v
    if _work_init_single(&w, &path) != 0:
        raise MemoryError()
    with nogil:
        _set_limits(&w, node_limit, time_limit)
        v = _solve(&rules.r, &pos, &w, 1 if any_play else 0)
    _work_free_single(&w, &path)
    return v


def single_best(CoreRules core, rules, table, hand, int knock_limit, int64_t node_limit=0,
                double time_limit=0, bint fast=True):
    """``carousel.best_play``'s answer for a position read and checked here, in one
    core run (``play_counts``: the play read off the program's path): a lazy ``Play``
    (its melds arranged when first asked for), -4 / -5 past ``node_limit`` /
    ``time_limit``, or None when the Python path must take the position (see the top
    of this file; and when the path cannot be read or found no memory: that path
    rebuilds the play from the value).

    ``played`` is kept as bytes of codes (the Play makes the tuple when asked). The
    Play's source of its melds is one bytes object (no container for the
    collector to follow): with a play ``b"\\x01"``, the table's naturals after it (52
    bytes), its slots of each card (52: naturals and jokers; the melds are read off
    the program's path, else ``rebuild_counts`` arranges them from these counts) and
    its jokers (1 byte); with no play ``b"\\x00"`` and the table as
    it was, each meld its length then its batch codes in canonical order."""
    cdef Pos pos
    cdef Pos solved
    cdef Work w
    cdef Path path
    cdef uint8_t nT[52]
    cdef uint8_t nD[52]
    cdef uint8_t buf[PS_HEAD + PS_LAYER * 14 + SP_MAXROW + 1]
    cdef uint8_t pbuf[SP_MAXROW]
    cdef int nJT = 0, c, hj, n = 0, tn = 0, slen = 106
    cdef int32_t hp = 0, v, left
    if _sp_position(&core.r, table, hand, &pos, &hp, buf + 1, &tn, NULL, NULL, 1) != 0:
        return None
    if _work_init_single(&w, &path) != 0:
        raise MemoryError()
    path.with_keys = 1           # the play's melds are read off this path (version 2)
    with nogil:
        _set_limits(&w, node_limit, time_limit)
        v = _solve_play(&core.r, &pos, &w, &path, nT, nD, &nJT, 1 if fast else 0, &solved)
        if v > 0:
            slen = _path_source(buf, &core.r, &solved, &path)
    _record_nodes(w.nodes)
    free(path.keys)
    path.keys = NULL
    path.with_keys = 0
    _work_free_single(&w, &path)
    if v == -2 or v == -3:
        return None
    if v == -4 or v == -5:
        return v
    if v <= 0:
        buf[0] = 0
        return _lazy_play(hp, 0, (), False, hp <= knock_limit, hp,
                          PyBytes_FromStringAndSize(<char*>buf, tn + 1), rules, core)
    hj = nJT - pos.JT
    buf[0] = 2 if slen > 106 else 1
    if slen < 106:
        slen = 106
    for c in range(52):
        buf[1 + c] = nT[c]
        buf[53 + c] = nT[c] + nD[c]
        for _ in range(nT[c] - pos.T[c]):
            if n < SP_MAXROW:
                pbuf[n] = <uint8_t>c
            n += 1
    buf[105] = <uint8_t>nJT
    for _ in range(hj):
        if n < SP_MAXROW:
            pbuf[n] = 52
        n += 1
    if n > SP_MAXROW:
        return None
    left = hp - v // VALMUL
    return _lazy_play(left, v % VALMUL, PyBytes_FromStringAndSize(<char*>pbuf, n), True,
                      left <= knock_limit, hp, PyBytes_FromStringAndSize(<char*>buf, slen), rules,
                      core)


def pack_rows(CoreRules rules, list tables, list hands, fallback):
    """``pack_positions``' arrays: each position read and checked here, or (those
    this path does not read) by ``fallback(table, hand)``, which returns its table
    row and hand row as lists of codes or raises the error naming what is wrong. The
    positions are taken in order, so the first bad one is the one reported."""
    cdef Py_ssize_t n = len(tables), i, kt = 1, kh = 1, tot_t = 0, tot_h = 0
    cdef Pos pos
    cdef int32_t hp
    cdef int tn = 0, hn = 0, j
    cdef uint8_t trow[SP_MAXROW]
    cdef uint8_t hrow[SP_MAXROW]
    cdef cnp.ndarray ta, ha
    cdef uint8_t[:, ::1] tv
    cdef uint8_t[:, ::1] hv
    cdef const uint8_t[::1] tb
    cdef const uint8_t[::1] hb
    if len(hands) != n:
        raise ValueError("tables and hands must have the same length")
    tbuf = bytearray()
    hbuf = bytearray()
    tlen = []
    hlen = []
    for i in range(n):
        if _sp_position(&rules.r, tables[i], hands[i], &pos, &hp, trow, &tn, hrow, &hn, 0) == 0:
            tbuf += PyBytes_FromStringAndSize(<char*>trow, tn)
            hbuf += PyBytes_FromStringAndSize(<char*>hrow, hn)
        else:
            t_codes, h_codes = fallback(tables[i], hands[i])
            tn = len(t_codes)
            hn = len(h_codes)
            tbuf += bytes(t_codes)
            hbuf += bytes(h_codes)
        tlen.append(tn)
        hlen.append(hn)
        if tn > kt:
            kt = tn
        if hn > kh:
            kh = hn
    ta = np.full((n, kt), 255, dtype=np.uint8)
    ha = np.full((n, kh), 255, dtype=np.uint8)
    tv = ta
    hv = ha
    tb = bytes(tbuf) if tbuf else b"\0"
    hb = bytes(hbuf) if hbuf else b"\0"
    for i in range(n):
        tn = tlen[i]
        hn = hlen[i]
        if tn:
            memcpy(&tv[i, 0], &tb[tot_t], tn)
        if hn:
            memcpy(&hv[i, 0], &hb[tot_h], hn)
        tot_t += tn
        tot_h += hn
    return ta, ha
