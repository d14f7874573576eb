# _carousel_table.pxi: the states' hash table (Table): dense entries and an open-addressing index.
#
# One layer of the program's states; also a grouped layer's groups (Work.g).
#
# (Included by _carousel.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _carousel.pyx.)

# --------------------------------------------------------------------------- hash table
# The states of one layer: entries stored densely (so a layer is read, and cleared, in
# time proportional to its states, however large an earlier position made the table)
# and found through an open-addressing index.
cdef struct Table:
    uint64_t* keys        # 3 words per entry, entries 0..n-1
    int32_t* vals         # the best value of each entry
    int32_t* slot         # the index slot of each entry (to clear the index quickly)
    uint64_t* idx         # open addressing: 0 for an empty slot, else the entry number + 1
                          # with its hash's high 32 bits above (most probes of another
                          # key then stop there, without reading the keys)
    int32_t* par          # the entry of the previous layer it came from (its best value's)
    uint32_t* info        # and what that step placed (_solve_dp with a Path)
    int64_t cap           # index slots, a power of two; at most cap / 2 entries
    int64_t n             # entries in use

cdef inline uint64_t _hash3(uint64_t a, uint64_t b, uint64_t c) noexcept nogil:
    cdef uint64_t h = a * <uint64_t>0x9E3779B97F4A7C15ULL
    h ^= (h >> 29) ^ (b * <uint64_t>0xBF58476D1CE4E5B9ULL)
    h ^= (h >> 31) ^ (c * <uint64_t>0x94D049BB133111EBULL)
    h ^= h >> 32
    return h

cdef inline uint64_t _hash2(uint64_t a, uint64_t b) noexcept nogil:
    # every bit of both words reaches the low bits (the index mask keeps those)
    cdef uint64_t h = (a * <uint64_t>0x9E3779B97F4A7C15ULL) ^ b
    h ^= h >> 31
    h *= <uint64_t>0xBF58476D1CE4E5B9ULL
    h ^= h >> 29
    return h

cdef int _table_init(Table* t, int64_t cap) noexcept nogil:
    cdef int64_t i
    t.cap = cap
    t.n = 0
    t.keys = <uint64_t*>malloc(3 * (cap // 2 + 1) * sizeof(uint64_t))
    t.vals = <int32_t*>malloc((cap // 2 + 1) * sizeof(int32_t))
    t.slot = <int32_t*>malloc((cap // 2 + 1) * sizeof(int32_t))
    t.idx = <uint64_t*>calloc(cap, sizeof(uint64_t))
    t.par = <int32_t*>malloc((cap // 2 + 1) * sizeof(int32_t))
    t.info = <uint32_t*>malloc((cap // 2 + 1) * sizeof(uint32_t))
    if (t.keys == NULL or t.vals == NULL or t.slot == NULL or t.idx == NULL
            or t.par == NULL or t.info == NULL):
        return -1
    return 0

cdef void _table_free(Table* t) noexcept nogil:
    free(t.keys)
    free(t.vals)
    free(t.slot)
    free(t.idx)
    free(t.par)
    free(t.info)
    t.par = NULL
    t.info = NULL
    t.keys = NULL
    t.vals = NULL
    t.slot = NULL
    t.idx = NULL

cdef inline void _table_clear(Table* t) noexcept nogil:
    cdef int64_t e
    for e in range(t.n):
        t.idx[t.slot[e]] = 0
    t.n = 0

cdef int _table_grow(Table* t) noexcept nogil:
    cdef Table old = t[0]
    cdef int64_t e
    if _table_init(t, old.cap * 2) != 0:
        _table_free(t)
        t[0] = old
        return -1
    for e in range(old.n):
        # distinct keys into an empty table: every entry keeps its number
        _table_put(t, old.keys[3 * e], old.keys[3 * e + 1], old.keys[3 * e + 2], old.vals[e],
                   old.par[e], old.info[e])
    _table_free(&old)
    return 0

cdef inline int64_t _table_probe(const Table* t, uint64_t a, uint64_t b, uint64_t c,
                                 uint64_t* slot, uint64_t* tag) noexcept nogil:
    """The entry of key (a, b, c), or -1 with ``slot`` the empty index slot where it
    would go; ``tag`` its hash's high bits (an index slot holds them above the entry
    number + 1, so most probes past another key stop without reading its keys)."""
    cdef uint64_t hi = <uint64_t>0xFFFFFFFF00000000ULL
    cdef uint64_t mask = <uint64_t>(t.cap - 1)
    cdef uint64_t h = _hash3(a, b, c)
    cdef uint64_t i = h & mask
    cdef uint64_t x = t.idx[i]
    cdef int64_t e
    tag[0] = h & hi
    while x != 0:
        if (x & hi) == tag[0]:
            e = <int64_t><uint32_t>x - 1
            if t.keys[3 * e] == a and t.keys[3 * e + 1] == b and t.keys[3 * e + 2] == c:
                return e
        i = (i + 1) & mask
        x = t.idx[i]
    slot[0] = i
    return -1

cdef int _table_put(Table* t, uint64_t a, uint64_t b, uint64_t c, int32_t v, int32_t par,
                    uint32_t info) noexcept nogil:
    """Insert the state (a, b, c) with value v, keeping the larger value (and the ``par``
    and ``info`` of the first step that gave it); -1 on no memory."""
    cdef uint64_t i, tag
    cdef int64_t e = _table_probe(t, a, b, c, &i, &tag)
    if e >= 0:
        if v > t.vals[e]:
            t.vals[e] = v
            t.par[e] = par
            t.info[e] = info
        return 0
    e = t.n
    t.par[e] = par
    t.info[e] = info
    t.keys[3 * e] = a
    t.keys[3 * e + 1] = b
    t.keys[3 * e + 2] = c
    t.vals[e] = v
    t.slot[e] = <int32_t>i
    t.idx[i] = tag | <uint64_t>(e + 1)
    t.n += 1
    if 2 * t.n > t.cap:
        return _table_grow(t)
    return 0

cdef inline int64_t _table_find(Table* t, uint64_t a, uint64_t b, uint64_t c) noexcept nogil:
    cdef uint64_t i, tag
    return _table_probe(t, a, b, c, &i, &tag)

cdef void _table_reindex(Table* t) noexcept nogil:
    """Index the entries again, after ``_drop_marked`` (its emptied slots may have cut
    the probe chain of a kept entry, which a put would then add a second time)."""
    cdef int64_t e
    cdef uint64_t i, tag
    for e in range(t.n):
        t.idx[t.slot[e]] = 0
    for e in range(t.n):
        # distinct keys: each probe ends at an empty slot
        _table_probe(t, t.keys[3 * e], t.keys[3 * e + 1], t.keys[3 * e + 2], &i, &tag)
        t.slot[e] = <int32_t>i
        t.idx[i] = tag | <uint64_t>(e + 1)
