# _carousel_work.pxi: the work area of a solve and the dominance cut.
#
# Work (the two layer tables, the group table, records, the option cache), the
# cache a thread keeps between solves (pthread key), and the dominance pruning of
# a layer (_dominated, _drop_dominated, _drop_dominated_grouped).
#
# (Included by _carousel.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _carousel.pyx.)

cdef inline int _card_at(int s, int p) noexcept nogil:
    if p == 14:
        return 13 * s
    return 13 * s + p - 1

# A successor recorded once for a group of states (``_solve_dp``'s grouped layers):
# its runs, the jokers it has used, its gain over the state's value and its step.
cdef struct Rec:
    uint64_t wa
    uint64_t wb
    int32_t gain
    uint32_t info
    uint32_t j

cdef struct Work:
    Table a
    Table b
    Table g                   # a grouped layer's groups: (runs, jokers) -> their records
    Rec* rec                  # the records of the layer's groups
    int64_t rec_cap
    int64_t rec_n
    int32_t* nextm            # the states of a group, chained (_drop_dominated_grouped)
    int64_t next_cap
    Cache cache
    # limits of one solve (0: none), set by the caller after _work_init; ``nodes`` the
    # states expanded so far (_solve_dp counts them only when a limit is set)
    int64_t node_limit
    double deadline           # CLOCK_MONOTONIC seconds
    int64_t nodes
    # every state _solve_dp expanded on this work, all its runs (only differences are
    # read: the proof budget of _solve_bounded, the same whatever other threads do)
    int64_t expanded

cdef int _work_init(Work* w) noexcept nogil:
    memset(w, 0, sizeof(Work))
    if (_table_init(&w.a, 64) != 0 or _table_init(&w.b, 64) != 0 or _table_init(&w.g, 64) != 0
            or _cache_init(&w.cache, 64, 256) != 0):
        _work_free(w)
        return -1
    return 0

cdef void _work_free(Work* w) noexcept nogil:
    _table_free(&w.a)
    _table_free(&w.b)
    _table_free(&w.g)
    free(w.rec)
    w.rec = NULL
    free(w.nextm)
    w.nextm = NULL
    _cache_free(&w.cache)

# One option cache per thread, kept between the calls from Python (solve_batch,
# solve_counts, rebuild_counts): single best_play calls and repeated batches then start
# warm. A call takes the thread's cache out of its slot and puts it back when done, so
# a nested or concurrent use never shares it (it makes a fresh one instead); a thread
# that ends frees its cache (pthread key destructor). Not on Windows: a fresh cache a
# call there, as before. The thread's slots (a pthread key each): TLS_CACHE the option
# cache, TLS_WORK the single calls' tables and path store (below), TLS_GAME the game
# context of the bots' single decisions (_cgctx_new, _carousel_game.pxi: its round
# memo and candidate melds, about 0.6 MB a thread that has made one).
DEF TLS_CACHE = 0
DEF TLS_WORK = 1
DEF TLS_GAME = 2

cdef extern from *:
    """
    #if defined(_WIN32)
    static int rummy51_tls_init(int i, void (*dtor)(void*)) { (void)i; (void)dtor; return 0; }
    static void* rummy51_tls_get(int i) { (void)i; return 0; }
    static int rummy51_tls_set(int i, void* p) { (void)i; (void)p; return -1; }
    #else
    #include <pthread.h>
    static pthread_key_t rummy51_tls_key[3];
    static int rummy51_tls_ok[3] = {0, 0, 0};
    static int rummy51_tls_init(int i, void (*dtor)(void*)) {
        if (!rummy51_tls_ok[i] && pthread_key_create(&rummy51_tls_key[i], dtor) == 0)
            rummy51_tls_ok[i] = 1;
        return rummy51_tls_ok[i];
    }
    static void* rummy51_tls_get(int i) {
        return rummy51_tls_ok[i] ? pthread_getspecific(rummy51_tls_key[i]) : 0;
    }
    static int rummy51_tls_set(int i, void* p) {
        return rummy51_tls_ok[i] ? pthread_setspecific(rummy51_tls_key[i], p) : -1;
    }
    #endif
    """
    int rummy51_tls_init(int i, void (*dtor)(void*)) noexcept nogil
    void* rummy51_tls_get(int i) noexcept nogil
    int rummy51_tls_set(int i, void* p) noexcept nogil

cdef void _tls_cache_free(void* p) noexcept nogil:
    _cache_free(<Cache*>p)
    free(p)

rummy51_tls_init(TLS_CACHE, _tls_cache_free)

