"""Hostile battle files: truncated, huge, deep, non-UTF-8, NaN, duplicate keys, wrong types."""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path

import pytest

from app.cli import run_cli
from core.stats import jsonstream
from core.stats.csvcolumns import CsvFormatError
from core.stats.jsonstream import JsonStreamError, json_array
from core.stats.votefiles import read_vote_file

GOOD = {"model_a": "x", "model_b": "y", "winner": "model_a"}


def refused(path: Path) -> str:
    with pytest.raises(CsvFormatError) as err:
        read_vote_file(path)
    return str(err.value)


def write(tmp_path: Path, name: str, data: bytes | str) -> Path:
    path = tmp_path / name
    path.write_bytes(data.encode() if isinstance(data, str) else data)
    return path


# -- the streaming parser ---------------------------------------------------------------------


@pytest.mark.parametrize("chunk", [1, 3, 17, 4096])
def test_array_split_anywhere_reads_the_same(monkeypatch, chunk: int) -> None:
    """Records and numbers cut at every possible chunk boundary still read right."""
    monkeypatch.setattr(jsonstream, "CHUNK", chunk)
    values = [
        GOOD,
        {"s": 'é\u00e9 \\" ]}, [', "n": -12.5e-3},
        [1, [2, {}]],
        123456789,
        "z",
        True,
        None,
        {"u": "\U0001f600"},
    ]
    text = json.dumps(values, indent=1, ensure_ascii=False).encode()
    got = list(json_array(io.BytesIO(text), "f.json"))
    assert [v for _, _, v in got] == values
    assert [r for r, _, _ in got] == list(range(1, len(values) + 1))
    assert got[0][1] == 2  # line of the first record


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "",
            "f.json (line 1): expected a JSON array of records starting with '[', found an empty "
            "file",
        ),
        ('{"a": 1}', "found '{'"),
        ("[1,]", "f.json record 2 (line 1): expected a value"),
        ("[1 2]", "f.json record 1 (line 1): expected ',' or ']' after the record, found '2'"),
        ("[1]\n]", "f.json (line 2): text after the closing ']' of the array"),
        ('[{"a": 1},\n {"a": ', "f.json record 2 (line 2): not valid JSON: Expecting value"),
        (
            '[{"a": 1},\n {"a": "unterminated',
            "f.json record 2 (line 2): not valid JSON: Unterminated string",
        ),
        (
            '[\n{"a": 1}',
            "f.json record 1 (line 2): expected ',' or ']' after the record, found "
            "the end of the file",
        ),
        ('[{"a": NaN}]', "f.json record 1 (line 1): NaN is not a JSON value"),
        ('[{"a": -Infinity}]', "f.json record 1 (line 1): -Infinity is not a JSON value"),
        ('[{"a": 1' + "0" * 5000 + "}]", "f.json record 1 (line 1): a number with too many digits"),
        ("[" * 200_000, "f.json record 1 (line 1): values nested too deeply"),
        ('[\n\n{"a": tru}]', "f.json record 1 (line 3): not valid JSON: Expecting value"),
    ],
)
def test_malformed_arrays_name_record_and_line(text: str, message: str) -> None:
    with pytest.raises(JsonStreamError) as err:
        list(json_array(io.BytesIO(text.encode()), "f.json"))
    assert message in str(err.value)


def test_non_utf8_names_the_line_and_byte() -> None:
    data = b'[\n{"model_a": "x"},\n{"model_a": "\xff"}]'
    with pytest.raises(JsonStreamError, match=r"f\.json line 3: not UTF-8 text \(byte 33 "):
        list(json_array(io.BytesIO(data), "f.json"))


def test_a_record_larger_than_the_limit_is_refused_without_reading_on(monkeypatch) -> None:
    monkeypatch.setattr(jsonstream, "MAX_RECORD_BYTES", 1000)
    monkeypatch.setattr(jsonstream, "CHUNK", 256)

    class Endless(io.RawIOBase):  # a string that never ends: must not be read to the end
        def __init__(self) -> None:
            self.given = 0

        def readable(self) -> bool:
            return True

        def readinto(self, buf) -> int:  # type: ignore[no-untyped-def]
            head = b'[{"a": "' if self.given == 0 else b""
            n = len(buf)
            data = (head + b"x" * n)[:n]
            buf[:n] = data
            self.given += n
            return n

    src = Endless()
    with pytest.raises(JsonStreamError, match=r"record 1 \(line 1\): the record is longer than"):
        list(json_array(io.BufferedReader(src), "f.json"))
    assert src.given < 10_000


