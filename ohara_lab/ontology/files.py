"""Where the derived ontology files live and how they are read and written.

Every file is plain JSON (the lexicon gzipped) with a header: ``version`` (the
format version below; bump it when a file's shape changes) and ``source`` (the
SUMO document's SHA-256 and the WordNet version it was built from), so a loaded
file can always be traced back to its inputs. Never pickles (STYLE habit 8).
"""

from __future__ import annotations

import contextlib
import gzip
import json
import sys
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import OntologyError

if TYPE_CHECKING:  # only annotations need it; importlib.resources.abc is 3.11+
    if sys.version_info >= (3, 11):
        from importlib.resources.abc import Traversable
    else:
        from importlib.abc import Traversable

FORMAT_VERSION = 1

INDEX_FILE = "sumo_index.json"
HIERARCHY_FILE = "sumo_hierarchy.json"
CATEGORIES_FILE = "sumo_tag_categories.json"
LEXICON_FILE = "sumo_lexicon.json.gz"
ALL_FILES = (INDEX_FILE, HIERARCHY_FILE, CATEGORIES_FILE, LEXICON_FILE)

DATA_PACKAGE = "ohara_lab.ontology_data"
# In a source checkout the top-level ontology/ folder is the data package.
REPO_DATA_DIR = Path(__file__).resolve().parents[2] / "ontology"

BUILD_HINT = "run `ohara ontology build --owl /path/to/SUMO.owl.zip` to create them"


def write_json(path: Path, payload: dict[str, Any]) -> int:
    """Write `payload` as compact UTF-8 JSON (gzipped when the name ends in .gz); return the byte size.

    Keys keep their insertion order and gzip's mtime is fixed at 0, so rebuilding
    from the same inputs yields byte-identical files (clean git diffs).
    """
    data = json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    if path.name.endswith(".gz"):
        with open(tmp, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as gz:
            gz.write(data)
    else:
        tmp.write_bytes(data + b"\n")
    tmp.replace(path)
    return path.stat().st_size


def read_json(source: Traversable | Path) -> dict[str, Any]:
    """Read one derived file and check its format version."""
    raw = source.read_bytes()
    if source.name.endswith(".gz"):
        raw = gzip.decompress(raw)
    try:
        payload = json.loads(raw)
    except ValueError as exc:
        raise OntologyError(f"ontology file {source.name} is not valid JSON ({exc}); {BUILD_HINT}") from exc
    version = payload.get("version") if isinstance(payload, dict) else None
    if version != FORMAT_VERSION:
        raise OntologyError(
            f"ontology file {source.name} has format version {version!r}, this ohara-lab reads "
            f"version {FORMAT_VERSION}; {BUILD_HINT}"
        )
    return payload


def data_dir() -> Traversable:
    """The directory holding the derived files.

    Installed package data (``ohara_lab.ontology_data``) first, then the
    repository's ``ontology/`` folder, so an editable install and a plain
    checkout both work. Raises `OntologyError` when neither holds the files.
    """
    candidates: list[Traversable] = []
    with contextlib.suppress(ModuleNotFoundError):  # a plain checkout has no installed package data
        candidates.append(resources.files(DATA_PACKAGE))
    candidates.append(REPO_DATA_DIR)
    for folder in candidates:
        if all(folder.joinpath(name).is_file() for name in ALL_FILES):
            return folder
    looked = ", ".join(str(c) for c in candidates)
    raise OntologyError(f"SUMO ontology files ({', '.join(ALL_FILES)}) not found (looked in {looked}); {BUILD_HINT}")
