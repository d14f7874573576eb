# _carousel_memory.pxi: the module's allocator, which counts what the solver holds, and
# the memory limit of a call (``memory_limit`` of carousel.best_play and the batch).
#
# Every malloc / calloc / realloc / free of this module goes through these (the names
# are bound to them where _carousel.pyx cimports them), so the bytes a thread holds are
# known at every moment: each block carries its size in a 16-byte head (malloc's
# alignment kept). A limit, set for one call (or a batch's rows together) on its thread, makes an
# allocation that would take the bytes held past ``base + limit`` fail as an exhausted
# memory does, and marks the call: every caller already takes a failed allocation as
# "no memory" (-2, never a wrong answer), and the API then names the limit
# (GaveUp). A realloc counts its new block whole before the old one is given back (a
# move holds both for a moment). ``peak``: the most held beyond ``base`` since the
# limit was set, so tests and benchmarks read what a call needed.
#
# (Included by _carousel.pyx, textually: one extension module, one C namespace.)

cdef extern from *:
    """
    #include <stdlib.h>
    #include <stdint.h>
    #if defined(_MSC_VER)
    #define R51_TLS __declspec(thread)
    #else
    #define R51_TLS __thread
    #endif
    typedef struct { size_t n; size_t pad; } r51_head;
    static R51_TLS int64_t r51_used = 0;    /* bytes this thread's blocks hold */
    static R51_TLS int64_t r51_limit = 0;   /* bytes a call may hold beyond r51_base; 0: none */
    static R51_TLS int64_t r51_base = 0;
    static R51_TLS int64_t r51_peak = 0;    /* most held beyond r51_base since the limit was set */
    static R51_TLS int r51_hit = 0;         /* an allocation was refused by the limit */

    static int r51_take(size_t n) {
        int64_t now = r51_used + (int64_t)n;
        if (r51_limit > 0 && now - r51_base > r51_limit) { r51_hit = 1; return -1; }
        r51_used = now;
        if (now - r51_base > r51_peak) r51_peak = now - r51_base;
        return 0;
    }
    static void* r51_malloc(size_t n) {
        r51_head* h;
        if (n > SIZE_MAX - sizeof(r51_head) || r51_take(n) != 0) return NULL;
        h = (r51_head*)malloc(sizeof(r51_head) + n);
        if (h == NULL) { r51_used -= (int64_t)n; return NULL; }
        h->n = n;
        return h + 1;
    }
    static void* r51_calloc(size_t k, size_t s) {
        r51_head* h;
        size_t n;
        if (s != 0 && k > (SIZE_MAX - sizeof(r51_head)) / s) return NULL;
        n = k * s;
        if (r51_take(n) != 0) return NULL;
        h = (r51_head*)calloc(1, sizeof(r51_head) + n);
        if (h == NULL) { r51_used -= (int64_t)n; return NULL; }
        h->n = n;
        return h + 1;
    }
    static void r51_free(void* p) {
        r51_head* h;
        if (p == NULL) return;
        h = (r51_head*)p - 1;
        r51_used -= (int64_t)h->n;
        free(h);
    }
    static void* r51_realloc(void* p, size_t n) {
        r51_head* h;
        size_t old;
        if (p == NULL) return r51_malloc(n);
        if (n > SIZE_MAX - sizeof(r51_head)) return NULL;
        h = (r51_head*)p - 1;
        old = h->n;
        if (r51_take(n) != 0) return NULL;
        h = (r51_head*)realloc(h, sizeof(r51_head) + n);
        if (h == NULL) { r51_used -= (int64_t)n; return NULL; }
        r51_used -= (int64_t)old;
        h->n = n;
        return h + 1;
    }
    static void r51_mem_begin(int64_t limit) {
        r51_limit = limit > 0 ? limit : 0;
        r51_base = r51_used;
        r51_peak = 0;
        r51_hit = 0;
    }
    static int64_t r51_mem_limit(void) { return r51_limit; }
    static int64_t r51_mem_base(void) { return r51_base; }
    static int64_t r51_mem_peak(void) { return r51_peak; }
    static int r51_mem_hit(void) { return r51_hit; }
    static int64_t r51_mem_used(void) { return r51_used; }
    static void r51_mem_restore(int64_t limit, int64_t base, int64_t peak, int hit) {
        r51_limit = limit; r51_base = base; r51_peak = peak; r51_hit = hit;
    }
    """
    void* malloc "r51_malloc"(size_t n) noexcept nogil
    void* calloc "r51_calloc"(size_t k, size_t s) noexcept nogil
    void* realloc "r51_realloc"(void* p, size_t n) noexcept nogil
    void free "r51_free"(void* p) noexcept nogil
    void r51_mem_begin(int64_t limit) noexcept nogil
    int64_t r51_mem_limit() noexcept nogil
    int64_t r51_mem_base() noexcept nogil
    int64_t r51_mem_peak() noexcept nogil
    int r51_mem_hit() noexcept nogil
    int64_t r51_mem_used() noexcept nogil
    void r51_mem_restore(int64_t limit, int64_t base, int64_t peak, int hit) noexcept nogil


def memory_limit_begin(int64_t limit):
    """Set this thread's memory limit for one call: the solver may hold at most
    ``limit`` bytes beyond what it holds now (0: none). Returns what was set before, for
    ``memory_limit_end``."""
    saved = (r51_mem_limit(), r51_mem_base(), r51_mem_peak(), r51_mem_hit())
    r51_mem_begin(limit)
    return saved


def memory_limit_end(tuple saved):
    """End the call's limit (``memory_limit_begin``'s ``saved`` back in place); the
    call's ``(peak, hit)``: the most bytes it held beyond its start, and whether the
    limit refused an allocation."""
    got = (r51_mem_peak(), bool(r51_mem_hit()))
    r51_mem_restore(saved[0], saved[1], saved[2], saved[3])
    return got


def memory_limit_hit():
    """The limit of this thread's call when it has refused an allocation, else 0."""
    return r51_mem_limit() if r51_mem_hit() else 0


def memory_held():
    """Bytes the module's allocations hold on this thread (kept caches included)."""
    return r51_mem_used()