def test_json_lines_line_limit_and_hints(tmp_path: Path, monkeypatch) -> None:
    two = write(tmp_path, "two.jsonl", json.dumps(GOOD) + " " + json.dumps(GOOD) + "\n")
    assert "two.jsonl line 1: more than one JSON value on the line" in refused(two)
    monkeypatch.setattr(jsonstream, "MAX_RECORD_BYTES", 100)
    path = write(tmp_path, "b.jsonl", json.dumps(GOOD) + "\n" + "x" * 500 + "\n")
    assert "b.jsonl line 2: 0 MB on one line is more than" in refused(path)
    pretty = write(tmp_path, "one.json", json.dumps(GOOD, indent=2))
    assert (
        "one.json line 1: not valid JSON: Expecting property name enclosed in double "
        "quotes (JSON Lines holds one whole record per line" in refused(pretty)
    )


# -- records ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("record", "message"),
    [
        (
            [1, 2],
            "b.jsonl line 2: expected a battle object with model_a, model_b and winner, got a list",
        ),
        ({"model_b": "y", "winner": "tie"}, "b.jsonl line 2, field 'model_a': missing"),
        (
            {"model_a": 12, "model_b": "y", "winner": "tie"},
            "b.jsonl line 2, field 'model_a': expected the model's name, got a number",
        ),
        (
            {"model_a": "  ", "model_b": "y", "winner": "tie"},
            "b.jsonl line 2, field 'model_a': empty",
        ),
        (
            {"model_a": "x", "model_b": "y"},
            "b.jsonl line 2, field 'winner': expected one of "
            "model_a, model_b, tie or tie (bothbad), missing",
        ),
        (
            {"model_a": "x", "model_b": "y", "winner": None},
            "field 'winner': expected one of model_a, model_b, tie or tie (bothbad), got None",
        ),
        ({"model_a": "x", "model_b": "y", "winner": 1}, "got 1"),
        (
            {**GOOD, "anony": "yes"},
            "b.jsonl line 2, field 'anony': expected true or false, got a string",
        ),
        (
            {**GOOD, "tstamp": "noon"},
            "b.jsonl line 2, field 'tstamp': expected a time in seconds, got a string",
        ),
        ({**GOOD, "tstamp": True}, "field 'tstamp': expected a time in seconds, got true/false"),
        ({**GOOD, "tstamp": "1e999"}, "field 'tstamp': expected a time in seconds, got inf"),
    ],
)
def test_bad_records_are_named(tmp_path: Path, record, message: str) -> None:
    text = json.dumps(GOOD) + "\n" + json.dumps(record).replace('"1e999"', "1e999") + "\n"
    assert message in refused(write(tmp_path, "b.jsonl", text))


def test_duplicate_keys_matter_only_in_fields_winnow_reads(tmp_path: Path) -> None:
    twice = '[{"model_a": "x", "model_b": "y", "winner": "model_a", "winner": "model_b"}]'
    assert (
        refused(write(tmp_path, "d.json", twice))
        == "d.json record 1 (line 1), field 'winner': given twice in one record"
    )
    nested = (
        '[{"model_a": "x", "model_b": "y", "winner": "model_a", '
        '"conversation_a": [{"role": "user", "role": "assistant"}]}]'
    )
    assert len(read_vote_file(write(tmp_path, "n.json", nested)).votes) == 1


def test_bom_crlf_and_blank_lines_are_fine(tmp_path: Path) -> None:
    body = "\r\n".join(["", json.dumps(GOOD), "   ", json.dumps(GOOD), ""])
    path = write(tmp_path, "b.jsonl", b"\xef\xbb\xbf" + body.encode())
    vf = read_vote_file(path)
    assert len(vf.votes) == 2
    array = write(
        tmp_path, "a.json", b"\xef\xbb\xbf\r\n[\r\n" + json.dumps(GOOD).encode() + b"\r\n]\r\n"
    )
    assert len(read_vote_file(array).votes) == 1


def test_empty_array_and_empty_lines_are_no_battles(tmp_path: Path) -> None:
    assert (
        refused(write(tmp_path, "e.json", " [ ] ")) == "e.json: no battles (the file holds "
        "no records)"
    )
    assert refused(write(tmp_path, "e.jsonl", "\n\n  \n")).endswith("found an empty file")
    forced = write(tmp_path, "e.log", "\n\n  \n")
    with pytest.raises(CsvFormatError, match=r"^e\.log: no battles \(the file holds no "):
        read_vote_file(forced, "battles")


def test_a_huge_array_of_non_battles_fails_at_its_first_record(tmp_path: Path) -> None:
    path = write(tmp_path, "nums.json", "[" + ",".join(["1"] * 200_000) + "]")
    assert (
        refused(path) == "nums.json record 1 (line 1): expected a battle object with "
        "model_a, model_b and winner, got a number"
    )


