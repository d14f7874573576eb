# _core_deal.pxi: dealing: uniform draws from a numpy bit generator and deal_into.
#
# (Included by _core.pyx, textually: one extension module, one C namespace;
# the module-wide declarations are at the top of _core.pyx.)

# ---------------------------------------------------------------------------
# Dealing


cdef inline uint32_t bounded(bitgen_t* bg, uint32_t s) noexcept nogil:
    """Unbiased integer in [0, s) (Lemire's multiply-shift with rejection), never x % s."""
    cdef uint64_t m = <uint64_t>bg.next_uint32(bg.state) * s
    cdef uint32_t low = <uint32_t>m
    cdef uint32_t t
    if low < s:
        t = (<uint32_t>(-s)) % s
        while low < t:
            m = <uint64_t>bg.next_uint32(bg.state) * s
            low = <uint32_t>m
    return <uint32_t>(m >> 32)


cdef void deal_rows(bitgen_t* bg, uint8_t* deck, int deck_n, uint8_t* out,
                    Py_ssize_t rows, int width) noexcept nogil:
    """Each row: the first ``width`` cards of a fresh partial Fisher-Yates shuffle.
    The deck is left permuted, which keeps every row uniform."""
    cdef Py_ssize_t i
    cdef int k, j
    cdef uint8_t tmp
    for i in range(rows):
        for k in range(width):
            j = k + <int>bounded(bg, <uint32_t>(deck_n - k))
            tmp = deck[k]
            deck[k] = deck[j]
            deck[j] = tmp
            out[i * width + k] = deck[k]


cdef bitgen_t* _bitgen_of(object bitgen) except NULL:
    capsule = bitgen.capsule
    if not PyCapsule_IsValid(capsule, "BitGenerator"):
        raise ValueError("rng's bit generator has no valid capsule")
    return <bitgen_t*>PyCapsule_GetPointer(capsule, "BitGenerator")


