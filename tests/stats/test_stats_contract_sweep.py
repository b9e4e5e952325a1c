"""ADR 212: the `winnow stats` contract attacked with files a benchmark owner gets from
elsewhere (sparse and binary files, other encodings, degenerate rankings, help text)."""

from __future__ import annotations

import codecs
import os
import tracemalloc
from pathlib import Path

import pytest

from app.cli import run_cli

TABLES = ("kemeny", "kendall", "friedman", "alpha", "success", "idea")
HEADERS = {"kemeny": "rater,item,model,rank", "kendall": "rater,item,model,rank",
           "friedman": "rater,item,model,rank", "alpha": "rater,unit,value",
           "success": "rater,unit,model,criterion,value",
           "idea": "model,category,subtask,case,q1,q2,q3,q4,q5,q6", "bt": "a,b,winner"}


def _sparse(path: Path, head: bytes, size: int) -> Path:
    with open(path, "wb") as fh:
        fh.write(head)
        fh.truncate(size)  # the rest a hole: it reads as NUL bytes, costs no disk
    with open(path, "rb") as fh:
        try:
            hole = os.lseek(fh.fileno(), 0, os.SEEK_HOLE)
        except OSError:
            hole = size
    if hole >= size:
        pytest.skip("this file system does not report the holes of a sparse file")
    return path


@pytest.mark.timeout(60)
@pytest.mark.parametrize("method", [*TABLES, "bt"])
@pytest.mark.parametrize("where", ["after the header", "from the start"])
def test_a_sparse_file_is_refused_without_reading_it_whole(tmp_path, capsys, method: str,
                                                           where: str) -> None:
    """A 1.9 GB sparse file (under the 2 GB limit) was read whole — 2 GB of memory and
    seconds — before its NUL bytes were refused."""
    head = (HEADERS[method] + "\n").encode() if where == "after the header" else b""
    path = _sparse(tmp_path / "holes.csv", head, 256 * 2**20)
    tracemalloc.start()
    try:
        assert run_cli(["stats", method, str(path)]) == 2
        peak = tracemalloc.get_traced_memory()[1]  # imports included: a few MB
    finally:
        tracemalloc.stop()
    err = capsys.readouterr().err
    assert "holes.csv" in err and "NUL" in err and "Traceback" not in err, err
    if head and method != "bt":
        assert "holes.csv row 2:" in err
    assert peak < 64 * 2**20, f"{peak / 2**20:.0f} MB held to refuse a sparse file"


@pytest.mark.parametrize("bom", [codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE])
@pytest.mark.parametrize("method", [*TABLES, "bt"])
def test_utf32_text_is_named_as_such(tmp_path, capsys, method: str, bom: bytes) -> None:
    """UTF-32's little-endian mark begins with UTF-16's: the file was read as UTF-16 and
    refused for a NUL byte "without a byte-order mark"."""
    codec = "utf-32-le" if bom == codecs.BOM_UTF32_LE else "utf-32-be"
    path = tmp_path / "wide.csv"
    path.write_bytes(bom + (HEADERS[method] + "\n").encode(codec))
    assert run_cli(["stats", method, str(path)]) == 2
    err = capsys.readouterr().err
    assert "wide.csv: UTF-32 text; save it as UTF-8" in err, err


@pytest.mark.parametrize("method", TABLES)
@pytest.mark.parametrize(("magic", "says"), [(b"\x1f\x8b\x08\x00", "gzip-compressed; "
                                              "decompress it first"),
                                             (b"PK\x03\x04", "a zip archive; extract")])
def test_a_compressed_table_says_so_as_vote_files_do(tmp_path, capsys, method: str,
                                                     magic: bytes, says: str) -> None:
    """`stats bt votes.csv.gz` said "gzip-compressed"; `stats kemeny` on the same kind of
    file blamed a NUL byte and suggested UTF-16."""
    path = tmp_path / "ranks.csv"
    path.write_bytes(magic + b"\x00\x00compressed")
    assert run_cli(["stats", method, str(path)]) == 2
    err = capsys.readouterr().err
    assert f"ranks.csv: {says}" in err and "UTF-16" not in err, err


def _ranks(tmp_path: Path, rows: list[tuple[str, str, str, int]]) -> Path:
    path = tmp_path / "ranks.csv"
    path.write_text("rater,item,model,rank\n" + "".join(f"{r},{i},{m},{k}\n"
                                                        for r, i, m, k in rows))
    return path


