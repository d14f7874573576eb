# Included at the end of _carousel.pyx: the careful bot's undercut estimate in C.
"""``rummy51.carousel.bots.undercut_risk`` in C, draw for draw.

The Python estimate takes the cards the player has not seen (the sorted deck less its
hand and the table: ``pool``, in deck order) and, for each other player with ``k``
cards, ``rng.random((samples, m))`` (``m`` the pool's size, row after row), the ``k``
smallest draws of each row (``argpartition``) as that player's hand; the share of rows
worth ``points`` or fewer is ``low``, and the risk is ``1 - prod(1 - low)``. Here the
same doubles come from the same bit generator in the same order (``next_double``, the
one ``Generator.random`` uses), the ``k`` smallest of a row by selection, and the
same floating-point steps: the same risk, bit for bit, and the generator left in the
same state. (Two equal doubles in a row, about one chance in 10^12 a decision, could
be told apart differently from ``argpartition``.) When ``k >= m`` the Python code draws
nothing and takes the whole pool, and so does this.
"""

from libc.string cimport memcpy
from numpy.random cimport bitgen_t
from rummy51._core cimport _bitgen_of

DEF CR_MAXPOOL = 128      # the pool is at most a deck (108 cards)
DEF CR_MAXP = 6


cdef double _kth_smallest(double* a, int n, int k) noexcept nogil:
    """The ``k``-th smallest (0-based) of ``a[0:n]`` (quickselect; ``a`` reordered)."""
    cdef int lo = 0, hi = n - 1, i, j
    cdef double pivot, t
    while lo < hi:
        pivot = a[(lo + hi) >> 1]
        i = lo
        j = hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                t = a[i]
                a[i] = a[j]
                a[j] = t
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            break
    return a[k]


cdef double _cr_undercut_risk(bitgen_t* bg, const int32_t* values, int m,
                              const int* hand_sizes, int n, int me, int32_t points,
                              int samples) noexcept nogil:
    """The chance that another player holds ``points`` or fewer (see above):
    ``values`` the pool's card values in deck order, ``hand_sizes`` every player's."""
    cdef double row[CR_MAXPOOL]
    cdef double sel[CR_MAXPOOL]
    cdef double p_safe = 1.0, low, t
    cdef int o, k, s, j, hits, total_all
    cdef int32_t tot
    total_all = 0
    for j in range(m):
        total_all += values[j]
    for o in range(n):
        k = hand_sizes[o]
        if o == me or k == 0:
            continue
        if k > m:
            k = m
        hits = 0
        if k >= m:
            # np.tile of the whole pool: no draw, every row the same
            hits = samples if total_all <= points else 0
        else:
            for s in range(samples):
                for j in range(m):
                    row[j] = bg.next_double(bg.state)
                memcpy(sel, row, m * sizeof(double))
                t = _kth_smallest(sel, m, k - 1)
                tot = 0
                for j in range(m):
                    if row[j] <= t:
                        tot += values[j]
                if tot <= points:
                    hits += 1
        low = <double>hits / <double>samples
        p_safe *= 1.0 - low
    return 1.0 - p_safe


cdef bitgen_t* _cr_bitgen(object rng) except NULL:
    """The ``bitgen_t`` of a numpy Generator (``_core._bitgen_of`` of its bit generator)."""
    return _bitgen_of(rng.bit_generator)


def _undercut_risk(rng, const int32_t[::1] values, hand_sizes, int me, int points,
                   int samples):
    """Testing hook: ``_cr_undercut_risk`` with the numpy Generator ``rng`` (advanced as
    ``carousel.bots.undercut_risk`` advances it)."""
    cdef int hs[CR_MAXP]
    cdef int n = len(hand_sizes), i, m = <int>values.shape[0]
    cdef bitgen_t* bg = _cr_bitgen(rng)
    cdef double r
    if not 0 < n <= CR_MAXP:
        raise ValueError(f"hand_sizes: 1..{CR_MAXP} players, got {n}")
    if not 0 < m <= CR_MAXPOOL:
        raise ValueError(f"values: 1..{CR_MAXPOOL} cards, got {m}")
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    for i in range(n):
        hs[i] = int(hand_sizes[i])
    with rng.bit_generator.lock, nogil:
        r = _cr_undercut_risk(bg, &values[0], m, hs, n, me, points, samples)
    return r