# PCG64, numpy's default bit generator, stepped inline: the same draws as its
# next_uint32 through the capsule's function pointer (the 64-bit output split low
# half first, the high half kept for the next call), without a call per card.
# The state is read from and written back to ``PCG64.state`` (its public form), so
# nothing depends on numpy's C struct layout; tests/test_deal_stream.py checks the
# draws against numpy's own.  Where the compiler has no 128-bit integer the
# generic path is used.
cdef extern from *:
    """
    #if defined(__SIZEOF_INT128__)
    #define R51_HAVE_U128 1
    typedef struct { __uint128_t st, inc; int has32; uint32_t buf; } r51_pcg;
    static void r51_pcg_set(r51_pcg *g, uint64_t sh, uint64_t sl, uint64_t ih, uint64_t il) {
        g->st = ((__uint128_t)sh << 64) | sl; g->inc = ((__uint128_t)ih << 64) | il;
    }
    static uint64_t r51_pcg_word(const r51_pcg *g, int which) {
        __uint128_t v = which < 2 ? g->st : g->inc;
        return (which & 1) ? (uint64_t)v : (uint64_t)(v >> 64);
    }
    /* deal_rows on the inline PCG64 with the generator's state in local variables:
       the byte stores to the deck and the output may alias anything, so a state
       read through ``g`` would be reloaded and stored again at every draw. The same
       draws (numpy's next_uint32: the 64-bit output split low half first, the
       high half kept for the next draw), the same rejections, the same hands. */
    #define R51_NEXT32(v) do { if (has) { has = 0; v = buf; } else { \
            st = st * mult + inc; x = (uint64_t)(st >> 64) ^ (uint64_t)st; \
            rot = (unsigned)(st >> 122); x = (x >> rot) | (x << ((-rot) & 63)); \
            has = 1; buf = (uint32_t)(x >> 32); v = (uint32_t)x; } } while (0)
    static __attribute__((noinline)) void r51_deal_rows_pcg(
            r51_pcg *g, uint8_t *deck, int deck_n, uint8_t *out, Py_ssize_t rows, int width) {
        const __uint128_t mult = (((__uint128_t)0x2360ED051FC65DA4ULL) << 64) | 0x4385DF649FCCF645ULL;
        __uint128_t st = g->st;
        const __uint128_t inc = g->inc;
        int has = g->has32;
        uint32_t buf = g->buf, r, s, low, t;
        uint64_t x, m;
        unsigned rot;
        Py_ssize_t i;
        int k, j;
        uint8_t a, b;
        for (i = 0; i < rows; i++) {
            for (k = 0; k < width; k++) {
                s = (uint32_t)(deck_n - k);
                R51_NEXT32(r);
                m = (uint64_t)r * s;
                low = (uint32_t)m;
                if (__builtin_expect(low < s, 0)) {
                    t = ((uint32_t)(-s)) % s;
                    while (low < t) {
                        R51_NEXT32(r);
                        m = (uint64_t)r * s;
                        low = (uint32_t)m;
                    }
                }
                j = k + (int)(m >> 32);
                a = deck[k];
                b = deck[j];
                deck[j] = a;
                deck[k] = b;
                out[k] = b;
            }
            out += width;
        }
        g->st = st;
        g->has32 = has;
        g->buf = buf;
    }
    #undef R51_NEXT32
    #else
    #define R51_HAVE_U128 0
    typedef struct { int has32; uint32_t buf; } r51_pcg;
    static void r51_pcg_set(r51_pcg *g, uint64_t sh, uint64_t sl, uint64_t ih, uint64_t il) {}
    static uint64_t r51_pcg_word(const r51_pcg *g, int which) { return 0; }
    static void r51_deal_rows_pcg(r51_pcg *g, uint8_t *deck, int deck_n, uint8_t *out,
                                  Py_ssize_t rows, int width) {}
    #endif
    """
    const int R51_HAVE_U128
    ctypedef struct r51_pcg:
        int has32
        uint32_t buf
    void r51_pcg_set(r51_pcg* g, uint64_t sh, uint64_t sl, uint64_t ih, uint64_t il) noexcept nogil
    uint64_t r51_pcg_word(const r51_pcg* g, int which) noexcept nogil
    void r51_deal_rows_pcg(r51_pcg* g, uint8_t* deck, int deck_n, uint8_t* out,
                           Py_ssize_t rows, int width) noexcept nogil


# Below this many cards the state's round trip through Python costs more than it saves.
DEF PCG_INLINE_MIN_CARDS = 512

_M64 = (1 << 64) - 1


def deal_into(CoreRules cr, rng, uint8_t[:, ::1] out):
    """Fill ``out`` (rows, width) with random hands from the rule set's deck,
    drawing from the numpy Generator ``rng``."""
    cdef Py_ssize_t rows = out.shape[0]
    cdef int width = <int>out.shape[1]
    cdef uint8_t[::1] deck = np.array(cr.deck, dtype=np.uint8)
    cdef int deck_n = <int>deck.shape[0]
    cdef bitgen_t* bg
    cdef r51_pcg g
    if width > deck_n:
        raise ValueError(f"hand_size {width} is more than the {deck_n} cards of the deck")
    if rows == 0 or width == 0:
        return
    bitgen = rng.bit_generator
    if R51_HAVE_U128 and type(bitgen) is np.random.PCG64 and rows * width >= PCG_INLINE_MIN_CARDS:
        with bitgen.lock:
            state = bitgen.state
            s, inc = state["state"]["state"], state["state"]["inc"]
            r51_pcg_set(&g, s >> 64, s & _M64, inc >> 64, inc & _M64)
            g.has32 = 1 if state["has_uint32"] else 0
            g.buf = <uint32_t>state["uinteger"]
            with nogil:
                r51_deal_rows_pcg(&g, &deck[0], deck_n, &out[0, 0], rows, width)
            state["state"]["state"] = (int(r51_pcg_word(&g, 0)) << 64) | int(r51_pcg_word(&g, 1))
            state["has_uint32"] = g.has32
            state["uinteger"] = g.buf
            bitgen.state = state
        return
    bg = _bitgen_of(bitgen)
    with bitgen.lock, nogil:
        deal_rows(bg, &deck[0], deck_n, &out[0, 0], rows, width)
