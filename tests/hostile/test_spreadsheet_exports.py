"""Vote, ranking and rating files as spreadsheets really export them (ADR 159).

Excel in a European locale writes ``;``-separated CSV with a BOM, CRLF and decimal
commas; "Unicode text" and hand-made files are tab-separated; people write headers as
``Model A`` or ``model_a ``.  Each is either read to the same numbers as the plain
comma file (checked against choix / scipy, independent of Winnow) or refused with a
message naming the file, the line and what to do.
"""

from __future__ import annotations

import codecs
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import choix
import numpy as np
import pytest
from scipy import stats as ss

from app.cli import run_cli
from core.stats.csvcolumns import CsvFormatError
from core.stats.votefiles import read_vote_file

VOTES = [
    ("GPT", "Flux", "a"),
    ("Flux", "SDXL", "b"),
    ("SDXL", "GPT", "tie"),
    ("GPT", "SDXL", "a"),
    ("Flux", "GPT", "a"),
    ("SDXL", "Flux", "a"),
]


def _choix_scores() -> dict[str, float]:
    """Bradley-Terry ML by choix (ties = half a win each: every vote counted twice)."""
    models = ["GPT", "Flux", "SDXL"]
    ix = {m: i for i, m in enumerate(models)}
    data: list[tuple[int, int]] = []
    for a, b, w in VOTES:
        if w == "a":
            data += [(ix[a], ix[b])] * 2
        elif w == "b":
            data += [(ix[b], ix[a])] * 2
        else:
            data += [(ix[a], ix[b]), (ix[b], ix[a])]
    p = np.exp(choix.ilsr_pairwise(3, data, alpha=0))
    return dict(zip(models, 100 * p / p.sum(), strict=True))


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def stats(capsys: pytest.CaptureFixture[str]) -> Callable[..., Run]:
    """``winnow stats ARGS`` in this process: exit code, stdout, stderr."""

    def run(*args: str | Path) -> Run:
        code = run_cli(["stats", *map(str, args)])
        out = capsys.readouterr()
        return Run(code, out.out, out.err)

    return run


def _lines(header: str, sep: str, quote: bool = False) -> list[str]:
    cells = [header.split(","), *[list(v) for v in VOTES]]
    return [sep.join(f'"{c}"' if quote else c for c in row) for row in cells]


EXPORTS = {
    # Excel, European locale: BOM, ';', CRLF, every field quoted, a trailing ';' on
    # each line, an empty line at the end
    "excel_eu.csv": codecs.BOM_UTF8
    + "".join(line + ";\r\n" for line in _lines("a,b,winner", ";", quote=True)).encode()
    + b"\r\n",
    "excel_eu_plain.csv": codecs.BOM_UTF8
    + "".join(line + "\r\n" for line in _lines("a,b,winner", ";")).encode(),
    "excel_comma.csv": codecs.BOM_UTF8
    + "".join(line + "\r\n" for line in _lines("a,b,winner", ",")).encode(),
    "sheets.csv": "\r\n".join(_lines("a,b,winner", ",")).encode(),  # no final newline
    "votes.tsv": "".join(line + "\n" for line in _lines("a,b,winner", "\t")).encode(),
    "tabs.csv": "".join(line + "\n" for line in _lines("a,b,winner", "\t")).encode(),
    "spaces.csv": "".join(line + "\n" for line in _lines(" A , B ,WINNER", ",")).encode(),
    "trailing_comma.csv": "".join(line + ",\n" for line in _lines("a,b,winner", ",")).encode(),
    "extra.csv": "".join(
        f"{i},{line},note {i}\n" for i, line in enumerate(_lines("a,b,winner", ","))
    ).encode(),
}


@pytest.mark.parametrize("name", sorted(EXPORTS))
def test_spreadsheet_exports_read_to_the_reference_scores(
    stats: Callable[..., Run], tmp_path: Path, name: str
) -> None:
    path = tmp_path / name
    path.write_bytes(EXPORTS[name])
    run = stats("bt", path)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)
    assert got["method"] == "ml"
    want = _choix_scores()
    for model, score in want.items():
        assert got["scores"][model] == pytest.approx(score, rel=1e-6)


