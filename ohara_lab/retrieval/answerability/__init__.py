"""Answerability: does the atlas hold an answer to this query? A calibrated score behind the Principal tier.

`assess` computes the features (`features.py`), reads them relative to the atlas's own
probes (`profile.py`, when the engine has a profile), first asks whether the query has
anything to look for at all (`vacuous.py`: no content word, or none the atlas knows),
then scores the features with the model (`model.py`: the atlas's own from `ohara
calibrate`, else the shipped default) and compares the score with the conformal
threshold for `abstain_keep`. Below it the engine abstains: the Principal tier is empty
and `reason` says why in words — the words the atlas does not know, the query's relation
word that no passage about the bridge entity mentions, the name the atlas has nothing
on, the type of answer no passage holds, or the score against the threshold.

`OHARA_ABSTAIN`: `model` (default) decides by the score; `rule` keeps the spec's
corroboration rule alone (the original profile); `features` computes and reports the
features without a model (what `ohara calibrate` collects).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...answer_type import expected_types
from ...errors import UsageError
from ...settings import Settings
from ...store.protocol import GraphStore
from ..hits import Fused
from ..state import QueryState
from . import vacuous
from .features import FEATURE_VERSION, FEATURES, RELATIVE, Evidence, features, relative_name
from .model import MODEL_META_KEY, SHIPPED_VECTOR_MODEL, AnswerabilityModel, load_model, meta_key, reads_lexical
from .profile import MIN_TWINS, AtlasProfile

ABSTAIN_MODES = ("model", "rule", "features")

__all__ = ["ABSTAIN_MODES", "Answerability", "AnswerabilityModel", "FEATURES", "FEATURE_VERSION",
           "MODEL_META_KEY", "SHIPPED_VECTOR_MODEL", "assess", "load_model", "meta_key", "reads_lexical"]


@dataclass
class Answerability:
    """One query's answerability: the score against its threshold, the features and what decided."""

    features: dict[str, float | None]
    score: float | None = None
    threshold: float | None = None
    keep: float | None = None
    abstain: bool = False
    reason: str | None = None
    contributions: dict[str, float] = field(default_factory=dict)
    model: dict[str, Any] = field(default_factory=dict)
    vacuous: bool = False  # abstained before any model: the query has nothing to look for (`vacuous.py`)
    relative: list[str] = field(default_factory=list)  # the features read on the atlas's own probes
    probes: int = 0  # unanswerable probe twins behind the relative features (0: read raw)
    threshold_from: str | None = None  # "atlas twins" (τ on the atlas's own scale) | "calibration queries"

    @property
    def read_relative(self) -> list[str]:
        """The features the model read relative to the atlas (with `relative_to_atlas` in `explain()`)."""
        return [f for f in self.relative if f in self.contributions]

    def explain(self, top: int = 6) -> str:
        """The decision in words: score against threshold and where the threshold came from, the features that
        moved the score most (a relative one as the share of this atlas's unanswerable twins it beats), and the
        features with nothing to measure (read as the model's mean, so they add nothing)."""
        if self.vacuous:
            return f"answerability: abstains before the model: {self.reason}"
        if self.score is None:
            return "answerability: no model read (abstention by the corroboration rule)"
        limit = self.threshold if self.threshold is not None and self.threshold > float("-inf") else None
        scale = (f"on this atlas's scale ({self.probes} unanswerable probe twins)"
                 if self.threshold_from == "atlas twins" else "on the calibration queries' scale")
        verdict = "abstains" if self.abstain else "answers"
        head = (f"answerability {self.score:.3f} against threshold "
                f"{'none' if limit is None else f'{limit:.3f}'} (keep {self.keep}, {scale}) → {verdict}")
        lines = [head]
        for name, weight in sorted(self.contributions.items(), key=lambda kv: -abs(kv[1]))[:top]:
            value = self.features.get(name)
            shown = "undefined" if value is None else f"{value:.3g}"
            note = (f"  (beats {value:.0%} of the twins)" if name in self.relative and value is not None else "")
            lines.append(f"  {weight:+.3f}  {name} = {shown}{note}")
        undefined = sorted(n for n in self.contributions if self.features.get(n) is None)
        if undefined:
            lines.append("  nothing to measure (adds nothing): " + ", ".join(undefined))
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        threshold = self.threshold if self.threshold is None or self.threshold > float("-inf") else None
        return {"score": None if self.score is None else round(self.score, 6),
                "threshold": None if threshold is None else round(threshold, 6), "keep": self.keep,
                "abstain": self.abstain, "reason": self.reason, "features": self.features,
                "contributions": self.contributions, "model": self.model, "vacuous": self.vacuous,
                "relative": self.read_relative, "probes": self.probes, "threshold_from": self.threshold_from}


