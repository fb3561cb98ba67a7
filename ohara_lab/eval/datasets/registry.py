"""`load_dataset(name_or_path, data_dir)`: one table drives both dispatch and the error message."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...errors import UsageError
from ..dataset import Dataset
from .beir import is_beir_folder, load_beir
from .generic import CORPUS_FILE, QUERIES_FILE, load_generic
from .multihop import load_multihop
from .musique import load_musique
from .qasper import load_qasper, load_qasper_leval


@dataclass(frozen=True)
class DatasetEntry:
    loader: Callable[..., Dataset]
    files: str  # what `data_dir` must hold, for the error message
    help: str


DATASETS: dict[str, DatasetEntry] = {
    "multihop-rag": DatasetEntry(
        load_multihop,
        "corpus.json (+ multihop_queries.json or MultiHopRAG.json)",
        "MultiHop-RAG news articles, doc-level gold, 125 null queries",
    ),
    "qasper": DatasetEntry(
        load_qasper,
        "qasper-dev-v0.3.json (+ doc_manifest.json, qasper_queries.json)",
        "QASPER v0.3 papers, paragraph-level gold",
    ),
    "qasper-leval": DatasetEntry(
        load_qasper_leval,
        "leval_scientific_qa.jsonl, leval_scientific_qa_paper_map.json, doc_manifest.json, qasper_queries.json",
        "QASPER questions over the 9 papers whose full text L-Eval ships",
    ),
    "musique": DatasetEntry(
        load_musique,
        "musique_train_100.json + musique_train_100_corpus.json",
        "MuSiQue multi-hop questions over Wikipedia titles, doc-level gold",
    ),
}


def dataset_names() -> list[str]:
    return list(DATASETS)


def describe() -> str:
    """One line per known dataset plus the generic directory form."""
    rows = [f"  {name:<14} {e.help}; data_dir holds {e.files}" for name, e in DATASETS.items()]
    rows.append(f"  <directory>    your own data: {CORPUS_FILE} + {QUERIES_FILE}")
    rows.append(f"  <directory>    a BEIR folder: {CORPUS_FILE} + {QUERIES_FILE} + qrels/test.tsv")
    return "\n".join(rows)


def load_dataset(name_or_path: str | Path, data_dir: str | Path | None = None, **kw: Any) -> Dataset:
    """Load a named dataset from `data_dir` (its own folder, or a root holding
    `multihop/`, `qasper/`, `musique/`), or a directory of generic JSONL files, or a BEIR folder.

    Extra keyword arguments go to the loader (e.g. `query_set="smoke"` for MultiHop-RAG).
    """
    key = str(name_or_path)
    entry = DATASETS.get(key)
    if entry is not None:
        if data_dir is None:
            raise UsageError(f"dataset {key!r} needs data_dir: a folder holding {entry.files}")
        return entry.loader(data_dir, **kw)
    if Path(key).is_dir():
        if is_beir_folder(key):
            return load_beir(key, **kw)
        if "qrels" in kw:
            raise UsageError(f"{key}: qrels are read from a BEIR folder (corpus.jsonl of _id records + qrels/)")
        return load_generic(key, **kw)  # names the missing file if it is not a generic dataset
    known = "; ".join(f"{name} (needs {e.files})" for name, e in DATASETS.items())
    raise UsageError(
        f"unknown dataset {key!r}; expected one of: {known}; or a directory with {CORPUS_FILE} + {QUERIES_FILE} "
        "(+ qrels/test.tsv: BEIR)"
    )
