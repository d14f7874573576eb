"""Helpers the studies share (a private module made for sharing)."""
from __future__ import annotations

import numpy as np

__all__ = ["json_records"]


def json_records(df) -> list[dict]:
    """A DataFrame as a list of JSON-able dicts (numpy scalars and NA made plain)."""
    import pandas as pd

    out = []
    for rec in df.to_dict("records"):
        clean = {}
        for k, v in rec.items():
            if v is None or (np.ndim(v) == 0 and pd.isna(v)):
                v = None
            elif isinstance(v, (np.integer,)):
                v = int(v)
            elif isinstance(v, (float, np.floating)):
                v = float(v)
            elif isinstance(v, np.bool_):
                v = bool(v)
            clean[k] = v
        out.append(clean)
    return out
