"""MuSiQue offline ingest paragraphs/s, model start-up excluded (5 documents first, untimed); the corpus is read from $OHARA_SHARED (default ../shared).

    python benchmarks/musique_ingest_rate.py SRC ATLAS_DIR [titles|small]

SRC: a checkout of the package (git archive); titles = one document per MuSiQue title, small = one
per paragraph. OHARA_EMBEDDER=none, offline. Prints one JSON line with the load average.
"""
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, sys.argv[1])
from ohara_lab import Atlas

atlas_dir, mode = sys.argv[2], (sys.argv[3] if len(sys.argv) > 3 else "titles")
rows = json.loads((Path(os.environ.get("OHARA_SHARED", "../shared")) / "datasets/musique/musique_train_100_corpus.json").read_text())
if mode == "titles":
    merged = defaultdict(list)
    for row in rows:
        merged[row["title"]].append(row["text"])
    items = [{"text": "\n\n".join(t), "title": k, "source_id": f"musique:{k}"} for k, t in merged.items()]
else:
    items = [{"text": r["text"], "title": r["title"], "source_id": f"musique:{i}"} for i, r in enumerate(rows)]
with Atlas.open(atlas_dir, embedder="none", embed_paragraphs=False, llm="offline", reference_date="2026-11-29") as atlas:
    atlas.ingest_texts(items[:5], progress=False)  # warm-up: model loading is start-up
    t0 = time.perf_counter()
    rep = atlas.ingest_texts(items[5:], progress=False)
    s = time.perf_counter() - t0
    st = atlas.stats()
print(json.dumps({"mode": mode, "seconds": round(s, 2), "paragraphs": st["paragraphs"], "pps": round((st["paragraphs"]) / s, 1), "load": os.getloadavg()}))
