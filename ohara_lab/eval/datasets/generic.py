"""Any corpus in two JSON Lines files — the way to evaluate on your own data.

`corpus.jsonl`, one document per line:
    {"id": "d1", "title": "…", "text": "…", "published_at": "2024-01-31", "source": "…"}
    (`published_at`, `source` optional; `text` is Markdown or plain text; any other keys go to meta)
`queries.jsonl`, one query per line:
    {"id": "q1", "question": "…", "gold_doc_ids": ["d1"], "gold_evidence": ["…"],
     "question_type": "…", "unanswerable": false, "answer": "…", "answer_aliases": ["…"],
     "as_of": "2005-06-30"}
    (all but `id`, `question` optional; `answer` and its `answer_aliases` are what the answer metrics
    of `ohara eval --answers` accept; `as_of` asks the query of the corpus as it stood on that
    date; an answerable query needs `gold_doc_ids`, or `gold_evidence` under the paragraph
    matcher; an unanswerable one must have no gold ids)

Documents whose `text` does not start with a `# ` heading get `# title` prepended, so
every document ingests with its title.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from ..dataset import MATCHER_KINDS, Dataset, DatasetError, EvalDocument, EvalQuery, MatcherKind
from ._io import expect, iter_jsonl

CORPUS_FILE = "corpus.jsonl"
QUERIES_FILE = "queries.jsonl"
DEFAULT_TYPE = "default"
_DOC_KEYS = {"id", "title", "text", "published_at", "source"}
_QUERY_KEYS = {"id", "question", "gold_doc_ids", "gold_evidence", "question_type", "unanswerable", "answer", "as_of"}


def _iso_day(value: Any) -> bool:
    try:
        date.fromisoformat(value)
    except (TypeError, ValueError):
        return False
    return True


def _str_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def read_documents(path: Path) -> list[EvalDocument]:
    docs: list[EvalDocument] = []
    seen: dict[str, int] = {}
    for line, row in iter_jsonl(path):
        expect(isinstance(row, dict), path, "expected a JSON object", line)
        for key in ("id", "title", "text"):
            expect(
                isinstance(row.get(key), str) and bool(row[key].strip()),
                path,
                f"field {key!r} must be a non-empty string",
                line,
            )
        for key in ("published_at", "source"):
            expect(row.get(key) is None or isinstance(row[key], str), path, f"field {key!r} must be a string", line)
        doc_id = row["id"]
        expect(doc_id not in seen, path, f"duplicate document id {doc_id!r} (first on line {seen.get(doc_id)})", line)
        seen[doc_id] = line
        text = row["text"]
        if not text.lstrip().startswith("# "):
            text = f"# {row['title']}\n\n{text}"
        docs.append(
            EvalDocument(
                id=doc_id,
                title=row["title"],
                text=text,
                published_at=row.get("published_at"),
                source=row.get("source"),
                meta={k: v for k, v in row.items() if k not in _DOC_KEYS},
            )
        )
    expect(bool(docs), path, "no documents")
    return docs


def read_queries(path: Path, doc_ids: set[str], matcher: MatcherKind) -> list[EvalQuery]:
    queries: list[EvalQuery] = []
    seen: dict[str, int] = {}
    for line, row in iter_jsonl(path):
        expect(isinstance(row, dict), path, "expected a JSON object", line)
        expect(
            isinstance(row.get("id"), str) and bool(row["id"].strip()),
            path,
            "field 'id' must be a non-empty string",
            line,
        )
        expect(
            isinstance(row.get("question"), str) and bool(row["question"].strip()),
            path,
            "field 'question' must be a non-empty string",
            line,
        )
        qid = row["id"]
        expect(qid not in seen, path, f"duplicate query id {qid!r} (first on line {seen.get(qid)})", line)
        seen[qid] = line
        gold = row.get("gold_doc_ids") or []
        evidence = row.get("gold_evidence") or []
        expect(_str_list(gold), path, "'gold_doc_ids' must be a list of strings", line)
        expect(_str_list(evidence), path, "'gold_evidence' must be a list of strings", line)
        unanswerable = row.get("unanswerable", False)
        expect(isinstance(unanswerable, bool), path, "'unanswerable' must be true or false", line)
        qtype = row.get("question_type") or DEFAULT_TYPE
        expect(isinstance(qtype, str), path, "'question_type' must be a string", line)
        expect(row.get("answer") is None or isinstance(row["answer"], str), path, "'answer' must be a string", line)
        expect(_str_list(row.get("answer_aliases") or []), path, "'answer_aliases' must be a list of strings", line)
        as_of = row.get("as_of")
        expect(as_of is None or _iso_day(as_of), path, "'as_of' must be a date, YYYY-MM-DD", line)
        unknown = [g for g in gold if g not in doc_ids]
        expect(not unknown, path, f"gold_doc_ids not in the corpus: {unknown[:5]}", line)
        if unanswerable:
            expect(not gold, path, "an unanswerable query cannot have gold_doc_ids", line)
        else:
            needed = gold if matcher == "doc" else evidence
            field = "gold_doc_ids" if matcher == "doc" else "gold_evidence"
            expect(bool(needed), path, f'answerable query without {field} (add gold or set "unanswerable": true)', line)
        queries.append(
            EvalQuery(
                id=qid,
                text=row["question"],
                type=qtype,
                gold_doc_ids=list(dict.fromkeys(gold)),
                gold_evidence=evidence,
                unanswerable=unanswerable,
                answer=row.get("answer"),
                meta={k: v for k, v in row.items() if k not in _QUERY_KEYS},
                as_of=as_of,
            )
        )
    expect(bool(queries), path, "no queries")
    return queries


def load_generic(data_dir: str | Path, name: str | None = None, matcher: MatcherKind = "doc") -> Dataset:
    """Load `corpus.jsonl` + `queries.jsonl` from `data_dir`."""
    folder = Path(data_dir).expanduser()
    if matcher not in MATCHER_KINDS:
        raise DatasetError(None, f"matcher must be one of {MATCHER_KINDS}, got {matcher!r}")
    for f in (folder / CORPUS_FILE, folder / QUERIES_FILE):
        if not f.is_file():
            raise DatasetError(f, "file missing (a generic dataset is corpus.jsonl + queries.jsonl)")
    docs = read_documents(folder / CORPUS_FILE)
    queries = read_queries(folder / QUERIES_FILE, {d.id for d in docs}, matcher)
    return Dataset(
        name=name or folder.resolve().name,
        documents=docs,
        queries=queries,
        matcher=matcher,
        notes=[f"generic: {folder}"],
    )
