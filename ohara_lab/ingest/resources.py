"""The models a document is annotated with: SUMO tagger, entity extractor, embedder."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Resources:
    """The tagger, entity extractor and embedder (None: no vectors) a document is annotated with."""

    tagger: Any
    extractor: Any
    embedder: Any
