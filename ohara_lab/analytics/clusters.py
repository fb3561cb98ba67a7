"""Paragraph clusters over dense vectors (spec §2.13).

k-means with k-means++ seeding (Arthur & Vassilvitskii 2007) from scikit-learn on
L2-normalised vectors, so squared Euclidean distance is 2·(1 − cosine): the
spec's cosine k-means. k = min(50, max(3, round(sqrt(n / 2)))), at most 50
iterations, one fixed seed. Clusters of at least MIN_SUMMARY members get a
summary: their most distinctive terms by class-based TF-IDF (Grootendorst 2022,
BERTopic: w_{t,c} = tf_{t,c} · log(1 + A / f_t), A = mean words per cluster,
f_t = frequency of t over all clusters), their most mentioned entities, and the
member nearest the centroid.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .graph import require

MAX_K = 50
MIN_K = 3
MAX_ITER = 50
MIN_SUMMARY = 3
TERMS = 8
ENTITIES = 10


@dataclass
class Cluster:
    id: int
    members: list[str]  # node ids, nearest the centroid first
    terms: list[str] = field(default_factory=list)
    centroid_entity_slugs: list[str] = field(default_factory=list)
    summary: str = ""

    @property
    def size(self) -> int:
        return len(self.members)


def choose_k(n: int) -> int:
    """The spec's rule, never more clusters than points."""
    return min(n, MAX_K, max(MIN_K, round(math.sqrt(n / 2))))


def kmeans(matrix: np.ndarray, *, seed: int = 42) -> tuple[np.ndarray, np.ndarray]:
    """(labels, distance of each row to its centroid) for unit-normalised rows."""
    cluster = require("sklearn.cluster")
    limits = require("threadpoolctl").threadpool_limits
    x = matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-12)
    # One thread: on a shared 2-core machine OpenMP threads spin against each other
    # (measured on the samples atlas: 12.6 s with the default pool, 1.3 s with one thread, same labels).
    with limits(1):
        km = cluster.KMeans(n_clusters=choose_k(len(x)), init="k-means++", n_init=1, max_iter=MAX_ITER,
                            random_state=seed).fit(x)
    dist = np.linalg.norm(x - km.cluster_centers_[km.labels_], axis=1)
    return km.labels_, dist


def build(ids: list[str], labels: np.ndarray, dist: np.ndarray, texts: dict[str, str],
          entity_lists: dict[str, list[str]]) -> list[Cluster]:
    """Clusters, largest first, each with members by distance to the centroid and (from MIN_SUMMARY up) a summary."""
    groups: dict[int, list[int]] = {}
    for i, lab in enumerate(labels):
        groups.setdefault(int(lab), []).append(i)
    ordered = sorted(groups.values(), key=lambda rows: (-len(rows), ids[rows[0]]))
    clusters = [Cluster(cid, [ids[i] for i in sorted(rows, key=lambda i: (dist[i], ids[i]))])
                for cid, rows in enumerate(ordered)]
    summarised = [c for c in clusters if c.size >= MIN_SUMMARY]
    for c, terms in zip(summarised, class_terms([[texts.get(m, "") for m in c.members] for c in summarised])):
        counts = Counter(s for m in c.members for s in dict.fromkeys(entity_lists.get(m, [])))
        c.terms = terms
        c.centroid_entity_slugs = [s for s, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[:ENTITIES]]
        c.summary = "; ".join(terms)
    return clusters


def class_terms(groups: list[list[str]], n: int = TERMS) -> list[list[str]]:
    """The `n` most distinctive terms of each group of texts (class-based TF-IDF)."""
    if not groups:
        return []
    text = require("sklearn.feature_extraction.text")
    vec = text.CountVectorizer(stop_words="english", token_pattern=r"(?u)\b[^\W\d_]{3,}\b", lowercase=True)
    try:
        counts = vec.fit_transform([" ".join(g) for g in groups])
    except ValueError:  # nothing but stop words
        return [[] for _ in groups]
    tf = counts.toarray().astype(float)
    words_per_class = tf.sum(axis=1).mean() or 1.0
    weight = tf * np.log1p(words_per_class / np.maximum(tf.sum(axis=0), 1.0))
    vocab = np.array(vec.get_feature_names_out())
    out = []
    for row in weight:
        order = sorted(np.flatnonzero(row), key=lambda j: (-row[j], vocab[j]))[:n]
        out.append([str(vocab[j]) for j in order])
    return out
