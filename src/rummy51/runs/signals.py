"""Signals during a run: SIGTERM behaves like Ctrl-C, and worker processes die with
their parent.

* ``terminate_as_interrupt()``: while a run is going (the ``Session``), SIGTERM raises
  ``Terminated`` (a ``KeyboardInterrupt``) in the main thread, so a run stopped by
  ``kill``, a batch scheduler or a timeout ends exactly like one stopped by Ctrl-C:
  the running chunks finish and are saved, the manifest says ``interrupted``, and
  ``resume`` continues it. The previous handler comes back afterwards. Outside the
  main thread (where Python cannot set handlers) it does nothing.
* ``worker_init(parent)``: the initializer of worker processes. They ignore SIGINT
  and SIGTERM (the parent decides and lets running chunks finish), and on Linux ask
  the kernel to kill them when the parent dies (``PR_SET_PDEATHSIG``), so a parent
  killed with SIGKILL leaves no worker behind holding its terminal.
"""
from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from types import FrameType
from typing import NoReturn

__all__ = ["Terminated", "terminate_as_interrupt", "worker_init", "EXIT_TERMINATED"]

#: The exit code of a command stopped by SIGTERM (128 + 15, as shells report it).
EXIT_TERMINATED = 128 + signal.SIGTERM


class Terminated(KeyboardInterrupt):
    """The run was stopped by SIGTERM (handled like Ctrl-C)."""


def _raise_terminated(signum: int, frame: FrameType | None) -> NoReturn:  # pragma: no cover
    # (runs in a signal handler)
    raise Terminated(f"stopped by signal {signum}")


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """Within the block, SIGTERM raises ``Terminated`` in the main thread."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        old = signal.signal(signal.SIGTERM, _raise_terminated)
    except (ValueError, OSError):  # pragma: no cover - no signals here (embedded)
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def _die_with_parent() -> None:
    """Linux: SIGKILL this process when its parent dies (best effort elsewhere)."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        PR_SET_PDEATHSIG = 1
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # pragma: no cover - not Linux
        pass


def worker_init(parent: int) -> None:
    """Initializer of a worker process whose parent has pid ``parent``."""
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(sig, signal.SIG_IGN)
        except (ValueError, OSError):  # pragma: no cover
            pass
    _die_with_parent()
    if os.getppid() != parent:
        # the parent died before the death signal was armed
        os._exit(1)
