"""A Winnow process writes nothing outside its own folders and the ones it was given, and
connects nowhere it was not asked to (ADR 231).

Each check runs a child process with a fresh ``HOME``, ``XDG_*_HOME`` and ``TMPDIR``
(nothing of the suite's environment that names a library's folder) and lists what was
left there.  Before ADR 231, a chart left ``cache/matplotlib/fontlist-*.json`` and an
empty ``config/matplotlib``; loading a model left ``tmp/torchinductor_<user>``; loading a
tokenizer by its Hugging Face id (from the local cache, ``local_files_only``) made
huggingface_hub look up ``huggingface.co`` to fetch its "agent harness" list.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core import library_env

REPO = Path(__file__).resolve().parents[2]

#: the entry point runs first, as in every `winnow` process (`--version` returns at once)
START = "from app.__main__ import main\nassert main(['--version']) == 0\n"

CHART = """
from core.analysis import plots
from core.propose.plots import keyword_figure
assert plots.png_bytes(keyword_figure([("blue", 3), ("red", 1)]))[:4] == b"\\x89PNG"
"""

MODEL = """
import sys
from core.metrics.models import load_pretrained
load_pretrained("ViTModel", sys.argv[1], "DINO", add_pooling_layer=False)
"""


#: a Winnow process that records every name lookup and connection, and refuses them (so a
#: failing check never reaches the network)
NO_SOCKETS = """
import sys
seen = []
def _refuse(event, args):
    if event in ("socket.getaddrinfo", "socket.connect", "socket.gethostbyname"):
        seen.append((event, repr(args)[:120]))
        raise OSError("ADR 231 test: no network")
sys.addaudithook(_refuse)
"""

TOKENIZER_BY_ID = """
import json
from core.metrics.models import load_pretrained
load_pretrained("AutoTokenizer", "someorg/tiny-clip", "CLIP tokenizer")
print("SOCKETS", json.dumps(seen))
"""


def _home(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    home = tmp_path / "home"
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("XDG_", "HF_", "MPL", "TORCHINDUCTOR", "TRITON", "WINNOW_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO), QT_QPA_PLATFORM="offscreen")
    for name in ("config", "cache", "data", "state", "tmp"):
        (home / name).mkdir(parents=True)
    env.update(XDG_CONFIG_HOME=str(home / "config"), XDG_CACHE_HOME=str(home / "cache"),
               XDG_DATA_HOME=str(home / "data"), XDG_STATE_HOME=str(home / "state"),
               TMPDIR=str(home / "tmp"))
    return home, env


def _left(home: Path) -> list[str]:
    """Every file and folder under ``home`` but the five made for the child."""
    return sorted(str(p.relative_to(home)) for p in home.rglob("*")
                  if p.parent != home)


def _run(code: str, env: dict[str, str], *args: str) -> None:
    done = subprocess.run([sys.executable, "-c", code, *args], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


def _outside_winnow(left: list[str]) -> list[str]:
    return [p for p in left if not p.startswith("cache/winnow")]


def test_a_chart_writes_matplotlibs_font_list_into_winnows_cache(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    home, env = _home(tmp_path)
    _run(START + CHART, env)
    left = _left(home)
    assert _outside_winnow(left) == []  # was: cache/matplotlib/fontlist-*.json, config/matplotlib
    assert any(p.startswith("cache/winnow/matplotlib/fontlist") for p in left)


def test_matplotlib_left_alone_would_write_into_the_users_folders(tmp_path: Path) -> None:
    """The check above can fail: the same chart without Winnow's entry point does."""
    pytest.importorskip("matplotlib")
    home, env = _home(tmp_path)
    _run(CHART, env)
    assert any(p.startswith("cache/matplotlib") for p in _left(home))


@pytest.fixture
def tiny_vit(tmp_path: Path) -> Path:
    """A randomly initialised ViT (2 layers, 32-px images) saved to disk."""
    pytest.importorskip("torch")
    tf = pytest.importorskip("transformers")
    folder = tmp_path / "tiny-vit"
    cfg = tf.ViTConfig(image_size=32, patch_size=8, hidden_size=32, num_hidden_layers=2,
                       num_attention_heads=2, intermediate_size=64)
    tf.ViTModel(cfg, add_pooling_layer=False).save_pretrained(folder)
    return folder


def test_loading_a_model_leaves_no_torch_folder_in_tmp(tmp_path: Path, tiny_vit: Path) -> None:
    home, env = _home(tmp_path)
    _run(START + MODEL, env, str(tiny_vit))
    left = _left(home)
    assert _outside_winnow(left) == []  # was: tmp/torchinductor_<user>
    _run(MODEL, env, str(tiny_vit))  # without the entry point: torch's default
    if not any(p.startswith("tmp/torchinductor") for p in _left(home)):
        pytest.skip("this torch makes no compiler cache folder when a model loads")


