"""Released files are named by the photo's number and category, never by its original
file name, which can name the person (ADR 164); old release folders keep working and
nothing of the user's is replaced (ADR 005/007)."""

from __future__ import annotations

import hashlib
from pathlib import Path
from types import SimpleNamespace

from test_anonymize_release_all import NO_FACES, import_reviewed, make_photos

from core.imaging import photos as repo
from core.imaging.release import release_photo, release_stem, write_release
from core.imaging.release_all import release_all


def test_a_release_is_named_by_number_and_category(project, tmp_path: Path) -> None:
    paths = make_photos(tmp_path / "in", ["anna_smith_at_home.png", "IMG_0001.png"])
    ids = import_reviewed(project, paths, {"anna_smith_at_home.png", "IMG_0001.png"})
    anna = ids["anna_smith_at_home.png"]
    repo.update_photo(project, anna, category="Vehicle")
    repo.set_status(project, anna, "reviewed")  # an edit makes it new again
    out = tmp_path / "out"
    target, _ = release_photo(project, anna, out, NO_FACES)
    assert target.name == f"photo-{anna:05d}-vehicle.png"
    report = release_all(project, out, NO_FACES)
    names = sorted(p.name for p in out.iterdir())
    assert names == [f"photo-{anna:05d}-vehicle.png", f"photo-{ids['IMG_0001.png']:05d}.png"]
    assert not any("anna" in n or "IMG" in n for n in names)
    assert report.renamed == []  # the usual name is no rename
    # the original name stays inside the project only
    assert repo.get_photo(project, anna).file_name == "anna_smith_at_home.png"
    assert repo.get_photo(project, anna).released_path == str(target)


def test_a_category_outside_the_list_never_reaches_the_name() -> None:
    odd = SimpleNamespace(id=3, category="Anna's car")
    assert release_stem(odd) == "photo-00003"
    assert release_stem(SimpleNamespace(id=123456, category="Art")) == "photo-123456-art"


def _earlier(tmp_path: Path, data: bytes) -> tuple[SimpleNamespace, str]:
    """A photo released before ADR 164, under its original name in ``tmp_path``."""
    old = tmp_path / "anna_smith_at_home.jpg"
    old.write_bytes(data)
    photo = SimpleNamespace(file_name="anna_smith_at_home.jpg", id=4, category="Art",
                            released_path=str(old))
    return photo, hashlib.sha256(data).hexdigest()


def test_a_re_release_into_an_old_folder_replaces_its_own_old_name(tmp_path: Path) -> None:
    photo, sha = _earlier(tmp_path, b"the earlier release")
    target = write_release(tmp_path, photo, "jpg", b"the new release", own_sha256=sha)
    assert target.name == "photo-00004-art.jpg"
    assert target.read_bytes() == b"the new release"
    # the earlier release, provably Winnow's (its recorded bytes), went with its name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["photo-00004-art.jpg"]


def test_an_old_name_the_user_changed_is_never_removed(tmp_path: Path) -> None:
    photo, sha = _earlier(tmp_path, b"the earlier release")
    (tmp_path / "anna_smith_at_home.jpg").write_bytes(b"edited by the user")
    (tmp_path / "photo-00004-art.jpg").write_bytes(b"the user's own file")
    target = write_release(tmp_path, photo, "jpg", b"the new release", own_sha256=sha)
    assert target.name == "photo-00004-art-2.jpg"
    assert (tmp_path / "anna_smith_at_home.jpg").read_bytes() == b"edited by the user"
    assert (tmp_path / "photo-00004-art.jpg").read_bytes() == b"the user's own file"


def test_an_earlier_release_in_another_folder_is_left_alone(tmp_path: Path) -> None:
    (tmp_path / "old").mkdir()
    photo, sha = _earlier(tmp_path / "old", b"the earlier release")
    target = write_release(tmp_path, photo, "jpg", b"the new release", own_sha256=sha)
    assert target == tmp_path / "photo-00004-art.jpg"
    assert (tmp_path / "old" / "anna_smith_at_home.jpg").read_bytes() == b"the earlier release"
