"""MuSiQue (Trivedi et al., TACL 2022) as packaged by HippoRAG: questions + Wikipedia paragraphs.

Files (`data_dir` or `data_dir/musique/`): `<name>.json` — questions `{id, paragraphs,
question, question_decomposition, answer, answer_aliases, answerable}` with paragraphs
`{idx, title, paragraph_text, is_supporting}` — and `<name>_corpus.json` — `[{title, text}]`.
The list-valued fields may be Python-literal strings (HippoRAG's CSV round trip); they
are parsed with `ast.literal_eval`, and real JSON lists are accepted as they are.

One document per Wikipedia title: the corpus paragraphs with that title, merged in
corpus order. Gold = the distinct titles of the supporting paragraphs; gold evidence =
their texts. Question type = hop count ("2hop", "3hop", "4hop"; the composition
shape, e.g. "3hop1", stays in `meta`). Unanswerable queries are made with
`ohara_lab.eval.holdout.make_unanswerable`, the MuSiQue construction.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ...ids import slugify
from ..dataset import Dataset, DatasetError, EvalDocument, EvalQuery, MatcherKind
from ..render import titled_paragraphs_markdown
from ._io import expect, read_json, read_records, resolve_dir

QUESTIONS_FILE = "musique_train_100.json"
CORPUS_SUFFIX = "_corpus.json"
_LITERAL_FIELDS = ("paragraphs", "question_decomposition", "answer_aliases", "answerable")


def find_files(folder: Path) -> tuple[Path, Path]:
    """(questions, corpus): `musique_train_100*.json` if present, else the only `*_corpus.json` pair."""
    default_q = folder / QUESTIONS_FILE
    if default_q.exists():
        return default_q, folder / (default_q.stem + CORPUS_SUFFIX)
    corpora = sorted(folder.glob(f"*{CORPUS_SUFFIX}"))
    if len(corpora) != 1:
        raise DatasetError(
            folder, f"expected {QUESTIONS_FILE} or exactly one '*{CORPUS_SUFFIX}' (found {[c.name for c in corpora]})"
        )
    corpus = corpora[0]
    return folder / (corpus.name[: -len(CORPUS_SUFFIX)] + ".json"), corpus


def literal(value: Any, path: Path, qid: str, name: str) -> Any:
    """A field that may arrive as a Python-literal string."""
    if not isinstance(value, str):
        return value
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError) as exc:
        raise DatasetError(path, f"question {qid}: field {name!r} is not a Python literal ({exc})") from None


def title_doc_ids(titles: Sequence[str]) -> dict[str, str]:
    """Title -> doc id: `ohara_lab.ids.slugify(title)`, plus a short title hash when two
    titles share a slug, so ids are unique and independent of corpus order."""
    slugs = {t: slugify(t) for t in titles}
    count: dict[str, int] = {}
    for s in slugs.values():
        count[s] = count.get(s, 0) + 1
    return {
        t: s if count[s] == 1 else f"{s}-{hashlib.sha1(t.encode('utf-8')).hexdigest()[:8]}" for t, s in slugs.items()
    }


def corpus_documents(rows: Sequence[Mapping[str, Any]], path: Path) -> tuple[list[EvalDocument], dict[str, str]]:
    by_title: dict[str, list[str]] = {}
    for i, row in enumerate(rows):
        expect(
            isinstance(row, dict) and isinstance(row.get("title"), str) and isinstance(row.get("text"), str),
            path,
            f"corpus entry {i} needs string 'title' and 'text'",
        )
        paras = by_title.setdefault(row["title"], [])
        if row["text"] not in paras:  # an exact repeat adds nothing but a duplicate hit
            paras.append(row["text"])
    ids = title_doc_ids(list(by_title))
    docs = [
        EvalDocument(
            id=ids[t],
            title=t,
            text=titled_paragraphs_markdown(t, paras),
            source="Wikipedia",
            meta={"paragraphs": len(paras)},
        )
        for t, paras in by_title.items()
    ]
    return docs, ids


def load_musique(
    data_dir: str | Path,
    questions_path: str | Path | None = None,
    corpus_path: str | Path | None = None,
    matcher: MatcherKind = "doc",
) -> Dataset:
    """Load MuSiQue questions and corpus; `matcher="paragraph"` scores on supporting texts."""
    folder = resolve_dir(data_dir, "musique", (QUESTIONS_FILE,))
    if questions_path and corpus_path:
        qfile, cfile = Path(questions_path), Path(corpus_path)
    else:
        found_q, found_c = find_files(folder)
        qfile = Path(questions_path) if questions_path else found_q
        cfile = Path(corpus_path) if corpus_path else found_c
    corpus = read_json(cfile)
    expect(isinstance(corpus, list), cfile, "expected a JSON list of {title, text}")
    docs, ids = corpus_documents(corpus, cfile)

    raw = read_records(qfile, ("id", "question", "paragraphs"), "question")
    queries: list[EvalQuery] = []
    for q in raw:
        qid = str(q["id"])
        fields = {name: literal(q.get(name), qfile, qid, name) for name in _LITERAL_FIELDS}
        supporting = [p for p in fields["paragraphs"] or [] if p.get("is_supporting")]
        gold_titles = list(dict.fromkeys(p["title"] for p in supporting))
        unknown = [t for t in gold_titles if t not in ids]
        if unknown:
            raise DatasetError(cfile, f"question {qid}: supporting titles not in the corpus: {unknown[:3]}")
        answerable = fields["answerable"] is not False
        composition = qid.split("__", 1)[0]
        queries.append(
            EvalQuery(
                id=qid,
                text=q["question"],
                type=re.sub(r"(\d+hop)\d*$", r"\1", composition),
                gold_doc_ids=[ids[t] for t in gold_titles] if answerable else [],
                gold_evidence=[p["paragraph_text"] for p in supporting] if answerable else [],
                unanswerable=not answerable,
                answer=q.get("answer"),
                meta={
                    "composition": composition,
                    "answer_aliases": fields["answer_aliases"] or [],
                    "decomposition": fields["question_decomposition"] or [],
                    "gold_titles": gold_titles,
                },
            )
        )
    notes = [f"questions: {qfile}", f"corpus: {cfile} ({len(corpus)} paragraphs -> {len(docs)} titles)"]
    return Dataset(name="musique", documents=docs, queries=queries, matcher=matcher, notes=notes)
