"""QASPER (Dasigi et al., NAACL 2021): NLP papers, paragraph-level gold (evidence text).

Two loaders:

* `load_qasper` — the official v0.3 JSON (`qasper-{train,dev,test}-v0.3.json`:
  `{paper_id: {title, abstract, full_text: [{section_name, paragraphs}], qas: [...]}}`)
  with doc_ohara's selection: `doc_manifest.json` (200 papers, `qasper_<id>.md` ->
  `{paper_id, title, question_count}`) and `qasper_queries.json` (150 questions
  `{id, question, paper_id, source_file, gold_doc_titles, gold_evidence_text}`). Without
  those two files the selection is rebuilt from the v0.3 file exactly as doc_ohara's
  prepare_qasper.js / build_query_set.js did (mulberry32 seeds 42 and 43).
* `load_qasper_leval` — the partial full text found on this machine: L-Eval's
  `scientific_qa.jsonl` (flattened papers, no ids) plus `leval_scientific_qa_paper_map.json`
  (line -> QASPER paper id): 9 papers and the 19 shipped questions about them.

Every query's `gold_doc_ids` is its paper (for doc_hit@10 and the oracle metrics) and
`gold_evidence` the evidence paragraphs the paragraph matcher looks for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from ..dataset import Dataset, DatasetError, EvalDocument, EvalQuery
from ..matchers import MATCH_PREFIX_CHARS, ParagraphMatcher, normalize_text
from ..render import flat_paper_markdown, qasper_doc_id, qasper_markdown
from ..sampling import js_shuffled, mulberry32
from ._io import expect, iter_jsonl, read_json, read_records, resolve_dir

MANIFEST_FILE = "doc_manifest.json"
QUERIES_FILE = "qasper_queries.json"
LEVAL_FILE = "leval_scientific_qa.jsonl"
LEVAL_MAP_FILE = "leval_scientific_qa_paper_map.json"
QUESTION_TYPE = "qasper"  # the original labels every QASPER question so
FIGURE_EVIDENCE = "FLOAT SELECTED"
SOURCE_HINT = (
    "download https://qasper-dataset.s3.us-west-2.amazonaws.com/qasper-train-dev-v0.3.tgz "
    "(allenai/qasper) and unpack it into the data folder"
)

Selection = Literal["auto", "shipped", "rebuild"]


def v03_file(split: str) -> str:
    return f"qasper-{split}-v0.3.json"


def read_papers(path: Path) -> dict[str, dict[str, Any]]:
    papers = read_json(path)
    expect(isinstance(papers, dict), path, "expected a JSON object keyed by paper id")
    for pid, p in papers.items():
        expect(
            isinstance(p, dict) and "title" in p and "full_text" in p, path, f"paper {pid} lacks 'title' or 'full_text'"
        )
    return papers


def sample_paper_ids(papers: Mapping[str, Any], count: int | None = 200, seed: int = 42) -> list[str]:
    """prepare_qasper.js: sorted ids, mulberry32(seed) Fisher–Yates, first `count` (None = all)."""
    shuffled = js_shuffled(sorted(papers), mulberry32(seed))
    return shuffled if count is None else shuffled[:count]


def first_answer(qa: Mapping[str, Any]) -> Mapping[str, Any] | None:
    answers = qa.get("answers") or []
    return answers[0].get("answer") if answers else None


def answer_text(answer: Mapping[str, Any] | None) -> str | None:
    """A short reference answer: yes/no, else free form, else the extractive spans."""
    if not answer or answer.get("unanswerable"):
        return None
    if answer.get("yes_no") is not None:
        return "Yes" if answer["yes_no"] else "No"
    if answer.get("free_form_answer"):
        return answer["free_form_answer"]
    spans = answer.get("extractive_spans") or []
    return "; ".join(spans) if spans else None


def text_evidence(answer: Mapping[str, Any] | None) -> list[str]:
    """Evidence paragraphs, without figure/table captions (`FLOAT SELECTED: …`)."""
    return [e for e in (answer or {}).get("evidence") or [] if e and not e.startswith(FIGURE_EVIDENCE)]


def build_query_records(
    papers: Mapping[str, Mapping[str, Any]],
    selected: Sequence[tuple[str, str]],
    count: int | None = 150,
    seed: int = 43,
) -> list[dict[str, Any]]:
    """build_query_set.js: first answer of each question of the selected papers (in
    selection order), skipping unanswerable or evidence-less ones, shuffled with
    mulberry32(seed), first `count`; ids `qa_0001`…. `selected` = [(file name, paper id)].
    """
    candidates: list[dict[str, Any]] = []
    for file_name, pid in selected:
        paper = papers[pid]
        for qa in paper.get("qas") or []:
            ans = first_answer(qa)
            evidence = text_evidence(ans)
            if not evidence or (ans or {}).get("unanswerable"):
                continue
            candidates.append(
                {
                    "question": qa["question"],
                    "paper_id": pid,
                    "source_file": file_name,
                    "gold_doc_titles": [paper["title"]],
                    "gold_evidence_text": evidence,
                }
            )
    chosen = js_shuffled(candidates, mulberry32(seed))
    if count is not None:
        chosen = chosen[:count]
    return [{"id": f"qa_{i + 1:04d}", **q} for i, q in enumerate(chosen)]


def read_shipped_queries(path: Path) -> list[dict[str, Any]]:
    return read_records(path, ("id", "question", "paper_id", "gold_evidence_text"), "question")


def to_eval_query(q: Mapping[str, Any], answer: str | None = None, extra: Mapping[str, Any] | None = None) -> EvalQuery:
    return EvalQuery(
        id=q["id"],
        text=q["question"],
        type=QUESTION_TYPE,
        gold_doc_ids=[qasper_doc_id(q["paper_id"])],
        gold_evidence=list(q["gold_evidence_text"]),
        unanswerable=False,
        answer=answer,
        meta={"paper_id": q["paper_id"], "source_file": q.get("source_file"), **(extra or {})},
    )


def _find_qa(paper: Mapping[str, Any], question: str) -> Mapping[str, Any] | None:
    return next((qa for qa in paper.get("qas") or [] if qa.get("question") == question), None)


def load_qasper(
    data_dir: str | Path,
    split: str = "dev",
    selection: Selection = "auto",
    paper_count: int | None = 200,
    query_count: int | None = 150,
    seed: int = 42,
) -> Dataset:
    """Load QASPER v0.3 with doc_ohara's paper and question selection.

    `selection`: "shipped" uses `doc_manifest.json` + `qasper_queries.json` from the folder;
    "rebuild" samples `paper_count` papers (mulberry32 `seed`) and `query_count` questions
    (seed + 1) from the v0.3 file; "auto" = shipped when both files are there, else rebuild.
    """
    folder = resolve_dir(data_dir, "qasper", (v03_file(split), MANIFEST_FILE))
    v03 = folder / v03_file(split)
    if not v03.exists():
        raise DatasetError(v03, f"QASPER v0.3 papers are missing; {SOURCE_HINT}")
    papers = read_papers(v03)
    manifest_file, queries_file = folder / MANIFEST_FILE, folder / QUERIES_FILE
    shipped_present = manifest_file.exists() and queries_file.exists()
    if selection == "auto":
        selection = "shipped" if shipped_present else "rebuild"
    notes = [f"papers: {v03}"]

    if selection == "shipped":
        if not shipped_present:
            raise DatasetError(folder, f"selection='shipped' needs {MANIFEST_FILE} and {QUERIES_FILE} here")
        manifest = read_json(manifest_file)
        selected = [(name, meta["paper_id"]) for name, meta in manifest.items()]
        raw_queries = read_shipped_queries(queries_file)
        notes.append(f"selection: {manifest_file.name} + {queries_file.name}")
    elif selection == "rebuild":
        ids = sample_paper_ids(papers, paper_count, seed)
        selected = [(f"{qasper_doc_id(pid)}.md", pid) for pid in ids]
        raw_queries = build_query_records(papers, selected, query_count, seed + 1)
        notes.append(
            f"selection rebuilt: {len(ids)} papers (mulberry32 seed {seed}), "
            f"{len(raw_queries)} questions (seed {seed + 1})"
        )
    else:
        raise DatasetError(None, f"selection must be 'auto', 'shipped' or 'rebuild', got {selection!r}")

    missing = [pid for _, pid in selected if pid not in papers]
    if missing:
        raise DatasetError(
            v03,
            f"{len(missing)} selected papers are not in this file, e.g. {missing[:3]} "
            f"(the shipped selection is from the dev split)",
        )
    docs = [
        EvalDocument(
            id=qasper_doc_id(pid),
            title=papers[pid]["title"],
            text=qasper_markdown(papers[pid]),
            source=f"QASPER v0.3 {split}",
            meta={"paper_id": pid, "question_count": len(papers[pid].get("qas") or [])},
        )
        for _, pid in selected
    ]
    selected_ids = {pid for _, pid in selected}
    queries: list[EvalQuery] = []
    for q in raw_queries:
        if q["paper_id"] not in selected_ids:
            raise DatasetError(
                queries_file, f"question {q['id']} is about paper {q['paper_id']}, which is not selected"
            )
        qa = _find_qa(papers[q["paper_id"]], q["question"])
        extra = {"question_id": qa.get("question_id")} if qa else {}
        queries.append(to_eval_query(q, answer_text(first_answer(qa)) if qa else None, extra))
    return Dataset(name="qasper", documents=docs, queries=queries, matcher="paragraph", notes=notes)


# --------------------------------------------------------------------------- L-Eval variant


def load_qasper_leval(data_dir: str | Path, include_unmapped: bool = False) -> Dataset:
    """QASPER questions over the 9 papers whose full text L-Eval ships (19 questions).

    L-Eval's flattened text has no title and no abstract: the title comes from the
    manifest, section-name lines become `##` headings (`render.is_flat_heading`), so
    evidence from an abstract cannot be found here. `include_unmapped=True` adds the
    L-Eval papers that map to no QASPER id as distractor documents.
    """
    folder = resolve_dir(data_dir, "qasper", (LEVAL_FILE, LEVAL_MAP_FILE))
    leval_file, map_file = folder / LEVAL_FILE, folder / LEVAL_MAP_FILE
    for f in (leval_file, map_file, folder / MANIFEST_FILE, folder / QUERIES_FILE):
        if not f.exists():
            raise DatasetError(
                f,
                "file missing (the L-Eval variant needs the L-Eval jsonl, its paper map, "
                "doc_manifest.json and qasper_queries.json in one folder)",
            )
    lines = {n - 1: row for n, row in iter_jsonl(leval_file)}
    for idx, row in lines.items():
        expect(
            isinstance(row, dict) and isinstance(row.get("input"), str),
            leval_file,
            "expected an object with a string 'input'",
            line=idx + 1,
        )
    paper_map = read_json(map_file)
    expect(
        isinstance(paper_map, dict) and isinstance(paper_map.get("lines"), list),
        map_file,
        "expected {'lines': [{leval_line, qasper_paper_id, ...}]}",
    )
    titles = {meta["paper_id"]: meta["title"] for meta in read_json(folder / MANIFEST_FILE).values()}

    docs: list[EvalDocument] = []
    line_of: dict[str, int] = {}
    seen_inputs: set[str] = set()
    for entry in paper_map["lines"]:
        idx, pid = entry["leval_line"], entry.get("qasper_paper_id")
        expect(idx in lines, map_file, f"maps L-Eval line {idx}, which {leval_file.name} does not have")
        if pid is None and not include_unmapped:
            continue
        if lines[idx]["input"] in seen_inputs:
            continue  # L-Eval repeats some papers verbatim (lines 0/21, 2/22, 8/20): keep the first
        seen_inputs.add(lines[idx]["input"])
        if pid is not None:
            expect(pid in titles, map_file, f"paper {pid} is not in {MANIFEST_FILE}")
            line_of[pid] = idx
            doc_id, title = qasper_doc_id(pid), titles[pid]
        else:
            doc_id, title = f"leval_line_{idx:02d}", f"L-Eval scientific_qa paper (line {idx})"
        text, headings = flat_paper_markdown(title, lines[idx]["input"])
        docs.append(
            EvalDocument(
                id=doc_id,
                title=title,
                text=text,
                source="L-Eval scientific_qa",
                meta={"paper_id": pid, "leval_line": idx, "headings": len(headings), "distractor": pid is None},
            )
        )

    raw_queries = [q for q in read_shipped_queries(folder / QUERIES_FILE) if q["paper_id"] in line_of]
    text_of = {d.meta["paper_id"]: normalize_text(d.text) for d in docs if d.meta["paper_id"]}
    queries: list[EvalQuery] = []
    findable = 0
    for q in raw_queries:
        row = lines[line_of[q["paper_id"]]]
        answer = next(
            (out for ins, out in zip(row.get("instructions") or [], row.get("outputs") or []) if ins == q["question"]),
            None,
        )
        present = _evidence_present(q["gold_evidence_text"], text_of[q["paper_id"]])
        findable += present > 0
        queries.append(to_eval_query(q, answer, {"leval_line": line_of[q["paper_id"]], "evidence_in_text": present}))
    notes = [
        f"L-Eval full text for {len(line_of)} papers; {len(queries)} of the shipped questions are about them",
        f"{findable}/{len(queries)} questions have at least one gold snippet (>40 chars) present in their paper's text",
    ]
    return Dataset(name="qasper-leval", documents=docs, queries=queries, matcher="paragraph", notes=notes)


def _evidence_present(evidence: Sequence[str], norm_doc_text: str) -> int:
    """How many matchable gold snippets occur (by their first 200 chars) in the document."""
    return sum(1 for e in ParagraphMatcher(evidence).snippets if e[:MATCH_PREFIX_CHARS] in norm_doc_text)
