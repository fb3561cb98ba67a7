"""Answer synthesis (spec §4): answer from the Principal tier with `[n]` citations, or abstain.

    answer(atlas, question, mode="standard", session_history=None, **setting_overrides)

1. Retrieve with the chosen mode.
2. No Principal node -> the answer says plainly that the evidence is insufficient
   and cites nothing. Unlike the original, it never falls back to the uncorroborated
   results: a confident answer needs corroborated evidence.
3. Otherwise the first six Principal nodes become numbered passages
   (``(<document title>)`` then at most 600 characters) for the ``answer`` prompt:
   Gemini writes the answer; offline, the passage sentences sharing most terms with
   the question are quoted, each cited. Should Gemini fail, the offline answer is
   given and ``answered_by`` says so.
4. Citation markers that name no passage are removed from the text; ``citations``
   lists the passages the text cites, or those the reply's ``cited`` names when the
   text marks none. Each citation says where its node sits (``document_id``,
   ``section_path``, ``page``) and which characters of the node's stored text support
   it (``spans``, see `citations`): the reply's verbatim ``quotes`` for that passage
   (else the answer sentences carrying its marker) aligned to the stored text. A
   citation whose quotes cannot all be aligned has ``verified: false`` and lists them
   under ``unverified``; it is never shown as proof.
"""
from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from typing import Any

from ..errors import LLMError
from ..llm import OfflineProvider
from ..llm.shared import provider_for
from .citations import locate, table_prose

log = logging.getLogger(__name__)

MAX_PASSAGES = 6
PASSAGE_CHARS = 600
INSUFFICIENT = ("Insufficient evidence: {reason}; the Principal tier is empty, so no answer is given "
                "rather than a guess.")
_MARKER = re.compile(r"\s?\[(\d+)\]")


@dataclass
class Answer:
    """An answer, the passages it cites and the retrieval it came from."""

    question: str
    text: str
    citations: list[dict[str, Any]] = field(default_factory=list)
    retrieval: Any = None
    insufficient: bool = False
    answered_by: str = "offline"
    mode: str = "standard"

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "answer": self.text, "citations": self.citations,
                "insufficient": self.insufficient, "answered_by": self.answered_by, "mode": self.mode,
                "retrieval": self.retrieval.to_dict() if self.retrieval is not None else None}

    def __str__(self) -> str:
        return self.text


def insufficient_text(retrieval: Any) -> str:
    """The refusal, with the engine's own reason (the answerability model's, or the corroboration rule's)."""
    return INSUFFICIENT.format(reason=retrieval.abstain_reason or "nothing was retrieved")


def answer(atlas: Any, question: str, *, mode: str = "standard", session_history: list[dict[str, str]] | None = None,
           **overrides: Any) -> Answer:
    retrieval = atlas.query(question, mode=mode, session_history=session_history, **overrides)
    chosen = retrieval.tiers.principal[:MAX_PASSAGES]
    if not chosen:
        return Answer(question, insufficient_text(retrieval), [], retrieval, True, "abstained", mode)
    passages = [_passage(retrieval, f.id) for f in chosen]
    data, by = _generate(atlas.settings.override(**overrides), question, passages)
    text, refs = _resolve_markers(data["answer"], len(passages))
    if not refs and not data["insufficient"]:  # a reply listing its sources without marking them inline
        refs = [n for n in dict.fromkeys(data.get("cited") or []) if 1 <= n <= len(passages)]
    quotes = _quotes_by_passage(data, text, len(passages))
    citations = [_citation(retrieval, n, chosen[n - 1], quotes.get(n, [])) for n in sorted(refs)]
    return Answer(question, text, citations, retrieval, bool(data["insufficient"]), by, mode)


def _generate(settings: Any, question: str, passages: list[str]) -> tuple[dict[str, Any], str]:
    provider = provider_for(settings)
    variables = {"question": question, "passages": passages}
    try:
        return provider.generate("answer", variables).data, provider.name
    except LLMError as exc:
        if provider.name == "offline":
            raise
        log.warning("answer synthesis fell back to the offline answer: %s", exc.reason)
        return OfflineProvider().generate("answer", variables).data, f"offline ({provider.name} failed)"


def _passage(retrieval: Any, node_id: str) -> str:
    view = retrieval.views.get(node_id)
    if view is None:
        return node_id
    body = table_prose(view.content) if view.collection == "tables" else view.content
    return f"({view.document_title or view.document_id})\n{body[:PASSAGE_CHARS]}"


def _resolve_markers(text: str, n: int) -> tuple[str, list[int]]:
    """The text without markers naming no passage, and the passages it cites (in order of first use)."""
    cited: list[int] = []

    def keep(m: re.Match[str]) -> str:
        ref = int(m.group(1))
        if not 1 <= ref <= n:
            return ""
        if ref not in cited:
            cited.append(ref)
        return m.group(0)

    return _MARKER.sub(keep, text).strip(), cited


def _quotes_by_passage(data: dict[str, Any], text: str, n: int) -> dict[int, list[str]]:
    """Candidate quotes per passage: the reply's own quotes, else the answer's claims citing it."""
    quoted: dict[int, list[str]] = {}
    for q in data.get("quotes") or []:
        if 1 <= q["passage"] <= n and q["text"].strip():
            quoted.setdefault(q["passage"], []).append(q["text"])
    claims = _claims(text)
    return {ref: quoted.get(ref) or claims.get(ref, []) for ref in range(1, n + 1)}


def _claims(text: str) -> dict[int, list[str]]:
    """The text before each [n] marker (back to the previous marker), per n; "A [1][2]" gives both "A"."""
    out: dict[int, list[str]] = {}
    start, claim = 0, ""
    for m in _MARKER.finditer(text):
        claim = text[start:m.start()].strip(" ,;:.") or claim
        if claim:
            out.setdefault(int(m.group(1)), []).append(claim)
        start = m.end()
    return out


def _citation(retrieval: Any, ref: int, fused: Any, quotes: list[str]) -> dict[str, Any]:
    view = retrieval.views.get(fused.id)
    content = view.content if view else ""
    spans, unverified = [], []
    for quote in dict.fromkeys(quotes):
        found = locate(quote, content, table=bool(view and view.collection == "tables"))
        spans += [s for s in found if s not in spans]
        if not found:
            unverified.append(quote)
    spans.sort(key=lambda s: s.start)
    return {"ref": ref, "node_id": fused.id, "document_id": fused.document_id or (view.document_id if view else ""),
            "title": view.document_title if view else "", "section_path": list(view.section_path) if view else [],
            "section": " › ".join(view.section_path) if view else "", "page": view.page if view else None,
            "score": round(fused.score, 6), "snippet": " ".join(content.split())[:200],
            "spans": [s.to_dict() for s in spans], "verified": bool(spans) and not unverified,
            "unverified": unverified}
