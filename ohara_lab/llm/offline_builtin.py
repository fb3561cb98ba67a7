"""Built-in offline behaviours: lexical heuristics standing in for the LLM.

Each function takes the prompt's variables and returns data satisfying the prompt's
schema (the offline provider checks). They are deliberately simple and predictable:
the point is that every LLM-backed feature runs, deterministically, without a key.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from typing import Any

from ..extractive import extractive_reply
from ..text import QUERY_STOPWORDS, QUESTION_WORDS, sentences, stem, tokenize

STOPWORDS = QUERY_STOPWORDS | QUESTION_WORDS


def terms(text: str) -> list[str]:
    """Content terms of `text`: lower-case alphanumeric runs, >=3 chars, not stopwords, stemmed."""
    return [stem(t) for t in tokenize(text, STOPWORDS)]


def _clip_words(text: str, max_words: int) -> str:
    words = text.split()
    return " ".join(words[:max_words])


def _clip_chars(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def _join_names(names: list[str]) -> str:
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


# --------------------------------------------------------------------------- verification


def self_rag_verify(v: dict[str, Any]) -> dict[str, Any]:
    """Responsive unless the passage shares no content term with the query (leans true)."""
    query = set(terms(v["query"]))
    passage = set(terms(v["passage"]))
    shared = sorted(query & passage)
    if not query:
        return {"responsive": True, "reason": "query has no content terms to check"}
    if not shared:
        return {"responsive": False, "reason": "passage shares no content term with the query"}
    return {"responsive": True, "reason": _clip_chars(f"shares {len(shared)}/{len(query)} query terms: {', '.join(shared)}", 100)}


def verify_integrity_claim(v: dict[str, Any]) -> dict[str, Any]:
    """Verified only when the snippets cover >=60% of the claim's content terms (conservative)."""
    claim = set(terms(v["claim"]))
    snippets = v.get("corroborating_snippets") or []
    support = set()
    for snippet in snippets:
        support |= set(terms(snippet))
    if len(claim) < 2 or not snippets:
        return {"verified": False, "reason": "too little claim text or no snippets to check it against"}
    covered = claim & support
    ratio = len(covered) / len(claim)
    verified = ratio >= 0.6
    reason = f"snippets cover {len(covered)} of {len(claim)} claim terms ({ratio:.0%})"
    return {"verified": verified, "reason": reason}


# --------------------------------------------------------------------------- query planning

_SPLIT = re.compile(
    r"\s*(?:;|,?\s+\b(?:and then|and also|as well as|and|but|while|whereas)\b\s+"
    r"|,?\s+\b(?=(?:which|who|whose|where)\b))\s*",
    re.IGNORECASE,
)


def reasoning_subquery(v: dict[str, Any]) -> dict[str, Any]:
    """Split a multi-hop question on conjunctions and relative clauses: 0-2 sub-queries."""
    question = v["query"].strip().rstrip("?.! ")
    pieces = [p.strip(" ,") for p in _SPLIT.split(question) if p and p.strip(" ,")]
    useful = [p for p in pieces if len(terms(p)) >= 1 and len(p.split()) >= 2]
    if len(useful) < 2:
        return {"subqueries": []}
    return {"subqueries": [_clip_words(p, 19) for p in useful[:2]]}


AGENT_TOOL_ORDER = ("bm25", "entity_pivot", "cross_doc", "structural")
ENOUGH_CORROBORATED = 5  # a full Principal tier at the default principal_limit


def agent_strategy(v: dict[str, Any]) -> dict[str, Any]:
    """Fixed order bm25 -> entity_pivot -> cross_doc -> structural -> done; done at >=5 corroborated nodes.

    Counting corroborated nodes, not found ones: BM25 alone finds dozens of nodes,
    none of which is evidence until a second tool reaches it.
    """
    found = int(v.get("found_count") or 0)
    corroborated = int(v.get("corroborated_count") or 0)
    used = set(v.get("tools_used") or [])
    if corroborated >= ENOUGH_CORROBORATED:
        return {"tool": "done", "reason": f"{corroborated} of {found} nodes corroborated, enough to answer", "hint": None}
    for tool in AGENT_TOOL_ORDER:
        if tool not in used:
            return {"tool": tool, "reason": f"next unused tool in the fixed order ({corroborated} of {found} nodes "
                                            "corroborated so far)", "hint": None}
    return {"tool": "done", "reason": "every tool has been used", "hint": None}


def _flatten_sections(tree: Any) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    stack = list(tree) if isinstance(tree, list) else [tree]
    stack.reverse()
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        out.append(node)
        children = node.get("children") or []
        stack.extend(reversed([c for c in children if isinstance(c, dict)]))
    return out


def toc_section_selector(v: dict[str, Any]) -> dict[str, Any]:
    """Sections whose title (or summary) shares terms with the query, best first, at most 5."""
    query = set(terms(v["query"]))
    scored = []
    for position, section in enumerate(_flatten_sections(v.get("section_tree") or [])):
        sid = section.get("id")
        if not isinstance(sid, str) or not sid:
            continue
        title_terms = set(terms(str(section.get("title") or "")))
        summary_terms = set(terms(str(section.get("summary") or "")))
        score = 2 * len(query & title_terms) + len(query & summary_terms)
        if score:
            scored.append((-score, position, sid))
    scored.sort()
    ids: list[str] = []
    for _, _, sid in scored:
        if sid not in ids:
            ids.append(sid)
    return {"relevant_section_ids": ids[:5]}


