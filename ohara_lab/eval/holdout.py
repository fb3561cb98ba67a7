"""Unanswerable queries made the MuSiQue way: hold a query out and delete its support.

MuSiQue (Trivedi et al., TACL 2022; "MuSiQue-Full") pairs each answerable question with an
unanswerable one whose supporting paragraphs are removed from the context. Over a
shared corpus the same idea reads: pick a seeded subset of answerable queries, remove
their gold documents from the corpus, and mark them unanswerable. A gold document that
a kept query needs cannot be removed, and leaving it would make the held-out query a
fake negative, so such a query goes back to the answerable set (which can in turn pin
down documents of other held-out queries; this repeats until nothing changes).
"""
from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import replace

from ..errors import UsageError
from .dataset import Dataset, DatasetError, EvalQuery

HELD_OUT_TYPE = "null"  # spec §5 scores question_type "null" as a null query


def make_unanswerable(dataset: Dataset, fraction: float, seed: int) -> Dataset:
    """A copy of `dataset` where about `fraction` of the answerable queries are unanswerable.

    Candidates are answerable queries with gold documents; `round(fraction · n)` of them
    are drawn with `random.Random(seed)`. Held-out queries get `unanswerable=True`,
    `type="null"`, no gold, and `meta` keys `held_out`, `original_type`,
    `removed_gold_doc_ids`. `notes` records what was asked, what was achieved and why.
    """
    if not 0.0 <= fraction <= 1.0:
        raise UsageError(f"fraction must be within [0, 1], got {fraction}")
    candidates = [q.id for q in dataset.queries if not q.unanswerable and q.gold_doc_ids]
    requested = round(fraction * len(candidates))
    drawn = set(random.Random(seed).sample(candidates, requested))
    gold = {q.id: set(q.gold_doc_ids) for q in dataset.queries}
    answerable = [q.id for q in dataset.queries if not q.unanswerable]
    held, returned = settle_holdout(drawn, gold, answerable)

    removed = set().union(*(gold[qid] for qid in held))
    documents = [d for d in dataset.documents if d.id not in removed]
    kept_ids = {d.id for d in documents}
    queries: list[EvalQuery] = []
    for q in dataset.queries:
        if q.id not in held:
            queries.append(q)
            continue
        queries.append(replace(
            q, type=HELD_OUT_TYPE, unanswerable=True, gold_doc_ids=[], gold_evidence=[], gold_grades={},
            meta={**q.meta, "held_out": True, "original_type": q.type,
                  "removed_gold_doc_ids": list(q.gold_doc_ids)},
        ))
    _verify(dataset, queries, kept_ids)
    note = (f"make_unanswerable(fraction={fraction}, seed={seed}): {len(held)} of {len(candidates)} "
            f"answerable queries held out (asked {requested}; {len(returned)} returned because a kept "
            f"query needs one of their gold documents); {len(removed)} documents removed")
    return Dataset(
        name=f"{dataset.name}+unanswerable",
        documents=documents,
        queries=queries,
        matcher=dataset.matcher,
        notes=[*dataset.notes, note],
        rank_unit=dataset.rank_unit,
    )


def without_gold_paragraphs(dataset: Dataset) -> Dataset:
    """Every query unanswerable: the gold evidence paragraphs of all of them removed from their documents.

    The held-out construction for a corpus of long documents (QASPER): a question's support is a few
    paragraphs of one paper, so removing the paper would remove its topic too; removing only the
    paragraphs the paragraph matcher would credit (`ParagraphMatcher`: a paragraph whose text holds a gold
    snippet's first 200 characters, or whose own start is inside one) leaves the paper, its sections
    and its other paragraphs, as MuSiQue leaves the bridge entities."""
    from .matchers import MATCH_PREFIX_CHARS, ParagraphMatcher, normalize_text  # noqa: PLC0415

    snippets = [e for q in dataset.queries for e in ParagraphMatcher(q.gold_evidence).snippets]
    documents, removed = [], 0
    for doc in dataset.documents:
        kept = []
        for block in doc.text.split("\n\n"):
            text = normalize_text(block)
            head = text[:MATCH_PREFIX_CHARS]
            if text and any(e[:MATCH_PREFIX_CHARS] in text or (len(head) > 40 and head in e) for e in snippets):
                removed += 1
            else:
                kept.append(block)
        documents.append(replace(doc, text="\n\n".join(kept)))
    queries = [replace(q, type=HELD_OUT_TYPE, unanswerable=True, gold_doc_ids=[], gold_evidence=[], gold_grades={},
                       meta={**q.meta, "held_out": True, "original_type": q.type})
               for q in dataset.queries if not q.unanswerable]
    return Dataset(name=f"{dataset.name}+nulls", documents=documents, queries=queries, matcher=dataset.matcher,
                   rank_unit=dataset.rank_unit,
                   notes=[*dataset.notes, f"without_gold_paragraphs: {removed} gold paragraphs removed; "
                                          f"all {len(queries)} answerable queries are nulls"])


def settle_holdout(
    drawn: set[str], gold: Mapping[str, set[str]], answerable: Sequence[str]
) -> tuple[set[str], list[str]]:
    """Shrink a drawn held-out set until no kept answerable query needs a held-out gold doc.

    Returns (held, returned): a query sharing a gold document with a kept query goes back
    to the kept set, which can pin further held-out queries, so this runs to a fixpoint.
    """
    held = set(drawn)
    returned: list[str] = []
    while True:
        needed = set().union(*(gold[qid] for qid in answerable if qid not in held))
        clash = sorted(qid for qid in held if gold[qid] & needed)
        if not clash:
            return held, returned
        held.difference_update(clash)
        returned += clash


def _verify(original: Dataset, queries: list[EvalQuery], kept_doc_ids: set[str]) -> None:
    """No held-out query keeps a gold document; every kept query keeps all of its own."""
    before = {q.id: q for q in original.queries}
    for q in queries:
        if q.meta.get("held_out") and not before[q.id].unanswerable:
            left = [d for d in q.meta["removed_gold_doc_ids"] if d in kept_doc_ids]
            if left:
                raise DatasetError(None, f"held-out query {q.id} still has gold documents {left}")
        elif not q.unanswerable:
            lost = [d for d in q.gold_doc_ids if d not in kept_doc_ids]
            if lost:
                raise DatasetError(None, f"kept query {q.id} lost gold documents {lost}")
