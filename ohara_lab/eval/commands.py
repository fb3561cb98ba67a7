"""CLI commands of the evaluation harness (registered on `ohara` by `ohara_lab.cli`).

    ohara eval --dataset musique --configs bm25_only,full --unanswerable 0.25 --out eval/results/cli
    ohara eval --dataset musique --unanswerable 0.25 --split test --configs full --answers --json
    ohara reproduce --data-dir ../shared/datasets --out eval/results [--quick]
    ohara reproduce --data-dir /path/to/official --datasets multihop-rag,qasper   # the paper's tables

Named errors (unknown dataset or config, missing files) become one line on stderr and
exit code 2 through the CLI's single error edge (`ohara_lab.cli_edge.fail_cleanly`).
"""
from __future__ import annotations

import json
from pathlib import Path

import click

from ..cli_edge import fail_cleanly
from .configs import CONFIGS  # light (no numpy): the help lists the registry's names, so it cannot drift


@click.command()
@click.option("--dataset", required=True, help="multihop-rag | qasper | qasper-leval | musique | a directory "
                                               "holding corpus.jsonl + queries.jsonl | a BEIR folder "
                                               "(corpus.jsonl + queries.jsonl + qrels/test.tsv)")
@click.option("--qrels", help="BEIR folder only: the qrels split to judge by (qrels/<SPLIT>.tsv; default test), or a "
                              "qrels file of your own (TREC 'qid 0 docid rel' or BEIR tsv)")
@click.option("--data-dir", type=click.Path(path_type=Path), help="folder with the dataset's files "
              "(default: $OHARA_EVAL_DATA, else ../shared/datasets)")
@click.option("--configs", help="comma-separated config names (default: all): " + ", ".join(CONFIGS))
@click.option("--limit", type=click.IntRange(min=1), help="run only the first N queries (the corpus stays whole)")
@click.option("--distractors", type=click.IntRange(min=0),
              help="cut the corpus to the gold documents of the queries plus N random others (quick runs)")
@click.option("--unanswerable", type=click.FloatRange(0.0, 1.0),
              help="hold out this fraction of answerable queries as unanswerable, removing their gold "
                   "documents (the MuSiQue construction), for the abstention metric")
@click.option("--seed", type=int, default=42, show_default=True,
              help="seed of the hold-out, the distractor sample and the significance tests")
@click.option("--nulls", type=click.Choice(["heldout", "foreign", "both"]),
              help="unanswerable queries: heldout (the --unanswerable hold-out), foreign (MultiHop-RAG's questions "
                   "asked of this corpus) or both (foreign plus --unanswerable, 0.25 by default); reported apart")
@click.option("--atlas-dir", type=click.Path(path_type=Path),
              help="where built atlases are cached (default: $OHARA_EVAL_CACHE, else ~/.cache/ohara-lab/eval-atlases)")
@click.option("--embedder", default="auto", show_default=True, help="auto (best installed) | minilm | wordllama | none")
@click.option("--rebuild", is_flag=True, help="ingest the corpus again even if a cached atlas exists")
@click.option("--reference-date", help="'today' of the temporal prior, YYYY-MM-DD (default: the corpus's latest date)")
@click.option("--resamples", type=click.IntRange(min=100), default=10_000, show_default=True,
              help="randomization / bootstrap resamples per comparison")
@click.option("--out", type=click.Path(path_type=Path), help="write summary/significance/by-type/per-query CSV, "
                                                             "report.md and results.json here")
@click.option("--split", type=click.Choice(["tune", "test"]),
              help="run one seeded half of the queries only (the halves tuning and the profile procedure use)")
@click.option("--profile", type=click.Choice(["default", "original"]),
              help="the engine every config starts from (default: OHARA_PROFILE, else default); original = the "
                   "spec's engine, whose `full` row is the paper's")
@click.option("--answers", is_flag=True,
              help="answer each answerable query from each config's top 10 and report the answer metrics "
                   "(short_em, short_f1, answer_contains, answer_words, context_has_answer, support_precision) "
                   "instead of the retrieval matrix; configs default to vector_only,full,tuned")
@click.option("--trec-run", "trec_run", type=click.Path(path_type=Path, file_okay=False),
              help="write each config's ranking as a TREC run file (DIR/<config>.run: qid Q0 docid rank score tag, "
                   "documents once each at their best node) and the judgements as DIR/qrels.txt")
