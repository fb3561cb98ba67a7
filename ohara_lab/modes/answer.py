"""Answer synthesis (spec §4): answer from the Principal tier with `[n]` citations, or abstain.

    answer(atlas, question, mode="standard", session_history=None, **setting_overrides)

1. Retrieve with the chosen mode.
2. No Principal node -> the answer says plainly that the evidence is insufficient
   and cites nothing. Unlike the original, it never falls back to the uncorroborated
   results: a confident answer needs corroborated evidence.
3. Otherwise the first six Principal nodes become numbered passages
   (``(<document title>)`` then the node's text) for the ``answer`` prompt: Gemini
   writes the answer from passages of at most 600 characters; offline, the sentences
   adding most evidence for the question are quoted from the whole passages, each cited
   (`ohara_lab.extractive`: IDF over the atlas's full-text rows, the passages' stored
   entities, the expected answer type, the multi-hop bridge), after a short answer
   (``Answer.short``) when one span of the expected type stands out, or, for a comparison
   question, when both options' evidence decides it (`ohara_lab.comparison`; an option no
   Principal passage is about gets its best passage from the rest of the ranking,
   `option_passages`). Should Gemini fail, the offline answer is given and ``answered_by`` says so.
4. Citation markers that name no passage are removed from the text, and the others are
   renumbered [1], [2], ... in order of first use (a citation's ``passage`` keeps the
   passage number it had in the prompt); ``citations`` lists the passages the text
   cites, in that order, or those the reply's ``cited`` names when the text marks none.
   Each citation says where its node sits (``document_id``,
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
from typing import TYPE_CHECKING, Any

from ..comparison import about, comparison_form, option_evidence
from ..errors import LLMError
from ..extractive import extractive_reply, idf_from_counts, sentence_rows
from ..llm import offline_behaviours
from ..llm.offline_builtin import answer as builtin_answer
from ..llm.shared import provider_for
from .citations import locate, table_prose

if TYPE_CHECKING:
    from ..atlas import Atlas
    from ..store.protocol import GraphStore

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
    short: str | None = None  # the span of the expected answer type the evidence names, e.g. "G. Stanley Hall"

    def to_dict(self) -> dict[str, Any]:
        return {"question": self.question, "answer": self.text, "short": self.short, "citations": self.citations,
                "insufficient": self.insufficient, "answered_by": self.answered_by, "mode": self.mode,
                "retrieval": self.retrieval.to_dict() if self.retrieval is not None else None}

    def __str__(self) -> str:
        return self.text


def insufficient_text(retrieval: Any) -> str:
    """The refusal, with the engine's own reason (the answerability model's, or the corroboration rule's)."""
    return INSUFFICIENT.format(reason=retrieval.abstain_reason or "nothing was retrieved")


def answer(atlas: Atlas, question: str, *, mode: str = "standard", session_history: list[dict[str, str]] | None = None,
           **overrides: Any) -> Answer:
    retrieval = atlas.query(question, mode=mode, session_history=session_history, **overrides)
    chosen = retrieval.tiers.principal[:MAX_PASSAGES]
    if not chosen:
        return Answer(question, insufficient_text(retrieval), [], retrieval, True, "abstained", mode)
    chosen = chosen + option_passages(question, retrieval, chosen)
    data, short, by = _generate(atlas, atlas.settings.override(**overrides), question, retrieval, chosen)
    text, passages_cited = _resolve_markers(data["answer"], len(chosen))
    if not passages_cited and not data["insufficient"]:  # a reply listing its sources without marking them inline
        passages_cited = [n for n in dict.fromkeys(data.get("cited") or []) if 1 <= n <= len(chosen)]
    quotes = _quotes_by_passage(data, text, len(chosen))
    text = renumber(text, passages_cited)
    citations = [_citation(retrieval, ref, n, chosen[n - 1], quotes.get(n, []))
                 for ref, n in enumerate(passages_cited, 1)]
    return Answer(question, text, citations, retrieval, bool(data["insufficient"]), by, mode, short)


def _generate(atlas: Atlas, settings: Any, question: str, retrieval: Any,
              chosen: list[Any]) -> tuple[dict[str, Any], str | None, str]:
    """(reply, short answer, who answered): the configured provider's, else the offline extractive one."""
    provider = provider_for(settings)
    if provider.name == "offline" and offline_behaviours().get("answer") is builtin_answer:
        data, short = offline_answer(atlas.store, question, retrieval, chosen)
        return data, short, "offline"
    variables = {"question": question, "passages": [_passage(retrieval, f.id, PASSAGE_CHARS) for f in chosen]}
    try:
        return provider.generate("answer", variables).data, None, provider.name
    except LLMError as exc:
        if provider.name == "offline":
            raise
        log.warning("answer synthesis fell back to the offline answer: %s", exc.reason)
        data, short = offline_answer(atlas.store, question, retrieval, chosen)
        return data, short, f"offline ({provider.name} failed)"