def _tokenizer_in_hub_cache(hf_home: Path) -> None:
    """A CLIP tokenizer cached as ``someorg/tiny-clip`` (the hub cache's layout)."""
    tf = pytest.importorskip("transformers")
    sha = "0" * 40
    snap = hf_home / "hub" / "models--someorg--tiny-clip" / "snapshots" / sha
    snap.mkdir(parents=True)
    vocab = {"<|startoftext|>": 0, "<|endoftext|>": 1, "a": 2, "a</w>": 3}
    (snap / "vocab.json").write_text(json.dumps(vocab))
    (snap / "merges.txt").write_text("#version: 0.2\n")
    tf.CLIPTokenizer(str(snap / "vocab.json"), str(snap / "merges.txt")).save_pretrained(snap)
    tf.CLIPConfig().save_pretrained(snap)  # config.json alone: AutoTokenizer reads it
    (snap.parents[1] / "refs").mkdir()
    (snap.parents[1] / "refs" / "main").write_text(sha)


def _sockets(code: str, env: dict[str, str]) -> list[list[str]]:
    done = subprocess.run([sys.executable, "-c", code], env=env, cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    line = [x for x in done.stdout.splitlines() if x.startswith("SOCKETS ")][-1]
    found: list[list[str]] = json.loads(line[len("SOCKETS "):])
    return found


def test_a_model_by_hub_id_from_the_cache_asks_no_server(tmp_path: Path) -> None:
    home, env = _home(tmp_path)
    env["HF_HOME"] = str(home / "hf")
    _tokenizer_in_hub_cache(home / "hf")
    assert _sockets(NO_SOCKETS + START + TOKENIZER_BY_ID, env) == []  # was: huggingface.co
    assert not (home / "hf" / ".agent_harnesses.json").exists()
    plain = _sockets(NO_SOCKETS + TOKENIZER_BY_ID, env)  # the library left alone
    if not plain:
        pytest.skip("this huggingface_hub looks nothing up for a cached tokenizer")
    assert any("huggingface.co" in args for _, args in plain)


def test_the_users_own_folder_for_a_library_is_kept(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path / "c"), "MPLCONFIGDIR": str(tmp_path / "mine"),
           "HF_HUB_OFFLINE": "0", "HF_HUB_DISABLE_TELEMETRY": "0"}
    library_env.apply(env)
    assert env["MPLCONFIGDIR"] == str(tmp_path / "mine")  # they asked for that folder
    assert env["TORCHINDUCTOR_CACHE_DIR"] == str(tmp_path / "c" / "winnow" / "torchinductor")
    assert env["HF_HUB_OFFLINE"] == "1" and env["HF_HUB_DISABLE_TELEMETRY"] == "1"
    assert not (tmp_path / "c").exists()  # nothing is created until a library needs it


def test_winnows_cache_folder_follows_the_variables() -> None:
    assert library_env.cache_dir({"WINNOW_CACHE_DIR": "/x", "XDG_CACHE_HOME": "/y"}) == Path("/x")
    assert library_env.cache_dir({"XDG_CACHE_HOME": "/y"}) == Path("/y/winnow")
    home = os.path.expanduser("~")
    assert library_env.cache_dir({}) == Path(home) / ".cache" / "winnow"


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_a_cli_command_connects_nowhere_under_strace(tmp_path: Path) -> None:
    """`winnow stats` and `winnow demo` open no network socket (AF_INET/AF_INET6/netlink)."""
    home, env = _home(tmp_path)
    votes = tmp_path / "votes.csv"
    votes.write_text("a,b,winner\nx,y,a\ny,x,b\nx,y,tie\n", encoding="utf-8")
    log = tmp_path / "strace.log"
    for args in (["stats", "bt", str(votes)], ["demo", str(tmp_path / "d.winnow")]):
        done = subprocess.run(["strace", "-f", "-qq", "-e", "trace=connect,sendto,sendmsg",
                               "-e", "signal=none", "-o", str(log), sys.executable, "-m",
                               "app", *args], env=env, cwd=REPO, capture_output=True,
                              text=True, timeout=300)
        if done.returncode != 0 and "ptrace" in done.stderr:
            pytest.skip("strace may not trace here (no ptrace)")
        assert done.returncode == 0, done.stderr[-2000:]
        calls = [line for line in log.read_text().splitlines()
                 if "AF_INET" in line or "AF_NETLINK" in line]
        assert calls == [], (args, calls)
    assert _outside_winnow(_left(home)) == []
