"""A progress bar on stderr (tqdm), shown only when asked or when stderr is a terminal."""
from __future__ import annotations

import sys

__all__ = ["Progress"]


class Progress:
    """``Progress(enabled, total, initial, desc)``; ``update(n)``, ``close()``.
    ``enabled=None`` shows the bar only when stderr is a terminal; without tqdm
    installed it shows nothing."""

    def __init__(self, enabled: bool | None, total: int, initial: int, desc: str,
                 unit: str = " deals") -> None:
        if enabled is None:
            try:
                enabled = sys.stderr.isatty()
            except (AttributeError, ValueError):
                enabled = False
        self.bar = None
        if enabled:
            try:
                from tqdm import tqdm
            except ImportError:
                return
            self.bar = tqdm(total=total, initial=initial, unit=unit, unit_scale=True,
                            desc=desc, file=sys.stderr, dynamic_ncols=True, smoothing=0.05,
                            leave=False)

    def update(self, n: int) -> None:
        if self.bar is not None:
            self.bar.update(n)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