@pytest.mark.parametrize(
    "header",
    [
        "Model A,Model B,Winner",
        "model_a ,model_b ,winner ",
        "MODEL-A,MODEL-B,WINNER",
        "Model_A,Model_B,Winner",
    ],
)
@pytest.mark.parametrize("sep", [",", ";", "\t"])
def test_arena_header_variants_read_as_arena_tables(
    stats: Callable[..., Run], tmp_path: Path, header: str, sep: str
) -> None:
    """``Model A`` / ``model_a `` / ``MODEL-A`` are FastChat's ``model_a`` (ADR 023)."""
    rows = [header.replace(",", sep)] + [
        sep.join(r)
        for r in [
            ("GPT", "Flux", "model_a"),
            ("Flux", "SDXL", "model_b"),
            ("SDXL", "GPT", "tie"),
            ("GPT", "SDXL", "model_a"),
            ("Flux", "GPT", "model_a"),
            ("SDXL", "Flux", "model_a"),
        ]
    ]
    path = tmp_path / "arena.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    run = stats("bt", path)
    assert run.returncode == 0, run.stderr
    got = json.loads(run.stdout)["scores"]
    for model, score in _choix_scores().items():
        assert got[model] == pytest.approx(score, rel=1e-6)


def test_decimal_commas_in_a_semicolon_file_are_numbers(
    stats: Callable[..., Run], tmp_path: Path
) -> None:
    """Excel (German, French, … locale): ``;`` between fields, ``,`` in numbers."""
    scores = {
        ("s1", "A"): 4.5,
        ("s1", "B"): 3.25,
        ("s2", "A"): 2.5,
        ("s2", "B"): 0.75,
        ("s3", "A"): -1.5,
        ("s3", "B"): -1.5,
    }
    eu = tmp_path / "eu.csv"
    eu.write_bytes(
        codecs.BOM_UTF8
        + (
            "sample;model;score\r\n"
            + "".join(f"{s};{m};{str(v).replace('.', ',')}\r\n" for (s, m), v in scores.items())
        ).encode()
    )
    plain = tmp_path / "plain.csv"
    plain.write_text(
        "sample,model,score\n" + "".join(f"{s},{m},{v}\n" for (s, m), v in scores.items()),
        encoding="utf-8",
    )
    eu_run, plain_run = stats("winrate", eu), stats("winrate", plain)
    assert eu_run.returncode == 0, eu_run.stderr
    assert json.loads(eu_run.stdout) == json.loads(plain_run.stdout)
    # A wins s1 and s2, ties s3: 2.5 of 3
    assert json.loads(eu_run.stdout)["win_rate"]["A"] == pytest.approx(2.5 / 3)


def test_semicolon_rankings_give_scipy_friedman_and_kendall(
    stats: Callable[..., Run], tmp_path: Path
) -> None:
    ranks = {"r1": [1, 2, 3, 4], "r2": [2, 1, 3, 4], "r3": [1, 3, 2, 4], "r4": [1, 2, 4, 3]}
    models = ["A", "B", "C", "D"]
    path = tmp_path / "ranks.csv"
    path.write_bytes(
        codecs.BOM_UTF8
        + (
            "Rater;Item;Model;Rank\r\n"
            + "".join(
                f"{r};i1;{m};{k}\r\n"
                for r, ks in ranks.items()
                for m, k in zip(models, ks, strict=True)
            )
        ).encode()
    )
    fried = stats("friedman", path)
    assert fried.returncode == 0, fried.stderr
    want = ss.friedmanchisquare(*np.array(list(ranks.values())).T)
    assert json.loads(fried.stdout)["statistic"] == pytest.approx(want.statistic)
    assert json.loads(fried.stdout)["p"] == pytest.approx(want.pvalue)
    kendall = stats("kendall", path)
    assert kendall.returncode == 0, kendall.stderr
    pair = json.loads(kendall.stdout)["pairs"][0]
    tau = ss.kendalltau(ranks["r1"], ranks["r2"], variant="b")
    assert (pair["a"], pair["b"]) == ("r1", "r2")
    assert pair["tau_b"] == pytest.approx(tau.statistic)


