"""Where chunks run: a thread pool, worker processes or a Dask cluster.

Every executor takes the chunk specs still to do (a sized collection, taken lazily), a ``work(spec)`` function
and a ``done_cb(spec, result)`` called in the calling thread as chunks finish. On an
exception or Ctrl-C the chunks not started are cancelled, the running ones finish
and are reported (so their results are kept), and the exception goes on.

* ``run_threads``: the kernels release the GIL, so threads use every core.
* ``run_processes``: for GIL-bound Python work; worker processes start with the
  "spawn" method, ignore Ctrl-C and SIGTERM (the parent decides) and die with the
  parent.
* ``run_dask``: a Dask ``Client`` (given, at an address, or a local cluster made
  for the run); a worker running another rummy51 version is refused, and a
  scheduler that goes away mid-run ends it with ``SchedulerLost`` (the chunks
  already reported are kept, so the run resumes).
"""
from __future__ import annotations

import itertools
import os
from collections.abc import Callable, Collection, Iterable
from concurrent.futures import FIRST_COMPLETED, Executor, ProcessPoolExecutor, ThreadPoolExecutor, wait
from typing import Any

from .signals import worker_init

__all__ = ["run_threads", "run_processes", "run_dask", "drain", "dask_client", "SchedulerLost"]


class SchedulerLost(RuntimeError):
    """The Dask scheduler went away (killed, or its network lost) before the run
    finished. The chunks done before are saved; the run directory resumes."""

Work = Callable[[dict], Any]
DoneCallback = Callable[[dict, Any], None]


def run_threads(todo: Collection[dict], threads: int, work: Work, done_cb: DoneCallback) -> None:
    """Run ``work(spec)`` for every spec on ``threads`` threads (in this thread when 1)."""
    if not todo:
        return
    threads = max(1, min(threads, len(todo)))
    if threads == 1:
        for spec in todo:
            done_cb(spec, work(spec))
        return
    ex = ThreadPoolExecutor(max_workers=threads, thread_name_prefix="rummy51-mc")
    drain(ex, todo, work, done_cb, window=2 * threads)


def run_processes(todo: Collection[dict], workers: int, work: Work, done_cb: DoneCallback) -> None:
    """Run ``work(spec)`` (a picklable module-level function) in ``workers`` processes
    (in this process when 1)."""
    if not todo:
        return
    workers = max(1, min(workers, len(todo)))
    if workers == 1:
        for spec in todo:
            done_cb(spec, work(spec))
        return
    import multiprocessing
    from concurrent.futures.process import BrokenProcessPool

    if getattr(multiprocessing.current_process(), "_inheriting", False):
        # we are a worker process that is starting: it imports the user's script, and
        # the script (without ``if __name__ == "__main__":``) calls the study again.
        # Leave quietly; the parent says what to add.
        raise SystemExit(1)
    # workers ignore Ctrl-C and SIGTERM (the parent decides; running chunks finish) and
    # die with the parent (a SIGKILL of the parent leaves no orphan): runs.signals
    ex = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                             initializer=worker_init, initargs=(os.getpid(),))
    # one chunk per worker in flight: a chunk handed to the pool cannot be cancelled,
    # so Ctrl-C waits only for the chunks running
    try:
        drain(ex, todo, work, done_cb, window=workers)
    except BrokenProcessPool:
        raise RuntimeError(
            "the worker processes stopped unexpectedly; if this runs at the top level of a "
            'script, put it under `if __name__ == "__main__":` (worker processes start by '
            "importing the script), or pass workers=1") from None


def drain(ex: Executor, todo: Iterable[dict], work: Work, done_cb: DoneCallback, window: int) -> None:
    """Run ``work(spec)`` for every spec of ``todo`` on the executor ``ex``, at most
    ``window`` in flight, calling ``done_cb(spec, result)`` as each finishes. On an
    error or Ctrl-C the queued chunks are cancelled, the running ones finish and are
    reported (their files are written), and the exception goes on; ``ex`` is shut
    down either way."""
    pending: dict = {}
    it = iter(todo)
    try:
        for spec in itertools.islice(it, window):
            pending[ex.submit(work, spec)] = spec
        while pending:
            finished, _ = wait(list(pending), return_when=FIRST_COMPLETED)
            for f in finished:
                spec = pending.pop(f)
                done_cb(spec, f.result())
                nxt = next(it, None)
                if nxt is not None:
                    pending[ex.submit(work, nxt)] = nxt
    except BaseException:
        for f in pending:
            f.cancel()
        wait(list(pending))
        for f, spec in list(pending.items()):
            if not f.cancelled() and f.exception() is None:
                try:
                    done_cb(spec, f.result())
                except BaseException:
                    pass
        raise
    finally:
        ex.shutdown(wait=True, cancel_futures=True)


