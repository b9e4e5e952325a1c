"""The pyarrow, split and csv-module parsers give the same votes and the same messages."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from core.stats import csvcolumns, tables
from core.stats.tables import CsvFormatError

PIECES = ["a", "b", "tie", "A", " b ", "TIE\t", "x", "", "m1", "m2", " m1", "m\u00a0", "é",
          "m1 ", "\u2003m2", "1", "nan"]


def _random_file(rng: random.Random) -> bytes:
    lines = ["a,b,winner" if rng.random() < 0.8 else " A , B ,Winner,extra"]
    width = 3 if not lines[0].endswith("extra") else 4
    for _ in range(rng.randint(0, 12)):
        roll = rng.random()
        if roll < 0.08:
            lines.append("")
        elif roll < 0.12:
            lines.append("  ")
        elif roll < 0.15:
            lines.append(",,")
        elif roll < 0.2:
            lines.append(",".join(rng.choice(PIECES) for _ in range(width + rng.choice([-1, 1]))))
        else:
            a, b = rng.choice(PIECES[8:]), rng.choice(PIECES[8:])
            row = [a, b, rng.choice(PIECES[:6] + ["x"])] + ([rng.choice(PIECES)] if width == 4
                                                            else [])
            lines.append(",".join(row))
    text = ("\r\n" if rng.random() < 0.3 else "\n").join(lines)
    data = text.encode()
    if rng.random() < 0.2:
        data = b"\xef\xbb\xbf" + data
    if rng.random() < 0.05:
        data += b"\xff"
    return data


def _outcome(path: Path) -> object:
    try:
        v = tables.read_votes(path)
    except CsvFormatError as exc:
        return ("error", str(exc))
    return (v.models, v.a.tolist(), v.b.tolist(), v.outcome.tolist())


def test_both_parsers_agree_on_random_odd_files(tmp_path: Path, monkeypatch) -> None:
    rng = random.Random(7)
    fast_used = 0
    for k in range(300):
        path = tmp_path / f"v{k}.csv"
        path.write_bytes(_random_file(rng))
        monkeypatch.setattr(csvcolumns, "FAST_MIN_BYTES", 10**12)
        slow = _outcome(path)
        monkeypatch.setattr(csvcolumns, "FAST_MIN_BYTES", 0)
        calls = []
        real = csvcolumns.CsvColumns._parse_slow
        monkeypatch.setattr(csvcolumns.CsvColumns, "_parse_slow",
                            lambda self, w, real=real, calls=calls: calls.append(1) or real(self, w))
        fast = _outcome(path)
        monkeypatch.undo()
        fast_used += not calls
        assert fast == slow, (path.read_bytes(), fast, slow)
    assert fast_used > 40  # the pyarrow path really ran on many of them


@pytest.mark.parametrize(("parser", "newline"), [("pyarrow", "\n"), ("split", "\n"),
                                                 ("split", "\r\n")])
def test_large_vote_file_is_read_right_without_the_csv_module(
        tmp_path: Path, monkeypatch, parser: str, newline: str) -> None:
    rng = np.random.default_rng(0)
    n = 60_000
    names = np.array([f"model-{i}" for i in range(12)])
    a = rng.integers(0, 12, n)
    b = (a + rng.integers(1, 12, n)) % 12
    w = rng.choice(["a", "b", "tie", "A", " B"], n)
    path = tmp_path / "big.csv"
    with open(path, "w", newline="") as fh:
        fh.write("a,b,winner" + newline)
        fh.writelines(f"{x},{y},{z}{newline}"
                      for x, y, z in zip(names[a], names[b], w, strict=True))
    assert path.stat().st_size >= max(csvcolumns.FAST_MIN_BYTES, csvcolumns.SPLIT_MIN_BYTES)
    off = "SPLIT_MIN_BYTES" if parser == "pyarrow" else "FAST_MIN_BYTES"
    monkeypatch.setattr(csvcolumns, off, 10**12)
    monkeypatch.setattr(csvcolumns.CsvColumns, "_parse_slow",
                        lambda *args: pytest.fail("the csv-module parser ran"))
    v = tables.read_votes(path)
    rank = np.empty(12, dtype=int)
    rank[np.argsort(names)] = np.arange(12)  # models come back sorted
    np.testing.assert_array_equal(v.a, rank[a])
    np.testing.assert_array_equal(v.b, rank[b])
    np.testing.assert_array_equal(
        v.outcome, [{"a": 0, "b": 1, "tie": 2}[x.strip().lower()] for x in w])


@pytest.mark.parametrize(
    ("odd_line", "fast"),
    [
        (" model-1 ,model-2,a", True),  # a leading blank in a value: pyarrow reads it
        ("\tmodel-3,model-1,tie", True),
        (",,", False),  # a line of commas: the stdlib reader skips it
        ("  , \t,  ", False),  # a line of blanks and commas: skipped too
        (",model-1,a", False),  # an empty first field: the stdlib path words the error
    ],
)
def test_large_files_with_blank_led_lines(tmp_path: Path, monkeypatch, odd_line: str,
                                          fast: bool) -> None:
    lines = ["a,b,winner"] + [f"model-{k % 7},model-{(k + 1) % 7},{'ab'[k % 2]}"
                              for k in range(30_000)]
    lines.insert(12_345, odd_line)
    path = tmp_path / "odd.csv"
    path.write_text("\n".join(lines) + "\n")
    assert path.stat().st_size >= csvcolumns.FAST_MIN_BYTES
    monkeypatch.setattr(csvcolumns, "FAST_MIN_BYTES", 10**12)
    monkeypatch.setattr(csvcolumns, "SPLIT_MIN_BYTES", 10**12)
    slow = _outcome(path)
    monkeypatch.undo()
    calls: list[int] = []
    real = csvcolumns.CsvColumns._parse_slow
    monkeypatch.setattr(csvcolumns.CsvColumns, "_parse_slow",
                        lambda self, w: calls.append(1) or real(self, w))
    assert _outcome(path) == slow
    assert (not calls) == fast
    if odd_line.startswith(",model"):
        assert slow == ("error", "odd.csv row 12346, column 'a': empty value")


def _read_with(path: Path, monkeypatch, parser: str) -> tuple[object, bool]:
    """``read_votes`` through ``parser`` ("stdlib" or "split"); (outcome, whether the
    csv-module path ran)."""
    monkeypatch.setattr(csvcolumns, "FAST_MIN_BYTES", 10**12)
    monkeypatch.setattr(csvcolumns, "SPLIT_MIN_BYTES", 0 if parser == "split" else 10**12)
    calls: list[int] = []
    real = csvcolumns.CsvColumns._parse_slow

    def spy(self: csvcolumns.CsvColumns, wanted: Sequence[str]) -> object:
        calls.append(1)
        return real(self, wanted)

    monkeypatch.setattr(csvcolumns.CsvColumns, "_parse_slow", spy)
    try:
        return _outcome(path), bool(calls)
    finally:
        monkeypatch.undo()


def test_split_and_stdlib_parsers_agree_on_random_odd_files(tmp_path: Path,
                                                            monkeypatch) -> None:
    rng = random.Random(11)
    split_used = 0
    for k in range(400):
        path = tmp_path / f"v{k}.csv"
        data = _random_file(rng)
        if rng.random() < 0.5:  # lines repeated: the split numbers distinct lines then
            head, _, rest = data.partition(b"\n")
            data = head + b"\n" + b"\n".join([rest] * rng.randint(3, 8))
        if rng.random() < 0.3:  # blank lines and CRs at the ends, a bare CR inside
            data = rng.choice([b"\n\n", b"\r\n", b"\r", b""]) + data + rng.choice(
                [b"\n", b"\r\n\r\n", b"\n\n\n", b"\r", b"\rx,y,a"])
        path.write_bytes(data)
        slow, _ = _read_with(path, monkeypatch, "stdlib")
        split, fell_back = _read_with(path, monkeypatch, "split")
        split_used += not fell_back
        assert split == slow, (data, split, slow)
    assert split_used > 40  # the split path really ran on many of them


@pytest.mark.parametrize("repeat", [1, 50])  # lines mostly distinct, or numbered
def test_split_on_a_file_with_an_id_column(tmp_path: Path, monkeypatch, repeat: int) -> None:
    rng = random.Random(repeat)
    lines = [f"v{k},m{rng.randint(0, 3)},m{rng.randint(4, 7)},"
             f"{rng.choice(['a', 'b', 'tie', ' A'])}" for k in range(2000 // repeat)] * repeat
    lines.insert(1234, " \t,m1,m2,a")  # a blank id: csv keeps the line, the split declines
    for blank_id in (False, True):
        path = tmp_path / f"ids{blank_id}.csv"
        path.write_text("id,a,b,winner\n" + "\n".join(lines if blank_id else
                                                        lines[:1234] + lines[1235:]))
        slow, _ = _read_with(path, monkeypatch, "stdlib")
        got, fell_back = _read_with(path, monkeypatch, "split")
        assert got == slow and fell_back == blank_id


@pytest.mark.parametrize(
    ("data", "split"),
    [
        (b"a,b,winner\nm1,m2,a\nm2,m1,b\n", True),
        (b"\xef\xbb\xbfA , B ,Winner\r\n m1 ,m2\t,TIE \r\nm2,m1,b", True),
        (b"\n\r\na,b,winner\nm1,m2,a\n\n\n", True),  # blank lines at the ends: skipped
        (b"a,b,winner\nm1,m2,a\n\nm2,m1,b\n", False),  # a blank line inside
        (b"a,b,winner\nm1,m2,a\n , ,\nm2,m1,b\n", False),  # a line of blanks: skipped
        (b"a,b,winner\nm1,m2,a\rm2,m1,b\n", False),  # a bare CR ends a line in csv
        (b"a,b,winner\nm1,m2,a\nm2,m1\n", False),  # ragged: csv words the error
        (b"a,b,winner\nm1,m2,a\nm2,m1,b,\n", False),  # an empty extra field: allowed
        (b"a,b,winner\nm1,m2,a\nm2,\xffm1,b\n", False),  # not UTF-8
        (b"a,b,winner\n\"m1\",m2,a\n", False),  # quoted
        (b"a,b,winner\n", False),  # only a header
        (b"a,b,winner,c\nm1,m2,a," + b"z" * 131_073 + b"\n", False),  # over csv's limit
        (b"a,b,winner,c\nm1,m2,a," + b"z" * 131_072 + b"\n", True),
        ("a,b,winner\nm\u2028,m\u0085,a\nm\x0c1,m\x1e2,b\n".encode(), True),  # not newlines
        (b"id,a,b,winner\nv1,m1,m2,a\nv2,m2,m1,b\n", True),  # a first column not wanted
        (b"id,a,b,winner\nv1,m1,m2,a\n ,m2,m1,b\n", False),  # ... blank there
        ("id,a,b,winner\nv1,m1,m2,a\n\u2003\x1c,m2,m1,b\n".encode(), False),  # unicode blanks
        ("id,a,b,winner\nv1,m1,m2,a\n\u2003x,m2,m1,b\n".encode(), True),
        (b"a\nm1\n  \nm2\n", False),  # one column: a line of blanks is skipped by csv
    ],
)
def test_split_parser_reads_what_csv_reads_or_declines(tmp_path: Path, monkeypatch,
                                                       data: bytes, split: bool) -> None:
    path = tmp_path / "v.csv"
    path.write_bytes(data)
    slow, _ = _read_with(path, monkeypatch, "stdlib")
    got, fell_back = _read_with(path, monkeypatch, "split")
    assert got == slow
    assert fell_back != split