@pytest.mark.parametrize(
    ("text", "got", "hint"),
    [
        # Excel with ';': a thousands mark and a decimal comma would be a guess
        ("sample;model;score\ns1;A;1.000,5\ns1;B;2\n", "'1.000,5'", False),
        # Google Sheets in a European locale quotes "4,5" in a comma file
        ('sample,model,score\ns1,A,"4,5"\ns1,B,2\n', "'4,5'", True),
    ],
)
def test_numbers_that_would_be_a_guess_are_refused_naming_the_line(
    stats: Callable[..., Run], tmp_path: Path, text: str, got: str, hint: bool
) -> None:
    path = tmp_path / "eu.csv"
    path.write_text(text, encoding="utf-8")
    run = stats("winrate", path)
    assert run.returncode == 2
    assert f"eu.csv row 2, column 'score': expected a number, got {got}" in run.stderr
    assert ("decimal point" in run.stderr) == hint


def test_latin1_file_says_to_save_as_utf8(stats: Callable[..., Run], tmp_path: Path) -> None:
    path = tmp_path / "latin1.csv"
    path.write_bytes("a,b,winner\nFlux,SDXL,a\nCafé,Flux,a\n".encode("latin-1"))
    with pytest.raises(CsvFormatError) as err:
        read_vote_file(path)
    msg = str(err.value)
    assert msg.startswith("latin1.csv row 3: not UTF-8 text") and "save it as UTF-8" in msg


def test_winner_holding_a_model_name_says_what_is_expected(
    stats: Callable[..., Run], tmp_path: Path
) -> None:
    path = tmp_path / "names.csv"
    path.write_text("a,b,winner\nGPT,Flux,GPT\n", encoding="utf-8")
    with pytest.raises(CsvFormatError) as err:
        read_vote_file(path)
    msg = str(err.value)
    assert msg.startswith("names.csv row 2, column 'winner': expected one of a, b, tie")
    assert "got 'GPT'" in msg and "that is the winner's name; write a or b" in msg


