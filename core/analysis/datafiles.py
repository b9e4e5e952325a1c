"""Analyze → Open Data File…: statistics CSVs, arena battles and pairwise vote tables.

:func:`open_data_file` detects the format as ``winnow stats`` does
(:func:`core.stats.votefiles.detect_format`): Winnow's CSV kinds go to
:func:`core.analysis.sources.open_csv` unchanged; battle JSON / JSON Lines and
pairwise CSV / parquet tables are read by :func:`core.stats.votefiles.read_vote_file`
with FastChat's defaults (``tie (bothbad)`` counts as a tie, every battle counted,
repeated ids reported in the description) and become a ``votes`` data set.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from core.analysis.online import NO_ORDER
from core.analysis.sources import KIND_TITLES, DataSet, Phase, Row, open_csv
from core.stats.battles import BattleOptions, VoteFile, describe_left_out, describe_unvoted
from core.stats.csvcolumns import CsvFormatError
from core.stats.votefiles import detect_format, read_vote_file

_WINNER_WORDS = ("a", "b", "tie")  # A_WINS, B_WINS, TIE
ARENA_FORMATS = (
    "battle JSON or JSON Lines (model_a, model_b, winner), or a CSV / parquet "
    "table with model_a, model_b and winner, or with wins_a, wins_b[, ties]"
)


def vote_rows(vf: VoteFile) -> list[Row]:
    """Tidy ``a, b, winner`` rows, one per vote.

    Rows with the same content are one shared dict (the analysis never changes a row),
    so a 2,000,000-battle file costs one list of references, not two million dicts.
    """
    votes = vf.votes
    shared: dict[tuple[int, int, int], Row] = {}
    rows: list[Row] = []
    for key in zip(votes.a.tolist(), votes.b.tolist(), votes.outcome.tolist(), strict=True):
        row = shared.get(key)
        if row is None:
            a, b, o = key
            row = shared[key] = {
                "a": votes.models[a],
                "b": votes.models[b],
                "winner": _WINNER_WORDS[o],
            }
        rows.append(row)
    return rows


def describe(vf: VoteFile, path: Path) -> str:
    """One line for the status bar: what was read, left out and found."""
    text = (
        f"{len(vf.votes):,} {KIND_TITLES['votes']} from {vf.records:,} records of "
        f"{path} ({vf.source})"
    )
    if vf.left_out:
        text += f"; left out {describe_left_out(vf.left_out)}"
    if vf.unvoted:
        text += f"; {describe_unvoted(vf.unvoted)}, so without a score"
    if vf.duplicates is not None:
        d = vf.duplicates
        text += (
            f"; {d.count:,} repeat an earlier battle, {'left out' if d.dropped else 'counted'}"
            f" (e.g. {d.example})"
        )
    return text


def arena_format(path: str | Path) -> str | None:
    """``"battles"`` or ``"pairwise"`` when ``path`` holds arena votes (their options
    apply: :class:`BattleOptions`), None for Winnow's CSV kinds or a file that cannot be
    told (opening it reports why)."""
    try:
        fmt, _ = detect_format(Path(path))
    except (OSError, CsvFormatError):
        return None
    return None if fmt == "csv" else fmt


def options_label(options: BattleOptions) -> str:
    """What differs from FastChat's defaults, for the data set's name ("" for none)."""
    parts = [text for on, text in ((options.bothbad == "drop", "both-bad left out"),
                                   (options.anonymous_only, "anonymous only"),
                                   (options.duplicates == "drop", "repeats left out")) if on]
    return ", ".join(parts)


def open_data_file(path: str | Path, progress: Callable[[int], None] | None = None,
                   options: BattleOptions | None = None, phase: Phase | None = None) -> DataSet:
    """Read and validate a statistics file now; the data set keeps its rows.

    ``progress(bytes_read)`` is called while a battle file is streamed, ``phase(done,
    total, what)`` between the passes over one of Winnow's CSVs (either may raise to
    cancel).  ``options`` apply to arena votes (FastChat's defaults when None).  Errors
    name the file and the row or record, as ``winnow stats`` does.
    """
    path = Path(path)
    fmt, _ = detect_format(path)
    if fmt == "csv":
        try:
            return open_csv(path, phase=phase)
        except CsvFormatError as exc:
            if "cannot tell what this file holds" not in str(exc):
                raise
            raise CsvFormatError(f"{exc}; or arena votes: {ARENA_FORMATS}") from None
    vf = read_vote_file(path, fmt, options=options, progress=progress)
    rows = vote_rows(vf)
    label = options_label(options) if options is not None else ""
    return DataSet(
        name=f"{path.name} ({label})" if label else path.name,
        kind="votes",
        key=f"csv:{path.resolve()}" + (f"|{label}" if label else ""),
        loader=lambda _project: rows,
        source=vf.source,
        description=describe(vf, path),
        meta={"path": str(path), "order": vf.order,
              "ordered_by": vf.ordered_by if vf.order is not None else NO_ORDER},
    )
