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


def deal_into(CoreRules cr, rng, uint8_t[:, ::1] out):
    """Fill ``out`` (rows, width) with random hands from the rule set's deck,
    drawing from the numpy Generator ``rng``."""
    cdef Py_ssize_t rows = out.shape[0]
    cdef int width = <int>out.shape[1]
    cdef uint8_t[::1] deck = np.array(cr.deck, dtype=np.uint8)
    cdef int deck_n = <int>deck.shape[0]
    cdef bitgen_t* bg
    if width > deck_n:
        raise ValueError(f"hand_size {width} is more than the {deck_n} cards of the deck")
    if rows == 0 or width == 0:
        return
    bitgen = rng.bit_generator
    bg = _bitgen_of(bitgen)
    with bitgen.lock, nogil:
        deal_rows(bg, &deck[0], deck_n, &out[0, 0], rows, width)
