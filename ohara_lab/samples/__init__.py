"""Redistributable sample documents (see README.md here) used by `ohara demo` and the tests."""
from __future__ import annotations

from importlib import resources
from pathlib import Path


def corpus_dir() -> Path:
    """Directory holding the sample corpus (a real path: the package is installed unzipped)."""
    return Path(str(resources.files("ohara_lab.samples").joinpath("corpus")))
