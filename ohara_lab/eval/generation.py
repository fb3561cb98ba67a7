"""Answer accuracy from each config's top 10 (spec §5 "Generation").

For every answerable query a config retrieves 10 results (`result_limit=10`); their
texts become the numbered passages of the `answer` prompt, sent to the configured LLM
provider. Offline the answer is extractive (`ohara_lab.extractive`: the sentences adding
most evidence for the question, with a short answer when one span of the expected type
stands out), the same answer `Atlas.answer` gives without a key. The judge is the original's normalised match:
lowercase, anything but [a-z0-9 ] to a space, collapse spaces; correct if equal, if
the answer contains the gold (gold longer than 3 characters) or the gold contains the
answer (answer longer than 2). The original asked an LLM YES/NO for the remaining cases;
that happens here only with an LLM configured *and* a `judge_answer` prompt installed.

Caveat, measured rather than hidden: an extractive answer is up to three sentences, so
"answer contains gold" is lenient. `context_has_answer` (the gold appears in the
10 passages at all) is the ceiling any reader of this context could reach.

Answer metrics (`GenerationRun.metrics`, `ohara eval --answers`), per config over the answerable
queries, every gold alias counted: `short_em` / `short_f1`, exact match and token F1 of the short
answer after SQuAD v1.1's normalisation (Rajpurkar et al., 2016: lower case, no punctuation, no
articles; a missing short answer scores 0); `answer_contains`, the gold as whole words in the answer
text; `answer_words`, its mean length; `context_has_answer`, the gold as whole words in the passages
the answerer read; `support_precision`, the share of cited passages that are gold (the dataset's
matcher), over the answers citing any.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..extractive import extractive_reply
from .build import BuiltAtlas, build_atlas
from .configs import get_configs
from .dataset import Dataset, EvalQuery
from .matchers import matcher_for
from .runner import DEFAULT_SEED, prepare_dataset, run_config
from .splits import half

GENERATION_CONFIGS = "vector_only,full,tuned"
TOP_K = 10
PASSAGE_CHARS = 2_400  # 10 passages x 2,400 = the original's 24,000-character context
_CITATION = re.compile(r"\[\d+\]")

Judge = Callable[[str, str, str], bool]  # (question, gold, answer) -> correct


def normalise(text: str | None) -> str:
    return " ".join(re.sub(r"[^a-z0-9 ]", " ", (text or "").lower()).split())


def match_kind(answer: str, golds: Sequence[str]) -> str | None:
    """'exact' | 'answer_contains_gold' | 'gold_contains_answer' | None, over every gold alias."""
    a = normalise(_CITATION.sub(" ", answer))
    if not a:
        return None
    for gold in golds:
        g = normalise(gold)
        if not g:
            continue
        if a == g:
            return "exact"
        if len(g) > 3 and g in a:
            return "answer_contains_gold"
        if len(a) > 2 and a in g:
            return "gold_contains_answer"
    return None


_ARTICLES = re.compile(r"\b(?:a|an|the)\b")
_PUNCT = re.compile(r"[^\w\s]")


def squad_normalise(text: str | None) -> str:
    """SQuAD v1.1's answer normalisation: lower case, no punctuation, no articles, single spaces."""
    return " ".join(_ARTICLES.sub(" ", _PUNCT.sub(" ", (text or "").lower())).split())


def short_em(short: str | None, golds: Sequence[str]) -> float:
    """1.0 when the short answer equals the gold or an alias after `squad_normalise`, else 0.0 (None scores 0)."""
    s = squad_normalise(short)
    return float(bool(s) and any(s == squad_normalise(g) for g in golds))


def short_f1(short: str | None, golds: Sequence[str]) -> float:
    """SQuAD token F1 of the short answer against its best gold or alias (None scores 0)."""
    pred = squad_normalise(short).split()
    best = 0.0
    for gold in golds:
        ref = squad_normalise(gold).split()
        common = sum((Counter(pred) & Counter(ref)).values())
        if common:
            p, r = common / len(pred), common / len(ref)
            best = max(best, 2 * p * r / (p + r))
    return best


def contains_answer(text: str, golds: Sequence[str]) -> bool:
    """The gold or an alias, SQuAD-normalised, appears in `text` as whole words (citation markers ignored)."""
    hay = f" {squad_normalise(_CITATION.sub(' ', text))} "
    return any(g and f" {g} " in hay for g in map(squad_normalise, golds))


def answer_words(text: str) -> int:
    """Words of the answer (runs holding a letter or digit), citation markers not counted."""
    return sum(any(ch.isalnum() for ch in w) for w in _CITATION.sub(" ", text).split())