def dask_client(scheduler: Any, workers: int) -> tuple[Any, Any, bool]:
    """``(client, cluster, own)``: the Dask client for ``scheduler`` (a Client, an
    address, or None for a local cluster of ``workers`` processes)."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise ValueError("backend 'dask' needs dask.distributed: pip install \".[dask]\" "
                         "from a clone of rummy51") from None
    if isinstance(scheduler, Client):
        return scheduler, None, False
    if scheduler is None:
        import logging

        cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                               host="127.0.0.1", dashboard_address="127.0.0.1:0",
                               silence_logs=logging.ERROR)
        return Client(cluster), cluster, True
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise TypeError(f"scheduler must be an address like tcp://HOST:PORT or a "
                        f"distributed.Client, got {scheduler!r}")
    try:
        return Client(scheduler, timeout="10s"), None, True
    except Exception as e:  # refused, timed out, or something else answering the port
        why = " ".join(str(e).split())[:200] or type(e).__name__
        raise ValueError(f"cannot reach the Dask scheduler at {scheduler}: {why}") from None


def run_dask(todo: Collection[dict], scheduler: Any, workers: int, key_prefix: str,
             done_cb: DoneCallback, task: Callable[[dict], dict],
             unpack: Callable[[dict], Any] = lambda res: res) -> int:
    """Run ``task`` on every spec of ``todo`` on a Dask cluster, handing
    ``unpack(result)`` to ``done_cb``; returns the number of workers seen. A task's
    result is a dict with ``index`` and ``version`` (the worker's rummy51 version).
    The specs are submitted as the cluster takes them (a window of a few per worker),
    so a plan of billions of chunks is never held at once."""
    from .._version import __version__

    client, cluster, own = dask_client(scheduler, workers)
    pending: dict[Any, dict] = {}
    try:
        from dask.distributed import as_completed

        n_workers = len(client.scheduler_info().get("workers", {})) or workers
        if not todo:
            return n_workers
        total = len(todo)
        window = max(64, 4 * n_workers)
        it = iter(todo)

        def submit(spec: dict) -> Any:
            fut = client.submit(task, spec, key=f"{key_prefix}-{spec['index']:06d}", pure=False)
            pending[fut] = spec
            return fut

        ac = as_completed([submit(s) for s in itertools.islice(it, window)])
        done = 0
        for fut in ac:
            spec = pending.pop(fut)
            try:
                res = fut.result()
            except Exception as e:
                if _scheduler_gone(client, e):
                    raise SchedulerLost(
                        f"lost the Dask scheduler at {_address(client, scheduler)} after "
                        f"{done} of {total} chunks ({_reason(e)})") from None
                raise
            done += 1
            if res["version"] != __version__:
                raise ValueError(f"a Dask worker runs rummy51 {res['version']}, this process "
                                 f"{__version__}: install the same version everywhere")
            if res["index"] != spec["index"]:   # pragma: no cover - a task answers its spec
                raise RuntimeError(f"chunk {spec['index']} came back as chunk {res['index']}")
            done_cb(spec, unpack(res))
            fut.release()
            nxt = next(it, None)
            if nxt is not None:
                ac.add(submit(nxt))
        return n_workers
    except BaseException:
        for f in list(pending):
            try:
                f.cancel()
            except Exception:  # the scheduler is gone: nothing left to cancel
                pass
        raise
    finally:
        if own:
            _quietly(client.close)
            if cluster is not None:
                cluster.close()


def _scheduler_gone(client: Any, e: Exception) -> bool:
    """Whether ``e`` (a future's error) means the scheduler went away, not a task's
    own failure: the connection closed or refused, the futures cancelled for it, or
    the client no longer running."""
    from concurrent.futures import CancelledError

    if isinstance(e, CancelledError):  # nothing here cancels a future but a lost scheduler
        return True
    # a closed comm (distributed's CommClosedError is an OSError), or a client that no
    # longer runs: the connection went
    return isinstance(e, OSError) or getattr(client, "status", "running") != "running"


def _address(client: Any, scheduler: Any) -> str:
    if isinstance(scheduler, str):
        return scheduler
    return str(getattr(getattr(client, "scheduler", None), "address", None) or "its address")


def _reason(e: Exception) -> str:
    """The first line of a Dask error, shortened: ``scheduler-connection-lost``."""
    text = " ".join(str(e).split()) or type(e).__name__
    if "reason:" in text:
        text = text.split("reason:", 1)[1].split()[0].rstrip(".")
    return text[:120]


def _quietly(close: Callable[[], Any]) -> None:
    """Close a Dask client whose scheduler may be gone, without its logged errors."""
    import logging

    log = logging.getLogger("distributed")
    level = log.level
    log.setLevel(logging.CRITICAL)
    try:
        close()
    except Exception:
        pass
    finally:
        log.setLevel(level)
