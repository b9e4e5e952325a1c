"""``import hf`` and cells of the wrong type: an image column whose ``bytes``/``path``
are not binary/text, or a ``*_bbox_screenshot`` that is not a list, is refused by name;
it never ends the whole import with a TypeError."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from interop_helpers import pattern, png_bytes

from core.interop.hf_import import import_hf
from core.store import Project

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def _image(bytes_type: Any, path_type: Any) -> Any:
    return pa.struct([("bytes", bytes_type), ("path", path_type)])


@pytest.mark.parametrize(("name", "image_type", "cell"), [
    ("bytes_text", _image(pa.string(), pa.string()), {"bytes": "abc", "path": None}),
    ("bytes_int", _image(pa.int64(), pa.string()), {"bytes": 5, "path": None}),
    ("bytes_list", _image(pa.list_(pa.binary()), pa.string()), {"bytes": [b"x"], "path": None}),
    ("path_int", _image(pa.binary(), pa.int64()), {"bytes": None, "path": 7}),
    ("path_list", _image(pa.binary(), pa.list_(pa.string())), {"bytes": None, "path": ["a"]}),
])
def test_an_image_struct_of_other_types_is_not_an_image_column(
        project: Project, tmp_path: Path, name: str, image_type: Any, cell: Any) -> None:
    folder = tmp_path / name
    folder.mkdir()
    schema = pa.schema([("prompt", pa.string()), ("image", image_type)])
    pq.write_table(pa.Table.from_pylist([{"prompt": "p", "image": cell}], schema=schema),
                   folder / "train.parquet")
    with pytest.raises(ValueError, match="'image' is read as output_images but holds no "
                                         "images"):
        import_hf(project, folder)


def test_null_typed_image_fields_are_still_an_image_column(project: Project,
                                                           tmp_path: Path) -> None:
    """pyarrow infers ``null`` for a field that is None in every row: still an image."""
    folder = tmp_path / "nulls"
    folder.mkdir()
    (folder / "a.png").write_bytes(png_bytes(pattern((8, 8), 1)))
    pq.write_table(pa.table({"prompt": ["p"], "image": [{"bytes": None, "path": "a.png"}]}),
                   folder / "train.parquet")
    assert import_hf(project, folder).imported == 1


@pytest.mark.parametrize(("arrow_type", "value"), [
    (pa.int64(), 1), (pa.int64(), 0), (pa.struct([("a", pa.int64())]), {"a": 1})])
def test_a_screenshot_pick_that_is_not_a_list_names_the_row(
        project: Project, tmp_path: Path, arrow_type: Any, value: Any) -> None:
    good = {"bytes": png_bytes(pattern((8, 8), 2)), "path": None}
    schema = pa.schema([("id", pa.string()), ("prompt", pa.string()),
                        ("output_images", pa.list_(_image(pa.binary(), pa.string()))),
                        ("screenshots", pa.list_(_image(pa.binary(), pa.string()))),
                        ("output_bboxs", pa.list_(pa.list_(pa.int64()))),
                        ("output_bbox_screenshot", arrow_type)])
    rows = [{"id": "a", "prompt": "p", "output_images": [good], "screenshots": [good],
             "output_bboxs": [[0, 0, 4, 4]], "output_bbox_screenshot": value},
            {"id": "b", "prompt": "fine"}]
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), tmp_path / "train.parquet")
    report = import_hf(project, tmp_path / "train.parquet")
    assert report.imported == 1
    assert [(e["row"], e["error"]) for e in report.errors] == [
        (0, "'output_bbox_screenshot' must be a list of screenshot numbers")]