def gold_answers(query: EvalQuery) -> list[str]:
    """The reference answer plus its aliases (MuSiQue ships aliases; scoring accepts any)."""
    golds = [query.answer] if query.answer else []
    golds += [a for a in query.meta.get("answer_aliases") or [] if isinstance(a, str)]
    return list(dict.fromkeys(golds))


def default_llm_judge(settings: Any) -> Judge | None:
    """A YES/NO judge when an LLM is configured and a `judge_answer` prompt exists, else None."""
    from ..llm import prompt_names  # noqa: PLC0415
    from ..llm.shared import provider_for  # noqa: PLC0415

    provider = provider_for(settings)
    if provider.name == "offline" or "judge_answer" not in prompt_names():
        return None

    def judge(question: str, gold: str, answer: str) -> bool:
        reply = provider.generate("judge_answer", {"question": question, "gold": gold, "answer": answer})
        return bool(reply.data.get("correct"))

    return judge


@dataclass
class GenerationRun:
    rows: list[dict[str, Any]]  # one per (config, query)
    summary: list[dict[str, Any]]  # one per config
    by_type: list[dict[str, Any]]  # one per (config, question type)
    provider: str = "offline"
    judge: str = "normalised match"
    notes: list[str] = field(default_factory=list)

    def metrics(self) -> dict[str, Any]:
        """The answer metrics per config, the JSON contract of `ohara eval --answers`: {"configs": {name: {...}}},
        and per config and question type (bridge / comparison, 2hop / 3hop ...): {"by_type": {name: {type: {...}}}}."""
        keys = ("n", *ANSWER_METRICS)
        by_type: dict[str, dict[str, Any]] = {}
        for r in self.by_type:
            by_type.setdefault(r["config"], {})[str(r["question_type"])] = {k: r[k] for k in keys}
        return {"provider": self.provider, "judge": self.judge, "notes": self.notes,
                "configs": {r["config"]: {k: r[k] for k in keys} for r in self.summary}, "by_type": by_type}


ANSWER_METRICS = ("short_em", "short_f1", "answer_contains", "answer_words", "context_has_answer",
                  "support_precision", "accuracy", "short_given", "insufficient")


def generation_run(
    built: BuiltAtlas,
    dataset: Dataset,
    configs: str | Sequence[str] = GENERATION_CONFIGS,
    *,
    top_k: int = TOP_K,
    llm_judge: Judge | None = None,
    progress: bool = False,
    overrides: dict[str, Any] | None = None,
) -> GenerationRun:
    """Answer every answerable query with gold text from each config's top `top_k`, and judge it.

    Offline (the built-in `answer` behaviour) the answer is `ohara_lab.extractive`'s over the whole
    passages, weighted by the atlas's idf and the passages' stored entities, as `Atlas.answer` gives
    it; a model gets each passage cut at `PASSAGE_CHARS`. `overrides` apply to every config (e.g. a
    profile); a config naming its own profile keeps it.
    """
    from ..llm import offline_behaviours  # noqa: PLC0415
    from ..llm.offline_builtin import answer as builtin_answer  # noqa: PLC0415
    from ..llm.shared import provider_for  # noqa: PLC0415
    from ..modes.answer import atlas_idf, evidence_words, passage_entities  # noqa: PLC0415

    provider = provider_for(built.atlas.settings)
    extractive = provider.name == "offline" and offline_behaviours().get("answer") is builtin_answer
    queries = [q for q in dataset.queries if not q.is_null and gold_answers(q)]
    ids = [q.id for q in queries]
    store = built.atlas.store
    rows: list[dict[str, Any]] = []
    for config in get_configs(configs if isinstance(configs, str) else list(configs)):
        extra = {k: v for k, v in (overrides or {}).items() if not (k == "profile" and "profile" in config.overrides)}
        run = run_config(built, dataset, config, overrides=extra, query_ids=ids, result_limit=top_k,
                         progress=progress)
        for q in queries:
            items = [item for item in run.results[q.id].ranked[:top_k] if item.text]
            short = None
            if extractive:
                passages = [f"({item.title})\n{item.text}" if item.title else item.text for item in items]
                entities = passage_entities(store, [i.node_id for i in items])
                idf = atlas_idf(store, evidence_words(q.text, entities))
                reply, span, _ = extractive_reply(q.text, passages, idf=idf, entities=entities)
                short = span.text if span else None
            else:
                passages = [item.text[:PASSAGE_CHARS] for item in items]
                reply = provider.generate("answer", {"question": q.text, "passages": passages}).data
            golds = gold_answers(q)
            answer = str(reply.get("answer", ""))
            insufficient = bool(reply.get("insufficient"))
            how = None if insufficient else match_kind(answer, golds)
            if how is None and llm_judge is not None and not insufficient:
                how = "llm_judge" if llm_judge(q.text, golds[0], answer) else None
            matcher = matcher_for(q, dataset.matcher)
            cited = [n for n in dict.fromkeys(reply.get("cited") or []) if isinstance(n, int) and 1 <= n <= len(items)]
            gold_cited = [matcher(items[n - 1]) is not None for n in cited]
            rows.append({"config": config.name, "id": q.id, "question_type": q.type, "gold": golds[0],
                         "short": short, "answer": answer, "insufficient": insufficient,
                         "correct": how is not None, "how": how,
                         "short_em": short_em(short, golds), "short_f1": round(short_f1(short, golds), 4),
                         "answer_contains": not insufficient and contains_answer(answer, golds),
                         "answer_words": answer_words(answer),
                         "context_has_answer": contains_answer(" ".join(passages), golds),
                         "support_precision": sum(gold_cited) / len(gold_cited) if gold_cited else None})
    return GenerationRun(rows, _summarise(rows, ("config",)), _summarise(rows, ("config", "question_type")),
                         provider=provider.name + (" (extractive)" if extractive else ""),
                         judge="normalised match" + (" + LLM judge" if llm_judge else ""),
                         notes=[f"{len(queries)} answerable queries with a reference answer; top {top_k} per config"])