@click.option("--json", "as_json", is_flag=True, help="print the JSON contract instead of the table")
@fail_cleanly
def eval_command(dataset: str, qrels: str | None, data_dir: Path | None, configs: str | None, limit: int | None,
                 distractors: int | None, unanswerable: float | None, seed: int, nulls: str | None,
                 atlas_dir: Path | None,
                 embedder: str, rebuild: bool, reference_date: str | None, resamples: int, out: Path | None,
                 split: str | None, profile: str | None, answers: bool, trec_run: Path | None,
                 as_json: bool) -> None:
    """Run the evaluation config matrix on a dataset, with significance against `full` (or, with --answers,
    the answer metrics of each config)."""
    from .configs import get_configs  # noqa: PLC0415
    from .report import contract, text_table, write_outputs  # noqa: PLC0415
    from .runner import evaluate_dataset  # noqa: PLC0415

    chosen = get_configs(configs)  # unknown names fail before any data is loaded
    if answers:
        _answers(dataset, data_dir, configs, limit, distractors, unanswerable, seed, atlas_dir, embedder, rebuild,
                 reference_date, out, split, profile, as_json)
        return
    run = evaluate_dataset(dataset, data_dir, configs=chosen, limit=limit, distractors=distractors,
                           unanswerable=unanswerable, seed=seed, nulls=nulls, atlas_dir=atlas_dir,
                           embedder=embedder,
                           reference_date=reference_date, n_resamples=resamples, progress=not as_json,
                           rebuild=rebuild, profile=profile, split=split,
                           **({"qrels": qrels} if qrels is not None else {}))
    if out is not None:
        write_outputs(run, out)
    if trec_run is not None:
        from .trec import write_trec_runs  # noqa: PLC0415

        written = write_trec_runs(run, trec_run)
        if not as_json:
            click.echo(f"wrote {len(written)} TREC files to {trec_run}")
    if as_json:
        click.echo(json.dumps(contract(run), indent=2, ensure_ascii=False))
        return
    click.echo(f"{run.dataset.name}: {run.n_queries} queries ({run.n_unanswerable} unanswerable)")
    for note in run.notes:
        click.echo(f"  note: {note}")
    click.echo(text_table(run))
    if out is not None:
        click.echo(f"wrote {out}")


def _answers(dataset: str, data_dir: Path | None, configs: str | None, limit: int | None,
             distractors: int | None, unanswerable: float | None, seed: int, atlas_dir: Path | None, embedder: str,
             rebuild: bool, reference_date: str | None, out: Path | None, split: str | None, profile: str | None,
             as_json: bool) -> None:
    """`ohara eval --answers`: the answer metrics per config, as a table or `{"configs": {name: {...}}}`."""
    from .generation import GENERATION_CONFIGS, answer_table, evaluate_answers  # noqa: PLC0415
    from .report import write_table  # noqa: PLC0415

    run = evaluate_answers(dataset, data_dir, configs=configs or GENERATION_CONFIGS, limit=limit,
                           distractors=distractors, unanswerable=unanswerable, seed=seed, atlas_dir=atlas_dir,
                           embedder=embedder, reference_date=reference_date, rebuild=rebuild, profile=profile,
                           split=split, progress=not as_json)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
        write_table(run.summary, out, "answer_metrics", title=f"Answer metrics ({run.provider}): {dataset}")
        write_table(run.by_type, out, "answer_metrics_by_type", title=f"Answer metrics by question type: {dataset}")
        write_table(run.rows, out, "answers")
        (out / "answers.json").write_text(json.dumps(run.metrics(), indent=2, ensure_ascii=False) + "\n")
    if as_json:
        click.echo(json.dumps(run.metrics(), indent=2, ensure_ascii=False))
        return
    for note in run.notes:
        click.echo(f"  note: {note}")
    click.echo(answer_table(run))
    if out is not None:
        click.echo(f"wrote {out}")


@click.command()
@click.option("--data-dir", type=click.Path(path_type=Path),
              help="dataset folder passed to every notebook (default: $OHARA_EVAL_DATA, else ../shared/datasets)")
@click.option("--out", type=click.Path(path_type=Path), default=Path("eval/results"), show_default=True,
              help="results root: <out>/<notebook>/<dataset>/ gets the executed notebook and its tables/figures")
@click.option("--quick", is_flag=True, help="each notebook at its small default parameters (minutes, not hours)")
@click.option("--only", help="comma-separated notebook names or prefixes, e.g. 02,03")
@click.option("--datasets", default="musique,qasper-leval", show_default=True,
              help="corpora of the full run: musique, qasper-leval, and with their official files in "
                   "--data-dir, multihop-rag and qasper (the paper's own tables)")
@click.option("--atlas-dir", type=click.Path(path_type=Path), help="atlas cache shared by the notebooks")
@click.option("--embedder", help="override the embedder of every notebook (auto | minilm | wordllama | none)")
@click.option("--notebooks-dir", type=click.Path(path_type=Path), help="where the .ipynb sources are "
              "(default: notebooks/ of the repository)")
