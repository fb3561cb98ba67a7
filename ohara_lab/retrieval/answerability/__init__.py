"""Answerability: does the atlas hold an answer to this query? A calibrated score behind the Principal tier.

`assess` computes the features (`features.py`), scores them with the model
(`model.py`: the atlas's own from `ohara calibrate`, else the shipped default) and
compares the score with the conformal threshold for `abstain_keep`. Below it the engine
abstains: the Principal tier is empty and `reason` says why in words — the query's
relation word that no passage about the bridge entity mentions, the name the atlas
has nothing on, or the score against the threshold.

`OHARA_ABSTAIN`: `model` (default) decides by the score; `rule` keeps the spec's
corroboration rule alone (the original profile); `features` computes and reports the
features without a model (what `ohara calibrate` collects).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...errors import UsageError
from ...settings import Settings
from ...store.protocol import GraphStore
from ..hits import Fused
from ..state import QueryState
from .features import FEATURE_VERSION, FEATURES, Evidence, features
from .model import MODEL_META_KEY, SHIPPED_VECTOR_MODEL, AnswerabilityModel, load_model, meta_key, reads_lexical

ABSTAIN_MODES = ("model", "rule", "features")

__all__ = ["ABSTAIN_MODES", "Answerability", "AnswerabilityModel", "FEATURES", "FEATURE_VERSION",
           "MODEL_META_KEY", "SHIPPED_VECTOR_MODEL", "assess", "load_model", "meta_key", "reads_lexical"]


@dataclass
class Answerability:
    """One query's answerability: the score against its threshold, the features and what decided."""

    features: dict[str, float]
    score: float | None = None
    threshold: float | None = None
    keep: float | None = None
    abstain: bool = False
    reason: str | None = None
    contributions: dict[str, float] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        threshold = self.threshold if self.threshold is None or self.threshold > float("-inf") else None
        return {"score": None if self.score is None else round(self.score, 6),
                "threshold": None if threshold is None else round(threshold, 6), "keep": self.keep,
                "abstain": self.abstain, "reason": self.reason, "features": self.features,
                "contributions": self.contributions, "model": self.model}


def assess(state: QueryState, fused: list[Fused], store: GraphStore, model: AnswerabilityModel | None,
           settings: Settings) -> Answerability:
    """Features always; with a model, the score, the threshold for `abstain_keep` and the decision."""
    if settings.abstain not in ABSTAIN_MODES:
        raise UsageError(f"unknown abstain mode {settings.abstain!r}; choose one of {', '.join(ABSTAIN_MODES)}")
    values, ev = features(state, fused, store)
    out = Answerability(values)
    if model is None:
        return out
    out.score = model.score(values)
    out.keep = settings.abstain_keep
    out.threshold = model.threshold(settings.abstain_keep)
    out.contributions = model.contributions(values)
    out.model = {"feature_version": model.feature_version, "lexical": model.lexical,
                 **{k: model.provenance.get(k) for k in ("name", "trained_on", "fitted_at")}}
    out.abstain = out.score < out.threshold
    if out.abstain:
        out.reason = reason(out, ev)
    return out


def reason(a: Answerability, ev: Evidence) -> str:
    """Why the engine abstains, in words, from the feature that pulled the score down most."""
    worst = min(a.contributions, key=lambda f: a.contributions[f]) if a.contributions else None
    text = f"answerability {a.score:.2f} is below the threshold {a.threshold:.2f} (keep {a.keep:.2f})"
    if worst == "hop_completeness" and ev.missing:
        word, entity = ev.missing
        return f"no evidence mentions {word!r}" + (f" for {entity}" if entity else "") + f"; {text}"
    if worst == "entity_coverage":
        missing = [n for n in ev.names if n.lower() not in " ".join(ev.texts).lower()]
        if missing:
            return f"no passage found mentions {missing[0]!r}; {text}"
    if worst == "term_coverage":
        return f"the best passages cover only {a.features['term_coverage']:.0%} of the question's words; {text}"
    if worst in ("dense_top1", "dense_gap", "bm25_relative"):
        return f"no passage comes close to the question ({worst} {a.features[worst]:.2f}); {text}"
    return text
