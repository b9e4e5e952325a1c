"""``winnow anonymize``: detect, hide and write every photo of a folder (trusted bulk use)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``winnow anonymize IN_DIR --out OUT_DIR``."""
    parser = subparsers.add_parser(
        "anonymize", help="hide faces and licence plates in a folder of photos",
        description="Detect faces and licence plates in every photo under IN_DIR, hide "
        "them, and write metadata-free copies to OUT_DIR (originals are never changed). "
        "Each output is checked by running a face detector again: CenterFace whenever it "
        "is installed, whatever --face-detector says (HOG only without it), at 0.2 or a "
        "lower --threshold. A face it finds outside every region, or plate text readable "
        "outside every region (unless --no-plates), is "
        "hidden by a region of its own (listed in the report); an output that still "
        "fails the check (a face or a readable plate found after the strongest setting) "
        "is not written unless --keep-failed. A JPEG output wider or taller than 65,500 "
        "px is an error for that photo (save it as PNG). Every input gets its "
        "own output name (x.jpg and x.JPG become x-jpg.jpg and x-JPG.jpg); files that are "
        "not JPEG/PNG/HEIC photos are listed as skipped. Run it again after an "
        "interruption: finished outputs are kept. For release with human review use the "
        "Anonymize workspace.")
    parser.add_argument("in_dir", metavar="IN_DIR", type=Path)
    parser.add_argument("--out", required=True, type=Path, metavar="OUT_DIR")
    parser.add_argument("--method", choices=("blur", "pixelate", "fill"), default="blur")
    parser.add_argument("--report", type=Path, metavar="REPORT.json",
                        help="write every region (detector, score) and every failed "
                        "verification to this JSON file")
    parser.add_argument("--face-detector", choices=("centerface", "hog", "centerface+hog"),
                        default=None, help="the detector that finds the regions "
                        "(default: centerface when installed, else hog); the check of "
                        "each output uses CenterFace whenever it is installed")
    parser.add_argument("--threshold", type=_score, default=None,
                        help="face score threshold of the detection (CenterFace, default "
                        "0.2). The check of each output uses 0.2 when this is higher and "
                        "hides every face it finds that no region covers: a higher value "
                        "finds fewer faces to hide, the check hides the rest")
    parser.add_argument("--no-plates", action="store_true", help="do not look for plates")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace Winnow's own earlier outputs in OUT_DIR (files it did "
                        "not write, or that were changed since, are never replaced)")
    parser.add_argument("--keep-failed", action="store_true",
                        help="also write outputs whose verification failed, named "
                        "x.UNVERIFIED.jpg (never share them without looking); by default "
                        "they are not written, and the report says why")
    parser.set_defaults(handler=run_anonymize)


def _score(text: str) -> float:
    """A face score threshold: strictly between 0 and 1 (NaN, 2 or inf hid no face)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"expected a score between 0 and 1, got {text!r}")
    return value


def run_anonymize(args: argparse.Namespace) -> int:
    """Handler: exit 0 when every photo was written and passed verification; 1 when any
    file under IN_DIR was not written (skipped, unreadable, disk full) or failed."""
    from app.cli import CliError, print_json
    from core import extras

    extras.require("anonymize", "winnow anonymize (face and plate detection)")
    from core.imaging import faces
    from core.imaging.batch import anonymize_folder
    from core.imaging.detect import DetectSettings
    from core.imaging.loading import why_not_a_folder
    from core.jobs import JobState

    if not args.in_dir.is_dir():
        raise CliError(why_not_a_folder(args.in_dir))
    settings = DetectSettings()
    if args.face_detector:
        settings.face_detector = args.face_detector
    elif not faces.centerface_available():
        print("winnow anonymize: warning: the CenterFace model is not installed; using "
              "the HOG fallback (frontal faces only). " + faces.SETUP_HINT, file=sys.stderr)
        settings.face_detector = "hog"
    if "centerface" in settings.face_detector and not faces.centerface_available():
        raise CliError("the CenterFace model is not installed. " + faces.SETUP_HINT)
    if args.threshold is not None:
        settings.face_threshold = args.threshold
    settings.plates = not args.no_plates
    if args.report:
        _check_report_path(args)
    if args.report:
        from core.export_files import check_file_target

        try:  # refuse now, not after the whole folder is done
            check_file_target(args.report)
        except FileExistsError as exc:
            raise CliError(str(exc)) from None
    state = JobState("anonymize")
    if sys.stderr.isatty():
        state.subscribe(_progress_printer())
    try:
        report = anonymize_folder(args.in_dir, args.out, args.method, settings, state,
                                  overwrite=args.overwrite, keep_failed=args.keep_failed)
    except FileExistsError as exc:
        raise CliError(str(exc)) from None
    if args.report:
        from core.export_files import export_text

        export_text(args.report, json.dumps(report, indent=2))
    print_json({
        "photos": len(report["photos"]),
        "regions": sum(len(p["regions"]) for p in report["photos"]),
        "written": [{"file": p["file"], "output": p["output"]} for p in report["photos"]
                    if p["verification"]["ok"]],
        "kept": report["kept"],
        "failed": [{"file": f["file"], "why": f["why"], "output": f["output"]}
                   for f in report["failed"]],
        "removed": report["removed"],
        "errors": report["errors"],
        "skipped": report["skipped"],
        "not_written": report["not_written"],
        "out": str(args.out),
        "report": str(args.report) if args.report else None,
    })
    incomplete = any(report[k] for k in ("failed", "errors", "skipped", "not_written"))
    return 1 if incomplete else 0


def _check_report_path(args: argparse.Namespace) -> None:
    """Refuse a ``--report`` where an output (or its UNVERIFIED name) or the folder's
    ownership marker goes: the report replaced the photo written there a moment before."""
    from app.cli import CliError
    from core.export_files import MARKER_NAME
    from core.imaging.batch import output_names, scan, unverified_name
    from core.imaging.loading import why_not_a_folder

    report = Path(os.path.abspath(args.report))
    out = Path(os.path.abspath(args.out))
    if os.path.lexists(report.parent) and not report.parent.is_dir():  # before any work
        raise CliError(f"--report {args.report}: {why_not_a_folder(report.parent)}")
    if out not in report.parents:
        return
    taken = {out / MARKER_NAME: "the folder's record of the files Winnow wrote"}
    photos, _ = scan(args.in_dir, args.out)
    for rel, name in output_names(photos).items():
        for path in (out / name, unverified_name(out / name)):
            taken[Path(os.path.normpath(path))] = f"the anonymized copy of {rel.as_posix()}"
    what = taken.get(Path(os.path.normpath(report)))
    if what:
        raise CliError(f"--report {args.report} is where {what} goes; choose another name")


def _progress_printer() -> Any:
    def show(state: Any) -> None:
        if state.total:
            print(f"\r{state.done}/{state.total} {state.status[:60]:<60}", end="",
                  file=sys.stderr, flush=True)
    return show