cdef int _work_init_kept(Work* w) noexcept nogil:
    """``_work_init`` with this thread's kept option cache (if it has one free; then no
    fresh cache is made, which a single call would pay for: its front alone is 48 kB
    to zero)."""
    cdef Cache* kept = <Cache*>rummy51_tls_get(TLS_CACHE)
    if kept == NULL or rummy51_tls_set(TLS_CACHE, NULL) != 0:
        return _work_init(w)
    memset(w, 0, sizeof(Work))
    w.cache = kept[0]
    free(kept)
    if _table_init(&w.a, 64) != 0 or _table_init(&w.b, 64) != 0 or _table_init(&w.g, 64) != 0:
        _work_free(w)
        return -1
    return 0

cdef void _work_free_kept(Work* w) noexcept nogil:
    """``_work_free``, keeping the option cache for the thread's next call (unless its
    slot is taken, or it grew past the limits: then it is freed)."""
    cdef Cache* kept = NULL
    if (rummy51_tls_get(TLS_CACHE) == NULL and w.cache.n <= CACHE_KEEP and w.cache.pool_n <= POOL_KEEP):
        kept = <Cache*>malloc(sizeof(Cache))
    if kept != NULL:
        kept[0] = w.cache
        if rummy51_tls_set(TLS_CACHE, kept) == 0:
            w.cache.ent = NULL
            w.cache.pool = NULL
            w.cache.front = NULL
        else:
            free(kept)
    _work_free(w)

# The single calls (carousel.best_play, can_meld, max_cards_played: _carousel_single.pxi)
# also keep the rest of their work area per thread: the layer tables, the group
# records and the path store, grown to the size the positions need, so a call neither
# allocates nor zeroes them again (the batch has one work area for all its rows). The
# slot TLS_WORK, taken and put back as the cache is; kept only while small.
DEF KEEP_TABLE = 1 << 14  # index slots of a layer table kept between single calls, at most
DEF KEEP_PATH = 1 << 18   # path entries kept (so a thread keeps at most about 3.5 MB)

cdef struct KeptWork:     # a single call's work area less its option cache
    Table a
    Table b
    Table g
    Rec* rec
    int64_t rec_cap
    int32_t* nextm
    int64_t next_cap
    Path path

cdef void _kept_work_free(KeptWork* k) noexcept nogil:
    _table_free(&k.a)
    _table_free(&k.b)
    _table_free(&k.g)
    free(k.rec)
    free(k.nextm)
    free(k.path.par)
    free(k.path.info)
    free(k)

cdef void _tls_work_free(void* p) noexcept nogil:
    _kept_work_free(<KeptWork*>p)

rummy51_tls_init(TLS_WORK, _tls_work_free)

cdef int _work_init_single(Work* w, Path* path) noexcept nogil:
    """``_work_init_kept`` with the thread's kept tables and path store (if it has them
    free); ``path`` empty or the kept one. -1 on no memory."""
    cdef KeptWork* k = <KeptWork*>rummy51_tls_get(TLS_WORK)
    cdef Cache* kept
    memset(path, 0, sizeof(Path))
    if k == NULL or rummy51_tls_set(TLS_WORK, NULL) != 0:
        return _work_init_kept(w)
    memset(w, 0, sizeof(Work))
    w.a = k.a
    w.b = k.b
    w.g = k.g
    w.rec = k.rec
    w.rec_cap = k.rec_cap
    w.nextm = k.nextm
    w.next_cap = k.next_cap
    path.par = k.path.par
    path.info = k.path.info
    path.cap = k.path.cap
    free(k)
    kept = <Cache*>rummy51_tls_get(TLS_CACHE)
    if kept != NULL and rummy51_tls_set(TLS_CACHE, NULL) == 0:
        w.cache = kept[0]
        free(kept)
    elif _cache_init(&w.cache, 64, 256) != 0:
        _work_free(w)
        free(path.par)
        free(path.info)
        memset(path, 0, sizeof(Path))
        return -1
    return 0

cdef void _work_free_single(Work* w, Path* path) noexcept nogil:
    """``_work_free_kept``, keeping the tables and the path store for the thread's next
    single call (unless its slot is taken, or they grew past the limits)."""
    cdef KeptWork* k = NULL
    if (rummy51_tls_get(TLS_WORK) == NULL and w.a.cap <= KEEP_TABLE and w.b.cap <= KEEP_TABLE
            and w.g.cap <= KEEP_TABLE and path.cap <= KEEP_PATH and w.rec_cap <= KEEP_TABLE
            and w.next_cap <= KEEP_TABLE):
        k = <KeptWork*>malloc(sizeof(KeptWork))
    if k != NULL:
        k.a = w.a
        k.b = w.b
        k.g = w.g
        k.rec = w.rec
        k.rec_cap = w.rec_cap
        k.nextm = w.nextm
        k.next_cap = w.next_cap
        k.path.par = path.par
        k.path.info = path.info
        k.path.cap = path.cap
        if rummy51_tls_set(TLS_WORK, k) == 0:
            memset(&w.a, 0, sizeof(Table))
            memset(&w.b, 0, sizeof(Table))
            memset(&w.g, 0, sizeof(Table))
            w.rec = NULL
            w.nextm = NULL
            path.par = NULL
            path.info = NULL
        else:
            free(k)
    _work_free_kept(w)
    free(path.par)
    free(path.info)
    path.par = NULL
    path.info = NULL

