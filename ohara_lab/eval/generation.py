"""Answer accuracy from each config's top 10 (spec §5 "Generation").

For every answerable query a config retrieves 10 results (`result_limit=10`); their
texts become the numbered passages of the `answer` prompt, sent to the configured LLM
provider. Offline that provider answers extractively (the passage sentences sharing
most query terms, `ohara_lab.llm.offline_builtin.answer`), the same answer
`Atlas.answer` gives without a key. The judge is the original's normalised match:
lowercase, anything but [a-z0-9 ] to a space, collapse spaces; correct if equal, if
the answer contains the gold (gold longer than 3 characters) or the gold contains the
answer (answer longer than 2). The original asked an LLM YES/NO for the remaining cases;
that happens here only with an LLM configured *and* a `judge_answer` prompt installed.

Caveat, measured rather than hidden: an extractive answer is up to three sentences, so
"answer contains gold" is lenient. `context_has_answer` (the gold appears in the
10 passages at all) is the ceiling any reader of this context could reach.
"""
from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .build import BuiltAtlas
from .configs import get_configs
from .dataset import Dataset, EvalQuery
from .runner import run_config

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
    """Words of the answer, citation markers not counted."""
    return len(_CITATION.sub(" ", text).split())


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


def generation_run(
    built: BuiltAtlas,
    dataset: Dataset,
    configs: str | Sequence[str] = GENERATION_CONFIGS,
    *,
    top_k: int = TOP_K,
    llm_judge: Judge | None = None,
    progress: bool = False,
) -> GenerationRun:
    """Answer every answerable query with gold text from each config's top `top_k`, and judge it."""
    from ..llm.shared import provider_for  # noqa: PLC0415

    provider = provider_for(built.atlas.settings)
    queries = [q for q in dataset.queries if not q.is_null and gold_answers(q)]
    ids = [q.id for q in queries]
    rows: list[dict[str, Any]] = []
    for config in get_configs(configs if isinstance(configs, str) else list(configs)):
        run = run_config(built, dataset, config, query_ids=ids, result_limit=top_k, progress=progress)
        for q in queries:
            passages = [item.text[:PASSAGE_CHARS] for item in run.results[q.id].ranked[:top_k] if item.text]
            reply = provider.generate("answer", {"question": q.text, "passages": passages}).data
            golds = gold_answers(q)
            answer = reply.get("answer", "")
            how = None if reply.get("insufficient") else match_kind(answer, golds)
            if how is None and llm_judge is not None and not reply.get("insufficient"):
                how = "llm_judge" if llm_judge(q.text, golds[0], answer) else None
            context = normalise(" ".join(passages))
            rows.append({"config": config.name, "id": q.id, "question_type": q.type, "gold": golds[0],
                         "answer": answer, "insufficient": bool(reply.get("insufficient")),
                         "correct": how is not None, "how": how,
                         "context_has_answer": any(normalise(g) and normalise(g) in context for g in golds)})
    return GenerationRun(rows, _summarise(rows, ("config",)), _summarise(rows, ("config", "question_type")),
                         provider=provider.name, judge="normalised match" + (" + LLM judge" if llm_judge else ""),
                         notes=[f"{len(queries)} answerable queries with a reference answer; top {top_k} per config"])


def _summarise(rows: Sequence[dict[str, Any]], keys: tuple[str, ...]) -> list[dict[str, Any]]:
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for r in rows:
        groups.setdefault(tuple(r[k] for k in keys), []).append(r)
    out = []
    for key, rs in groups.items():
        n = len(rs)
        out.append({**dict(zip(keys, key)), "n": n,
                    "accuracy": round(sum(r["correct"] for r in rs) / n, 4),
                    "context_has_answer": round(sum(r["context_has_answer"] for r in rs) / n, 4),
                    "insufficient": round(sum(r["insufficient"] for r in rs) / n, 4)})
    return out
