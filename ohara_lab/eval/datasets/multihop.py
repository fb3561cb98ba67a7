"""MultiHop-RAG (Tang & Yang 2024, arXiv 2401.15391): 609 news articles, doc-level gold.

Files, in one folder (`data_dir` or `data_dir/multihop/`):

* `corpus.json` — official, required: `[{title, author, source, published_at, category, url, body}]`.
* `MultiHopRAG.json` — official queries: `[{query, answer, question_type, evidence_list: [{title, ..., fact}]}]`.
* `multihop_queries.json` / `multihop_smoke_queries.json` — doc_ohara's 500 / 60-query
  stratified sets: `[{id, question, question_type, answer, gold_doc_titles,
  gold_evidence: [{title, source, published_at, fact}]}]`.
* `doc_manifest.json` — doc_ohara's file name -> `{title, source, published_at, url, category}`.

Doc ids are doc_ohara's file stems `mhrag_<iiii>_<slug(title)[:60]>` (article order of
`corpus.json`), so they equal the manifest's names. Gold titles map to doc ids through
the normalised title (lowercase, whitespace collapsed), as the original's matcher does.
`null_query` queries are unanswerable.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from ..dataset import Dataset, DatasetError, EvalDocument, EvalQuery
from ..matchers import normalize_text
from ..render import multihop_doc_id, multihop_markdown
from ..sampling import js_shuffled, mulberry32
from ._io import check_records, expect, read_json, read_records, resolve_dir

CORPUS_FILE = "corpus.json"
OFFICIAL_QUERIES_FILE = "MultiHopRAG.json"
STRATIFIED_FILE = "multihop_queries.json"
SMOKE_FILE = "multihop_smoke_queries.json"
MANIFEST_FILE = "doc_manifest.json"
NULL_TYPE = "null_query"
SOURCE_HINT = (
    "get it from github.com/yixuantt/MultiHop-RAG, dataset/corpus.json (a Git LFS file: "
    "https://media.githubusercontent.com/media/yixuantt/MultiHop-RAG/main/dataset/corpus.json)"
)

QuerySet = Literal["stratified", "smoke", "all"]


def read_corpus(path: Path) -> list[dict[str, Any]]:
    articles = read_json(path)
    expect(isinstance(articles, list), path, "expected a JSON list of articles")
    for i, a in enumerate(articles):
        expect(isinstance(a, dict) and bool(a.get("title")), path, f"article {i} has no title")
        expect("body" in a, path, f"article {i} ({a.get('title')!r}) has no body")
    return articles


def corpus_documents(articles: Sequence[Mapping[str, Any]]) -> list[EvalDocument]:
    """One document per article, id and Markdown as doc_ohara's prepare_multihop.js."""
    return [
        EvalDocument(
            id=multihop_doc_id(i, a.get("title")),
            title=a["title"],
            text=multihop_markdown(a),
            published_at=a.get("published_at"),
            source=a.get("source"),
            meta={k: a.get(k) for k in ("author", "category", "url")},
        )
        for i, a in enumerate(articles)
    ]


def stratified_sample(official: Sequence[Mapping[str, Any]], per_type: int = 125, seed: int = 42) -> list[dict]:
    """doc_ohara's build_query_set.js: per question type (in order of first appearance),
    a mulberry32(seed) Fisher–Yates shuffle, first `per_type`; ids `mh_0001`… in that order.
    """
    by_type: dict[str, list[Mapping[str, Any]]] = {}
    for q in official:
        by_type.setdefault(q["question_type"], []).append(q)
    rand = mulberry32(seed)
    selected: list[Mapping[str, Any]] = []
    for qs in by_type.values():
        selected += js_shuffled(qs, rand)[:per_type]
    return [_from_official(q, i) for i, q in enumerate(selected)]


def _from_official(q: Mapping[str, Any], i: int) -> dict[str, Any]:
    """An official query in doc_ohara's shipped shape (gold = distinct evidence titles)."""
    evidence = q.get("evidence_list") or []
    return {
        "id": f"mh_{i + 1:04d}",
        "question": q["query"],
        "question_type": q["question_type"],
        "answer": q.get("answer"),
        "gold_doc_titles": list(dict.fromkeys(e["title"] for e in evidence)),
        "gold_evidence": [{k: e.get(k) for k in ("title", "source", "published_at", "fact")} for e in evidence],
    }


OFFICIAL_QUERY_KEYS = ("query", "question_type")
SHIPPED_QUERY_KEYS = ("id", "question", "question_type", "gold_doc_titles")


def read_official_queries(path: Path) -> list[dict[str, Any]]:
    return read_records(path, OFFICIAL_QUERY_KEYS, "query")


def read_shipped_queries(path: Path) -> list[dict[str, Any]]:
    return read_records(path, SHIPPED_QUERY_KEYS, "query")


def to_eval_queries(raw: Sequence[Mapping[str, Any]], title_to_id: Mapping[str, str], origin: Path) -> list[EvalQuery]:
    """Shipped-shape queries -> EvalQuery, gold titles resolved to doc ids (all must resolve)."""
    out: list[EvalQuery] = []
    unresolved: list[str] = []
    for q in raw:
        gold_ids: list[str] = []
        for title in q.get("gold_doc_titles") or []:
            doc_id = title_to_id.get(normalize_text(title))
            if doc_id is None:
                unresolved.append(title)
            elif doc_id not in gold_ids:
                gold_ids.append(doc_id)
        evidence = q.get("gold_evidence") or []
        out.append(
            EvalQuery(
                id=q["id"],
                text=q["question"],
                type=q["question_type"],
                gold_doc_ids=gold_ids,
                gold_evidence=[e.get("fact") or "" for e in evidence if isinstance(e, dict)],
                unanswerable=q["question_type"] == NULL_TYPE,
                answer=q.get("answer"),
                meta={"gold_titles": list(q.get("gold_doc_titles") or []), "evidence": list(evidence)},
            )
        )
    if unresolved:
        distinct = sorted(set(unresolved))
        raise DatasetError(origin, f"{len(distinct)} gold titles are not in the corpus, e.g. {distinct[:3]}")
    return out


