"""Convert a HippoRAG `reproduce/dataset` pair (HotpotQA / 2WikiMultiHopQA style) to the generic dataset folder.

    python benchmarks/hipporag_to_generic.py --questions hotpotqa_train.json \
        --corpus hotpotqa_train_corpus.json --out /tmp/ohara-data/hotpotqa --n 100 --seed 13

Input, as HippoRAG ships it (github.com/OSU-NLP-Group/HippoRAG, `reproduce/dataset/` or `data/`):
- questions: a JSON list of `{_id, question, answer, type, supporting_facts, context}`;
  `supporting_facts` is `[[title, sentence index], ...]` (a list, or its Python repr as a string),
  `answer` a string; 2Wiki rows may carry `answer_aliases` (kept), MuSiQue-style rows `answer_aliases` too.
- corpus: either a dict `{title: [sentence, ...]}` or a list of `{title, text}`.

Output (`ohara_lab.eval.datasets.generic`): `corpus.jsonl` (one document per passage, id = a slug of its title)
and `queries.jsonl` (`gold_doc_ids` = the supporting facts' titles, `answer`, `answer_aliases`,
`question_type` = the row's `type`). `--n` questions are drawn with `random.Random(seed)`; the corpus is
kept whole (the distractors stay). The data is not committed: write it under /tmp/ohara-data.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
from pathlib import Path
from typing import Any


def _parse(value: Any) -> Any:
    return ast.literal_eval(value) if isinstance(value, str) else value


def _slug(title: str, taken: dict[str, str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-") or "doc"
    slug, n = base, 2
    while slug in taken and taken[slug] != title:
        slug, n = f"{base}-{n}", n + 1
    taken[slug] = title
    return slug


def corpus_rows(corpus: Any) -> list[tuple[str, str]]:
    """(title, text) per passage, in file order."""
    if isinstance(corpus, dict):
        return [
            (t, " ".join(s.strip() for s in sents) if isinstance(sents, list) else str(sents))
            for t, sents in corpus.items()
        ]
    return [(row["title"], row["text"]) for row in corpus]


def convert(questions: list[dict[str, Any]], corpus: Any, n: int, seed: int) -> tuple[list[dict], list[dict]]:
    taken: dict[str, str] = {}
    docs, by_title = [], {}
    for title, text in corpus_rows(corpus):
        if title in by_title or not text.strip():
            continue
        by_title[title] = _slug(title, taken)
        docs.append({"id": by_title[title], "title": title, "text": text.strip()})
    rows = list(questions)
    random.Random(seed).shuffle(rows)
    queries = []
    for row in rows:
        gold = [by_title[t] for t, _ in _parse(row.get("supporting_facts") or []) if t in by_title]
        answer = row.get("answer")
        if not gold or not isinstance(answer, str) or not answer.strip():
            continue
        aliases = [a for a in _parse(row.get("answer_aliases") or []) if isinstance(a, str) and a != answer]
        queries.append(
            {
                "id": str(row.get("_id") or row.get("id")),
                "question": row["question"],
                "gold_doc_ids": list(dict.fromkeys(gold)),
                "question_type": row.get("type") or "default",
                "answer": answer,
                "answer_aliases": aliases,
            }
        )
        if len(queries) == n:
            break
    return docs, queries


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--questions", required=True, type=Path)
    ap.add_argument("--corpus", required=True, type=Path)
    ap.add_argument("--out", required=True, type=Path)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    docs, queries = convert(
        json.loads(args.questions.read_text()), json.loads(args.corpus.read_text()), args.n, args.seed
    )
    args.out.mkdir(parents=True, exist_ok=True)
    for name, rows in (("corpus.jsonl", docs), ("queries.jsonl", queries)):
        with (args.out / name).open("w") as fh:
            fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    print(f"{len(docs)} documents, {len(queries)} queries -> {args.out}")


if __name__ == "__main__":
    main()
