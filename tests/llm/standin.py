"""Atlases on the Gemini stand-in: the real google-genai client, real HTTP, scripted model.

`faithful_model()` answers every prompt like a careful model would, from the prompt
text alone: ``ingest_document`` with the offline Markdown structurer on the chunk
it reads in the DOCUMENT_CHUNK block (tags from the SUMO lexicon, entities from
the rule-based extractor, which is fast and deterministic), every other prompt with
its offline behaviour. Tests override single prompts to script outages, injections
or particular answers.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from gemini_stub import GeminiStub
from offline_replies import Answer, OfflineResponder
from ohara_lab.atlas import Atlas
from ohara_lab.entities.extract import get_extractor
from ohara_lab.llm.offline_core import extract_query_fingerprint, ingest_document
from ohara_lab.settings import Settings

RULES = get_extractor("rules")
# The stand-in's model and the atlas use the same extractor, so LLM and offline ingests are comparable.
COMMON = {"embedder": "none", "ner": "rules", "reference_date": "2026-11-29"}


def structure_chunk(variables: dict[str, Any], _request: Any = None) -> dict[str, Any]:
    return ingest_document(variables, extractor=RULES)


def fingerprint_query(variables: dict[str, Any], _request: Any = None) -> dict[str, Any]:
    return extract_query_fingerprint(variables, extractor=RULES)


def faithful_model(**answers: Answer) -> OfflineResponder:
    return OfflineResponder({"ingest_document": structure_chunk, "extract_query_fingerprint": fingerprint_query,
                             **answers})


def gemini_atlas(path: str | Path, stub: GeminiStub, **overrides: Any) -> Atlas:
    """An atlas whose LLM is the stand-in; one attempt per tier so scripted outages cost no backoff."""
    settings = stub.settings(atlas=str(path), gemini_max_retries=1, **{**COMMON, **overrides})
    return Atlas.open(path, settings=settings)


def offline_atlas(path: str | Path, **overrides: Any) -> Atlas:
    return Atlas.open(path, settings=Settings(), llm="offline", **{**COMMON, **overrides})


def ingested_samples(path: Path) -> Path:
    """`path` holding the shipped sample corpus, ingested offline (the modes' and the LLM steps' atlas)."""
    from ohara_lab.samples import corpus_dir

    with offline_atlas(path) as atlas:
        atlas.ingest(corpus_dir(), progress=False)
    return path


def counts(atlas: Atlas) -> dict[str, Any]:
    """What a graph holds, without run-dependent fields (token usage, timestamps)."""
    s = atlas.stats()
    return {k: s[k] for k in ("documents", "sections", "paragraphs", "tables", "entities", "edges",
                              "partial_documents", "llm_pending")}
