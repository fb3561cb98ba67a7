"""Matplotlib figures for the evaluation notebooks (matplotlib is imported on first use).

Each function takes rows the other eval modules return and gives back a `Figure`;
the notebooks only show and save them.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .paper import ABSTENTION_POINT, TOPK_POINT


def _plt() -> Any:
    import matplotlib.pyplot as plt  # noqa: PLC0415 - optional, only the notebooks draw

    return plt


def tradeoff(rows: Sequence[Mapping[str, Any]], topk: Mapping[str, Any] | None = None, *, dataset: str = "",
             paper: Mapping[str, float] | None = ABSTENTION_POINT,
             paper_topk: Mapping[str, float] | None = TOPK_POINT,
             model_points: Sequence[Mapping[str, Any]] = ()) -> Any:
    """Abstention (x) vs Principal-hit (y), one panel per base config, one line per min_families.

    Each line runs across the score percentiles; the engine's default is circled, top-5 is a
    grey square, the paper's points are red (they are MultiHop-RAG's, shown for reference);
    `model_points` (the answerability model's operating points: `abstention_heldout`,
    `principal_hit`, `keep`) are blue diamonds.
    """
    plt = _plt()
    bases = list(dict.fromkeys(r.get("base", "full") for r in rows))
    fig, axes = plt.subplots(1, len(bases), figsize=(6.5 * len(bases), 5), squeeze=False)
    for ax, base in zip(axes[0], bases):
        mine = [r for r in rows if r.get("base", "full") == base]
        for fam in sorted({r["min_families"] for r in mine}):
            pts = sorted((r for r in mine if r["min_families"] == fam), key=lambda r: r["score_pctl"])
            ax.plot([100 * r["null_abstention"] for r in pts], [100 * r["principal_hit"] for r in pts], marker="o",
                    alpha=0.8, label=f"min families {fam} (pctl {pts[0]['score_pctl']}→{pts[-1]['score_pctl']})")
        default = [r for r in mine if r.get("is_default")]
        if default:
            ax.scatter([100 * default[0]["null_abstention"]], [100 * default[0]["principal_hit"]], s=220,
                       facecolors="none", edgecolors="black", linewidths=2, label="default rule", zorder=5)
        if topk is not None:
            ax.scatter([100 * topk["null_abstention"]], [100 * topk["principal_hit"]], marker="s", s=90,
                       color="grey", label="top-5 (ours)", zorder=5)
        if paper is not None:
            ax.scatter([100 * paper["null_abstention"]], [100 * paper["principal_hit"]], marker="*", s=260,
                       color="crimson", label="paper: full, MultiHop-RAG (45.6%, 91.5%)", zorder=6)
        if paper_topk is not None:
            ax.scatter([100 * paper_topk["null_abstention"]], [100 * paper_topk["principal_hit"]], marker="X", s=120,
                       color="crimson", label="paper: top-5 (0%, 92.0%)", zorder=6)
        for i, m in enumerate(model_points):
            ax.scatter([100 * m["abstention_heldout"]], [100 * m["principal_hit"]], marker="D", s=80, color="tab:blue",
                       label="answerability model (keep 0.90 / 0.92 / 0.95)" if i == 0 else None, zorder=7)
        ax.set_xlabel("abstention on unanswerable queries (%)")
        ax.set_ylabel("Principal-hit on answerable queries (%)")
        ax.set_xlim(-3, 103)
        ax.set_ylim(-3, 103)
        ax.grid(alpha=0.3)
        ax.set_title(f"{base}{': ' + dataset if dataset else ''}")
        ax.legend(fontsize=7, loc="lower left")
    fig.tight_layout()
    return fig


def roc_curves(rows: Sequence[Any], *, title: str = "Answerability: ROC per kind of unanswerable query") -> Any:
    """One ROC curve per null kind (answerable = positive), AUROC in the legend (scikit-learn's roc_curve)."""
    from sklearn.metrics import roc_auc_score, roc_curve  # noqa: PLC0415

    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 5))
    pos = [r.score for r in rows if r.kind == "answerable"]
    for kind in sorted({r.kind for r in rows} - {"answerable"}):
        neg = [r.score for r in rows if r.kind == kind]
        if not pos or not neg:
            continue
        labels, scores = [1] * len(pos) + [0] * len(neg), pos + neg
        fpr, tpr, _ = roc_curve(labels, scores)
        ax.plot(fpr, tpr, label=f"{kind} (n={len(neg)}): AUROC {roc_auc_score(labels, scores):.3f}")
    ax.plot([0, 1], [0, 1], color="grey", linestyle=":", label="chance")
    ax.set_xlabel("unanswerable queries kept (false positive rate)")
    ax.set_ylabel("answerable queries kept (true positive rate)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="lower right")
    fig.tight_layout()
    return fig


def risk_coverage_curve(points: Sequence[Mapping[str, float]], *, keep: float | None = None,
                        title: str = "Risk-coverage on answerable queries") -> Any:
    """Principal-miss rate among the kept answerable queries (y) as fewer are kept (x), highest score first."""
    plt = _plt()
    fig, ax = plt.subplots(figsize=(5.5, 4))
    ax.plot([100 * p["coverage"] for p in points], [100 * p["risk"] for p in points], marker=".")
    if keep is not None:
        ax.axvline(100 * keep, color="tab:blue", linestyle="--", label=f"keep {keep:.2f}")
        ax.legend(fontsize=8)
    ax.set_xlabel("coverage: answerable queries kept (%)")
    ax.set_ylabel("risk: kept queries whose Principal misses (%)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    return fig


def config_bars(rows: Sequence[Mapping[str, Any]], metrics: Sequence[str] = ("recall@5", "mrr@10", "principal_hit"),
                *, title: str = "") -> Any:
    """Grouped bars: one group per config (`rows[i]["config"]`), one bar per metric.

    The legend sits outside the axes, right of them (inside, it covered the last groups' bars); a metric no
    row has (no unanswerable queries: no null_abstention) is left out rather than listed with no bars; a
    measured 0 is written as "0" and a missing value as "n/a", so neither reads as a bar someone forgot.
    """
    plt = _plt()
    metrics = [m for m in metrics if any(r.get(m) is not None for r in rows)]
    fig, ax = plt.subplots(figsize=(max(6, 0.9 * len(rows)), 4))
    width = 0.8 / max(len(metrics), 1)
    for j, m in enumerate(metrics):
        xs = [i + j * width for i in range(len(rows))]
        values = [r.get(m) for r in rows]
        bars = ax.bar(xs, [v or 0 for v in values], width=width, label=m)
        for x, v, bar in zip(xs, values, bars):
            if v is None or v == 0:
                ax.text(x, 0.01, "n/a" if v is None else "0", ha="center", va="bottom", fontsize=7,
                        color=bar.get_facecolor(), fontweight="bold")
    ax.set_xticks([i + width * (len(metrics) - 1) / 2 for i in range(len(rows))])
    ax.set_xticklabels([r["config"] for r in rows], rotation=35, ha="right")
    ax.set_ylim(0, 1)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0), borderaxespad=0, frameon=False)
    ax.set_title(title)
    fig.tight_layout()
    return fig


