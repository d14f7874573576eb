# cython: language_level=3
"""The learned evaluator's forward pass, shared by the game kernels (``_game.pyx``,
``_carousel.pyx``) and ``_net.pyx`` (its batch form for Python).

A model (``rummy51.learned.Model``) is a two-layer network over a position's features,
as the deciding player sees them: ``h = relu(x @ w1 + b1)``, ``out = w2 @ h + b2``, with
``out[0]`` the deal's (round's) final margin for that player in the game's points and
``out[1]`` the logit of its win. The features' standardization and the margin's scale
are folded into the weights when the model is built, so the kernels read raw feature
values. Everything here is ``cdef inline`` and ``nogil``: a kernel that cimports this
file compiles its own copy of the forward pass (no call into another module, no Python
per evaluation), and every copy sums in the same order (float32, no reassociation:
the extensions are built without -ffast-math), so the kernels and ``_net.forward``
give the same numbers.

``net_bind`` fills a ``Net`` from a model object (any object with C-contiguous float32
arrays ``w1`` (features x hidden), ``b1``, ``w2`` (2 x hidden) and ``b2``), keeping the
arrays alive in ``keep`` for as long as the kernel reads them.
"""
from libc.math cimport exp

cdef enum:
    NET_MAXIN = 1024     # features
    NET_MAXH = 256       # hidden units


ctypedef struct Net:
    int nin             # features (0: no model)
    int nh              # hidden units
    const float* w1     # [nin][nh], row-major: feature i's weights to every hidden unit
    const float* b1     # [nh]
    const float* w2     # [2][nh]
    const float* b2     # [2]


cdef inline void net_forward(const Net* n, const float* x, float* out) noexcept nogil:
    """``out[0]``: the margin, ``out[1]``: the win logit of features ``x`` (``n.nin`` values).
    A zero feature adds nothing (most features are card counts: the loop skips them)."""
    cdef float h[NET_MAXH]
    cdef const float* row
    cdef float xi, s0, s1, v
    cdef int i, j, nh = n.nh
    for j in range(nh):
        h[j] = n.b1[j]
    for i in range(n.nin):
        xi = x[i]
        if xi != 0:
            row = n.w1 + i * nh
            for j in range(nh):
                h[j] += xi * row[j]
    s0 = n.b2[0]
    s1 = n.b2[1]
    for j in range(nh):
        v = h[j]
        if v > 0:
            s0 += n.w2[j] * v
            s1 += n.w2[nh + j] * v
    out[0] = s0
    out[1] = s1


cdef inline double net_sigmoid(double z) noexcept nogil:
    if z >= 0:
        return 1.0 / (1.0 + exp(-z))
    return exp(z) / (1.0 + exp(z))


cdef inline list _net_checked(object model):
    """``model``'s four arrays, each checked with a message naming what is wrong (a
    ``ValueError``)."""
    import numpy as np
    arrs = []
    for name in ("w1", "b1", "w2", "b2"):
        a = getattr(model, name, None)
        if not isinstance(a, np.ndarray) or a.dtype != np.float32 or not a.flags.c_contiguous:
            raise ValueError(f"model {name} must be a C-contiguous float32 array")
        arrs.append(a)
    if arrs[0].ndim != 2 or arrs[1].ndim != 1 or arrs[2].ndim != 2 or arrs[3].ndim != 1:
        raise ValueError("model arrays: w1 and w2 must be 2-D, b1 and b2 1-D")
    return arrs


cdef inline int net_bind(Net* n, object model, list keep) except -1:
    """Fill ``n`` from ``model`` (see the module's note); ``keep`` holds its arrays. None
    clears ``n`` (no model). A wrong dtype, shape or layout raises ``ValueError``."""
    cdef const float[:, ::1] w1
    cdef const float[::1] b1
    cdef const float[:, ::1] w2
    cdef const float[::1] b2
    n.nin = 0
    n.nh = 0
    n.w1 = NULL
    n.b1 = NULL
    n.w2 = NULL
    n.b2 = NULL
    if model is None:
        return 0
    arrs = [getattr(model, "w1", None), getattr(model, "b1", None),
            getattr(model, "w2", None), getattr(model, "b2", None)]
    try:
        # the arrays of a well-formed model: the typed views check dtype, layout and
        # dimensions (a bot's single decision binds its model every call; the checks
        # below, with their messages, cost it more than a small position's solve)
        w1 = arrs[0]
        b1 = arrs[1]
        w2 = arrs[2]
        b2 = arrs[3]
    except (ValueError, TypeError, BufferError):
        arrs = _net_checked(model)
        w1 = arrs[0]
        b1 = arrs[1]
        w2 = arrs[2]
        b2 = arrs[3]
    nin = w1.shape[0]
    nh = w1.shape[1]
    if not 1 <= nin <= NET_MAXIN or not 1 <= nh <= NET_MAXH:
        raise ValueError(f"model of {nin} features and {nh} hidden units: the kernel takes "
                         f"1..{NET_MAXIN} and 1..{NET_MAXH}")
    if b1.shape[0] != nh or w2.shape[0] != 2 or w2.shape[1] != nh or b2.shape[0] != 2:
        raise ValueError(f"model shapes do not fit: w1 {(w1.shape[0], w1.shape[1])}, "
                         f"b1 {(b1.shape[0],)}, w2 {(w2.shape[0], w2.shape[1])}, "
                         f"b2 {(b2.shape[0],)}")
    keep.extend(arrs)
    n.nin = nin
    n.nh = nh
    n.w1 = &w1[0, 0]
    n.b1 = &b1[0]
    n.w2 = &w2[0, 0]
    n.b2 = &b2[0]
    return 0