def test_too_many_models_is_refused_while_reading(tmp_path: Path, monkeypatch) -> None:
    from core.stats import battles

    monkeypatch.setattr(battles, "MAX_MODELS", 3)
    records = [{"model_a": f"m{i}", "model_b": f"m{i + 1}", "winner": "tie"} for i in range(5)]
    path = write(tmp_path, "m.jsonl", "".join(json.dumps(r) + "\n" for r in records))
    assert (
        refused(path) == "m.jsonl line 3, field 'model_b': more than 3 distinct models, "
        "the most the pairwise statistics handle"
    )


def test_too_many_battles_is_refused(tmp_path: Path, monkeypatch) -> None:
    from core.stats import battles

    monkeypatch.setattr(battles, "MAX_BATTLES", 2)
    path = write(tmp_path, "m.jsonl", (json.dumps(GOOD) + "\n") * 3)
    assert refused(path).startswith("m.jsonl line 3: more than 2 battles; split the file")


def test_streaming_memory_stays_bounded(tmp_path: Path) -> None:
    """A ~24 MB battle array with conversations: memory is a chunk and a record, not the file
    (``json.load`` would hold the text and every conversation: well over 50 MB)."""
    conv = [
        {"role": "user", "content": "draw a red fox in the snow " * 40},
        {"role": "assistant", "content": "<image>" * 100},
    ]
    path = tmp_path / "big.json"
    with open(path, "w", encoding="utf-8") as fh:
        fh.write("[")
        for i in range(8000):
            rec = {
                "question_id": f"{i:032x}",
                "model_a": f"m{i % 7}",
                "model_b": f"m{(i + 3) % 7}",
                "winner": ("model_a", "model_b", "tie")[i % 3],
                "conversation_a": conv,
                "conversation_b": conv,
                "anony": True,
                "tstamp": 1.7e9 + i,
            }
            fh.write(("," if i else "") + json.dumps(rec))
        fh.write("]")
    size = path.stat().st_size
    assert size > 20 * 2**20
    tracemalloc.start()
    try:
        vf = read_vote_file(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(vf.votes) == 8000
    assert peak < 12 * 2**20, f"peak {peak / 2**20:.1f} MB for a {size / 2**20:.0f} MB file"


def test_cli_never_shows_a_traceback(capsys, tmp_path: Path) -> None:
    for name, data in (
        ("t.json", '[{"model_a": "x", "model_b"'),
        ("u.json", b"[\xfe\xff]"),
        ("n.jsonl", '{"model_a": NaN}\n'),
    ):
        code = run_cli(["stats", "elo", str(write(tmp_path, name, data))])
        err = capsys.readouterr().err
        assert (
            code == 2 and err.startswith(f"winnow stats: error: {name}") and "Traceback" not in err
        )


@pytest.mark.parametrize("count", ["1e30", "99999999999999999999999", "2e7"])
def test_a_huge_vote_count_is_refused_naming_the_row(tmp_path: Path, count: str) -> None:
    """A count beyond what one file may hold is named, not cast to a negative integer."""
    path = write(tmp_path, "c.csv", f"model_a,model_b,wins_a,wins_b\nx,y,1,2\nx,z,{count},2\n")
    message = refused(path)
    assert message.startswith("c.csv row 3, column 'wins_a': ")
    assert "20,000,000" in message


def test_a_folder_or_a_pipe_is_refused_without_waiting(tmp_path: Path) -> None:
    """Not a regular file: a clear error at once (reading a named pipe would block)."""
    import os

    (tmp_path / "d.json").mkdir()
    assert refused(tmp_path / "d.json") == "d.json: not a regular file (a folder, pipe or device)"
    os.mkfifo(tmp_path / "p.json")
    assert refused(tmp_path / "p.json") == "p.json: not a regular file (a folder, pipe or device)"
    with pytest.raises(CsvFormatError, match="not a regular file"):
        read_vote_file(tmp_path / "p.json", "csv")


@pytest.mark.parametrize(
    ("name", "data", "says"),
    [
        ("b.json.gz", b"\x1f\x8b\x08\x00rest", "b.json.gz: gzip-compressed; decompress it first"),
        ("b.zip", b"PK\x03\x04rest", "b.zip: a zip archive; extract the file first"),
        ("u.json", "[1]".encode("utf-16"), "u.json: UTF-16 text; save it as UTF-8"),
        ("u.csv", "a,b,winner\n".encode("utf-16-be"), "u.csv: UTF-16 text; save it as UTF-8"),
    ],
)
def test_compressed_or_utf16_files_say_what_they_are(tmp_path: Path, name, data, says) -> None:
    assert refused(write(tmp_path, name, data)) == says