@pytest.mark.parametrize("value", ["1", "0", "both_bad", "left", "draw"])
def test_ambiguous_winner_values_are_refused_naming_the_line(
    stats: Callable[..., Run], tmp_path: Path, value: str
) -> None:
    path = tmp_path / "w.csv"
    path.write_text(f"a,b,winner\nGPT,Flux,a\nFlux,SDXL,{value}\n", encoding="utf-8")
    run = stats("bt", path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert f"w.csv row 3, column 'winner': expected one of a, b, tie, got '{value}'" in run.stderr


def test_excel_unicode_text_is_read(stats: Callable[..., Run], tmp_path: Path) -> None:
    """Excel's "Unicode text": UTF-16 with a byte-order mark, tab-separated; α as the
    ``krippendorff`` package computes it."""
    import krippendorff

    ratings = {
        ("r1", "u1"): 3,
        ("r2", "u1"): 4,
        ("r1", "u2"): 2,
        ("r2", "u2"): 2,
        ("r1", "u3"): 5,
        ("r2", "u3"): 4,
        ("r3", "u3"): 5,
    }
    path = tmp_path / "ratings.txt"
    path.write_bytes(
        (
            "rater\tunit\tvalue\r\n"
            + "".join(f"{r}\t{u}\t{v}\r\n" for (r, u), v in ratings.items())
        ).encode("utf-16")
    )
    run = stats("alpha", path, "--level", "interval")
    assert run.returncode == 0, run.stderr
    grid = np.full((3, 3), np.nan)
    for (r, u), v in ratings.items():
        grid[int(r[1]) - 1, int(u[1]) - 1] = v
    want = krippendorff.alpha(reliability_data=grid, level_of_measurement="interval")
    assert json.loads(run.stdout)["alpha"] == pytest.approx(want)
    votes = tmp_path / "votes.csv"
    votes.write_bytes("\r\n".join(_lines("a,b,winner", "\t")).encode("utf-16"))
    run = stats("bt", votes)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["scores"]["GPT"] == pytest.approx(_choix_scores()["GPT"])


@pytest.mark.parametrize("command", ["alpha", "bt", "kemeny", "winrate", "success", "idea"])
def test_utf16_without_a_byte_order_mark_is_refused(
    stats: Callable[..., Run], tmp_path: Path, command: str
) -> None:
    path = tmp_path / "u16.csv"
    path.write_bytes("rater,unit,value\nr1,u1,3\nr2,u1,4\n".encode("utf-16-le"))
    run = stats(command, path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "u16.csv" in run.stderr and "UTF-16" in run.stderr and "UTF-8" in run.stderr


@pytest.mark.parametrize("size", [1, 300_000])  # the csv module's path and the split path
def test_a_nul_byte_is_refused_before_any_parser(tmp_path: Path, size: int) -> None:
    """Moved here from test_stats_csv_parsers: a NUL is refused before parsing, naming
    its line, whichever parser the file's size would choose."""
    from core.stats.tables import read_votes

    path = tmp_path / "v.csv"
    path.write_bytes(b"a,b,winner\n" + b"m1,m2,a\n" * size + b"m1,m\x002,a\n")
    with pytest.raises(CsvFormatError) as err:
        read_votes(path)
    assert str(err.value).startswith(f"v.csv row {size + 2}: a NUL byte")


def test_names_in_two_unicode_spellings_are_refused_naming_both_rows(
    stats: Callable[..., Run], tmp_path: Path
) -> None:
    """'Café' typed on one machine (é, U+00E9) and pasted from another (e + U+0301) look
    the same but are different strings: counted as two models they would split one
    model's votes without a word."""
    composed, decomposed = "Caf\u00e9", "Cafe\u0301"
    path = tmp_path / "v.csv"
    path.write_text(f"a,b,winner\n{composed},Flux,a\nFlux,SDXL,b\nSDXL,{decomposed},a\n",
                    encoding="utf-8")
    run = stats("bt", path)
    assert run.returncode == 2 and "Traceback" not in run.stderr
    assert "v.csv row 4, column 'b'" in run.stderr and "row 2, column 'a'" in run.stderr
    assert "two Unicode spellings" in run.stderr
    ranks = tmp_path / "r.csv"
    ranks.write_text(f"rater,item,model,rank\nr1,i1,{composed},1\nr1,i1,B,2\n"
                     f"r2,i1,{decomposed},1\nr2,i1,B,2\n", encoding="utf-8")
    run = stats("kemeny", ranks)
    assert run.returncode == 2 and "r.csv row 4, column 'model'" in run.stderr
    # one spelling throughout is read as written
    path.write_text(f"a,b,winner\n{decomposed},Flux,a\nFlux,SDXL,b\nSDXL,{decomposed},a\n",
                    encoding="utf-8")
    run = stats("bt", path)
    assert run.returncode == 0 and decomposed in json.loads(run.stdout)["scores"]


def test_battle_files_with_two_spellings_of_a_name_are_refused(tmp_path: Path) -> None:
    battles = [{"model_a": "Caf\u00e9", "model_b": "Flux", "winner": "model_a"},
               {"model_a": "Flux", "model_b": "Cafe\u0301", "winner": "model_b"}]
    path = tmp_path / "b.jsonl"
    path.write_text("".join(json.dumps(b) + "\n" for b in battles), encoding="utf-8")
    with pytest.raises(CsvFormatError) as err:
        read_vote_file(path)
    msg = str(err.value)
    assert msg.startswith("b.jsonl line 2, field 'model_b': ") and "b.jsonl line 1" in msg
    assert "two Unicode spellings" in msg


def test_kelvin_sign_and_letter_k_are_two_spellings(tmp_path: Path) -> None:
    """U+212A KELVIN SIGN is canonically the ASCII letter K: the ASCII side counts too."""
    from core.stats.tables import read_votes

    path = tmp_path / "k.csv"
    path.write_text("a,b,winner\nK,Flux,a\nFlux,\u212a,b\n", encoding="utf-8")
    with pytest.raises(CsvFormatError, match="two Unicode spellings"):
        read_votes(path)


@pytest.mark.parametrize("key", ["model_a", "model_b", "judge", "question_id"])
def test_half_a_surrogate_pair_in_a_battle_file(
    stats: Callable[..., Run], tmp_path: Path, key: str
) -> None:
    """JSON may escape half a UTF-16 pair (``"\\ud800"``), which is no character: it stopped
    the command with Python's codec error naming neither file nor record.  In a model's
    name it is refused naming the record; in an id it only tells battles apart."""
    battles = [{"model_a": "x", "model_b": "y", "winner": "model_a", "judge": "j",
                "question_id": "q1"},
               {"model_a": "y", "model_b": "x", "winner": "model_a", "judge": "j",
                "question_id": "q2"}]
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(battles), encoding="utf-8")
    text = json.dumps(battles).replace(f'"{key}": "{battles[1][key]}"',
                                       f'"{key}": "\\ud800{battles[1][key]}"', 1)
    path = tmp_path / "b.json"
    path.write_text(text, encoding="utf-8")
    run = stats("bt", path)
    assert "Traceback" not in run.stderr
    if key.startswith("model"):
        assert run.returncode == 2
        assert f"b.json record 2 (line 1), field '{key}': the name contains \\ud800, half " \
            "of a UTF-16 surrogate pair" in run.stderr, run.stderr
    else:
        assert run.returncode == 0 and run.stdout == stats("bt", plain).stdout


@pytest.mark.parametrize("sep", [";", ",", "\t", "|"])
def test_excel_sep_line_names_the_separator(
    stats: Callable[..., Run], tmp_path: Path, sep: str
) -> None:
    """Excel reads (and some tools write) a first line ``sep=;`` naming the separator;
    it is not the header, and rows keep their file line numbers."""
    path = tmp_path / "sep.csv"
    body = "\r\n".join(_lines("a,b,winner", sep))
    path.write_bytes(codecs.BOM_UTF8 + f"sep={sep}\r\n{body}\r\n".encode())
    run = stats("bt", path)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["scores"]["GPT"] == pytest.approx(_choix_scores()["GPT"])
    path.write_bytes(f"sep={sep}\n{body}\nGPT{sep}Flux{sep}x\n".encode())
    run = stats("bt", path)
    assert run.returncode == 2 and "sep.csv row 9, column 'winner'" in run.stderr


@pytest.mark.parametrize("orient", ["columns", "index", "split", "table", "values"])
def test_pandas_table_json_says_how_to_write_battles(tmp_path: Path, orient: str) -> None:
    """``DataFrame.to_json`` writes a whole table as one object by default (orient
    'columns'); the message says which call writes one battle per record."""
    import pandas as pd

    frame = pd.DataFrame({"model_a": ["x", "y"], "model_b": ["y", "x"],
                          "winner": ["model_a", "tie"]})
    path = tmp_path / "df.json"
    frame.to_json(path, orient=orient)
    with pytest.raises(CsvFormatError) as err:
        read_vote_file(path)
    msg = str(err.value)
    assert msg.startswith("df.json ") and "to_json(..., orient='records'" in msg, msg
    records = tmp_path / "records.json"
    frame.to_json(records, orient="records")
    assert len(read_vote_file(records).votes) == 2