def assess(state: QueryState, fused: list[Fused], store: GraphStore, model: AnswerabilityModel | None,
           settings: Settings, profile: AtlasProfile | None = None) -> Answerability:
    """Features always (relative ones with a `profile`); with a model, the vacuity check, the score, the
    threshold for `abstain_keep` and the decision."""
    if settings.abstain not in ABSTAIN_MODES:
        raise UsageError(f"unknown abstain mode {settings.abstain!r}; choose one of {', '.join(ABSTAIN_MODES)}")
    values, ev = features(state, fused, store)
    out = Answerability(values)
    if profile is not None:
        values.update(profile.relative_values(values))
        out.relative, out.probes = list(RELATIVE), profile.n_twins
    if model is None:
        return out
    out.score = model.score(values)
    out.keep = settings.abstain_keep
    twins = profile.twin_scores(model.score, model.key) if profile is not None and profile.n_twins >= MIN_TWINS \
        else None
    out.threshold = model.threshold(settings.abstain_keep, twins)
    out.threshold_from = "atlas twins" if twins and model.twin_calibration else "calibration queries"
    out.contributions = model.contributions(values)
    out.model = {"feature_version": model.feature_version, "lexical": model.lexical,
                 **{k: model.provenance.get(k) for k in ("name", "trained_on", "fitted_at")}}
    vacuity = vacuous.check(state.query.raw, store, values.get(relative_name("dense_top1")))
    if vacuity.reason:
        out.abstain, out.vacuous, out.reason = True, True, vacuity.reason
        return out
    out.abstain = out.score < out.threshold
    if out.abstain:
        out.reason = reason(out, ev, state.query.raw)
    return out


TYPE_WORDS = {"DATE": "date", "LOCATION": "place", "PERSON": "person", "ORG": "organisation",
              "AMOUNT": "amount", "NUMBER": "number", "CONCEPT": "title or name", "EVENT": "event"}


def reason(a: Answerability, ev: Evidence, question: str = "") -> str:
    """Why the engine abstains, in words, from the feature that pulled the score down most."""
    worst = min(a.contributions, key=lambda f: a.contributions[f]) if a.contributions else None
    base = worst.removesuffix("_rel") if worst else None
    text = f"answerability {a.score:.2f} is below the threshold {a.threshold:.2f} (keep {a.keep:.2f})"
    if base == "hop_completeness" and ev.missing:
        word, entity = ev.missing
        return f"no evidence mentions {word!r}" + (f" for {entity}" if entity else "") + f"; {text}"
    if base == "entity_coverage":
        missing = [n for n in ev.names if n.lower() not in " ".join(ev.texts).lower()]
        if missing:
            return f"no passage found mentions {missing[0]!r}; {text}"
    if base == "answer_type_found":
        wanted = expected_types(question).types
        about = ev.names[0] if ev.names else (ev.entities[0][1] if ev.entities else "")
        kind = " or ".join(dict.fromkeys(TYPE_WORDS.get(t, t.lower()) for t in wanted))
        return f"no {kind} in the evidence" + (f" about {about}" if about else "") + f"; {text}"
    if base in ("term_coverage", "idf_coverage") and a.features.get(base) is not None:
        return f"the best passages cover only {a.features[base]:.0%} of the question's words; {text}"
    if base in ("dense_top1", "dense_gap", "bm25_relative") and a.features.get(worst or "") is not None:
        return f"no passage comes close to the question ({worst} {a.features[worst or '']:.2f}); {text}"
    return text