@click.option("--kernel", help="Jupyter kernel name (default: the notebook's own)")
@fail_cleanly
def reproduce_command(data_dir: Path | None, out: Path, quick: bool, only: str | None, datasets: str,
                      atlas_dir: Path | None, embedder: str | None, notebooks_dir: Path | None,
                      kernel: str | None) -> None:
    """Re-run every paper notebook through papermill, writing executed notebooks and outputs."""
    from .reproduce import reproduce  # noqa: PLC0415

    runs = reproduce(data_dir=data_dir, out=out, quick=quick, only=only, atlas_dir=atlas_dir, embedder=embedder,
                     notebooks_dir=notebooks_dir, kernel=kernel,
                     datasets=[d.strip() for d in datasets.split(",") if d.strip()],
                     on_start=lambda job: click.echo(f"running {job.label} ...", err=True))
    for r in runs:
        click.echo(f"{r.status:<6} {r.label:<40} {r.seconds:7.1f}s  {r.output}")
    if any(r.status != "ok" for r in runs):
        raise SystemExit(1)


@click.command()
@click.option("--dataset", help="musique | a generic folder | ... : labelled answerable and unanswerable queries")
@click.option("--auto", is_flag=True, help="no labels: the atlas asks its own probe questions and their "
                                           "unanswerable twins and stores the profile that sets its threshold")
@click.option("--atlas", help="the atlas to calibrate and store the model in (default: the dataset's evaluation "
                              "atlas, built or reused; with --auto, $OHARA_ATLAS); it must not hold the held-out "
                              "queries' documents")
@click.option("--data-dir", type=click.Path(path_type=Path), help="folder with the dataset's files")
@click.option("--nulls", type=click.Choice(["heldout", "foreign", "both"]), default="both", show_default=True,
              help="unanswerable queries to learn from (see `ohara eval --nulls`)")
@click.option("--unanswerable", type=click.FloatRange(0.0, 1.0), help="held-out fraction (default 0.25)")
@click.option("--seed", type=int, default=42, show_default=True)
@click.option("--allow-small", is_flag=True, help="fit with fewer than 20 queries of a class (a warning, not an error)")
@click.option("--json", "as_json", is_flag=True, help="print the fitted model (with --auto: the calibration) as JSON")
@fail_cleanly
def calibrate_command(dataset: str | None, auto: bool, atlas: str | None, data_dir: Path | None, nulls: str,
                      unanswerable: float | None, seed: int, allow_small: bool, as_json: bool) -> None:
    """Fit the answerability model on labelled queries and store it (as JSON) in the atlas; or, with --auto,
    calibrate the atlas on its own probe questions."""
    from contextlib import ExitStack  # noqa: PLC0415

    from ..atlas import Atlas  # noqa: PLC0415
    from .build import build_atlas  # noqa: PLC0415
    from .calibrate import collect, fit, save_to_atlas  # noqa: PLC0415
    from .runner import prepare_dataset  # noqa: PLC0415

    if auto:
        if dataset:
            raise click.UsageError("--auto needs no --dataset: it makes its own probe questions")
        with Atlas.open(atlas) as a:
            found = a.self_calibrate()
        click.echo(json.dumps(found.to_dict(), indent=2) if as_json else found.summary())
        return
    if not dataset:
        raise click.UsageError("give --dataset (labelled queries) or --auto (the atlas's own probes)")
    ds = prepare_dataset(dataset, data_dir, unanswerable=unanswerable if unanswerable is not None else
                         (0.25 if nulls != "foreign" else None), seed=seed, nulls=nulls)
    with ExitStack() as stack:
        target = stack.enter_context(Atlas.open(atlas)) if atlas else \
            stack.enter_context(build_atlas(ds, progress=not as_json)).atlas
        models = []
        for lexical in ([False, True] if target.store.vector_models() else [True]):
            rows, profile = collect(target, ds.queries, progress=not as_json, lexical=lexical, label="atlas")
            models.append(fit(rows, seed=seed, allow_small=allow_small, lexical=lexical, profiles={"atlas": profile},
                              provenance={"name": f"calibrated on {ds.name}",
                                          "trained_on": f"{ds.name} ({nulls} nulls)"}))
            save_to_atlas(target, models[-1])
        model = models[0]
        where = target.location
    if as_json:
        click.echo(json.dumps(model.to_dict(), indent=2))
        return
    click.echo(f"fitted on {model.provenance['rows']} ({model.provenance['folds']}-fold out-of-fold calibration)"
               + (" and a lexical model for queries without vectors" if len(models) > 1 else ""))
    for keep in (0.90, 0.92, 0.95):
        click.echo(f"  keep {keep:.2f}: threshold {model.threshold(keep):.3f}")
    click.echo("  coefficients: " + ", ".join(f"{f} {c:+.2f}" for f, c in zip(model.features, model.coef)))
    click.echo(f"stored in {where} (OHARA_ABSTAIN=model uses it)")
