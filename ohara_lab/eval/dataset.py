"""The common shape every evaluation dataset is loaded into.

A `Dataset` is a corpus of Markdown documents plus queries whose gold is stated
in dataset ids (never in store ids): the runner ingests the corpus written by
`write_markdown_corpus`, maps each retrieved node back to a dataset doc id through
the returned path -> doc id table, and scores with `ohara_lab.eval.evaluate`.
"""
from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from ..errors import OharaError, UsageError

MatcherKind = Literal["doc", "paragraph"]
MATCHER_KINDS: tuple[str, ...] = ("doc", "paragraph")
# What a rank counts: every retrieved item (the original's protocol: a document's second paragraph takes a
# rank) or each document once, at its best item (MaxP, how BEIR and TREC runs rank documents).
RankUnit = Literal["item", "document"]
RANK_UNITS: tuple[str, ...] = ("item", "document")

# Question types the original treats as "null" (spec §5: `question_type ∈ {null_query, null}`).
NULL_TYPES: frozenset[str] = frozenset({"null_query", "null"})

_SAFE_FILE_STEM = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,150}$")


class DatasetError(OharaError):
    """Evaluation data is missing or malformed; names the file (and line) at fault."""

    exit_code = 2

    def __init__(self, path: str | Path | None, reason: str, line: int | None = None):
        self.path = None if path is None else str(path)
        self.line = line
        self.reason = reason
        where = self.path or "dataset"
        if line is not None:
            where = f"{where}:{line}"
        super().__init__(f"{where}: {reason}")


@dataclass
class EvalDocument:
    """One corpus document, its whole Markdown rendering in `text`."""

    id: str
    title: str
    text: str  # Markdown, exactly what gets ingested
    published_at: str | None = None
    source: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)


@dataclass
class EvalQuery:
    """One query with doc-level gold (`gold_doc_ids`) and, where known, evidence text."""

    id: str
    text: str
    type: str
    gold_doc_ids: list[str] = field(default_factory=list)
    gold_evidence: list[str] = field(default_factory=list)
    unanswerable: bool = False
    answer: str | None = None
    meta: dict[str, Any] = field(default_factory=dict)
    as_of: str | None = None  # YYYY-MM-DD: asked of the corpus as it stood then (`atlas.query(as_of=...)`)
    # graded relevance of gold documents (BEIR / TREC qrels), the gain nDCG gives them; a gold id without a
    # grade has gain 1
    gold_grades: dict[str, int] = field(default_factory=dict)

    @property
    def is_null(self) -> bool:
        """Scored as a null query: abstention is the right behaviour, not retrieval."""
        return self.unanswerable or self.type in NULL_TYPES


def in_family(dataset_name: str, family: str) -> bool:
    """Whether a dataset belongs to a family: "qasper" covers "qasper", "qasper-leval", "qasper+unanswerable"."""
    base = dataset_name.split("+", 1)[0]
    return base == family or base.startswith(family + "-")


