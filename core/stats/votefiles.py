"""Which vote format a file holds, and reading any of them into votes (ADRs 022, 023).

Three formats, told apart by content first and extension second:

========== ================================================================ ==============
format     what                                                              recognised by
========== ================================================================ ==============
csv        Winnow's ``a,b,winner`` CSV (ADR 018)                             anything else
battles    FastChat / GenAI-Arena battles: a JSON array or JSON Lines        ``[`` or ``{``
pairwise   a table with ``model_a``/``model_b`` and a winner or vote counts  ``PAR1``; header
========== ================================================================ ==============

A ``.json``/``.jsonl`` file that is not JSON, or a ``.parquet`` file that is not
parquet, is an error naming the file rather than a guess.
"""

from __future__ import annotations

import stat
from pathlib import Path

import numpy as np

from core.file_kinds import UTF32_BOMS, binary_kind
from core.stats import tables
from core.stats.battles import BattleOptions, VoteFile, finalize, read_battle_json
from core.stats.csvcolumns import CsvFormatError
from core.stats.csvdialect import first_row, header_name
from core.stats.jsonstream import Progress
from core.stats.pairwise_tables import is_pairwise_header, read_pairwise_table
from core.stats.votes import Votes, win_matrix
from core.stats.winrate import WinRateResult

FORMATS = ("csv", "battles", "pairwise")
FORMAT_HELP = {
    "csv": "Winnow's CSV (a,b,winner with winner a, b or tie)",
    "battles": "FastChat / GenAI-Arena battles (JSON array or JSON Lines with model_a, "
    "model_b, winner)",
    "pairwise": "a CSV or parquet table with model_a, model_b and winner, or with vote "
    "counts wins_a, wins_b[, ties]",
}
_JSON_SUFFIXES = (".json", ".jsonl", ".ndjson")
_HEAD = 65536


def _regular(path: Path) -> None:
    """Refuse a missing file, a folder, pipe or device at once (reading a named pipe
    would block)."""
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise CsvFormatError(f"{path}: no such file") from None
    except OSError as exc:  # a loop of links, a folder that may not be read
        raise CsvFormatError(f"{path}: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise CsvFormatError(f"{path.name}: not a regular file (a folder, pipe or device)")


def _head(path: Path) -> bytes:
    _regular(path)
    with open(path, "rb") as fh:
        return fh.read(_HEAD)


def _readable_head(path: Path) -> bytes:
    """The start of a vote file as UTF-8 (a CSV saved as UTF-16 with a byte-order mark is
    read, ADR 159); a compressed, binary or other UTF-16 file is refused, naming it."""
    head = _head(path)
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = head.decode("utf-16", errors="ignore").encode()
        if (text.lstrip(b" \t\r\n")[:1] not in (b"[", b"{")
                and path.suffix.lower() not in _JSON_SUFFIXES):
            return text  # a CSV: CsvColumns reads UTF-16 with a BOM
    _refuse_undecodable(path.name, head)
    return head


def _refuse_undecodable(name: str, head: bytes) -> None:
    """A compressed or UTF-16 file says so, instead of a puzzling 'not UTF-8' later."""
    if head.startswith(UTF32_BOMS):
        what: str | None = "UTF-32 text; save it as UTF-8"
    elif head.startswith((b"\xff\xfe", b"\xfe\xff")) or _utf16_without_bom(head[:64]):
        what = "UTF-16 text; save it as UTF-8"
    else:
        what = binary_kind(head, allow_parquet=True)
        if what is not None and "; " not in what:  # a kind, not what to do
            what += ", not a text or parquet file"
    if what:
        raise CsvFormatError(f"{name}: {what}")


def _utf16_without_bom(head: bytes) -> bool:
    """ASCII text written as UTF-16: every other byte of the start is NUL."""
    if len(head) < 4:
        return False
    even, odd = head[0::2], head[1::2]
    if even.count(0) == len(even):
        return odd.count(0) < len(odd) // 2  # all NUL is no text at all
    return odd.count(0) == len(odd) and even.count(0) < len(even) // 2


def detect_format(path: str | Path) -> tuple[str, str]:
    """``(format, container)``: container is ``csv``, ``json``, ``jsonl`` or ``parquet``."""
    path = Path(path)
    head = _readable_head(path)
    suffix = path.suffix.lower()
    if head.startswith(b"PAR1"):
        return "pairwise", "parquet"
    if suffix == ".parquet":
        raise CsvFormatError(f"{path.name}: not a parquet file (it does not start with PAR1)")
    start = head.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if start in (b"[", b"{"):
        return "battles", "json" if start == b"[" else "jsonl"
    if suffix in _JSON_SUFFIXES:
        got = "an empty file" if not start else f"{start.decode('latin-1')!r}"
        raise CsvFormatError(
            f"{path.name}: not a battle file: expected a JSON array ('[') or "
            f"JSON Lines (one object '{{…}}' per line), found {got}"
        )
    if is_pairwise_header(first_row(head)):
        return "pairwise", "csv"
    return "csv", "csv"


def csv_has_votes(path: str | Path) -> bool:
    """True when a CSV's header has Winnow's vote columns ``a``, ``b`` and ``winner``."""
    return {"a", "b", "winner"} <= set(map(header_name, first_row(_readable_head(Path(path)))))


def resolve_format(path: str | Path, fmt: str = "auto") -> tuple[str, str]:
    """The detected format, or ``fmt`` when forced (with the container read from content)."""
    if fmt == "auto":
        return detect_format(path)
    if fmt not in FORMATS:
        raise ValueError(f"unknown vote format {fmt!r} (expected one of {', '.join(FORMATS)})")
    if fmt == "csv":
        _regular(Path(path))
        return fmt, "csv"
    head = _readable_head(Path(path))
    if fmt == "pairwise":
        return fmt, "parquet" if head.startswith(b"PAR1") else "csv"
    return fmt, "json" if head.lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"[") else "jsonl"


def read_vote_file(
    path: str | Path,
    fmt: str = "auto",
    options: BattleOptions | None = None,
    progress: Progress | None = None,
) -> VoteFile:
    """Votes from a file in any of :data:`FORMATS` (``auto``: detected)."""
    path = Path(path)
    fmt, container = resolve_format(path, fmt)
    if fmt == "csv":
        if options is not None and options.anonymous_only:
            raise CsvFormatError(
                f"{path.name}: a Winnow votes CSV has no 'anony' column; "
                "keeping only anonymous battles needs battle data"
            )
        votes = tables.read_votes(path)
        return VoteFile(votes, "CSV", len(votes), order=np.arange(len(votes)))
    if fmt == "battles":
        raw = read_battle_json(path, progress)
    else:
        raw = read_pairwise_table(path, parquet=container == "parquet")
    return finalize(raw, options)


def vote_win_rates(votes: Votes) -> WinRateResult:
    """Each model's share of its battles won, a tie counting half (ECHO's win rate, ADR 024)."""
    if len(votes) == 0:
        raise ValueError("no votes")
    w = win_matrix(votes.a, votes.b, votes.outcome, len(votes.models))
    games = w + w.T
    n = games.sum(axis=1)
    return WinRateResult(votes.models, w.sum(axis=1) / n, n, w, games)
