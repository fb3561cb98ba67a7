"""BEIR-format folders (Thakur et al., NeurIPS Datasets & Benchmarks 2021): any of its 18 sets, or yours.

    <folder>/corpus.jsonl     {"_id": "d1", "title": "…", "text": "…", "metadata": {…}}   (title may be "")
    <folder>/queries.jsonl    {"_id": "q1", "text": "…", "metadata": {…}}
    <folder>/qrels/<split>.tsv   query-id<TAB>corpus-id<TAB>score, with a header line (or TREC qrels)

What is scored, as BEIR's own loader and pytrec_eval score it:
* the queries judged in `qrels/<split>.tsv` (default `test`); the rest of queries.jsonl is not asked;
* relevance > 0 is relevant (a gold document); its relevance is its gain in nDCG@10 (linear, as
  trec_eval's `ndcg_cut_10`); 0 or below is judged not relevant, and a query with no relevant
  document is left out (with a note), as trec_eval leaves it out of its means;
* documents are ranked each once, at their best node (`rank_unit="document"`), so the numbers
  are about the same ranking as the TREC run `ohara eval --trec-run` writes.
A document is ingested as `# title` + its text (just its text when the title is empty), dated by a
`published_at` (YYYY-MM-DD) in its metadata where there is one; documents
with neither are skipped, and judgements of documents that are not in the corpus are dropped, each
with a note. `qrels` may also name a qrels file of its own (TREC or BEIR format).
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

from ..dataset import Dataset, DatasetError, EvalDocument, EvalQuery
from ..trec import read_qrels
from ._io import expect, iter_jsonl

CORPUS_FILE = "corpus.jsonl"
QUERIES_FILE = "queries.jsonl"
QRELS_DIR = "qrels"
DEFAULT_SPLIT = "test"
QUERY_TYPE = "default"


def is_beir_folder(folder: str | Path) -> bool:
    """BEIR's layout: a qrels/ folder, or a corpus.jsonl whose first record has `_id` (the generic format's has `id`).

    Reading the first record too lets a BEIR folder without its qrels fail as one ("no qrels for split
    'test'") rather than as a generic folder with a field missing.
    """
    base = Path(folder)
    if (base / QRELS_DIR).is_dir():
        return True
    try:
        with open(base / CORPUS_FILE, encoding="utf-8") as fh:
            first = next((line for line in fh if line.strip()), "")
    except (OSError, UnicodeDecodeError):
        return False
    try:
        row = json.loads(first)
    except json.JSONDecodeError:
        return False
    return isinstance(row, dict) and "_id" in row and "id" not in row


def _iso_day(value: str) -> bool:
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def _string(row: dict[str, Any], key: str) -> str:
    value = row.get(key, "")
    return value if isinstance(value, str) else ""


def read_corpus(path: Path) -> tuple[list[EvalDocument], int]:
    """(documents, how many were skipped for having neither title nor text)."""
    docs: list[EvalDocument] = []
    seen: dict[str, int] = {}
    empty = 0
    for line, row in iter_jsonl(path):
        expect(isinstance(row, dict), path, "expected a JSON object", line)
        doc_id = row.get("_id")
        expect(isinstance(doc_id, str) and bool(doc_id.strip()), path, "field '_id' must be a non-empty string", line)
        expect(doc_id not in seen, path, f"duplicate document id {doc_id!r} (first on line {seen.get(doc_id)})", line)
        seen[doc_id] = line
        for key in ("title", "text"):
            expect(row.get(key) is None or isinstance(row[key], str), path, f"field {key!r} must be a string", line)
        title, text = _string(row, "title").strip(), _string(row, "text")
        if not title and not text.strip():
            empty += 1
            continue
        markdown = f"# {title}\n\n{text}" if title else text  # the text as given, so write_beir round-trips
        meta = dict(row["metadata"]) if isinstance(row.get("metadata"), dict) else {}
        # `published_at` and `source` in metadata (as write_beir puts them) feed the temporal prior and provenance
        dated = meta.pop("published_at", None)
        source = meta.pop("source", None)
        docs.append(
            EvalDocument(
                id=doc_id,
                title=title or doc_id,
                text=markdown,
                published_at=dated if isinstance(dated, str) and _iso_day(dated) else None,
                source=source if isinstance(source, str) else None,
                meta=meta,
            )
        )
    expect(bool(docs), path, "no documents")
    return docs, empty


def read_query_texts(path: Path) -> dict[str, tuple[str, dict[str, Any]]]:
    """query id -> (text, metadata)."""
    out: dict[str, tuple[str, dict[str, Any]]] = {}
    for line, row in iter_jsonl(path):
        expect(isinstance(row, dict), path, "expected a JSON object", line)
        qid = row.get("_id")
        expect(isinstance(qid, str) and bool(qid.strip()), path, "field '_id' must be a non-empty string", line)
        expect(qid not in out, path, f"duplicate query id {qid!r}", line)
        text = row.get("text")
        expect(isinstance(text, str) and bool(text.strip()), path, "field 'text' must be a non-empty string", line)
        meta = row.get("metadata") if isinstance(row.get("metadata"), dict) else {}
        out[qid] = (text, dict(meta))
    expect(bool(out), path, "no queries")
    return out


def qrels_path(folder: Path, qrels: str | Path) -> Path:
    """`qrels` as a file when it names one, else the split `folder/qrels/<qrels>.tsv`."""
    candidate = Path(qrels).expanduser()
    if candidate.is_file():
        return candidate
    split_file = folder / QRELS_DIR / f"{qrels}.tsv"
    if not split_file.is_file():
        splits = sorted(p.stem for p in (folder / QRELS_DIR).glob("*.tsv")) if (folder / QRELS_DIR).is_dir() else []
        raise DatasetError(split_file, f"no qrels for split {qrels!r} (this folder has: {', '.join(splits) or 'none'})")
    return split_file


def load_beir(data_dir: str | Path, name: str | None = None, qrels: str | Path = DEFAULT_SPLIT) -> Dataset:
    """Load a BEIR folder, judged by `qrels` (a split name under qrels/, default test, or a qrels file)."""
    folder = Path(data_dir).expanduser()
    for f in (folder / CORPUS_FILE, folder / QUERIES_FILE):
        if not f.is_file():
            raise DatasetError(f, "file missing (a BEIR folder is corpus.jsonl + queries.jsonl + qrels/<split>.tsv)")
    judged_file = qrels_path(folder, qrels)
    docs, empty = read_corpus(folder / CORPUS_FILE)
    texts = read_query_texts(folder / QUERIES_FILE)
    judgements = read_qrels(judged_file)
    unknown_q = [q for q in judgements if q not in texts]
    if unknown_q:
        raise DatasetError(judged_file, f"judges queries that are not in {QUERIES_FILE}: {unknown_q[:5]}")
    doc_ids = {d.id for d in docs}
    queries: list[EvalQuery] = []
    dropped_judgements = 0
    no_relevant: list[str] = []
    for qid in (q for q in texts if q in judgements):  # queries.jsonl order
        relevant = {d: rel for d, rel in judgements[qid].items() if rel > 0}
        dropped_judgements += sum(1 for d in relevant if d not in doc_ids)
        relevant = {d: rel for d, rel in relevant.items() if d in doc_ids}
        if not relevant:
            no_relevant.append(qid)
            continue
        text, meta = texts[qid]
        queries.append(
            EvalQuery(
                id=qid,
                text=text,
                type=QUERY_TYPE,
                gold_doc_ids=list(relevant),
                gold_grades=relevant,
                meta={**meta, "judged": len(judgements[qid])},
            )
        )
    if not queries:
        raise DatasetError(judged_file, "no query has a relevant document (relevance > 0) in the corpus")
    notes = [
        f"beir: {folder}, judged by {judged_file.name}: {len(queries)} queries; documents ranked once each "
        "(best node); nDCG gain = qrels relevance"
    ]
    if empty:
        notes.append(f"beir: {empty} documents with neither title nor text skipped")
    if dropped_judgements:
        notes.append(f"beir: {dropped_judgements} relevance judgements name documents not in the corpus; dropped")
    if no_relevant:
        notes.append(
            f"beir: {len(no_relevant)} judged queries have no relevant document in the corpus; not scored "
            f"(e.g. {no_relevant[:3]})"
        )
    return Dataset(
        name=name or folder.resolve().name,
        documents=docs,
        queries=queries,
        matcher="doc",
        notes=notes,
        rank_unit="document",
    )


def write_beir(dataset: Dataset, directory: str | Path, split: str = DEFAULT_SPLIT) -> Path:
    """Write `dataset` as a BEIR folder: its documents, every query, and qrels/<split>.tsv for the answerable ones.

    What `load_beir` reads back as the same corpus and gold (grade 1 where the dataset has none), so any
    dataset here can be handed to BEIR tools; null queries are written unjudged, as BEIR has no abstention.
    """
    out = Path(directory)
    (out / QRELS_DIR).mkdir(parents=True, exist_ok=True)
    with open(out / CORPUS_FILE, "w", encoding="utf-8") as fh:
        for d in dataset.documents:
            heading = f"# {d.title}\n\n"
            text = d.text[len(heading) :] if d.text.startswith(heading) else d.text
            row = {"_id": d.id, "title": d.title if d.text.startswith(heading) else "", "text": text}
            dated = {k: v for k, v in (("published_at", d.published_at), ("source", d.source)) if v}
            fh.write(json.dumps({**row, "metadata": {**d.meta, **dated}}, ensure_ascii=False) + "\n")
    with open(out / QUERIES_FILE, "w", encoding="utf-8") as fh:
        for q in dataset.queries:
            meta = {"question_type": q.type, **({"answer": q.answer} if q.answer else {})}
            fh.write(json.dumps({"_id": q.id, "text": q.text, "metadata": meta}, ensure_ascii=False) + "\n")
    lines = [
        f"{q.id}\t{d}\t{int(q.gold_grades.get(d, 1))}\n"
        for q in dataset.queries
        if not q.is_null
        for d in q.gold_doc_ids
    ]
    (out / QRELS_DIR / f"{split}.tsv").write_text("query-id\tcorpus-id\tscore\n" + "".join(lines), encoding="utf-8")
    return out
