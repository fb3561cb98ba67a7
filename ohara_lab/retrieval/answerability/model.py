"""The answerability model: a logistic regression over the features, stored as JSON, and its
split-conformal threshold.

    score(x) = σ(b + Σ_i w_i · (x_i − μ_i) / s_i)                       (logistic regression)

    τ(keep) = s_(k),  k = ⌊(n + 1)·(1 − keep)⌋                           (split-conformal, Vovk et al. 2005;
                                                                          Angelopoulos & Bates 2021, §1.1)

over the n sorted calibration scores s_(1) ≤ … ≤ s_(n) of *answerable* queries the model did
not see when it was fitted (out-of-fold scores). A new answerable query exchangeable with
them scores at least τ with probability ≥ keep, so the share of answerable queries that
keep their Principal tier is chosen (`OHARA_ABSTAIN_KEEP`), not discovered. When k = 0
(too few calibration queries for that keep) τ = −∞: the model never abstains, and says so.

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
from .features import FEATURE_VERSION, FEATURES, LEXICAL_FEATURES

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
    feature_version: int = FEATURE_VERSION
    provenance: dict[str, Any] = field(default_factory=dict)

    def score(self, values: dict[str, float]) -> float:
        z = self.intercept + math.fsum(w * (values[f] - m) / s for f, w, m, s in
                                       zip(self.features, self.coef, self.mean, self.scale))
        return 1.0 / (1.0 + math.exp(-z)) if z > -700 else 0.0

    def threshold(self, keep: float) -> float:
        """τ(keep): the ⌊(n+1)(1−keep)⌋-th smallest calibration score; −inf when that index is 0."""
        if not 0.0 < keep <= 1.0:
            raise AnswerabilityError(f"abstain_keep must be in (0, 1], got {keep}")
        k = math.floor((len(self.calibration_scores) + 1) * (1.0 - keep) + 1e-9)  # 1e-9: (1 - 0.8) is 0.1999…
        return self.calibration_scores[k - 1] if k >= 1 else -math.inf

    def contributions(self, values: dict[str, float]) -> dict[str, float]:
        """Each feature's term w_i·(x_i − μ_i)/s_i: what pushed the score up or down."""
        return {f: round(w * (values[f] - m) / s, 4) for f, w, m, s in
                zip(self.features, self.coef, self.mean, self.scale)}

    @property
    def lexical(self) -> bool:
        """Fitted without the dense features (for atlases, or queries, without vectors)."""
        return tuple(self.features) == LEXICAL_FEATURES

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Any, where: str) -> AnswerabilityModel:
        """A model read back and checked: the right features, in the code's feature version."""
        try:
            model = cls(**data)
        except TypeError as e:
            raise AnswerabilityError(f"{where} is not an answerability model ({e}): run `ohara calibrate`") from None
        if model.feature_version != FEATURE_VERSION or tuple(model.features) not in (FEATURES, LEXICAL_FEATURES):
            raise AnswerabilityError(
                f"{where} was fitted on answerability features version {model.feature_version} "
                f"({', '.join(model.features)}); this ohara-lab computes version {FEATURE_VERSION}: "
                "run `ohara calibrate` to fit a model for it")
        n = len(model.features)
        if not (len(model.mean) == len(model.scale) == len(model.coef) == n) or any(s <= 0 for s in model.scale):
            raise AnswerabilityError(f"{where} is corrupt (coefficients or scales do not fit its features): "
                                     "run `ohara calibrate`")
        model.calibration_scores = sorted(float(s) for s in model.calibration_scores)
        return model


def meta_key(lexical: bool) -> str:
    return MODEL_META_KEY + (".lexical" if lexical else "")


def default_model(lexical: bool = False) -> AnswerabilityModel:
    """A model shipped with the package (fitted on the MuSiQue tuning split; refs/abstention.md)."""
    name = DEFAULT_LEXICAL_MODEL if lexical else DEFAULT_MODEL
    text = resources.files(__package__).joinpath(name).read_text(encoding="utf-8")
    return AnswerabilityModel.from_dict(json.loads(text), f"the shipped {name}")


def load_model(stored: Any, lexical: bool = False) -> AnswerabilityModel:
    """The atlas's own model (`ohara calibrate`) when it has one, else the shipped default."""
    if stored is None:
        return default_model(lexical)
    return AnswerabilityModel.from_dict(stored, f"the atlas's {'lexical ' if lexical else ''}answerability model")
