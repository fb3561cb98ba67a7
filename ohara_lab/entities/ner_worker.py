"""One spaCy NER worker process that reads the next batch while ingest tags and writes this one
(`OHARA_NER_AHEAD`, `SpacyExtractor.submit`).

The worker is `python -m ohara_lab.entities.ner_serve` (its loop), not a `multiprocessing` child: a
spawned child re-imports the parent's main script, so a script without `if __name__ == "__main__":`
would run again in it (an ingest, or a `shutil.rmtree` of the atlas at its top). A module entry point
imports nothing of the caller's: it starts in the folder this package is installed in, so `-m` cannot
pick up an `ohara_lab/` (or a `json.py`) from the caller's working directory.

The protocol is one JSON line each way: a list of texts in, each text's raw mentions
(`Mention.to_dict`, before cleaning) out, computed by the same `_batch_mentions` the in-process
extractor runs, so the mentions are the same (`Mention(**to_dict())` round-trips, as the NER cache
relies on). One thread of the parent talks to the worker, a batch at a time and in order; it only
waits on the pipe, so it takes no time from the parent's own work. A worker that cannot start or
dies leaves the batch, and every later one, to this process: slower, never different.
"""
from __future__ import annotations

import atexit
import json
import logging
import os
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import CancelledError, Future, ThreadPoolExecutor
from pathlib import Path

from ..records import Mention
from ..settings import environ

log = logging.getLogger(__name__)

Batch = Callable[[Sequence[str]], list[list[Mention]]]


class _Worker:
    """The worker process and the one thread that feeds it."""

    def __init__(self) -> None:
        package_root = str(Path(__file__).resolve().parents[2])  # where `ohara_lab` is importable from
        outer = environ()
        env = {**outer, "PYTHONPATH": os.pathsep.join(p for p in (package_root, outer.get("PYTHONPATH")) if p)}
        # cwd: `-m` puts the working directory first on the path; the package's own folder holds only it
        self.proc = subprocess.Popen([sys.executable, "-m", "ohara_lab.entities.ner_serve"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, env=env, cwd=package_root)
        self.thread = ThreadPoolExecutor(1, thread_name_prefix="ner-worker")

    def ask(self, texts: Sequence[str]) -> list[list[Mention]]:
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None  # noqa: S101 - both are pipes (Popen above)
        stdin.write(json.dumps(list(texts)).encode("ascii") + b"\n")
        stdin.flush()
        line = stdout.readline()
        if not line:
            raise OSError(f"NER worker exited ({self.proc.poll()})")
        return [[Mention(**d) for d in found] for found in json.loads(line)]

    def close(self) -> None:
        self.thread.shutdown(wait=False, cancel_futures=True)
        try:
            if self.proc.stdin is not None:
                self.proc.stdin.close()  # the worker's loop ends at end of input
        except OSError:
            pass  # it is gone already
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()  # reaped, not left a zombie


_WORKER: _Worker | None = None
_BROKEN = False  # a worker failed once: this process extracts in place from then on
_LOCK = threading.Lock()


def _worker() -> _Worker | None:
    global _WORKER, _BROKEN  # noqa: PLW0603 - one worker per process, like the model cache
    with _LOCK:
        if _WORKER is None and not _BROKEN:
            try:
                _WORKER = _Worker()
            except OSError as exc:
                log.warning("NER worker did not start (%s); extracting in this process", exc)
                _BROKEN = True
        return _WORKER


def _broke(exc: BaseException) -> None:
    global _WORKER, _BROKEN  # noqa: PLW0603
    log.warning("NER worker failed (%s); extracting in this process", exc)
    with _LOCK:
        _BROKEN = True
        if _WORKER is not None:
            _WORKER.close()
            _WORKER = None


def submit(batches: Sequence[Sequence[str]], work: Batch) -> Callable[[], list[list[list[Mention]]]]:
    """Send `batches` to the worker and return at once; calling what it returns waits for each batch's
    mentions, in order (`work(batch)` in this process for any the worker did not answer)."""
    worker = _worker()
    futures: list[Future[list[list[Mention]]]] = []
    if worker is not None:
        futures = [worker.thread.submit(worker.ask, b) for b in batches]

    def results() -> list[list[list[Mention]]]:
        out = []
        for i, batch in enumerate(batches):
            try:
                out.append(futures[i].result())
                continue
            except (IndexError, OSError, ValueError, TypeError, CancelledError) as exc:  # none, died or garbled
                if futures:
                    _broke(exc)
            out.append(work(batch))
        return out

    return results


def shutdown() -> None:
    global _WORKER  # noqa: PLW0603
    with _LOCK:
        if _WORKER is not None:
            _WORKER.close()
            _WORKER = None


atexit.register(shutdown)
