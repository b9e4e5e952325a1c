"""Model loading and device selection; torch and transformers are imported only in here, lazily.

A model is named by a local folder (``save_pretrained`` layout) or a Hugging Face id
that must already be in the local cache: everything is loaded with
``local_files_only=True`` and nothing is ever downloaded (ARCHITECTURE, Models).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

_torch_lock = threading.Lock()
_torch_configured: set[str] = set()


class ModelUnavailableError(RuntimeError):
    """A model is neither a local folder nor in the Hugging Face cache."""


def is_local(spec: str) -> bool:
    """True when ``spec`` names an existing folder (rather than a hub id)."""
    return Path(spec).expanduser().is_dir()


def path_like(spec: str) -> bool:
    """True when ``spec`` is written as a file-system path, not a hub id ``org/name``."""
    return spec.startswith(("/", "~", ".")) or spec.count("/") > 1 or os.path.isabs(spec)


def check_folder(spec: str, what: str = "") -> None:
    """:class:`ModelUnavailableError` "no such folder" for a path that is not a folder
    (else the hub library reports it as a malformed repo id)."""
    if path_like(spec) and not is_local(spec):
        raise ModelUnavailableError(f"no such folder: {spec} "
                                    f"({f'the {what} model' if what else 'a model folder'})")


def _missing(spec: str, what: str, exc: BaseException | None = None) -> ModelUnavailableError:
    hint = (f"{what} model {spec!r} is not a folder and not in the Hugging Face cache "
            f"({hf_cache_dir()}). Winnow never downloads weights: fetch it yourself (for "
            f"example `huggingface-cli download {spec}`) or choose a local folder in "
            "Metrics → Settings.")
    if exc is not None and is_local(spec):
        hint = f"{what} model folder {spec} cannot be loaded: {exc}"
    return ModelUnavailableError(hint)


def hf_cache_dir() -> str:
    """Where the Hugging Face hub cache lives (respects HF_HOME / HF_HUB_CACHE)."""
    if os.environ.get("HF_HUB_CACHE"):
        return os.environ["HF_HUB_CACHE"]
    home = os.environ.get("HF_HOME") or os.path.join(os.path.expanduser("~"), ".cache",
                                                     "huggingface")
    return os.path.join(home, "hub")


def read_model_json(spec: str, filename: str) -> dict[str, Any] | None:
    """A JSON file of a model (config, preprocessor config) without loading torch.

    None when the model has no such file; never downloads. A path that is not a folder
    raises :class:`ModelUnavailableError` (:func:`check_folder`).
    """
    check_folder(spec)
    if is_local(spec):
        path = str(Path(spec).expanduser() / filename)
        if not os.path.isfile(path):
            return None
    else:
        try:
            from huggingface_hub import try_to_load_from_cache
        except ImportError:  # pragma: no cover - transformers brings it
            return None
        found = try_to_load_from_cache(spec, filename, cache_dir=hf_cache_dir())
        if not isinstance(found, str):
            return None
        path = found
    with open(path, encoding="utf-8") as fh:
        config: dict[str, Any] = json.load(fh)
    return config


def model_status(spec: str) -> tuple[bool, str]:
    """Whether ``spec`` can be loaded offline, and a one-line reason (no torch import).

    A model is found when its ``config.json`` is in the folder or in the Hugging Face
    cache; the weights themselves are checked when a run loads them.
    """
    spec = spec.strip()
    if not spec:
        return False, "no model given"
    if path_like(spec) and not is_local(spec):
        return False, "no such folder"
    try:
        config = read_model_json(spec, "config.json")
    except (OSError, ValueError) as exc:
        return False, f"config.json cannot be read: {exc}"
    if config is not None:
        where = "local folder" if is_local(spec) else "Hugging Face cache"
        return True, f"found ({where}, {config.get('model_type', 'unknown type')})"
    if is_local(spec):
        return False, "this folder has no config.json (not a saved transformers model)"
    return False, f"not in the Hugging Face cache ({hf_cache_dir()}); never downloaded"


def load_pretrained(cls_name: str, spec: str, what: str, **kwargs: Any) -> Any:
    """``transformers.<cls_name>.from_pretrained(spec, local_files_only=True)``, in eval mode."""
    import transformers

    check_folder(spec, what)
    cls = getattr(transformers, cls_name)
    source = str(Path(spec).expanduser()) if is_local(spec) else spec
    try:
        obj = cls.from_pretrained(source, local_files_only=True, cache_dir=hf_cache_dir(),
                                  **kwargs)
    except (OSError, ValueError) as exc:
        raise _missing(spec, what, exc) from exc
    if hasattr(obj, "eval"):
        obj.eval()
    return obj


def select_device(requested: str = "auto") -> str:
    """``"cuda"`` when asked for (and present) or automatic with a GPU, else ``"cpu"``."""
    requested = (requested or "auto").lower()
    if requested not in ("auto", "cpu", "cuda") and not requested.startswith("cuda:"):
        raise ValueError(f"unknown device {requested!r} (use auto, cpu or cuda)")
    if requested == "cpu":
        return "cpu"
    import torch

    available = torch.cuda.is_available()
    if requested.startswith("cuda") and not available:
        raise ValueError("--device cuda was requested but torch sees no CUDA GPU "
                         f"(torch {torch.__version__}, built for CUDA {torch.version.cuda})")
    if requested == "auto":
        return "cuda" if available else "cpu"
    return requested


def default_cpu_threads() -> int:
    """Cores − 1 (at least 1), so the UI thread keeps a core on CPU-only machines."""
    return max(1, (os.cpu_count() or 2) - 1)


def configure_torch(device: str, cpu_threads: int | None = None) -> None:
    """Once per process and device: cap CPU threads; allow TF32 on CUDA."""
    import torch

    with _torch_lock:
        if device in _torch_configured:
            return
        if device == "cpu":
            torch.set_num_threads(cpu_threads or default_cpu_threads())
        else:
            torch.backends.cuda.matmul.allow_tf32 = True
            torch.backends.cudnn.allow_tf32 = True
        _torch_configured.add(device)


def features(out: Any) -> Any:
    """The tensor of ``get_image_features``/``get_text_features`` (transformers 4 and 5)."""
    return out.pooler_output if hasattr(out, "pooler_output") else out


def to_tensor(batch: list[Any], device: str) -> Any:
    """Stack numpy arrays into one float tensor on ``device``."""
    import numpy as np
    import torch

    x = torch.from_numpy(np.stack(batch))
    if device != "cpu":
        x = x.pin_memory().to(device, non_blocking=True)
    return x