def _drop_kept_cache():
    """Free this thread's kept option cache (the next call starts with an empty one:
    the tests compare warm and fresh solves), the single calls' kept tables and the
    bots' kept game context."""
    cdef void* p = rummy51_tls_get(TLS_CACHE)
    if p != NULL and rummy51_tls_set(TLS_CACHE, NULL) == 0:
        _tls_cache_free(p)
    p = rummy51_tls_get(TLS_WORK)
    if p != NULL and rummy51_tls_set(TLS_WORK, NULL) == 0:
        _tls_work_free(p)
    _drop_kept_game()

cdef inline int32_t _live_val(int32_t v) noexcept nogil:
    return v if v >= 0 else -(v + 1)

DEF MAXCAND = 4 * (3 * MAXRUNS + 1)   # a state's better neighbours (_dom_candidates)

cdef inline void _dom_put(uint64_t ka, uint64_t kb, int s, uint32_t nw, uint64_t* ca,
                          uint64_t* cb, int* n) noexcept nogil:
    """Add the state (ka, kb) with suit s's runs replaced by ``nw``."""
    if s < 2:
        ca[n[0]] = (ka & ~((<uint64_t>0xFFFFFFFF) << (32 * s))) | ((<uint64_t>nw) << (32 * s))
        cb[n[0]] = kb
    else:
        ca[n[0]] = ka
        cb[n[0]] = (kb & ~((<uint64_t>0xFFFFFFFF) << (32 * (s - 2)))) | ((<uint64_t>nw) << (32 * (s - 2)))
    n[0] += 1

cdef int _dom_candidates(uint64_t ka, uint64_t kb, int track_nat, int track_jk,
                         uint64_t* ca, uint64_t* cb) noexcept nogil:
    """The runs (first two key words) of the states that would dominate a state with
    runs (ka, kb): in one suit one run a step better (one longer, holding a natural, or
    one joker fewer) or one more complete run; their number (at most MAXCAND).

    A suit's runs are packed in descending order, so the first of equal codes made one
    longer stays in its place (the codes before it are larger), and a complete run
    (code 7) goes first when no code is above 7: those two words are made directly;
    the other steps re-sort (``_pack_runs``)."""
    cdef int s, i, n, k, x, prev, small
    cdef int nc = 0
    cdef uint32_t word
    cdef uint8_t codes[MAXRUNS + 1]
    cdef uint8_t buf[MAXRUNS + 1]
    for s in range(4):
        if s < 2:
            word = <uint32_t>((ka >> (32 * s)) & <uint64_t>0xFFFFFFFF)
        else:
            word = <uint32_t>((kb >> (32 * (s - 2))) & <uint64_t>0xFFFFFFFF)
        n = 0
        prev = -1
        small = 1
        while n < MAXRUNS:
            x = (word >> (5 * n)) & 31
            if x == 0:
                break
            codes[n] = <uint8_t>x
            if x > 7:
                small = 0
            if x != prev:
                prev = x
                # one longer (the first of its equal codes: its place is unchanged)
                if (x & 3) != 3:
                    _dom_put(ka, kb, s, word + ((<uint32_t>1) << (5 * n)), ca, cb, &nc)
            n += 1
        # one more complete run holding a natural
        if n < MAXRUNS:
            if small:
                _dom_put(ka, kb, s, (word << 5) | 7, ca, cb, &nc)
            else:
                for k in range(n):
                    buf[k] = codes[k]
                buf[n] = 7
                _dom_put(ka, kb, s, _pack_runs(buf, n + 1), ca, cb, &nc)
        if not track_nat and not track_jk:
            continue
        for i in range(n):
            if i > 0 and codes[i] == codes[i - 1]:
                continue
            x = codes[i]
            if track_nat and not (x & 4):
                for k in range(n):
                    buf[k] = codes[k]
                buf[i] = <uint8_t>(x | 4)      # holding a natural
                _dom_put(ka, kb, s, _pack_runs(buf, n), ca, cb, &nc)
            if track_jk and (x >> 3) != 0:
                for k in range(n):
                    buf[k] = codes[k]
                buf[i] = <uint8_t>(x - 8)      # one joker fewer
                _dom_put(ka, kb, s, _pack_runs(buf, n), ca, cb, &nc)
    return nc

