"""Where third-party libraries may write, and what they may send: set once, before any of
them loads (ADR 231; onnxruntime's own switch is ``core/onnx_runtime.py``, ADR 230).

Left to their defaults, libraries Winnow loads write outside Winnow's folders:
matplotlib builds its font list in ``~/.cache/matplotlib`` and makes
``~/.config/matplotlib`` (the Analyze and Metrics charts), and torch's compiler makes
``$TMPDIR/torchinductor_<user>`` whenever a model loads and never removes it.  Winnow
points them into its own cache folder, ``$XDG_CACHE_HOME/winnow``, unless the user named
a folder for them (their variable is kept).  The Hugging Face libraries are told that
Winnow is offline and sends no telemetry, whatever the environment says: Winnow loads
models with ``local_files_only`` and never downloads (ARCHITECTURE, Models).
"""

from __future__ import annotations

import os
from collections.abc import MutableMapping
from pathlib import Path

from core.onnx_runtime import OPT_OUT

#: folders of libraries that write caches, under Winnow's cache folder (the user's own
#: value of the variable wins: they asked for that folder)
CACHE_FOLDERS = {"MPLCONFIGDIR": "matplotlib", "TORCHINDUCTOR_CACHE_DIR": "torchinductor",
                 "TRITON_CACHE_DIR": "triton"}

#: set whatever the environment says: Winnow never downloads and sends no telemetry
FORCED = {"HF_HUB_OFFLINE": "1", "HF_HUB_DISABLE_TELEMETRY": "1", **OPT_OUT}


def cache_dir(environ: MutableMapping[str, str] | None = None) -> Path:
    """Winnow's cache folder: ``WINNOW_CACHE_DIR``, else ``$XDG_CACHE_HOME/winnow``, else
    ``~/.cache/winnow`` (the log's folder follows the same rule, ``app/errors.py``)."""
    env = os.environ if environ is None else environ
    if env.get("WINNOW_CACHE_DIR"):
        return Path(env["WINNOW_CACHE_DIR"])
    base = env.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "winnow"


def apply(environ: MutableMapping[str, str] | None = None) -> None:
    """Point the libraries' caches into :func:`cache_dir` and turn their network off, in
    ``environ`` (the process environment by default, so child processes inherit it).
    Nothing is created here: a library makes its folder when it first needs it."""
    env = os.environ if environ is None else environ
    base = cache_dir(env)
    for name, folder in CACHE_FOLDERS.items():
        if not env.get(name):
            env[name] = str(base / folder)
    env.update(FORCED)