def evaluate_answers(
    name_or_path: str | Path,
    data_dir: str | Path | None = None,
    *,
    configs: str = GENERATION_CONFIGS,
    limit: int | None = None,
    distractors: int | None = None,
    unanswerable: float | None = None,
    seed: int = DEFAULT_SEED,
    atlas_dir: str | Path | None = None,
    embedder: str = "auto",
    reference_date: str | None = None,
    rebuild: bool = False,
    profile: str | None = None,
    split: str | None = None,
    top_k: int = TOP_K,
    progress: bool = True,
) -> GenerationRun:
    """Load, build (or reuse the cached atlas), answer: what `ohara eval --answers` does (`split` keeps one
    seeded half of the queries, as `evaluate_dataset`'s does)."""
    ds = prepare_dataset(name_or_path, data_dir, limit=limit, distractors=distractors, unanswerable=unanswerable,
                         seed=seed)
    with build_atlas(ds, atlas_dir, embedder=embedder, reference_date=reference_date, progress=progress,
                     rebuild=rebuild) as built:
        return generation_run(built, half(ds, split, seed), configs, top_k=top_k, progress=progress,
                              overrides={"profile": profile} if profile else None)


def answer_table(run: GenerationRun) -> str:
    """The answer metrics as a fixed-width text table, one row per config (shares as percentages)."""
    head = ("config", "n", *ANSWER_METRICS[:6])
    lines = ["  ".join(f"{h:>18}" if i else f"{h:<14}" for i, h in enumerate(head))]
    for r in run.summary:
        cells = [f"{r['config']:<14}", f"{r['n']:>18}"]
        for k in ANSWER_METRICS[:6]:
            v = r[k]
            cells.append(f"{'-':>18}" if v is None else f"{v:>18.1f}" if k == "answer_words" else f"{100 * v:>17.1f}%")
        lines.append("  ".join(cells))
    return "\n".join(lines)


def _mean(values: Sequence[Any], digits: int = 4) -> float | None:
    present = [float(v) for v in values if v is not None]
    return round(sum(present) / len(present), digits) if present else None


def _summarise(rows: Sequence[dict[str, Any]], keys: tuple[str, ...]) -> list[dict[str, Any]]:
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    out = []
    for key, rs in groups.items():
        out.append({**dict(zip(keys, key)), "n": len(rs),
                    "accuracy": _mean([r["correct"] for r in rs]),
                    "context_has_answer": _mean([r["context_has_answer"] for r in rs]),
                    "insufficient": _mean([r["insufficient"] for r in rs]),
                    "short_em": _mean([r["short_em"] for r in rs]),
                    "short_f1": _mean([r["short_f1"] for r in rs]),
                    "short_given": _mean([r["short"] is not None for r in rs]),
                    "answer_contains": _mean([r["answer_contains"] for r in rs]),
                    "answer_words": _mean([r["answer_words"] for r in rs], 1),
                    "support_precision": _mean([r["support_precision"] for r in rs])})
    return out
