"""A photo folder (`winnow anonymize IN_DIR`, Anonymize → Import Folder) holding a link
to a photo elsewhere on the disk: it was read, anonymized and written beside the others
(or imported into the project), ready to share. Now it is skipped, naming why, as the
JSONL, Hugging Face and outputs importers do (ADR 176)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from PIL import Image

from core.imaging.batch import scan


def _photo(path: Path, shade: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(np.full((40, 60, 3), shade, np.uint8)).save(path, "JPEG")


def test_links_leading_outside_the_photo_folder_are_skipped(tmp_path: Path) -> None:
    _photo(tmp_path / "private" / "me.jpg", 10)
    _photo(tmp_path / "in" / "a.jpg", 200)
    os.symlink(tmp_path / "private" / "me.jpg", tmp_path / "in" / "link.jpg")
    os.symlink(tmp_path / "in" / "a.jpg", tmp_path / "in" / "again.jpg")  # inside: fine
    os.symlink(tmp_path / "private", tmp_path / "in" / "album")  # never walked into
    photos, skipped = scan(tmp_path / "in", tmp_path / "out")
    assert photos == [Path("a.jpg"), Path("again.jpg")]
    # ... but named (ADR 186)
    assert skipped == [
        {"file": "album", "reason": "a link to a folder outside the folder (not followed: "
         "its photos are not read; copy them in, or anonymize that folder itself); "
         "nothing was written"},
        {"file": "link.jpg", "reason": "a link to a file outside the folder "
         "(never read); nothing was written"}]
