"""The answerability model: a logistic regression over the features, stored as JSON, and its
split-conformal threshold.

    score(x) = σ(b + Σ_i w_i · (x_i − μ_i) / s_i)                       (logistic regression)

An undefined feature (None: nothing to measure, `features.py`) is read as its training mean μ_i, so its
term is 0 — it is evidence neither way.

    τ(keep) = s_(k),  k = ⌊(n + 1)·(1 − keep)⌋                           (split-conformal, Vovk et al. 2005;
                                                                          Angelopoulos & Bates 2021, §1.1)

over the n sorted calibration scores s_(1) ≤ … ≤ s_(n) of *answerable* queries the model did
not see when it was fitted (out-of-fold scores). A new answerable query exchangeable with
them scores at least τ with probability ≥ keep, so the share of answerable queries that
keep their Principal tier is chosen (`OHARA_ABSTAIN_KEEP`), not discovered. When k = 0
(too few calibration queries for that keep) τ = −∞: the model never abstains, and says so.

**On the atlas's own scale.** A score threshold fitted on one corpus moves with the corpus: where
every question is easy (short encyclopedia paragraphs) unanswerable ones score high too. So the
threshold is also kept in the atlas's own terms. For each answerable calibration query, u = the
mid-rank share of its atlas's unanswerable probe twins (`profile.py`) that score below it; then

    u*(keep) = u_(k) over the sorted out-of-fold u's,   τ_atlas(keep) = Q_twins(u*)

the u*-quantile of this atlas's twin scores (linear interpolation, Hyndman & Fan 1996 type 7). The
same conformal argument holds in u-space for a new atlas whose questions stand to its twins as the
calibration atlases' did — the assumption the cross-corpus tables of refs/abstention.md test. Without
a profile (`OHARA_ABSTAIN_PROBES=0`, an atlas too small for `MIN_TWINS`) τ(keep) above applies.

The model is plain data — coefficients, scaling, the calibration scores, the feature
version and how it was trained — so it is read without scikit-learn and never unpickled.
"""
from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from importlib import resources
from typing import Any

from ...errors import AnswerabilityError
from .features import FEATURE_VERSION, KNOWN_FEATURES, LEXICAL_FEATURES

MODEL_META_KEY = "answerability_model"  # + ".lexical" for the model of queries run without vectors
DEFAULT_MODEL = "default_model.json"
DEFAULT_LEXICAL_MODEL = "default_model_lexical.json"
# The vectors whose cosines the shipped dense model read. Another embedder's cosines live on another
# scale (Gemini's sit higher, WordLlama's lower), so without a model of its own such an atlas is read
# by the shipped lexical model.
SHIPPED_VECTOR_MODEL = "minilm:all-MiniLM-L6-v2"


def reads_lexical(vector_model: str | None, own_dense_model: bool) -> bool:
    """Whether a query is scored by the lexical model: it ran without vectors, or with vectors the shipped
    dense model was not fitted on and the atlas has no dense model of its own (`ohara calibrate`)."""
    return vector_model is None or (vector_model != SHIPPED_VECTOR_MODEL and not own_dense_model)