def rerank(v: dict[str, Any]) -> dict[str, Any]:
    """Identity order: offline has no better judge than the fused score."""
    return {"ranked": list(range(1, len(v.get("passages") or []) + 1))}


# --------------------------------------------------------------------------- writing

def answer(v: dict[str, Any]) -> dict[str, Any]:
    """Extractive answer (`ohara_lab.extractive`): the sentences adding most evidence for the question, cited [n],
    each also given as a quote, after a short answer when one span of the expected type stands out.

    Here only the prompt's variables are at hand, so term weights are the idf over the passages' own
    sentences and no entity lists are known; `Atlas.answer` and the evaluation harness call
    `extractive_reply` with the atlas's document frequencies and the passages' stored entities.
    """
    passages = v.get("passages") or []
    if not passages:
        return {"answer": "No relevant documents found.", "cited": [], "insufficient": True, "quotes": []}
    return extractive_reply(v["question"], passages)[0]


def describe_document(v: dict[str, Any]) -> dict[str, Any]:
    """First sentence of the first paragraph longer than 80 chars, at most 25 words."""
    paragraphs = [p for p in (v.get("paragraphs") or []) if p.strip()]
    chosen = next((p for p in paragraphs if len(p.strip()) > 80), paragraphs[0] if paragraphs else "")
    first = sentences(chosen)[0] if sentences(chosen) else ""
    if not first:
        title = (v.get("title") or "").strip()
        first = f"A document titled {title}." if title else "A document without body text."
    return {"description": _clip_chars(_clip_words(first, 25), 200)}


def _entity_names(shared: Iterable[Any]) -> list[str]:
    names = []
    for item in shared:
        if isinstance(item, str):
            name = item
        elif isinstance(item, dict):
            name = item.get("name") or item.get("canonical") or item.get("slug") or ""
        else:
            continue
        name = str(name).strip()
        if name and name not in names:
            names.append(name)
    return names


_PASCAL = re.compile(r"^[A-Z][A-Za-z0-9]*$")


def enrich_cross_doc_edge(v: dict[str, Any]) -> dict[str, Any]:
    """Template verb and summary from the shared entities; tags = shared SUMO tags."""
    doc_a = v.get("doc_a") or {}
    doc_b = v.get("doc_b") or {}
    names = _entity_names(v.get("shared_entities") or [])
    tags_a = [t for t in doc_a.get("sumo_tags") or [] if isinstance(t, str) and _PASCAL.match(t)]
    tags_b = [t for t in doc_b.get("sumo_tags") or [] if isinstance(t, str) and _PASCAL.match(t)]
    tags = [t for t in tags_a if t in tags_b] or tags_a or tags_b or ["Entity"]
    if names:
        verb = "shares entities with"
        summary = f"Both documents discuss {_join_names(names[:5])}"
        summary += f" and {len(names) - 5} more shared entities." if len(names) > 5 else "."
    else:
        verb = "relates to"
        summary = "The documents are linked by overlapping entities."
    return {"verb": verb, "tags": tags[:4], "summary": _clip_words(summary, 60), "contradiction_note": None}


def judge_answer(v: dict[str, Any]) -> dict[str, Any]:
    """Normalised match (lower-case, [a-z0-9 ] only): equal, or one contains the other (gold > 3 chars, answer > 2)."""
    norm = lambda t: " ".join(re.sub(r"[^a-z0-9 ]", " ", str(t or "").lower()).split())  # noqa: E731
    a, g = norm(v.get("answer")), norm(v.get("gold"))
    return {"correct": bool(a and g and (a == g or (len(g) > 3 and g in a) or (len(a) > 2 and a in g)))}


def paragraph_questions(v: dict[str, Any]) -> dict[str, Any]:
    """"what about <a> <b>": the paragraph's two most frequent content terms (ties alphabetical), so
    paragraphs about the same two things share a question. A stand-in for the model, not a question
    generator: offline ingest asks no questions and writes no ANSWERS_SAME edge."""
    out = []
    for n, paragraph in enumerate(v.get("paragraphs") or [], 1):
        counts: dict[str, int] = {}
        for term in terms(paragraph):
            counts[term] = counts.get(term, 0) + 1
        top = sorted(counts, key=lambda t: (-counts[t], t))[:2]
        if top:
            out.append({"paragraph": n, "questions": [_clip_chars("what about " + " ".join(sorted(top)), 120)]})
    return {"questions": out}


BUILTIN: dict[str, Callable[[dict[str, Any]], dict[str, Any]]] = {
    "judge_answer": judge_answer,
    "self_rag_verify": self_rag_verify,
    "verify_integrity_claim": verify_integrity_claim,
    "reasoning_subquery": reasoning_subquery,
    "agent_strategy": agent_strategy,
    "toc_section_selector": toc_section_selector,
    "rerank": rerank,
    "answer": answer,
    "describe_document": describe_document,
    "enrich_cross_doc_edge": enrich_cross_doc_edge,
    "paragraph_questions": paragraph_questions,
}
