# cython: language_level=3
"""The learned evaluator's forward pass for Python: ``forward(model, X)``, the batch
form of the kernels' ``net_forward`` (``_net.pxd``: the same inline code, so the same
numbers). Private: the public road is ``rummy51.learned.Model.predict``."""
from libc.stdint cimport int32_t

import numpy as np

from rummy51._net cimport Net, net_forward, net_bind


def forward(model, X):
    """``(n, 2)`` float32 outputs (margin, win logit) of the ``(n, nin)`` features ``X``
    (converted to C-contiguous float32)."""
    cdef Net net
    cdef list keep = []
    cdef Py_ssize_t i, n
    net_bind(&net, model, keep)
    if net.nin == 0:
        raise ValueError("no model")
    x = np.ascontiguousarray(X, dtype=np.float32)
    if x.ndim != 2 or x.shape[1] != net.nin:
        raise ValueError(f"features must be (n, {net.nin}), got {x.shape}")
    out = np.empty((x.shape[0], 2), np.float32)
    cdef const float[:, ::1] xv = x
    cdef float[:, ::1] ov = out
    n = x.shape[0]
    if n:
        with nogil:
            for i in range(n):
                net_forward(&net, &xv[i, 0], &ov[i, 0])
    return out
