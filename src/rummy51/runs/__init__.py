"""The run machinery every study shares: run directories, chunk files, executors,
seeding, progress and the bookkeeping of a session.

A study (``rummy51.studies``) cuts its work into chunk specs (plain dicts with at
least ``index`` and ``n``), and hands them here:

* ``seed_root(seed)`` / ``chunk_seed`` / ``chunk_rng``: one root SeedSequence, one
  child per chunk, so results never depend on the executor;
* ``RunDir``: the run directory (``create``, ``open``, ``settings``, ``scan``) and
  ``write_chunk`` / ``read_chunk`` with a ``ChunkLayout``: verified, atomic chunk files;
* ``run_threads``, ``run_processes``, ``run_dask``: where the chunks run
  (``SchedulerLost``: a Dask scheduler went away mid-run);
* ``write_histories`` / ``chunk_histories``: a chunk's hand histories, checksummed in
  its chunk file and verified on resume and on read;
* ``ChunkPlan``: a plan's chunk specs made lazily (``check_chunks``: at most
  ``MAX_CHUNKS``);
* ``Session``: the manifest's status and session log, the progress bar, the
  ``on_chunk`` hook; ``interrupted`` on any error, Ctrl-C or SIGTERM;
* ``terminate_as_interrupt`` / ``worker_init``: SIGTERM handled like Ctrl-C, worker
  processes that die with their parent.

``docs/architecture.md`` shows how the rooms fit together.
"""
from .executors import SchedulerLost, drain, run_dask, run_processes, run_threads
from .histories import (
    HISTORIES_DIR,
    MAX_HISTORY_TEXT,
    check_histories,
    chunk_histories,
    histories_path,
    parse_line,
    read_histories_file,
    read_history_text,
    write_histories,
)
from .plan import MAX_CHUNKS, ChunkPlan, Todo, check_chunks
from .progress import Progress
from .seeding import chunk_rng, chunk_seed, seed_root
from .session import Session
from .signals import EXIT_TERMINATED, Terminated, terminate_as_interrupt, worker_init
from .store import (
    CHUNK_FORMATS,
    FORMAT_VERSION,
    ChunkLayout,
    ChunkWarning,
    DamagedFile,
    RunDir,
    RunDirError,
    atomic_write_file,
    atomic_write_text,
    chunk_format,
    chunk_meta,
    fs_error,
    has_pyarrow,
    make_dirs,
    new_manifest,
    now,
    ranges,
    read_chunk,
    replace_durably,
    temp_path,
    unranges,
    versions,
    write_chunk,
)

__all__ = [
    "CHUNK_FORMATS", "EXIT_TERMINATED", "MAX_CHUNKS", "ChunkPlan", "Todo", "check_chunks",
    "FORMAT_VERSION", "Terminated",
    "terminate_as_interrupt", "worker_init", "ChunkLayout", "ChunkWarning", "Progress", "RunDir",
    "RunDirError", "DamagedFile", "SchedulerLost", "HISTORIES_DIR", "MAX_HISTORY_TEXT",
    "check_histories", "chunk_histories", "chunk_meta", "histories_path", "parse_line",
    "read_histories_file", "read_history_text", "write_histories", "Session",
    "atomic_write_file", "atomic_write_text", "fs_error",
    "make_dirs", "chunk_format", "chunk_rng", "chunk_seed", "drain",
    "has_pyarrow", "new_manifest", "now", "ranges", "read_chunk", "replace_durably", "run_dask",
    "run_processes", "run_threads", "seed_root", "temp_path", "unranges", "versions",
    "write_chunk",
]