def _read_either_format(path: Path) -> list[dict[str, Any]]:
    """Official (`query`, `evidence_list`) or doc_ohara-shaped queries, told apart by their keys."""
    raw = read_json(path)
    if isinstance(raw, list) and raw and isinstance(raw[0], dict) and "query" in raw[0]:
        return [_from_official(q, i) for i, q in enumerate(check_records(raw, path, OFFICIAL_QUERY_KEYS, "query"))]
    return check_records(raw, path, SHIPPED_QUERY_KEYS, "query")


def title_index(docs: Sequence[EvalDocument]) -> tuple[dict[str, str], list[str]]:
    """Normalised title -> doc id (first article wins); the titles that were duplicated."""
    index: dict[str, str] = {}
    dups: list[str] = []
    for d in docs:
        key = normalize_text(d.title)
        if key in index:
            dups.append(d.title)
        else:
            index[key] = d.id
    return index, dups


def load_multihop(
    data_dir: str | Path,
    query_set: QuerySet = "stratified",
    corpus_path: str | Path | None = None,
    queries_path: str | Path | None = None,
    per_type: int = 125,
    seed: int = 42,
) -> Dataset:
    """Load MultiHop-RAG.

    `query_set`: "stratified" — doc_ohara's 500 queries (`multihop_queries.json`, or rebuilt
    from `MultiHopRAG.json` with mulberry32(`seed`), `per_type` per type, when that file is
    absent); "smoke" — the shipped 60; "all" — every query of `MultiHopRAG.json`.
    `corpus_path` / `queries_path` override the files looked up in the folder.
    """
    folder = resolve_dir(data_dir, "multihop", (CORPUS_FILE, STRATIFIED_FILE, OFFICIAL_QUERIES_FILE, MANIFEST_FILE))
    corpus_file = Path(corpus_path) if corpus_path else folder / CORPUS_FILE
    if not corpus_file.exists():
        raise DatasetError(corpus_file, f"MultiHop-RAG article bodies are missing; {SOURCE_HINT}")
    docs = corpus_documents(read_corpus(corpus_file))
    notes: list[str] = [f"corpus: {corpus_file}"]

    official_file = folder / OFFICIAL_QUERIES_FILE
    if queries_path:
        qfile = Path(queries_path)
        shaped = _read_either_format(qfile)
    elif query_set == "all":
        qfile = official_file
        if not qfile.exists():
            raise DatasetError(
                qfile, f"MultiHopRAG.json is missing; {SOURCE_HINT.replace('corpus.json', 'MultiHopRAG.json')}"
            )
        shaped = [_from_official(q, i) for i, q in enumerate(read_official_queries(qfile))]
    elif query_set in ("stratified", "smoke"):
        qfile = folder / (STRATIFIED_FILE if query_set == "stratified" else SMOKE_FILE)
        if qfile.exists():
            shaped = read_shipped_queries(qfile)
        elif query_set == "stratified" and official_file.exists():
            qfile = official_file
            shaped = stratified_sample(read_official_queries(qfile), per_type=per_type, seed=seed)
            notes.append(f"stratified set rebuilt from {qfile.name} (mulberry32 seed {seed}, {per_type} per type)")
        else:
            raise DatasetError(qfile, f"query file missing (and no {OFFICIAL_QUERIES_FILE} to rebuild it from)")
    else:
        raise DatasetError(None, f"query_set must be 'stratified', 'smoke' or 'all', got {query_set!r}")
    notes.append(f"queries: {qfile}")

    index, dups = title_index(docs)
    if dups:
        notes.append(f"{len(dups)} duplicate titles: gold resolves to the first article, e.g. {dups[:3]}")
    queries = to_eval_queries(shaped, index, qfile)
    _check_manifest(folder / MANIFEST_FILE, docs, notes)
    return Dataset(name="multihop-rag", documents=docs, queries=queries, matcher="doc", notes=notes)


def _check_manifest(path: Path, docs: Sequence[EvalDocument], notes: list[str]) -> None:
    """If doc_ohara's manifest is present, say whether our ids reproduce its file names."""
    if not path.exists():
        return
    manifest = read_json(path)
    ours = {f"{d.id}.md" for d in docs}
    same = len(ours & set(manifest))
    notes.append(f"{same}/{len(manifest)} manifest file names reproduced by the corpus ids")


def manifest_title_index(path: Path) -> dict[str, str]:
    """Normalised title -> doc id from doc_ohara's manifest (file name without `.md`)."""
    manifest = read_json(path)
    expect(isinstance(manifest, dict), path, "expected a JSON object keyed by file name")
    return {normalize_text(meta.get("title")): name.removesuffix(".md") for name, meta in manifest.items()}


def load_multihop_queries(
    data_dir: str | Path, query_set: Literal["stratified", "smoke"] = "stratified"
) -> list[EvalQuery]:
    """The shipped query set alone, gold resolved through `doc_manifest.json`.

    For inspecting queries where the article bodies (`corpus.json`) are unavailable;
    the ids equal those `load_multihop` derives from the corpus.
    """
    folder = resolve_dir(data_dir, "multihop", (STRATIFIED_FILE, MANIFEST_FILE))
    qfile = folder / (STRATIFIED_FILE if query_set == "stratified" else SMOKE_FILE)
    return to_eval_queries(read_shipped_queries(qfile), manifest_title_index(folder / MANIFEST_FILE), qfile)
