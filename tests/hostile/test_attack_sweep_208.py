"""ADR 208: an attack on the features added most recently (ADRs 196-206).

Each test failed before its fix."""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any

import pytest

from core import export_files
from core.export_files import MARKER_NAME, Marker, append_to_marker, export_bytes
from core.files import WriteError


def test_a_short_write_of_the_marker_on_a_full_disk_is_an_error(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk lets ``write`` take part of a marker line and report it (no error):
    the rest was dropped, the run went on as if the file were recorded, and the next run
    refused Winnow's own output as 'not written by Winnow'. Now the write is finished or
    fails, naming the marker, and the file is not put in place."""
    export_bytes(tmp_path / "a.txt", b"first", root=tmp_path)
    real_write = os.write
    calls = []

    def full_disk(fd: int, data: bytes) -> int:
        calls.append(len(data))
        if len(calls) == 1:
            return real_write(fd, data[:10])  # what fitted
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(export_files.os, "write", full_disk)
    with pytest.raises(WriteError, match="No space left") as info:
        export_bytes(tmp_path / "b.txt", b"second", root=tmp_path)
    assert MARKER_NAME in str(info.value)
    monkeypatch.undo()
    assert not (tmp_path / "b.txt").exists()
    marker = Marker(tmp_path)
    assert set(marker.files) == {"a.txt"}  # the torn line is nobody's
    append_to_marker(tmp_path, [{"file": "c.txt", "size": 1, "sha256": "0" * 64}])
    assert set(Marker(tmp_path).files) == {"a.txt", "c.txt"}


@pytest.mark.parametrize("url", [
    # a name spelt with percent escapes is the same name to the server
    "https://h/v1?k%65y=s3cr3t",
    "https://h/v1?api%5Fke%79=s3cr3t",
    # ';' separates parameters for many servers (and did for Python before 3.10)
    "https://h/v1?model=x;token=s3cr3t",
    # names a gateway uses for a password or a bearer token
    "https://h/v1?pass=s3cr3t", "https://h/v1?PW=s3cr3t", "https://h/v1?bearer=s3cr3t",
    "https://h/v1?jwt=s3cr3t", "https://h/v1?x-api-cred=s3cr3t",
    # a key as the value of a plainly named parameter, or as a bare fragment
    "https://h/v1?q=sk-proj-s3cr3tAbCdEf123456", "https://h/v1#hf_s3cr3tAbCdEfGhIjKlMn",
    # a key in a path segment (a bot token, a provider key)
    "https://h/bot123456:s3cr3tAAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw/sendMessage",
    "https://h/v1/sk-s3cr3tAbCdEfGh1234567890/chat",
    "https://h/v1/key/AIzaSyDs3cr3tAbCdEfGh1234567890abcdEF",
    "https://gateway.example/v1/0123456789abcdef0123456789s3cr3t/openai",
    # the scheme forgotten: 'user:password@host' splits as scheme 'user'
    "alice:s3cr3t@judge.example:8443/v1",
    "s3cr3t@judge.example/v1",
    "HTTPS:alice:s3cr3t@judge.example/v1",
])
def test_shown_url_leaves_no_disguised_secret(url: str) -> None:
    from core.http_pools import shown_url

    shown = shown_url(url)
    assert "s3cr3t" not in shown and "alice" not in shown, shown
    assert "h" in shown or "judge.example" in shown or "gateway" in shown


@pytest.mark.parametrize("url", [
    "https://h/v1/openai/deployments/gpt-4o-2024-08-06/chat?api-version=2024-06-01",
    "https://h/v1/models/Meta-Llama-3.1-70B-Instruct-Turbo",
    "http://localhost:8000/v1?model=Qwen2.5-VL-72B-Instruct&passes=3",
])
def test_shown_url_keeps_what_tells_endpoints_apart(url: str) -> None:
    from core.http_pools import shown_url

    assert shown_url(url) == url


def test_a_url_without_scheme_is_refused_without_its_password() -> None:
    from core.propose.client import ProposeEndpoint

    with pytest.raises(ValueError, match="must start with http") as info:
        ProposeEndpoint(base_url="alice:s3cr3t@judge.example/v1", model="m")
    assert "s3cr3t" not in str(info.value) and "judge.example" in str(info.value)


@pytest.mark.parametrize("url", ["https:///alice:s3cr3t@h/v1", "https://h/v1;key=s3cr3t"])
def test_shown_url_odd_shapes(url: str) -> None:
    from core.http_pools import shown_url

    assert "s3cr3t" not in shown_url(url) and "h" in shown_url(url)


def test_the_keyring_account_of_a_url_without_scheme_holds_no_password() -> None:
    """Propose's 'keep the key' stores under the URL as typed, before it is checked."""
    from core.propose.secrets import account

    assert "s3cr3t" not in account("alice:s3cr3t@judge.example/v1")
    assert "judge.example/v1" in account("alice:s3cr3t@judge.example/v1")
    assert account("https://alice:pw@H/v1/") == "https://h/v1"


def _arrow_stream(path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    table = pa.table({"id": ["a"], "prompt": ["cat"]})
    with pa.OSFile(str(path), "wb") as fh, pa.ipc.new_stream(fh, table.schema) as writer:
        writer.write_table(table)


@pytest.mark.parametrize(("entries", "words"), [
    ([{"filename": "da\u0000ta.arrow"}], "data file 'da\\x00ta.arrow' is not a file name"),
    (["data.arrow"], "entry 'data.arrow' is not an object with a 'filename'"),
    ([{"filename": "."}], "data file '.' is a folder, not a data file"),
    ([{"filename": "sub"}], "data file 'sub' is a folder, not a data file"),
    ([{"filename": "fifo"}], "data file 'fifo' is not a regular file"),
    ([{"filename": "gone.arrow"}], "data file 'gone.arrow' is missing"),
])
def test_a_state_json_entry_that_is_no_data_file_is_named(
        tmp_path: Path, entries: list[object], words: str) -> None:
    """A hostile ``state.json``: a NUL byte said only 'embedded null byte'; a folder or a
    pipe was 'missing', '.' 'led outside', a plain string was 'data file None'."""
    from core.interop.hf_read import discover

    ds = tmp_path / "ds"
    (ds / "sub").mkdir(parents=True)
    os.mkfifo(ds / "fifo")
    _arrow_stream(ds / "data.arrow")
    (ds / "state.json").write_text(__import__("json").dumps({"_data_files": entries}))
    with pytest.raises(ValueError) as info:
        discover(ds)
    assert words in str(info.value) and "state.json" in str(info.value)


@pytest.mark.parametrize("name", ["state.json", "dataset_dict.json"])
def test_a_dataset_json_linked_outside_the_folder_is_not_read(tmp_path: Path,
                                                              name: str) -> None:
    """A downloaded dataset's ``state.json`` (or ``dataset_dict.json``) that is a link to
    a file of the user's was read (its parse error shown); data files leading outside
    were already refused (ADR 102, 200)."""
    from core.interop.hf_read import discover

    outside = tmp_path / "mine.json"
    outside.write_text('{"private": true}')
    ds = tmp_path / "ds"
    ds.mkdir()
    os.symlink(outside, ds / name)
    with pytest.raises(ValueError, match=f"{name}: a link leading outside ds; not read"):
        discover(ds)


def _captions(folder: Path) -> Path:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    folder.mkdir()
    pq.write_table(pa.table({"id": ["a", "b"], "prompt": ["a cat", "a dog"],
                             "image": ["https://x.test/cat.jpg", "a dog"]}),
                   folder / "train.parquet")
    return folder


def test_a_field_given_twice_in_column_options_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--column prompt=prompt --column prompt=id`` imported the ids as prompts: the
    last one won without a word."""
    from app.cli import run_cli

    target = tmp_path / "p.winnow"
    code = run_cli(["import", "hf", str(_captions(tmp_path / "ds")), "--project",
                    str(target), "--column", "output_images=", "--column", "prompt=prompt",
                    "--column", "prompt=id"])
    assert code == 2
    err = capsys.readouterr().err
    assert "--column prompt= is given twice ('prompt', then 'id')" in err
    assert not target.exists()


def test_a_prompt_column_taken_by_another_field_says_so(tmp_path: Path) -> None:
    """``--column quality=prompt`` said 'no prompt column (…; columns: id, prompt, …)'."""
    from core.interop.hf_import import check_hf_source

    with pytest.raises(ValueError) as info:
        check_hf_source(_captions(tmp_path / "ds"),
                        {"quality": "prompt", "output_images": ""})
    assert ("column 'prompt' is read as quality (--column quality=prompt)"
            in str(info.value))
    assert "--column prompt=NAME" in str(info.value)


def _png(seed: int, io: Any, image: Any) -> bytes:
    out = io.BytesIO()
    image.new("RGB", (8, 8), (seed * 40 % 256, 10, 20)).save(out, "PNG")
    return out.getvalue()


def test_a_full_disk_during_an_hf_import_names_the_project_and_the_row(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A full disk while the import kept a row's images in its scratch folder said
    'cannot write …/.p.winnow.hf-import.winnow-tmp-…/chunk1/imgs/8195f3…: No space left'
    — a folder the user never sees, and no row. Rows imported before stay."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    import io

    from PIL import Image

    from core.interop import hf_chunk
    from core.interop.hf_import import import_hf
    from core.store import Project

    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    rows = [{"id": f"r{k}", "prompt": f"p{k}",
             "image": {"bytes": _png(k, io, Image), "path": None}} for k in range(6)]
    folder = tmp_path / "ds"
    folder.mkdir()
    pq.write_table(pa.Table.from_pylist(rows, schema=pa.schema(
        [("id", pa.string()), ("prompt", pa.string()), ("image", image)])),
        folder / "imgs.parquet")
    real_write = hf_chunk.write_bytes
    written = []

    def fills_up(path: Path, data: bytes) -> None:
        written.append(path)
        if len(written) > 3:
            raise WriteError(path, OSError(errno.ENOSPC, "No space left on device"))
        real_write(path, data)

    monkeypatch.setattr(hf_chunk, "write_bytes", fills_up)
    with Project.create(tmp_path / "p.winnow") as project:
        with pytest.raises(WriteError) as info:
            import_hf(project, folder, chunk_rows=2)
        message = str(info.value)
        assert "winnow-tmp" not in message and "chunk" not in message, message
        assert "p.winnow" in message and "No space left on device" in message
        assert "imgs.parquet" in message and "train row 3" in message
        assert "2 row(s) imported before are kept" in message
        assert project.conn.execute("SELECT count(*) FROM samples").fetchone()[0] == 2