def offline_answer(store: GraphStore, question: str, retrieval: Any,
                   chosen: list[Any]) -> tuple[dict[str, Any], str | None]:
    """The extractive reply over the whole passages, weighted by the atlas's idf and the passages' entities."""
    passages = [_passage(retrieval, f.id) for f in chosen]
    entities = passage_entities(store, [f.id for f in chosen])
    data, short, _ = extractive_reply(question, passages, idf=atlas_idf(store, evidence_words(question, entities)),
                                      entities=entities)
    return data, short.text if short else None


OPTION_WINDOW = 50  # how far down the shown results (at most OHARA_RESULT_LIMIT) an option's passage is looked for


def option_passages(question: str, retrieval: Any, chosen: list[Any]) -> list[Any]:
    """For a comparison question (`comparison.comparison_form`), a further result for each option no Principal
    passage is about: the one, among the shown results (the first `OPTION_WINDOW`, within the result limit),
    whose sentence about that option is its best evidence (`comparison.option_evidence`: stating the compared
    value first). A comparison answer needs both sides; the passage is cited and verified like any other."""
    titles = [view.document_title for view in retrieval.views.values() if view.document_title]
    form = comparison_form(question, titles)
    if form is None:
        return []
    have = {f.id for f in chosen}
    rows = sentence_rows([_passage(retrieval, f.id) for f in chosen])
    missing = [o for o in form.options if not any(about(r, o) for r in rows)]
    if not missing:
        return []
    pool = [f for f in retrieval.results[:OPTION_WINDOW] if f.id not in have]
    found = option_evidence(form, sentence_rows([_passage(retrieval, f.id) for f in pool]))
    extra = [pool[ev[0].sentence.passage - 1] for o, ev in zip(form.options, found) if o in missing and ev]
    return list({f.id: f for f in extra}.values())


def evidence_words(question: str, entities: list[list[tuple[str, str]]]) -> str:
    """The words whose idf the extractive answer reads: the question's and the passages' entity names'
    (a bridge through a rare name counts more than one through "United States")."""
    return " ".join([question, *(name for pairs in entities for name, _ in pairs)])


def atlas_idf(store: GraphStore, text: str) -> dict[str, float]:
    """token of `text` -> its idf over the atlas's full-text rows (`extractive.idf_from_counts`)."""
    tokens = sorted(set(re.findall(r"[a-z0-9]+", text.lower())))
    n_rows = int(store.corpus_stats().get("fts_rows") or 0)
    return idf_from_counts(store.term_document_counts(tokens), max(n_rows, 1)) if tokens else {}


def passage_entities(store: GraphStore, node_ids: list[str]) -> list[list[tuple[str, str]]]:
    """Per node, the (name, type) of every entity it mentions, its aliases included."""
    lists = {ne.node_id: ne for ne in store.entity_nodes(node_ids=node_ids)} if node_ids else {}
    slugs = sorted({s for ne in lists.values() for s in ne.slugs})
    known = {e.slug: e for e in store.get_entities(slugs)} if slugs else {}
    out = []
    for node_id in node_ids:
        ne = lists.get(node_id)
        pairs = [(name, known[s].type) for s in (ne.slugs if ne else []) if s in known
                 for name in (known[s].name, *known[s].aliases)]
        out.append(list(dict.fromkeys(pairs)))
    return out


def _passage(retrieval: Any, node_id: str, limit: int | None = None) -> str:
    """"(title)" and the node's text; `limit` cuts it for a model's prompt (the offline answer reads it whole)."""
    view = retrieval.views.get(node_id)
    if view is None:
        return node_id
    body = table_prose(view.content) if view.collection == "tables" else view.content
    return f"({view.document_title or view.document_id})\n{body[:limit] if limit else body}"


def renumber(text: str, passages: list[int]) -> str:
    """Markers as reference numbers: the passage cited first becomes [1], the next new one [2], ..."""
    ref = {p: i for i, p in enumerate(passages, 1)}
    return _MARKER.sub(lambda m: m.group(0).replace(m.group(1), str(ref.get(int(m.group(1)), m.group(1)))), text)


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


def _citation(retrieval: Any, ref: int, passage: int, fused: Any, quotes: list[str]) -> dict[str, Any]:
    view = retrieval.views.get(fused.id)
    content = view.content if view else ""
    spans, unverified = [], []
    for quote in dict.fromkeys(quotes):
        found = locate(quote, content, table=bool(view and view.collection == "tables"))
        spans += [s for s in found if s not in spans]
        if not found:
            unverified.append(quote)
    spans.sort(key=lambda s: s.start)
    return {"ref": ref, "passage": passage, "node_id": fused.id,
            "document_id": fused.document_id or (view.document_id if view else ""),
            "title": view.document_title if view else "", "section_path": list(view.section_path) if view else [],
            "section": " › ".join(view.section_path) if view else "", "page": view.page if view else None,
            "score": round(fused.score, 6), "snippet": " ".join(content.split())[:200],
            "spans": [s.to_dict() for s in spans], "verified": bool(spans) and not unverified,
            "unverified": unverified}