@dataclass
class Dataset:
    """Documents + queries + which matcher decides a hit (spec §5)."""

    name: str
    documents: list[EvalDocument]
    queries: list[EvalQuery]
    matcher: MatcherKind = "doc"
    notes: list[str] = field(default_factory=list)
    rank_unit: RankUnit = "item"

    def __post_init__(self) -> None:
        self.validate()

    # ------------------------------------------------------------------ checks

    def validate(self) -> None:
        """Raise `DatasetError` unless ids are unique and every gold id is a document."""
        if self.matcher not in MATCHER_KINDS:
            raise DatasetError(None, f"{self.name}: matcher must be one of {MATCHER_KINDS}, got {self.matcher!r}")
        if self.rank_unit not in RANK_UNITS or (self.rank_unit == "document" and self.matcher != "doc"):
            raise DatasetError(None, f"{self.name}: rank_unit must be 'item', or 'document' under the doc matcher; "
                                     f"got {self.rank_unit!r} with matcher {self.matcher!r}")
        doc_ids = [d.id for d in self.documents]
        dup_docs = [i for i, n in Counter(doc_ids).items() if n > 1]
        if dup_docs:
            raise DatasetError(None, f"{self.name}: duplicate document ids {dup_docs[:5]}")
        dup_q = [i for i, n in Counter(q.id for q in self.queries).items() if n > 1]
        if dup_q:
            raise DatasetError(None, f"{self.name}: duplicate query ids {dup_q[:5]}")
        known = set(doc_ids)
        for q in self.queries:
            missing = [g for g in q.gold_doc_ids if g not in known]
            if missing:
                raise DatasetError(None, f"{self.name}: query {q.id} has gold ids not in the corpus: {missing[:5]}")
            ungraded = [g for g, rel in q.gold_grades.items() if g not in q.gold_doc_ids or rel <= 0]
            if ungraded:
                raise DatasetError(None, f"{self.name}: query {q.id} grades ids that are not gold: {ungraded[:5]}")
            if q.unanswerable and q.gold_doc_ids:
                # An unanswerable query whose gold is in the corpus would be a fake negative.
                raise DatasetError(None, f"{self.name}: query {q.id} is unanswerable but has gold documents")

    # ------------------------------------------------------------------ views

    def select(self, query_ids: Iterable[str] | None) -> list[EvalQuery]:
        """The queries with these ids, in dataset order (all of them for None); unknown ids are an error."""
        if query_ids is None:
            return list(self.queries)
        wanted = set(query_ids)
        unknown = wanted - {q.id for q in self.queries}
        if unknown:
            raise UsageError(f"query ids not in {self.name}: {sorted(unknown)[:5]}")
        return [q for q in self.queries if q.id in wanted]

    def document(self, doc_id: str) -> EvalDocument:
        for d in self.documents:
            if d.id == doc_id:
                return d
        raise KeyError(doc_id)

    def summary(self) -> dict[str, Any]:
        """Counts for a report table: documents, queries, unanswerable, question types, gold."""
        gold_counts = [len(q.gold_doc_ids) for q in self.queries if not q.is_null]
        return {
            "name": self.name,
            "matcher": self.matcher,
            "rank_unit": self.rank_unit,
            # queries whose judgements are graded beyond binary (a gold grade other than 1): nDCG weighs them
            "graded_queries": sum(1 for q in self.queries if any(g != 1 for g in q.gold_grades.values())),
            "documents": len(self.documents),
            "queries": len(self.queries),
            "unanswerable": sum(1 for q in self.queries if q.is_null),
            "question_types": dict(sorted(Counter(q.type for q in self.queries).items())),
            "gold_documents_distinct": len({g for q in self.queries for g in q.gold_doc_ids}),
            "gold_per_answerable_query": (sum(gold_counts) / len(gold_counts)) if gold_counts else None,
            "queries_with_evidence": sum(1 for q in self.queries if q.gold_evidence),
            "corpus_chars": sum(len(d.text) for d in self.documents),
        }

    # ------------------------------------------------------------------ output

    def file_names(self) -> dict[str, str]:
        """doc id -> Markdown file name, deterministic and unique.

        A doc id that is already a safe file stem (MultiHop `mhrag_0001_...`, QASPER
        `qasper_1603.01514`) is used as is, so the files keep the original system's names;
        anything else becomes a slug plus a short hash of the id.
        """
        names: dict[str, str] = {}
        for d in self.documents:
            if _SAFE_FILE_STEM.match(d.id):
                stem = d.id
            else:
                slug = re.sub(r"[^a-z0-9]+", "-", d.id.lower()).strip("-")[:60] or "doc"
                stem = f"{slug}-{hashlib.sha1(d.id.encode('utf-8')).hexdigest()[:8]}"
            names[d.id] = f"{stem}.md"
        clashes = [n for n, c in Counter(n.lower() for n in names.values()).items() if c > 1]
        if clashes:
            # Lower-cased so that case-insensitive file systems cannot merge two documents.
            raise DatasetError(None, f"{self.name}: document file names collide: {clashes[:5]}")
        return names

    def write_markdown_corpus(self, directory: str | Path) -> dict[str, str]:
        """Write one `.md` per document into `directory`; return {path: doc id}."""
        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        names = self.file_names()
        written: dict[str, str] = {}
        for d in self.documents:
            path = out / names[d.id]
            path.write_text(d.text, encoding="utf-8")
            written[str(path)] = d.id
        return written
