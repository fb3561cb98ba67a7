"""`ohara calibrate --auto`: an atlas calibrates its abstention on itself, without labels.

The atlas asks its probe questions and their unanswerable twins (`probes.py`) under the engine's
configuration and stores the profile (`profile.py`) with the graph version it was asked at. That
fixes, for this atlas, both the relative features and the threshold: the model's conformal u*
becomes the u*-quantile of this atlas's own twin scores (`model.py`). A batch ingest that leaves
at least `auto_calibrate_min_paragraphs` paragraphs does the same at its end (`auto_calibrate`).

What it does not do is refit the model's coefficients on the probes: an answerable probe is one of
the atlas's own sentences turned into a question, and the shipped model scores 99% of them above
0.99 on every corpus measured (refs/abstention.md) — they separate from their twins too easily to
teach it which evidence is missing. The coefficients stay the ones fitted on labelled questions;
the probes set the scale.

Deterministic for a fixed atlas (the probes are chosen by a keyed hash); the cost is two queries a
probe, `abstain_probes` probes at most, and is reported.
"""
from __future__ import annotations

import math
import time
from dataclasses import asdict, dataclass
from typing import Any

from ...settings import Settings
from ...store.protocol import GraphStore
from .profile import MIN_TWINS, PROFILE_META_KEY, config_key, with_profile


@dataclass
class SelfCalibration:
    """What `--auto` asked and stored: probes, their twins, the atlas's threshold against the shipped one's."""

    probes: int
    twins: int
    answered: int  # twins whose evidence still stated the answer (another document has it): left out
    queries: int
    seconds: float
    keep: float
    threshold: float | None  # on this atlas's scale (None: too few twins, the calibration threshold applies)
    calibration_threshold: float | None  # the model's threshold on its calibration corpus's scale
    graph_version: int
    config: str
    model: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def summary(self) -> str:
        """One line for the CLI: what was asked, what it cost, the threshold it gives."""
        where = (f"threshold {self.threshold:.3f} on this atlas's scale" if self.threshold is not None
                 else "too few twins for the atlas's own scale: the calibration threshold applies")
        shipped = "" if self.calibration_threshold is None else f" (calibration corpus: {self.calibration_threshold:.3f})"
        return (f"self-calibrated abstention: {self.probes} probe questions and {self.twins} unanswerable twins "
                f"({self.answered} more still found their answer elsewhere), "
                f"{self.queries} queries in {self.seconds:.1f} s; keep {self.keep:.2f} -> {where}{shipped}")


def self_calibrate(engine: Any, store: GraphStore, settings: Settings) -> SelfCalibration:
    """Ask the probes under `settings`, store the profile in the atlas and report the threshold it gives."""
    started = time.perf_counter()
    chosen = settings.override(abstain="model")
    models = store.vector_models()
    vectors = max(models, key=lambda m: models[m]) if models and chosen.embedder != "none" else None
    key = config_key(chosen.to_dict(), vectors is None)
    profile = engine.probe_profile(chosen, key)
    store.set_meta(PROFILE_META_KEY, with_profile(store.get_meta(PROFILE_META_KEY), profile))
    engine.invalidate()
    model = engine.answerability_model(chosen, vectors)
    twins = profile.twin_scores(model.score, model.key) if profile.n_twins >= MIN_TWINS else None
    keep = chosen.abstain_keep
    atlas_threshold = model.threshold(keep, twins) if twins and model.twin_calibration else None
    return SelfCalibration(
        probes=len(profile.probes), twins=profile.n_twins,
        answered=sum(1 for r in profile.rows if r.get("kind") == "answered"), queries=len(profile.rows),
        seconds=round(time.perf_counter() - started, 2), keep=keep,
        threshold=_finite(atlas_threshold), calibration_threshold=_finite(model.threshold(keep)), graph_version=profile.graph_version, config=key,
        model=str(model.provenance.get("name") or "the atlas's own"))


def _finite(value: float | None) -> float | None:
    """Rounded, and None for −inf (the model never abstains at that keep): JSON has no infinities."""
    return None if value is None or not math.isfinite(value) else round(value, 6)
