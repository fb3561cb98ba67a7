"""Measure the offline SUMO tagger's throughput (not a test: pytest does not collect it).

    python tests/ontology/bench_tagger.py [TEXT_FILE] [--paragraphs 2000] [--words 120]

Cuts TEXT_FILE (default: the shared "Mastering Bitcoin" sample) into paragraphs of
exactly `--words` words, cycles them up to `--paragraphs`, and times
`Ontology.tag_texts` on one core: a first pass (lemma cache cold) and the best of
three warm passes, in wall-clock and in CPU time (CPU time is what one core
delivers when the machine is shared). Lexicon loading is timed separately.
"""
from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from ohara_lab.ontology import load_ontology  # noqa: E402

DEFAULT_TEXT = REPO.parent / "shared" / "samples" / "mastering-bitcoin-2nd.md"


def paragraphs(path: Path, count: int, words: int) -> list[str]:
    text = path.read_text(encoding="utf-8", errors="replace")
    text = re.sub(r"```.*?```", " ", text, flags=re.S)  # code blocks are not prose
    tokens = re.sub(r"[#*_`>|\[\]()]", " ", text).split()
    chunks = [" ".join(tokens[i : i + words]) for i in range(0, len(tokens) - words + 1, words)]
    if not chunks:
        raise SystemExit(f"{path}: fewer than {words} words")
    return [chunks[i % len(chunks)] for i in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("text", nargs="?", type=Path, default=DEFAULT_TEXT)
    parser.add_argument("--paragraphs", type=int, default=2000)
    parser.add_argument("--words", type=int, default=120)
    args = parser.parse_args()

    t0 = time.perf_counter()
    onto = load_ontology()
    onto.tagger  # noqa: B018 - force the lexicon load
    load_s = time.perf_counter() - t0
    paras = paragraphs(args.text, args.paragraphs, args.words)
    distinct = len(set(paras))

    first, cold_s, cold_cpu = _timed(onto.tag_texts, paras)
    warm = [_timed(onto.tag_texts, paras) for _ in range(3)]
    warm_s, warm_cpu = min(w[1] for w in warm), min(w[2] for w in warm)
    if any(w[0] != first for w in warm):
        raise SystemExit("tagger is not deterministic")

    print(f"corpus: {args.text} ({distinct} distinct {args.words}-word paragraphs, cycled to {len(paras)})")
    print(f"lexicon load: {load_s:.2f} s")
    n = len(paras)
    print(f"first pass: {n / cold_s:,.0f} paragraphs/s wall, {n / cold_cpu:,.0f} paragraphs/s CPU")
    print(f"warm pass:  {n / warm_s:,.0f} paragraphs/s wall, {n / warm_cpu:,.0f} paragraphs/s CPU "
          f"({warm_cpu * 1000 / n:.3f} ms CPU each)")


def _timed(fn, arg):
    t0, c0 = time.perf_counter(), time.process_time()
    out = fn(arg)
    return out, time.perf_counter() - t0, time.process_time() - c0


if __name__ == "__main__":
    main()
