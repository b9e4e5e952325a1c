"""``winnow metrics ...``: run metrics on a project, score one pair, export, summarise.

    winnow metrics run P --metric NAME[,NAME…] [--models A,B] [--device cpu|cuda]
    winnow metrics pair IMAGE_A IMAGE_B --metric NAME [--model PATH] [--text PROMPT] --json
    winnow metrics export P --out FILE.csv|FILE.parquet [--format csv|parquet]
    winnow metrics list | winrate P | calibrate P --human LIKERT.csv
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.cli import CliError, print_json


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``winnow metrics``."""
    top = subparsers.add_parser("metrics", help="local metrics and VLM judges (SPEC §7)")
    sub = top.add_subparsers(dest="metrics_command", metavar="ACTION", required=True)

    run = sub.add_parser("run", help="run metrics on a project's samples × models (cached)")
    run.add_argument("project", type=Path)
    run.add_argument("--metric", "-m", required=True, help="comma-separated metric names")
    run.add_argument("--models", default="", help="comma-separated models (default: all; "
                     "@sample = the sample's own output image)")
    run.add_argument("--samples", default="", help="comma-separated sample ids (default: all)")
    run.add_argument("--quality", default="", help="only samples labelled e.g. Benchmark")
    run.add_argument("--split", choices=("text-to-image", "image-to-image"))
    _model_options(run)
    run.set_defaults(handler=cmd_run)

    pair = sub.add_parser("pair", help="score one input/output pair without a project")
    pair.add_argument("image_a", type=Path, help="input (reference) image")
    pair.add_argument("image_b", type=Path, help="output image")
    pair.add_argument("--metric", "-m", required=True)
    pair.add_argument("--model", help="model folder / hub id (CLIP, DINO) or ONNX face model")
    pair.add_argument("--text", default="", help="the prompt (CLIPScore, judges) or the text "
                      "to render (OCR)")
    pair.add_argument("--json", action="store_true", help="print JSON")
    _model_options(pair)
    pair.set_defaults(handler=cmd_pair)

    export = sub.add_parser("export", help="write all stored results as CSV or parquet")
    export.add_argument("project", type=Path)
    export.add_argument("--out", "-o", type=Path, required=True)
    export.add_argument("--metric", default="", help="only these metrics (comma-separated)")
    export.add_argument("--format", choices=("csv", "parquet"),
                        help="default: parquet for a .parquet file name, else csv (ADR 103)")
    export.set_defaults(handler=cmd_export)

    lst = sub.add_parser("list", help="the available metrics and their definitions")
    lst.set_defaults(handler=cmd_list)

    win = sub.add_parser("winrate", help="judge pseudo-pairwise win rate (majority of judges)")
    win.add_argument("project", type=Path)
    win.add_argument("--metric", default="judge_overall")
    win.set_defaults(handler=cmd_winrate)

    cal = sub.add_parser("calibrate", help="z-score calibrate TECCI autorater scores to humans")
    cal.add_argument("project", type=Path)
    cal.add_argument("--human", type=Path, required=True,
                     help="CSV rater,unit,model,criterion,value (unit = sample id)")
    cal.set_defaults(handler=cmd_calibrate)