cdef int _dominated(Table* t, int64_t e, int track_nat, int track_jk) noexcept nogil:
    """Whether another state of the layer dominates state e: the same jokers and ace
    fields, the same runs but in one suit one run a step better (one longer, holding a
    natural, or one joker fewer) or one more complete run, and a value at least as
    large. The better state can answer every later choice of e's with the same cards
    (a longer run continues as the shorter does, a complete run may end at once; where
    a run may not start because one just ended, the complete run continues instead)."""
    cdef uint64_t kc = t.keys[3 * e + 2]
    cdef int32_t v = _live_val(t.vals[e])
    cdef uint64_t ca[MAXCAND]
    cdef uint64_t cb[MAXCAND]
    cdef int i, n = _dom_candidates(t.keys[3 * e], t.keys[3 * e + 1], track_nat, track_jk, ca, cb)
    cdef int64_t f
    for i in range(n):
        f = _table_find(t, ca[i], cb[i], kc)
        if f >= 0 and _live_val(t.vals[f]) >= v:
            return 1
    return 0

cdef void _drop_marked(Table* t) noexcept nogil:
    """Remove the entries whose value is marked (negative), keeping the others' order.
    The dropped entries' index slots are emptied, which can cut a probe chain through
    them: a layer still being filled must be indexed again (``_table_reindex``)."""
    cdef int64_t e, j = 0
    for e in range(t.n):
        if t.vals[e] >= 0:
            t.keys[3 * j] = t.keys[3 * e]
            t.keys[3 * j + 1] = t.keys[3 * e + 1]
            t.keys[3 * j + 2] = t.keys[3 * e + 2]
            t.vals[j] = t.vals[e]
            t.par[j] = t.par[e]
            t.info[j] = t.info[e]
            t.slot[j] = t.slot[e]
            t.idx[t.slot[j]] = (t.idx[t.slot[j]] & (<uint64_t>0xFFFFFFFF00000000ULL)) | <uint64_t>(j + 1)
            j += 1
        else:
            t.idx[t.slot[e]] = 0
    t.n = j

cdef void _drop_dominated(Table* t, int track_nat, int track_jk) noexcept nogil:
    """Remove the states another state of the layer dominates (``_dominated``)."""
    cdef int64_t e
    for e in range(t.n):
        if _dominated(t, e, track_nat, track_jk):
            t.vals[e] = -(t.vals[e] + 1)
    _drop_marked(t)

cdef int _drop_dominated_grouped(Table* t, Work* w, int track_nat, int track_jk) noexcept nogil:
    """``_drop_dominated`` for a layer whose states come in groups (the same runs and
    jokers, other ace fields): a group's better neighbours are found once (a group
    probe each), and only the states of a group that has some are probed one by one.
    The same states are removed. -1 on no memory."""
    cdef Table* g = &w.g
    cdef int64_t e, f, gi, m, nn
    cdef int i, n, k
    cdef int32_t* nextm
    cdef int32_t v
    cdef uint64_t ka, kb, jk, kc
    cdef uint64_t ca[MAXCAND]
    cdef uint64_t cb[MAXCAND]
    cdef int nb[MAXCAND]
    if w.next_cap < t.n:
        nextm = <int32_t*>realloc(w.nextm, t.n * sizeof(int32_t))
        if nextm == NULL:
            return -1
        w.nextm = nextm
        w.next_cap = t.n
    nextm = w.nextm
    # the groups: (runs, jokers) -> the chain of their states (vals: the chain's head)
    _table_clear(g)
    for e in range(t.n):
        jk = t.keys[3 * e + 2] & 7
        f = _table_find(g, t.keys[3 * e], t.keys[3 * e + 1], jk)
        if f < 0:
            nextm[e] = -1
            if _table_put(g, t.keys[3 * e], t.keys[3 * e + 1], jk, <int32_t>e, 0, 0) != 0:
                return -1
        else:
            nextm[e] = g.vals[f]
            g.vals[f] = <int32_t>e
    for gi in range(g.n):
        ka = g.keys[3 * gi]
        kb = g.keys[3 * gi + 1]
        jk = g.keys[3 * gi + 2]
        n = _dom_candidates(ka, kb, track_nat, track_jk, ca, cb)
        nn = 0
        for i in range(n):
            if _table_find(g, ca[i], cb[i], jk) >= 0:
                nb[nn] = i
                nn += 1
        if nn == 0:
            continue
        m = g.vals[gi]
        while m >= 0:
            kc = t.keys[3 * m + 2]
            v = _live_val(t.vals[m])
            for k in range(nn):
                f = _table_find(t, ca[nb[k]], cb[nb[k]], kc)
                if f >= 0 and _live_val(t.vals[f]) >= v:
                    t.vals[m] = -(t.vals[m] + 1)
                    break
            m = nextm[m]
    _drop_marked(t)
    return 0
