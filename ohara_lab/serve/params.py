"""What callers of `ohara serve` and `ohara mcp` may send: one typed, described definition per parameter.

Both servers build their JSON schemas from these (FastAPI's OpenAPI and the MCP tools'
input schemas), so the HTTP API and the MCP tools describe a parameter the same way.
The service enforces the caps that are settings (`OHARA_API_MAX_LIMIT`,
`OHARA_API_MAX_TEXT_CHARS`); the schemas carry the fixed ones.
"""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from ..modes import MODES
from .service import GRAPH_DEPTH_MAX

Mode = Annotated[Literal[tuple(MODES)], Field(  # type: ignore[valid-type]
    description="standard: every retrieval phase once; cor: Chain-of-Retrieval (follows the Explorer "
                "frontier and re-queries); agent: retrieval tools chosen step by step")]
QueryText = Annotated[str, Field(min_length=1, description="what to search the atlas for, in plain language")]
Question = Annotated[str, Field(min_length=1, description="the question to answer from the atlas")]
Limit = Annotated[int, Field(ge=1, description="results to return (at most OHARA_API_MAX_LIMIT, default 100)")]
Weights = Annotated[dict[str, float], Field(
    description="fusion weight overrides by phase, e.g. {\"bm25\": 0.6, \"vector\": 1.0}; names: bm25, sumo, "
                "entity_pivot, struct, cross_doc, vector, temporal")]
NodeId = Annotated[str, Field(min_length=3, max_length=220, pattern=r"^[a-z]+/[A-Za-z0-9][A-Za-z0-9_-]*$",
                              description="a node id as results give it, e.g. paragraphs/<key> or sections/<key>")]
Depth = Annotated[int, Field(ge=1, le=GRAPH_DEPTH_MAX, description="structural hops to follow")]
Signal = Annotated[Literal["positive", "negative"], Field(description="was this result useful?")]
Rank = Annotated[int, Field(ge=1, description="the rank the result was shown at")]
SnippetChars = Annotated[int, Field(ge=0, le=20000, description="cut every content text to this many characters "
                                                                 "(0 = whole texts); read full nodes through the "
                                                                 "ohara://document/{key} resources")]


class Turn(BaseModel):
    """One earlier turn of a conversation, sent with a follow-up query."""

    model_config = ConfigDict(extra="forbid")
    role: Literal["user", "assistant"]
    content: str = Field(max_length=20000)


History = Annotated[list[Turn], Field(max_length=20, description="earlier turns, oldest first (conversational "
                                                                  "queries); OHARA_SESSION_HISTORY_LIMIT are used")]


def history(turns: list[Turn] | None) -> list[dict[str, str]] | None:
    """Turns as `Atlas.query` takes them."""
    return [t.model_dump() for t in turns] if turns else None