def _model_options(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("models and judges")
    g.add_argument("--device", default="auto", choices=("auto", "cpu", "cuda"))
    g.add_argument("--clip-model", help="CLIP folder or cached hub id")
    g.add_argument("--dino-model", help="DINO ViT folder or cached hub id")
    g.add_argument("--dino-resolution", type=int, default=224)
    g.add_argument("--face-onnx", help="ArcFace-style ONNX face embedder (default: dlib)")
    g.add_argument("--batch-size", type=int)
    g.add_argument("--judge-url", default="", help="OpenAI-compatible base URL, e.g. "
                   "http://localhost:8000/v1 (key from WINNOW_JUDGE_API_KEY)")
    g.add_argument("--judge-model", default="", help="comma-separated judge model names")
    g.add_argument("--judge-repeats", type=int, default=5, help="TECCI runs per item")
    g.add_argument("--judge-timeout", type=float, default=120.0)


def _settings(args: argparse.Namespace) -> Any:
    from core.metrics.settings import MetricSettings, judges_from_text

    s = MetricSettings(device=args.device, dino_resolution=args.dino_resolution,
                       face_onnx=args.face_onnx, batch_size=args.batch_size,
                       judge_repeats=args.judge_repeats,
                       judges=judges_from_text(args.judge_url, args.judge_model,
                                               timeout=args.judge_timeout))
    if args.clip_model:
        s = replace(s, clip_model=args.clip_model)
    if args.dino_model:
        s = replace(s, dino_model=args.dino_model)
    return s.with_key_from_env()


def _split(text: str) -> list[str]:
    return [t.strip() for t in text.split(",") if t.strip()]


def _progress(state: Any) -> None:
    pct = int(100 * (state.fraction or 0))
    sys.stderr.write(f"\r{state.status[:60]:<60} {pct:3d}%")
    sys.stderr.flush()


def cmd_run(args: argparse.Namespace) -> int:
    from core.jobs import JobState
    from core.metrics.items import available_models, collect_items
    from core.metrics.registry import parse_names
    from core.metrics.runner import run_metrics
    from core.metrics.store import load_results
    from core.metrics.summary import model_stats
    from core.selection import SampleFilter
    from core.store import Project

    metrics = parse_names(args.metric)
    settings = _settings(args)
    with Project.open(args.project) as project:
        known = available_models(project)
        models = _split(args.models) or known
        unknown = sorted(set(models) - set(known))
        if unknown:
            raise CliError(f"no outputs for model(s) {', '.join(unknown)} (known: "
                           f"{', '.join(known) or 'none'})")
        flt = SampleFilter(quality=tuple(_split(args.quality)), split=args.split,
                           ids=tuple(_split(args.samples)))
        ids = flt.sample_ids(project)
        items = collect_items(project, ids, models)
        if not items:
            raise CliError("nothing to score: no selected sample has an output for these models")
        state = JobState(title="metrics")
        if sys.stderr.isatty():
            state.subscribe(_progress)
        summary = run_metrics(state, project, metrics, items, settings)
        if sys.stderr.isatty():
            sys.stderr.write("\n")
        rows = load_results(project, metrics=[m.name for m in metrics], sample_ids=ids,
                            models=models)
        current = {m.name: _hash(m, settings) for m in metrics}
        rows = [r for r in rows if current[r.metric] == r.params_hash]
        stats = {m.name: {s.model: {"n": s.n, "mean": s.mean, "median": s.median,
                                    "not_applicable": s.not_applicable, "errors": s.errors}
                          for s in model_stats(rows, m.name)} for m in metrics}
    print_json({**summary.to_json(), "samples": len(ids), "models": models, "stats": stats})
    return _report_failures(summary, [r for r in rows if r.status == "error"], len(items))


def _report_failures(summary: Any, errors: list[Any], items: int) -> int:
    """Say on stderr which of the ``items`` (per metric) a run could not score and why;
    the exit status: 0 when none failed, 1 when some did, 2 when all did (ADR 187)."""
    lost = {name: items - sum(counts[k] for k in ("computed", "cached", "not_applicable"))
            for name, counts in summary.per_metric.items()}
    failed = sum(lost.values())
    if not failed and not summary.failed_metrics:
        return 0
    which = ", ".join(f"{name}: {n}" for name, n in lost.items() if n)
    print(f"winnow metrics run: {failed} of {items * len(lost)} item(s) failed ({which})",
          file=sys.stderr)
    for name, message in summary.failed_metrics.items():
        print(f"winnow metrics run: {name} failed: {message}", file=sys.stderr)
    for r in errors[:_SHOWN]:
        print(f"  {r.metric}: {r.sample_id} × {r.model}: {r.error}", file=sys.stderr)
    if len(errors) > _SHOWN:
        print(f"  … and {len(errors) - _SHOWN} more (`winnow metrics export` lists them "
              "with status error)", file=sys.stderr)
    return 2 if summary.computed + summary.cached == 0 else 1


#: failed items named on stderr (the rest are counted)
_SHOWN = 10


def _hash(metric: Any, settings: Any) -> str:
    from core.metrics.base import params_hash

    return params_hash(metric, metric.params(settings))


def cmd_pair(args: argparse.Namespace) -> int:
    from core.metrics.base import ImageRef, PairItem
    from core.metrics.registry import get
    from core.metrics.runner import evaluate
    from core.metrics.text_rendering import target_text

    metric = get(args.metric)
    settings = _settings(args)
    if args.model:
        field = {"clipscore": "clip_model", "structure_distance": "dino_model",
                 "face_identity": "face_onnx"}.get(metric.name)
        if field is None:
            raise CliError(f"--model does not apply to {metric.name}")
        settings = replace(settings, **{field: args.model})
    refs = []
    for path in (args.image_a, args.image_b):
        if not path.is_file():
            raise CliError(f"{path}: no such image file")
        refs.append(ImageRef(hashlib.sha256(path.read_bytes()).hexdigest(), path))
    wants_text = metric.name in ("text_ocr_cer", "judge_text")
    explicit = args.text if wants_text and args.text and not target_text(args.text) else None
    item = PairItem("pair", "pair", args.text, (refs[0],), refs[1], explicit)
    (result,) = evaluate(metric, [item], settings)
    out = {"metric": metric.name, **result.to_json()}
    if args.json:
        print_json(out)
    elif result.status == "ok":
        print(f"{metric.name}: {result.value:.6g}")
    else:
        print(f"{metric.name}: {result.status}: {result.error or result.details.get('reason')}")
    return 1 if result.status == "error" else 0


def cmd_export(args: argparse.Namespace) -> int:
    from core.interop.parquet import export_metrics_parquet, format_for
    from core.interop.snapshot import open_read_only, read_snapshot
    from core.metrics.registry import get
    from core.metrics.store import export_csv, has_results

    names = [get(n).name for n in _split(args.metric)]

    # as `info` reads it: an older file is not migrated (ADR 187)
    with open_read_only(args.project) as project, read_snapshot(project):
        if not has_results(project, names):  # not a header-only file (ADR 228)
            which = f" of {', '.join(names)}" if names else ""
            raise CliError(f"{args.project.name} holds no metric results{which}; nothing "
                           f"was written to {args.out}. Run them first: winnow metrics "
                           f"run {args.project} --metric NAME")
        if format_for(args.out, args.format) == "parquet":
            n = export_metrics_parquet(project, args.out, metrics=names)
        else:
            n = export_csv(project, args.out, metrics=names)
    print(f"Wrote {n} rows to {args.out}")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    from core.metrics.registry import all_metrics

    print_json([{"name": m.name, "title": m.title, "version": m.version,
                 "higher_is_better": m.higher_is_better, "judge": m.is_judge,
                 "definition": m.definition} for m in all_metrics()])
    return 0


def cmd_winrate(args: argparse.Namespace) -> int:
    from core.metrics.store import load_results
    from core.metrics.summary import judge_win_rates
    from core.store import Project

    with Project.open(args.project, readonly=True) as project:
        result = judge_win_rates(load_results(project, metrics=[args.metric]), args.metric)
    print_json({"win_rate": result.win_rate_dict()})
    return 0


def cmd_calibrate(args: argparse.Namespace) -> int:
    from core.metrics.store import load_results
    from core.metrics.summary import calibrate_tecci
    from core.stats.tables import read_likert
    from core.store import Project

    human = read_likert(args.human)
    with Project.open(args.project, readonly=True) as project:
        out = calibrate_tecci(load_results(project, metrics=["judge_tecci"]), human)
    print_json(out)
    return 0
