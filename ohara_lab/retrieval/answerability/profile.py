"""The atlas's own scale for the answerability features: what its probes score, answerable and not.

Raw cosines and BM25 levels depend on the corpus and the embedder (a corpus of short encyclopedia
paragraphs puts every question's best cosine higher than one of long papers), so a model that reads
them raw reads every atlas on the scale of the one it was fitted on. Each atlas therefore asks itself
`probes.make_probes` questions twice — as they are, and with their source document left out (the
unanswerable twin) — and keeps, per feature, the sorted values of both. A feature is then read
relative to the atlas:

    rel_f(x) = (#{twins with f < x} + ½·#{twins with f = x}) / #twins          (mid-rank empirical CDF)

"how much closer than this atlas's own unanswerable questions does this query come", in [0, 1] on
every atlas (the probability integral transform; Gisserot-Boukhlef et al., TMLR 2024, calibrate the
same score vector per collection). `RELATIVE` names the features read that way; `explain()` says so.

A profile belongs to one graph version and one engine configuration (the features depend on the
phases and weights that ran): `Engine.answerability_profile` computes it on first use and keeps it in
memory; `ohara calibrate --auto` (and a batch ingest of at least `auto_calibrate_min_paragraphs`)
stores it in the atlas, so readers of an unchanged atlas never pay for it.
"""
from __future__ import annotations

import bisect
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from .features import SCORE_FEATURES, relative_name
from .probes import Probe

PROFILE_META_KEY = "answerability_profile"
PROFILE_VERSION = 1
MIN_TWINS = 8  # fewer twins than this and a percentile says little: relative features are left undefined
STORED_CONFIGS = 8  # profiles kept in the atlas meta (one per engine configuration, newest first)
# Settings that change no feature of a query (the decision's own, the tiers', the "as of" day), so a profile
# serves every value of them.
NOT_FEATURE_SETTINGS = frozenset({"abstain", "abstain_keep", "as_of", "result_limit", "auto_calibrate",
                                  "auto_calibrate_min_paragraphs"})

# A probe run: (question, documents left out) -> (the raw features of `features.FEATURES`, the evidence's texts).
RunProbe = Callable[[str, frozenset[str]], tuple[dict[str, float | None], list[str]]]


@dataclass
class AtlasProfile:
    """The sorted values each raw feature took over the atlas's probes (`answerable`) and their twins (`null`)."""

    graph_version: int
    config: str
    null: dict[str, list[float]]
    answerable: dict[str, list[float]]
    probes: list[dict[str, Any]] = field(default_factory=list)  # question, node_id, document_id, answer, type
    rows: list[dict[str, Any]] = field(default_factory=list)  # per probe run: kind + raw features (calibrate --auto)
    version: int = PROFILE_VERSION
    _twin_scores: dict[int, list[float]] = field(default_factory=dict, repr=False, compare=False)

    def relative(self, feature: str, value: float | None) -> float | None:
        """rel_f(value) over the twins; None when the value or the profile has nothing to say."""
        twins = self.null.get(feature) or []
        if value is None or len(twins) < MIN_TWINS:
            return None
        below = bisect.bisect_left(twins, value)
        equal = bisect.bisect_right(twins, value) - below
        return (below + 0.5 * equal) / len(twins)

    def relative_values(self, values: dict[str, float | None]) -> dict[str, float | None]:
        """The score features of `values` read on this atlas's twins, as `<feature>_rel`."""
        out = {}
        for f in SCORE_FEATURES:
            rel = self.relative(f, values.get(f))
            out[relative_name(f)] = None if rel is None else round(rel, 6)
        return out

    def twin_scores(self, score: Callable[[dict[str, float | None]], float], key: int) -> list[float]:
        """Sorted scores of the twins (raw and relative features) under one model's `score`, kept per `key`."""
        if key not in self._twin_scores:
            twins = [r["features"] for r in self.rows if r.get("kind") == "null"]
            self._twin_scores[key] = sorted(score({**f, **self.relative_values(f)}) for f in twins)
        return self._twin_scores[key]

    @property
    def n_twins(self) -> int:
        return sum(1 for r in self.rows if r.get("kind") == "null")

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("_twin_scores")
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> AtlasProfile | None:
        """A stored profile, or None when it is of another version or malformed (it is then recomputed)."""
        try:
            profile = cls(**{k: v for k, v in data.items() if not k.startswith("_")})
        except TypeError:
            return None
        return profile if profile.version == PROFILE_VERSION else None


def config_key(settings: dict[str, Any], lexical: bool) -> str:
    """What a profile depends on: every setting that can move a feature, and whether the query had vectors."""
    relevant = {k: v for k, v in sorted(settings.items()) if k not in NOT_FEATURE_SETTINGS}
    text = json.dumps([relevant, lexical], sort_keys=True, default=str)
    return hashlib.blake2b(text.encode(), digest_size=8).hexdigest()


def build_profile(probes: Sequence[Probe], run: RunProbe, graph_version: int, config: str) -> AtlasProfile:
    """Ask every probe and its twin; keep each feature's sorted values per kind (undefined values left out).

    A twin whose evidence still holds the probe's answer is not unanswerable — another document states the
    same fact (licence texts repeat each other, a corpus may hold copies) — so it is kept out of the twins
    (its row is marked `answered`): counted among them it would read the atlas's answerable questions as
    unanswerable and raise its threshold."""
    null: dict[str, list[float]] = {}
    answerable: dict[str, list[float]] = {}
    rows = []
    for probe in probes:
        for kind, left_out in (("answerable", frozenset()), ("null", frozenset({probe.document_id}))):
            values, texts = run(probe.question, left_out)
            if kind == "null" and _holds(texts, probe.answer):
                rows.append({"kind": "answered", "question": probe.question, "features": values})
                continue
            rows.append({"kind": kind, "question": probe.question, "features": values})
            target = answerable if kind == "answerable" else null
            for name, value in values.items():
                if value is not None:
                    target.setdefault(name, []).append(float(value))
    return AtlasProfile(graph_version, config, {k: sorted(v) for k, v in null.items()},
                        {k: sorted(v) for k, v in answerable.items()}, [asdict(p) for p in probes], rows)


def _holds(texts: Sequence[str], answer: str) -> bool:
    """Whether one of the evidence texts states `answer` (case and spacing folded)."""
    wanted = " ".join(answer.lower().split())
    return bool(wanted) and any(wanted in " ".join(t.lower().split()) for t in texts)


def stored_profile(stored: Any, graph_version: int, config: str) -> AtlasProfile | None:
    """The atlas's stored profile for this graph version and configuration, if it has one."""
    for data in stored if isinstance(stored, list) else []:
        profile = AtlasProfile.from_dict(data) if isinstance(data, dict) else None
        if profile is not None and profile.graph_version == graph_version and profile.config == config:
            return profile
    return None


def with_profile(stored: Any, profile: AtlasProfile) -> list[dict[str, Any]]:
    """The meta value after storing `profile`: newest first, one per configuration, at most STORED_CONFIGS."""
    kept = [d for d in (stored if isinstance(stored, list) else [])
            if isinstance(d, dict) and d.get("config") != profile.config]
    return [profile.to_dict(), *kept][:STORED_CONFIGS]