def test_kendall_says_why_there_is_no_pair_or_no_tau(tmp_path, capsys) -> None:
    """One rater gave `"pairs": []`, and raters who tie everything gave `null`s, with no
    word on why: a new user took either for a failure of the command."""
    import json

    one = _ranks(tmp_path, [("r1", "i", m, k) for k, m in enumerate("abc", 1)])
    assert run_cli(["stats", "kendall", str(one)]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["pairs"] == []
    assert "only one rater ('r1'): no pair of raters to compare" in out.err
    ties = _ranks(tmp_path, [(r, "i", m, 1) for r in ("r1", "r2") for m in "abc"])
    assert run_cli(["stats", "kendall", str(ties)]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["pairs"][0]["tau_b"] is None
    assert ("tau-b is undefined (null) for 1 of 1 pairs of raters ('r1' and 'r2')"
            in out.err), out.err
    assert "2 raters ('r1', 'r2') against the consensus" in out.err, out.err
    fine = _ranks(tmp_path, [(r, "i", m, k) for r in ("r1", "r2")
                             for k, m in enumerate("abc", 1)])
    assert run_cli(["stats", "kendall", str(fine)]) == 0
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize(("method", "keys"), [
    ("bt", ('"scores"', '"method"')), ("elo", ('"ratings"', '"ci"', '"bootstrap"')),
    ("winrate", ('"win_rate"',)), ("kemeny", ('"consensus"', '"score"')),
    ("kendall", ('"pairs"', '"vs_consensus"')),
    ("friedman", ('"statistic"', '"p"', '"posthoc"')), ("alpha", ('"alpha"', '"level"')),
    ("success", ('"success"', '"tau"')), ("idea", ('"scores"', '"overall"'))])
def test_every_help_names_the_json_keys_and_the_exit_status(capsys, method: str,
                                                            keys: tuple[str, ...]) -> None:
    """The help named the CSV columns but not what comes out, nor what exit 2 means: a
    new user scripting `winnow stats` had to read the SPEC."""
    with pytest.raises(SystemExit) as done:
        run_cli(["stats", method, "--help"])
    assert done.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "JSON on stdout" in text and all(k in text for k in keys), text
    assert "exit status 0" in text.lower() and "2 when" in text, text


@pytest.mark.parametrize("method", ["bt", "kemeny"])
def test_an_overlong_field_is_worded_for_a_person(tmp_path, capsys, method: str) -> None:
    """A 200,000-character name gave Python's "field larger than field limit (131072)"."""
    import csv

    path = tmp_path / "long.csv"
    first = HEADERS[method].split(",")
    row = ["L" * 200_000] + ["y", "a"] if method == "bt" else ["r", "i", "L" * 200_000, "1"]
    with open(path, "w", newline="") as fh:
        csv.writer(fh).writerows([first, ["x", "y", "a"] if method == "bt"
                                  else ["r", "i", "m", "2"], row])
    assert run_cli(["stats", method, str(path)]) == 2
    err = capsys.readouterr().err
    assert f"long.csv row 3: a field of more than {csv.field_size_limit():,} characters" in err
    assert "field limit" not in err, err


def test_a_quote_never_closed_is_named_where_it_opens(tmp_path, capsys) -> None:
    path = tmp_path / "open.csv"
    path.write_text('a,b,winner\n"x,y,a\n' + "y,x,b\n" * 30_000)
    assert run_cli(["stats", "bt", str(path)]) == 2
    err = capsys.readouterr().err
    assert "open.csv row 2: a field of more than" in err, err
    assert "a quote that is never closed?" in err, err


@pytest.mark.parametrize("method", ["bt", "elo", "winrate", "kemeny"])
def test_a_symlink_loop_is_not_called_missing(tmp_path, capsys, method: str) -> None:
    """`stats bt LOOP` said "no such file" of a link that is there but leads round."""
    (tmp_path / "one.csv").symlink_to(tmp_path / "two.csv")
    (tmp_path / "two.csv").symlink_to(tmp_path / "one.csv")
    assert run_cli(["stats", method, str(tmp_path / "one.csv")]) == 2
    err = capsys.readouterr().err
    assert "one.csv: Too many levels of symbolic links" in err, err
