"""Build (or reuse) the atlas an evaluation runs against, cached by what determines it.

An atlas is a function of the corpus, the ingest-time settings, the embedder and the
ingest code. The first three make the key: the atlas lives in `<cache_dir>/<dataset>-<key>`
with a `build.json` manifest, so notebooks and repeated `ohara eval` calls reuse it
instead of re-ingesting (MuSiQue with MiniLM takes minutes on two cores). The ingest
code is fingerprinted too but kept out of the key, because unrelated edits would
otherwise throw away long builds: a cached atlas built by other ingest code is reused,
flagged `stale_code`, and the runner says so in its notes (`rebuild=True` rebuilds).

Documents go in through `Atlas.ingest_texts` (batched NER, tagging and vectors; the same
graph as one by one) with `source_id=<dataset doc id>`, so the store keeps the dataset id
as `origin_path` and hits map back through it. `batch_size=None` ingests one document at a
time instead, which is slower but times every stage of every document exactly (notebook 01).
"""
from __future__ import annotations

import hashlib
import json
import re
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from ..errors import UsageError
from ..settings import Settings
from .dataset import Dataset
from .paths import default_cache_dir

MANIFEST = "build.json"
MANIFEST_VERSION = 1
# Undated corpora (MuSiQue, QASPER) still need a pinned "today" so the temporal prior
# gives the same numbers next year; any fixed day works, this one is documented.
FIXED_REFERENCE_DATE = "2025-01-01"

# Settings read at ingest time; the query-time ones (weights, tiers) stay out of the key
# so that one atlas serves every config of the matrix.
BUILD_SETTINGS: tuple[str, ...] = (
    "ner", "sumo_tags_per_node", "similarity_threshold", "similar_to_evergreen_threshold",
    "max_chunk_chars", "min_chunk_chars", "virtual_page_size", "test_chunks_limit", "next_para",
    "adjacent_to", "embed_paragraphs", "embed_batch_size", "llm", "gemini_model",
    "reference_date",
)
# Code that shapes what ingest_text writes, for the `code` fingerprint: these packages minus
# the ArangoDB backend, the ontology *builder* and query-only search code.
INGEST_PACKAGES: tuple[str, ...] = ("ingest", "entities", "embed", "store", "ontology")
NOT_INGEST_FILES: frozenset[str] = frozenset({
    "sqlite_search.py", "sqlite_check.py", "build.py", "owl.py", "lexicon_build.py", "wordnet.py",
})


@dataclass
class BuildInfo:
    """What was built, from what, and what it cost."""

    dataset: str
    key: str
    directory: str
    embedder: str  # resolved: minilm | wordllama | gemini | none
    vector_model: str | None
    reference_date: str
    n_documents: int
    reused: bool = False
    seconds: float = 0.0
    stage_seconds: dict[str, float] = field(default_factory=dict)  # summed over documents
    stage_median_ms: dict[str, float] = field(default_factory=dict)  # median per document (the paper's table)
    batch_size: int | None = None  # None: one document at a time, every stage timed per document
    outcomes: dict[str, int] = field(default_factory=dict)  # ingested / skipped / failed ...
    failures: list[dict[str, str]] = field(default_factory=list)
    stats: dict[str, Any] = field(default_factory=dict)
    key_parts: dict[str, Any] = field(default_factory=dict)
    code: str = ""  # fingerprint of the ingest code that built the atlas
    stale_code: bool = False  # True when today's ingest code differs from `code`

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class BuiltAtlas:
    """An open atlas plus the table from store document ids to dataset document ids."""

    atlas: Any  # ohara_lab.Atlas
    info: BuildInfo
    doc_ids: dict[str, str]

    def dataset_doc_id(self, store_document_id: str) -> str | None:
        return self.doc_ids.get(store_document_id)

    def close(self) -> None:
        self.atlas.close()

    def __enter__(self) -> BuiltAtlas:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def corpus_reference_date(dataset: Dataset) -> str:
    """The latest `published_at` day in the corpus, else `FIXED_REFERENCE_DATE`."""
    days = []
    for d in dataset.documents:
        try:
            days.append(date.fromisoformat((d.published_at or "")[:10]))
        except ValueError:
            continue
    return max(days).isoformat() if days else FIXED_REFERENCE_DATE


def corpus_fingerprint(dataset: Dataset) -> str:
    """SHA-256 over every document's id, title, text, date and source, in id order."""
    h = hashlib.sha256()
    for d in sorted(dataset.documents, key=lambda x: x.id):
        h.update(json.dumps([d.id, d.title, d.text, d.published_at, d.source], ensure_ascii=False).encode("utf-8"))
    return h.hexdigest()


