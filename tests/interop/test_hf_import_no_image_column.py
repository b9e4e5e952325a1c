"""``import hf`` and a column named like an image column that holds no images (ADR 200):
a text ``image`` column (a caption, a URL) refused the whole file, and nothing could say
"read no images from it". ``--column output_images=`` (``columns={"output_images": ""}``)
now reads the field from no column, and the refusal says so; an image column is chosen
before a text column of another listed name."""

from __future__ import annotations

from pathlib import Path

import pytest
from interop_helpers import pattern, png_bytes

from app.cli import run_cli
from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _captions(folder: Path) -> Path:
    folder.mkdir()
    pq.write_table(pa.table({"prompt": ["a cat", "a dog"],
                             "image": ["https://x.test/cat.jpg", "a photo of a dog"]}),
                   folder / "train.parquet")
    return folder


def test_a_text_image_column_says_how_to_import_without_it(project: Project,
                                                           tmp_path: Path) -> None:
    with pytest.raises(ValueError) as caught:
        import_hf(project, _captions(tmp_path / "ds"))
    message = str(caught.value)
    assert "train.parquet: column 'image' is read as output_images but holds no images" \
        in message
    assert "--column output_images=COLUMN" in message
    assert message.endswith("or read output_images from no column with "
                            "--column output_images=")


def test_a_field_read_from_no_column_imports_the_rows(project: Project,
                                                      tmp_path: Path) -> None:
    report = import_hf(project, _captions(tmp_path / "ds"), columns={"output_images": ""})
    assert (report.imported, report.errors) == (2, [])
    assert project.conn.execute("SELECT count(*) FROM sample_images").fetchone()[0] == 0


def test_the_cli_reads_a_field_from_no_column(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    folder = _captions(tmp_path / "ds")
    target = str(tmp_path / "p.winnow")
    assert run_cli(["import", "hf", str(folder), "--project", target]) == 2
    assert "--column output_images=" in capsys.readouterr().err
    assert run_cli(["import", "hf", str(folder), "--project", target,
                    "--column", "output_images="]) == 0
    assert "2 imported" in capsys.readouterr().out


def test_an_image_column_wins_over_a_text_column_of_an_earlier_name(
        project: Project, tmp_path: Path) -> None:
    folder = tmp_path / "ds"
    folder.mkdir()
    image = {"bytes": png_bytes(pattern((32, 32), 1)), "path": None}
    pq.write_table(pa.table({"prompt": ["a cat"], "images": ["cat.jpg"], "image": [image]}),
                   folder / "train.parquet")
    report = import_hf(project, folder)
    assert (report.imported, report.errors) == (1, [])
    assert project.conn.execute("SELECT count(*) FROM sample_images").fetchone()[0] == 1
