"""What callers of `ohara serve` and `ohara mcp` may send: one typed, described definition per parameter.

Both servers build their JSON schemas from these (FastAPI's OpenAPI and the MCP tools'
input schemas), so the HTTP API and the MCP tools describe a parameter the same way.
The service enforces the caps that are settings (`OHARA_API_MAX_LIMIT`,
`OHARA_API_MAX_TEXT_CHARS`); the schemas carry the fixed ones. Texts are refused with a
NUL or a lone surrogate (JSON can carry one, UTF-8 cannot), weights by the range their
setting declares (`settings.check_setting`): NaN, infinities and negatives never reach the engine.
"""
from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from ..errors import SettingsError
from ..modes import MODES
from ..settings import bounds_of, check_setting, weight_field, weight_names
from .service import GRAPH_DEPTH_MAX, text_problem


def plain_text(text: str) -> str:
    """`text` when it is Unicode text a database and a UTF-8 reply can carry; ValueError (422) otherwise."""
    problem = text_problem(text)
    if problem:
        raise ValueError(problem)
    return text


def known_weights(weights: dict[str, float]) -> dict[str, float]:
    """`weights` when every name is a fusion weight and every value lies in its setting's range."""
    for name, value in weights.items():
        if weight_field(name) not in WEIGHTS:
            raise ValueError(f"{name!r} is not a fusion weight; known: {', '.join(WEIGHTS.values())}")
        try:
            check_setting(weight_field(name), value)
        except SettingsError as e:
            raise ValueError(f"{name}: {e}") from None
    return weights


WEIGHTS = {weight_field(name): name for name in weight_names()}
Mode = Annotated[Literal[tuple(MODES)], Field(  # type: ignore[valid-type]
    description="standard: every retrieval phase once; cor: Chain-of-Retrieval (follows the Explorer "
                "frontier and re-queries); agent: retrieval tools chosen step by step")]
QueryText = Annotated[str, Field(min_length=1, description="what to search the atlas for, in plain language"),
                      AfterValidator(plain_text)]
Question = Annotated[str, Field(min_length=1, description="the question to answer from the atlas"),
                     AfterValidator(plain_text)]
Limit = Annotated[int, Field(ge=1, description="results to return (at most OHARA_API_MAX_LIMIT, default 100)")]
Weights = Annotated[dict[str, float], Field(
    description="fusion weight overrides by phase, e.g. {\"bm25\": 0.6, \"vector\": 1.0}; names: bm25, sumo, "
                "entity_pivot, struct, cross_doc, vector, temporal; each within its OHARA_*_WEIGHT range"),
    AfterValidator(known_weights)]
NodeId = Annotated[str, Field(min_length=3, max_length=220, pattern=r"^[a-z]+/[A-Za-z0-9][A-Za-z0-9_-]*$",
                              description="a node id as results give it, e.g. paragraphs/<key> or sections/<key>")]
Depth = Annotated[int, Field(ge=1, le=GRAPH_DEPTH_MAX, description="structural hops to follow")]
Signal = Annotated[Literal["positive", "negative"], Field(description="was this result useful?")]
Rank = Annotated[int, Field(ge=1, le=int(bounds_of("result_limit").high),
                            description="the rank the result was shown at")]
Offset = Annotated[int, Field(ge=0, description="documents to skip, in listing order")]
SnippetChars = Annotated[int, Field(ge=0, le=20000, description="cut every content text to this many characters "
                                                                 "(0 = whole texts); read full nodes through the "
                                                                 "ohara://document/{key} resources")]


class Turn(BaseModel):
    """One earlier turn of a conversation, sent with a follow-up query."""

    model_config = ConfigDict(extra="forbid")
    role: Literal["user", "assistant"]
    content: Annotated[str, Field(max_length=20000), AfterValidator(plain_text)]


History = Annotated[list[Turn], Field(max_length=20, description="earlier turns, oldest first (conversational "
                                                                  "queries); OHARA_SESSION_HISTORY_LIMIT are used")]


def history(turns: list[Turn] | None) -> list[dict[str, str]] | None:
    """Turns as `Atlas.query` takes them."""
    return [t.model_dump() for t in turns] if turns else None
