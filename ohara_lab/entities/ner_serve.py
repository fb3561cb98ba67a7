"""The NER worker process's loop (`python -m ohara_lab.entities.ner_serve`; the parent side is `ner_worker`):
a JSON list of texts per line in, each text's raw mentions per line out, computed by the same
`_batch_mentions` the in-process extractor runs.

Ctrl-C reaches the whole process group: the worker ignores it and ends when the parent closes its input
(or dies: a broken pipe ends it quietly), so an interrupted ingest prints one traceback, the parent's.
"""
from __future__ import annotations

import json
import os
import signal
import sys
from typing import IO

from ..records import fields_dict
from .extract import _batch_mentions, _load_spacy


def serve(stdin: IO[bytes], stdout: IO[bytes]) -> None:
    """Answer each line of `stdin` on `stdout` until end of input."""
    _load_spacy()
    for line in stdin:
        found = _batch_mentions(json.loads(line))
        stdout.write(json.dumps([[fields_dict(m) for m in ms] for ms in found]).encode("ascii") + b"\n")
        stdout.flush()


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # Only the protocol goes to the parent's pipe: anything else printed to stdout, by Python or by a
    # library's C code, goes to stderr.
    protocol = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        serve(sys.stdin.buffer, protocol)
    except (BrokenPipeError, ConnectionResetError):  # the parent is gone: nobody to answer
        os._exit(0)


if __name__ == "__main__":
    main()