@dataclass
class AnswerabilityModel:
    features: list[str]
    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float
    calibration_scores: list[float]  # sorted out-of-fold scores of answerable calibration queries
    twin_calibration: list[float] = field(default_factory=list)  # their sorted u's among their atlas's twins
    feature_version: int = FEATURE_VERSION
    provenance: dict[str, Any] = field(default_factory=dict)

    def score(self, values: dict[str, float | None]) -> float:
        z = self.intercept + math.fsum(self.contributions(values, digits=None).values())
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0

    def threshold(self, keep: float, twin_scores: list[float] | None = None) -> float:
        """τ(keep): with this atlas's sorted twin scores (and a model calibrated in u-space) τ_atlas(keep), else the
        ⌊(n+1)(1−keep)⌋-th smallest calibration score; −inf when that index is 0."""
        if not 0.0 < keep <= 1.0:
            raise AnswerabilityError(f"abstain_keep must be in (0, 1], got {keep}")
        if twin_scores and self.twin_calibration:
            u = _conformal(self.twin_calibration, keep)
            return -math.inf if u == -math.inf else quantile(twin_scores, u)
        return _conformal(self.calibration_scores, keep)

    def contributions(self, values: dict[str, float | None], digits: int | None = 4) -> dict[str, float]:
        """Each feature's term w_i·(x_i − μ_i)/s_i: what pushed the score up or down (0 when undefined)."""
        out = {}
        for f, w, m, s in zip(self.features, self.coef, self.mean, self.scale):
            x = values.get(f)
            term = 0.0 if x is None else w * (x - m) / s
            out[f] = term if digits is None else round(term, digits)
        return out

    @property
    def key(self) -> int:
        """What the model's scores depend on, to cache them by (the twins' scores of a profile)."""
        return hash((tuple(self.features), tuple(self.mean), tuple(self.scale), tuple(self.coef), self.intercept))

    @property
    def lexical(self) -> bool:
        """Fitted without the dense features (for atlases, or queries, without vectors)."""
        return not set(self.features) - set(LEXICAL_FEATURES)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any, where: str) -> AnswerabilityModel:
        """A model read back and checked: the right features, in the code's feature version."""
        try:
            model = cls(**data)
        except TypeError as e:
            raise AnswerabilityError(f"{where} is not an answerability model ({e}): run `ohara calibrate`") from None
        if model.feature_version != FEATURE_VERSION or set(model.features) - set(KNOWN_FEATURES):
            raise AnswerabilityError(
                f"{where} was fitted on answerability features version {model.feature_version} "
                f"({', '.join(model.features)}); this ohara-lab computes version {FEATURE_VERSION}: "
                "run `ohara calibrate` to fit a model for it")
        n = len(model.features)
        if not (len(model.mean) == len(model.scale) == len(model.coef) == n) or any(s <= 0 for s in model.scale):
            raise AnswerabilityError(f"{where} is corrupt (coefficients or scales do not fit its features): "
                                     "run `ohara calibrate`")
        model.calibration_scores = sorted(float(s) for s in model.calibration_scores)
        model.twin_calibration = sorted(float(u) for u in model.twin_calibration)
        return model


def _conformal(values: list[float], keep: float) -> float:
    k = math.floor((len(values) + 1) * (1.0 - keep) + 1e-9)  # 1e-9: (1 - 0.8) is 0.1999…
    return values[k - 1] if k >= 1 else -math.inf


def quantile(values: list[float], q: float) -> float:
    """The q-quantile of sorted `values`, linearly interpolated (numpy's default, Hyndman & Fan type 7)."""
    h = (len(values) - 1) * min(1.0, max(0.0, q))
    lo = math.floor(h)
    hi = min(lo + 1, len(values) - 1)
    return values[lo] + (h - lo) * (values[hi] - values[lo])


def meta_key(lexical: bool) -> str:
    return MODEL_META_KEY + (".lexical" if lexical else "")


def default_model(lexical: bool = False) -> AnswerabilityModel:
    """A model shipped with the package (fitted on the MuSiQue tuning split; refs/abstention.md)."""
    name = DEFAULT_LEXICAL_MODEL if lexical else DEFAULT_MODEL
    path = resources.files(__package__).joinpath(name)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else type(e).__name__
        raise AnswerabilityError(f"the shipped answerability model {path} cannot be read ({reason}): "
                                 "reinstall ohara-lab or run `ohara calibrate`") from None
    return AnswerabilityModel.from_dict(data, f"the shipped answerability model {path}")


def load_model(stored: Any, lexical: bool = False) -> AnswerabilityModel:
    """The atlas's own model (`ohara calibrate`) when it has one, else the shipped default."""
    if stored is None:
        return default_model(lexical)
    return AnswerabilityModel.from_dict(stored, f"the atlas's {'lexical ' if lexical else ''}answerability model")