def code_fingerprint() -> str:
    """SHA-256 of the ingest-side source files and the ontology data they read."""
    root = Path(__file__).resolve().parents[1]
    files = [f for pkg in INGEST_PACKAGES for f in sorted((root / pkg).rglob("*.py"))
             if f.name not in NOT_INGEST_FILES and not f.name.startswith("arango")]
    files += sorted((root / "store").glob("*.sql"))
    data_dir = _ontology_data_dir()
    if data_dir is not None:
        files += sorted(p for p in data_dir.iterdir() if p.suffix in (".json", ".gz"))
    h = hashlib.sha256()
    for f in files:
        h.update(str(f.relative_to(f.parents[1])).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def _ontology_data_dir() -> Path | None:
    try:
        import ohara_lab.ontology_data as data  # noqa: PLC0415 - the shipped SUMO files
    except ImportError:
        return None
    return Path(data.__file__).parent


def resolve_embedder(name: str) -> tuple[str, str | None]:
    """(resolved embedder name, model tag its vectors carry) for auto | minilm | wordllama | none."""
    from ..embed.registry import model_name, resolve_name  # noqa: PLC0415

    resolved = resolve_name(name)
    return resolved, (model_name(resolved) if resolved not in ("none", "gemini") else
                      (None if resolved == "none" else "gemini"))


def build_key(dataset: Dataset, settings: Settings, embedder: str, vector_model: str | None) -> tuple[str, dict[str, Any]]:
    """(16-hex key, the parts it hashes): corpus, embedder and ingest-time settings, never query-time ones."""
    parts = {
        "manifest_version": MANIFEST_VERSION,
        "corpus": corpus_fingerprint(dataset),
        "documents": len(dataset.documents),
        "embedder": embedder,
        "vector_model": vector_model,
        "llm_key_set": bool(settings.gemini_api_key),
        "settings": {k: getattr(settings, k) for k in BUILD_SETTINGS},
    }
    digest = hashlib.sha256(json.dumps(parts, sort_keys=True, default=str).encode()).hexdigest()
    return digest[:16], parts


def atlas_directory(cache_dir: Path, dataset_name: str, key: str) -> Path:
    slug = re.sub(r"[^a-z0-9]+", "-", dataset_name.lower()).strip("-") or "dataset"
    return cache_dir / f"{slug}-{key}"


def build_atlas(
    dataset: Dataset,
    cache_dir: str | Path | None = None,
    *,
    embedder: str = "auto",
    reference_date: str | None = None,
    settings: Settings | None = None,
    progress: bool = True,
    rebuild: bool = False,
    batch_size: int | None = 64,
    on_outcome: Callable[[Any], None] | None = None,
) -> BuiltAtlas:
    """Open the cached atlas for `dataset`, ingesting whatever it does not hold yet.

    `reference_date` (default: the corpus's latest date, else 2025-01-01) pins the temporal
    prior's "today" for ingest and for every query on the returned atlas. `embedder` is
    auto (the best installed) | minilm | wordllama | none. `rebuild` deletes the cached
    atlas first. Ingest is idempotent, so an interrupted build resumes where it stopped.
    `batch_size` documents share one NER / tagging / embedding pass; None ingests them one
    by one so each stage is timed per document (batched work is reported as one line).
    """
    from ..atlas import Atlas  # noqa: PLC0415

    resolved, vector_model = resolve_embedder(embedder)
    ref = reference_date or corpus_reference_date(dataset)
    try:
        date.fromisoformat(ref)
    except ValueError:
        raise UsageError(f"reference_date must be YYYY-MM-DD, got {ref!r}") from None
    base = (settings or Settings.from_env()).override(embedder=resolved, reference_date=ref)
    key, parts = build_key(dataset, base, resolved, vector_model)
    directory = atlas_directory(Path(cache_dir).expanduser() if cache_dir else default_cache_dir(), dataset.name, key)
    if rebuild and directory.exists():
        import shutil  # noqa: PLC0415

        shutil.rmtree(directory)
    directory.mkdir(parents=True, exist_ok=True)
    atlas = Atlas.open(directory, settings=base)

    manifest = _read_manifest(directory)
    code = code_fingerprint()
    if manifest is not None and manifest.get("key") == key and manifest.get("n_documents") == len(dataset.documents):
        # `directory`: where it is now (a copied cache keeps the manifest of the place it was built in)
        info = BuildInfo(**{**manifest, "directory": str(directory), "reused": True,
                            "stale_code": manifest.get("code") != code})
    else:
        info = _ingest(atlas, dataset, key, parts, resolved, vector_model, ref, directory, progress, on_outcome,
                       batch_size)
        info.code = code
        (directory / MANIFEST).write_text(json.dumps(info.to_dict(), indent=2, default=str), encoding="utf-8")
    _ensure_synonyms(atlas, resolved)
    wanted = {d.id for d in dataset.documents}
    doc_ids = {d.id: d.origin_path for d in atlas.store.list_documents() if d.origin_path in wanted}
    return BuiltAtlas(atlas, info, doc_ids)


def _ensure_synonyms(atlas: Any, embedder: str) -> None:
    """SYNONYM_OF edges for the graph walk, (re)linked when missing or made at another threshold.

    They touch entities only, so no other phase sees them and a cached atlas stays valid for every config.
    """
    if embedder == "none":
        return
    done = atlas.store.get_meta("synonymy") or {}
    s = atlas.settings
    if (done.get("threshold"), done.get("neighbours")) != (s.synonymy_threshold, s.synonymy_neighbours):
        atlas.link_synonyms()


def ensure_analytics(atlas: Any) -> None:
    """Graph analytics for the configs that read them, computed when missing or stale.

    They are read only by what those configs turn on (the Adamic–Adar boost, cluster retrieval), so a
    cached atlas stays valid for every other config.
    """
    from ..analytics.run import RUN_KEY, staleness  # noqa: PLC0415

    if not atlas.store.get_meta(RUN_KEY) or staleness(atlas.store):
        atlas.analyze()


BATCHED_STAGE = "batched"  # NER, tagging and vectors done once per batch, not per document


def _ingest(atlas: Any, dataset: Dataset, key: str, parts: dict[str, Any], embedder: str, vector_model: str | None,
            ref: str, directory: Path, progress: bool, on_outcome: Callable[[Any], None] | None,
            batch_size: int | None) -> BuildInfo:
    t0 = time.perf_counter()
    items = [{"text": d.text, "title": d.title, "source_id": d.id,
              "metadata": {k: v for k, v in (("published_at", d.published_at), ("source", d.source)) if v}}
             for d in dataset.documents]
    if batch_size is None:
        from tqdm.auto import tqdm  # noqa: PLC0415

        outcomes_list = []
        for item in tqdm(items, desc=f"ingest {dataset.name}", unit="doc", disable=not progress):
            outcomes_list.append(atlas.ingest_text(item["text"], title=item["title"], source_id=item["source_id"],
                                                   metadata=item["metadata"]))
            if on_outcome is not None:
                on_outcome(outcomes_list[-1])
    else:
        outcomes_list = atlas.ingest_texts(items, progress=progress, batch_size=batch_size).outcomes
        if on_outcome is not None:
            for o in outcomes_list:
                on_outcome(o)
    seconds = time.perf_counter() - t0
    stages: dict[str, list[float]] = {}
    outcomes: dict[str, int] = {}
    failures: list[dict[str, str]] = []
    for o in outcomes_list:
        outcomes[o.status] = outcomes.get(o.status, 0) + 1
        for stage, sec in (o.timings_s or {}).items():
            stages.setdefault(stage, []).append(sec)
        if o.status == "failed":
            failures.append({"document": o.path, "reason": o.reason or ""})
    totals = {k: round(sum(v), 4) for k, v in stages.items()}
    if batch_size is not None and outcomes.get("ingested"):
        # Work done once per batch is in no document's timings: report it as its own line.
        totals[BATCHED_STAGE] = round(max(seconds - sum(totals.values()), 0.0), 4)
    return BuildInfo(
        dataset=dataset.name, key=key, directory=str(directory), embedder=embedder, vector_model=vector_model,
        reference_date=ref, n_documents=len(dataset.documents), reused=False, seconds=round(seconds, 3),
        stage_seconds=totals, stage_median_ms={k: round(1000 * statistics.median(v), 3) for k, v in stages.items()},
        batch_size=batch_size, outcomes=outcomes, failures=failures, stats=atlas.stats(), key_parts=parts,
    )


def _read_manifest(directory: Path) -> dict[str, Any] | None:
    path = directory / MANIFEST
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return None  # a torn manifest means an unfinished build: ingest resumes
    known = set(BuildInfo.__dataclass_fields__)
    return {k: v for k, v in data.items() if k in known}
