"""spaCy NER batches in worker processes (`OHARA_NER_PROCESSES` > 1).

spaCy releases no GIL worth having for its statistical pipes, so the only way to use a second
core is a second process holding its own copy of the model. spaCy's own `nlp.pipe(n_process=)`
starts its workers on every call; ingest calls it once per document (books) or per batch of
documents (MuSiQue), so the workers here live as long as the process: one pool per process count,
made on first use with the `spawn` start method (a forked child would inherit the ONNX Runtime and
torch thread pools of the parent, which do not survive a fork), shut down at exit.

Each worker runs exactly the batches `SpacyExtractor` would run in-process, so the mentions are
identical (a test compares them); only their order of computation changes. A pool that breaks (a
worker killed by the OS) is dropped and the batch runs in this process: slower, never different.
"""
from __future__ import annotations

import atexit
import logging
import multiprocessing
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from typing import Any

log = logging.getLogger(__name__)

_POOLS: dict[int, ProcessPoolExecutor] = {}
_LOCK = threading.Lock()


def pool(processes: int, initializer: Callable[[], Any]) -> ProcessPoolExecutor:
    """The process's pool of `processes` NER workers (each has run `initializer` once)."""
    with _LOCK:
        if processes not in _POOLS:
            _POOLS[processes] = ProcessPoolExecutor(processes, mp_context=multiprocessing.get_context("spawn"),
                                                    initializer=initializer)
        return _POOLS[processes]


def run_batches(processes: int, initializer: Callable[[], Any], work: Callable[[Sequence[str]], Any],
                batches: Sequence[Sequence[str]]) -> list[Any]:
    """`work(batch)` for every batch, in order, on the pool; in this process if the pool breaks."""
    try:
        return list(pool(processes, initializer).map(work, batches))
    except BrokenProcessPool as exc:
        log.warning("NER worker pool broke (%s); extracting in this process", exc)
        shutdown(processes)
        return [work(batch) for batch in batches]


def shutdown(processes: int | None = None) -> None:
    """Stop one pool (or all of them)."""
    with _LOCK:
        for n in [processes] if processes is not None else list(_POOLS):
            executor = _POOLS.pop(n, None) if n is not None else None
            if executor is not None:
                executor.shutdown(wait=False, cancel_futures=True)


atexit.register(shutdown)
