"""Constants shared by test modules (conftest.py names collide across test folders)."""
from __future__ import annotations

# Offline, no vectors: fast, deterministic, and independent of optional extras.
OFFLINE = {"embedder": "none", "embed_paragraphs": False, "llm": "offline", "reference_date": "2026-11-29"}
