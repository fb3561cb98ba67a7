"""Unanswerable queries of two kinds, reported apart because they are different difficulties.

* **held-out** (`holdout.make_unanswerable`): MuSiQue's own construction — a query whose
  supporting documents left the corpus; its bridge entities and near-miss passages stay.
* **foreign**: questions from another dataset asked of this corpus — the MultiHop-RAG news
  queries (2023 articles) against MuSiQue's Wikipedia paragraphs. They share no topic
  with the corpus, so they are the easy end of abstention.

Foreign queries were checked by hand for accidental answerability (a question the corpus
could answer after all): `FOREIGN_EXCLUDED` lists the ones dropped, with the reason; the
check read every query against the titles of its top-5 retrieved MuSiQue documents
(refs/abstention.md).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Literal

from ..errors import UsageError
from .dataset import Dataset, EvalQuery
from .holdout import HELD_OUT_TYPE, make_unanswerable

NullKind = Literal["heldout", "foreign", "both"]
NULL_KINDS = ("heldout", "foreign", "both")
FOREIGN_TYPE = "null_foreign"

# MultiHop-RAG query id -> why it is not a foreign null for MuSiQue. The check: 40 queries drawn at random
# (seed 1) were read against the corpus — all ask about named 2023 news articles no Wikipedia paragraph
# reports; then every gold answer was looked up among the corpus's titles: these two name a MuSiQue document,
# so a passage about the answer exists and the query is dropped as possibly answerable.
FOREIGN_EXCLUDED: dict[str, str] = {
    "mh_0044": "the answer, Israel, is a MuSiQue document (its blockade is on Wikipedia)",
    "mh_0064": "the answer, Lionel Messi, is a MuSiQue document",
}


def foreign_queries(data_dir: str | None, limit: int | None = None) -> list[EvalQuery]:
    """MultiHop-RAG's stratified queries as unanswerable queries (ids prefixed `foreign:`), minus the excluded."""
    from .datasets.multihop import load_multihop_queries  # noqa: PLC0415
    from .paths import default_data_dir  # noqa: PLC0415

    root = data_dir or default_data_dir()
    out = []
    for q in load_multihop_queries(root):
        if q.id in FOREIGN_EXCLUDED:
            continue
        out.append(replace(q, id=f"foreign:{q.id}", type=FOREIGN_TYPE, unanswerable=True, gold_doc_ids=[],
                           gold_evidence=[], meta={**q.meta, "foreign": "multihop-rag", "original_type": q.type}))
    return out[:limit] if limit is not None else out


def with_nulls(dataset: Dataset, kind: NullKind, fraction: float, seed: int, data_dir: str | None = None,
               foreign_limit: int | None = None) -> Dataset:
    """`dataset` with held-out nulls (`fraction` of its answerable queries), foreign nulls, or both."""
    if kind not in NULL_KINDS:
        raise UsageError(f"unknown null kind {kind!r}; choose one of {', '.join(NULL_KINDS)}")
    out = make_unanswerable(dataset, fraction, seed) if kind in ("heldout", "both") and fraction else dataset
    if kind in ("foreign", "both"):
        foreign = foreign_queries(data_dir, foreign_limit)
        out = Dataset(name=f"{out.name}+foreign", documents=out.documents, queries=[*out.queries, *foreign],
                      matcher=out.matcher, rank_unit=out.rank_unit,
                      notes=[*out.notes, f"{len(foreign)} foreign unanswerable queries (MultiHop-RAG, "
                                         f"{len(FOREIGN_EXCLUDED)} excluded by hand)"])
    return out


def null_kind(query: EvalQuery) -> str | None:
    """"heldout", "foreign" or None (answerable)."""
    if not query.is_null:
        return None
    return "foreign" if query.type == FOREIGN_TYPE or query.meta.get("foreign") else \
        "heldout" if query.type == HELD_OUT_TYPE else "other"
