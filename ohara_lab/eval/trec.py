"""TREC run files and qrels (trec_eval's formats), so other tools can score what `ohara eval` retrieved.

Run file, one line per retrieved document (trec_eval; Voorhees & Harman, *TREC*, MIT Press 2005, app.):
    qid Q0 docid rank score tag
  rank is 1-based; readers (trec_eval, ranx, pytrec_eval) order by score and ignore the rank column,
  so `write_run` makes scores strictly decrease down each list (see `monotone_scores`).
Qrels, one judgement per line, in either of the two formats in use:
    qid 0 docid relevance              TREC (any whitespace; the second field is ignored)
    query-id<TAB>corpus-id<TAB>score   BEIR `qrels/<split>.tsv` (its header line is skipped)
  relevance > 0 is relevant; 0 or less is judged not relevant.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .dataset import Dataset, DatasetError
from .matchers import first_per_document

if TYPE_CHECKING:
    from .runner import MatrixRun

RUN_TAG = "ohara"
SCORE_STEP = 1e-6  # smallest gap `write_run` leaves between consecutive scores (printed with 6 decimals)
_TAG = re.compile(r"^\S+$")

Run = dict[str, list[tuple[str, float]]]  # qid -> [(docid, score)], best first
Qrels = dict[str, dict[str, int]]  # qid -> {docid: relevance}


def monotone_scores(scores: Sequence[float | None]) -> list[float]:
    """`scores`, each lowered just enough to sit `SCORE_STEP` below the one before (rounded to 6 decimals).

    A reader sorts by score and breaks ties its own way (trec_eval by docid), so equal or rising scores
    would let it rank the list differently from the engine; a missing score continues the step.
    """
    out: list[float] = []
    for s in scores:
        value = round(float(s), 6) if s is not None else (out[-1] - SCORE_STEP if out else 1.0)
        if out and value > out[-1] - SCORE_STEP:
            value = out[-1] - SCORE_STEP
        out.append(round(value, 6))
    return out


def _checked_id(value: str, what: str, path: Path) -> str:
    if not value or any(c.isspace() for c in value):
        raise DatasetError(path, f"{what} {value!r} cannot be written to a TREC file (empty or has whitespace)")
    return value


def write_run(path: str | Path, run: Mapping[str, Sequence[tuple[str, float | None]]], tag: str = RUN_TAG) -> Path:
    """Write `run` (qid -> [(docid, score)], best first, each docid once) as a TREC run file."""
    out = Path(path)
    if not _TAG.match(tag):
        raise DatasetError(out, f"run tag {tag!r} must be one word")
    lines: list[str] = []
    for qid, ranked in run.items():
        _checked_id(qid, "query id", out)
        docs = [d for d, _ in ranked]
        if len(set(docs)) != len(docs):
            raise DatasetError(out, f"query {qid}: a document is ranked twice (a TREC run holds each once)")
        for rank, (doc, score) in enumerate(zip(docs, monotone_scores([s for _, s in ranked])), start=1):
            lines.append(f"{qid} Q0 {_checked_id(doc, 'document id', out)} {rank} {score:.6f} {tag}")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return out


def _lines(path: Path) -> Iterable[tuple[int, list[str]]]:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise DatasetError(path, "file not found") from None
    for lineno, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            yield lineno, line.split("\t") if "\t" in line else line.split()


def read_run(path: str | Path) -> Run:
    """A TREC run file as qid -> [(docid, score)], ordered as trec_eval reads it (score descending)."""
    src = Path(path)
    run: Run = {}
    for lineno, raw in _lines(src):
        fields = [f.strip() for f in raw]
        if len(fields) != 6:
            raise DatasetError(src, f"expected 6 fields 'qid Q0 docid rank score tag', got {len(fields)}", lineno)
        qid, _, doc, rank, score, _ = fields
        try:
            int(rank)
            value = float(score)
        except ValueError:
            raise DatasetError(src, f"rank {rank!r} / score {score!r} is not a number", lineno) from None
        ranked = run.setdefault(qid, [])
        if any(d == doc for d, _ in ranked):
            raise DatasetError(src, f"document {doc!r} is ranked twice for query {qid!r}", lineno)
        ranked.append((doc, value))
    for ranked in run.values():
        ranked.sort(key=lambda ds: -ds[1])  # stable: equal scores keep file order
    return run


def read_qrels(path: str | Path) -> Qrels:
    """TREC (`qid 0 docid rel`) or BEIR (`query-id<TAB>corpus-id<TAB>score`) qrels as qid -> {docid: rel}.

    A BEIR header (`query-id corpus-id score`) on the first line is skipped; a document judged twice
    for one query is an error, since the two grades cannot both hold.
    """
    src = Path(path)
    qrels: Qrels = {}
    for lineno, raw in _lines(src):
        fields = [f.strip() for f in raw]
        if len(fields) == 3:
            qid, doc, rel = fields
        elif len(fields) == 4:
            qid, _, doc, rel = fields
        else:
            raise DatasetError(
                src,
                "expected 'qid 0 docid relevance' (TREC) or 'query-id<TAB>corpus-id<TAB>score' "
                f"(BEIR), got {len(fields)} fields",
                lineno,
            )
        try:
            grade = int(float(rel)) if float(rel).is_integer() else None
        except ValueError:
            if lineno == 1 and not qrels:
                continue  # the BEIR header
            raise DatasetError(src, f"relevance {rel!r} is not an integer", lineno) from None
        if grade is None:
            raise DatasetError(src, f"relevance {rel!r} is not an integer", lineno)
        judged = qrels.setdefault(qid, {})
        if doc in judged:
            raise DatasetError(src, f"document {doc!r} is judged twice for query {qid!r}", lineno)
        judged[doc] = grade
    if not qrels:
        raise DatasetError(src, "no judgements")
    return qrels


def write_qrels(path: str | Path, qrels: Mapping[str, Mapping[str, int]]) -> Path:
    """Write `qrels` in TREC format (`qid 0 docid rel`), the file trec_eval takes beside a run."""
    out = Path(path)
    lines = [
        f"{_checked_id(q, 'query id', out)} 0 {_checked_id(d, 'document id', out)} {int(rel)}"
        for q, judged in qrels.items()
        for d, rel in judged.items()
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return out


def dataset_qrels(dataset: Dataset) -> Qrels:
    """The judgements a dataset is scored by: each answerable query's gold documents with their grade (1 if binary).

    Paragraph-matched datasets have no document judgements a TREC tool could use, so they get none.
    """
    if dataset.matcher != "doc":
        return {}
    return {
        q.id: {d: int(q.gold_grades.get(d, 1)) for d in q.gold_doc_ids}
        for q in dataset.queries
        if not q.is_null and q.gold_doc_ids
    }


def file_stem(config_name: str) -> str:
    """A config name as a file stem and run tag: `full[crossdoc_weight=0.2]` -> `full_crossdoc_weight_0.2_`."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", config_name)


def write_trec_runs(run: MatrixRun, directory: str | Path) -> dict[str, Path]:
    """`<directory>/<config>.run` for every config of `run`, and `qrels.txt` beside them.

    Each query's ranked list becomes its documents once each, at their best node (MaxP, the BEIR
    ranking); nodes of documents outside the dataset are left out, and a failed query has no lines.
    On a dataset ranked by item (`rank_unit="item"`, the original's protocol) a tool scoring these
    files sees that document ranking, so its numbers can differ from the harness's where a document
    returned several nodes. Then `trec_eval -m ndcg_cut.10 qrels.txt full.run` scores one.
    """
    out = Path(directory)
    paths: dict[str, Path] = {}
    for name, config_run in run.runs.items():
        ranked = {
            qid: [(i.doc_id, i.score) for i in first_per_document(result.ranked) if i.doc_id]
            for qid, result in config_run.results.items()
            if not result.error
        }
        paths[name] = write_run(
            out / f"{file_stem(name)}.run", {q: r for q, r in ranked.items() if r}, tag=file_stem(name)
        )
    qrels = dataset_qrels(run.dataset)
    if qrels:
        paths["qrels"] = write_qrels(out / "qrels.txt", qrels)
    return paths