def grid_heatmap(rows: Sequence[Mapping[str, Any]], metric: str = "mrr@10", *, title: str = "") -> Any:
    """bm25_weight × vector_weight heat map of `metric`, values written in the cells."""
    plt = _plt()
    bs = sorted({r["bm25_weight"] for r in rows})
    vs = sorted({r["vector_weight"] for r in rows})
    value = {(r["bm25_weight"], r["vector_weight"]): r.get(metric) for r in rows}
    grid = [[value.get((b, v)) if value.get((b, v)) is not None else float("nan") for v in vs] for b in bs]
    fig, ax = plt.subplots(figsize=(1.4 * len(vs) + 2, 0.6 * len(bs) + 2))
    im = ax.imshow(grid, cmap="viridis", aspect="auto", origin="lower")
    for i, b in enumerate(bs):
        for j, v in enumerate(vs):
            if value.get((b, v)) is not None:
                # viridis runs from dark to bright yellow: white text on the bright half was unreadable
                ink = "black" if im.norm(value[(b, v)]) > 0.55 else "white"
                ax.text(j, i, f"{value[(b, v)]:.3f}", ha="center", va="center", color=ink, fontsize=8)
    ax.set_xticks(range(len(vs)), [str(v) for v in vs])
    ax.set_yticks(range(len(bs)), [str(b) for b in bs])
    ax.set_xlabel("vector weight")
    ax.set_ylabel("BM25 weight")
    ax.set_title(title or f"{metric} on the tuning split")
    fig.colorbar(im, ax=ax)
    fig.tight_layout()
    return fig


def stage_bars(rows: Sequence[Mapping[str, Any]], *, title: str = "Ingest time per stage") -> Any:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(7, 0.4 * len(rows) + 1.5))
    ax.barh([r["stage"] for r in rows][::-1], [r["total_s"] for r in rows][::-1])
    ax.set_xlabel("seconds, summed over documents")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def rank_rates(per_rank: Sequence[Mapping[str, Any]], *, title: str = "REFEED: positive rate per rank") -> Any:
    plt = _plt()
    fig, ax = plt.subplots(figsize=(6, 3.5))
    ax.bar([str(r["rank"]) for r in per_rank], [r["rate"] for r in per_rank])
    ax.set_xlabel("rank")
    ax.set_ylabel("positive rate")
    ax.set_ylim(0, 1)
    ax.set_title(title)
    fig.tight_layout()
    return fig
