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
        hint = f"{what} model folder {spec} cannot be loaded: {_reason(exc)}"
    return ModelUnavailableError(hint)


def _reason(exc: BaseException) -> str:
    """Why loading failed, in words: transformers' refusal of weights whose shapes differ
    from the config points at a report it logged ("look at the above report!")."""
    if "ignore_mismatched_sizes" in str(exc):
        return ("its weights do not fit its config.json (a weight's shape differs from the "
                "one the config describes: the weights are another model's, or config.json "
                "was edited)")
    return str(exc)


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


def model_status(spec: str, expected: str | None = None) -> tuple[bool, str]:
    """Whether ``spec`` can be loaded offline, and a one-line reason (no torch import).

    A model is found when its ``config.json`` is in the folder or in the Hugging Face
    cache and, when ``expected`` is given, names that ``model_type``; the weights
    themselves are checked when a run loads them.
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
        found = config.get("model_type") if isinstance(config, dict) else None
        if expected and found != expected:
            return False, (f"a {found or 'unknown'!r} model, not a {expected!r} model "
                           f"({where})")
        return True, f"found ({where}, {found or 'unknown type'})"
    if is_local(spec):
        return False, "this folder has no config.json (not a saved transformers model)"
    return False, f"not in the Hugging Face cache ({hf_cache_dir()}); never downloaded"


def load_pretrained(cls_name: str, spec: str, what: str, **kwargs: Any) -> Any:
    """``transformers.<cls_name>.from_pretrained(spec, local_files_only=True)``, in eval mode.

    A model of another type (a DINO folder given as CLIP), or a checkpoint that leaves
    weights missing, is refused: transformers would fill them with random numbers, warn
    on the log and return a model whose scores mean nothing. Any failure to load (a
    damaged weights file too) is a :class:`ModelUnavailableError` naming the folder.
    """
    import transformers

    # Winnow shows its own progress; transformers' bar ("Loading weights: 100%…") only
    # cluttered stderr of every `winnow metrics` run and log
    transformers.utils.logging.disable_progress_bar()
    check_folder(spec, what)
    cls = getattr(transformers, cls_name)
    source = str(Path(spec).expanduser()) if is_local(spec) else spec
    expected = getattr(getattr(cls, "config_class", None), "model_type", None)
    if expected:
        kwargs["output_loading_info"] = True
    try:
        obj = cls.from_pretrained(source, local_files_only=True, cache_dir=hf_cache_dir(),
                                  **kwargs)
    except Exception as exc:  # noqa: BLE001 - OSError, ValueError, SafetensorError, …
        raise _missing(spec, what, exc) from exc
    if expected:
        obj, info = obj
        _check_loaded(obj, info, spec, what, expected)
    if hasattr(obj, "eval"):
        obj.eval()
    return obj


def _check_loaded(obj: Any, info: dict[str, Any], spec: str, what: str,
                  expected: str) -> None:
    """Refuse a model of the wrong type or with weights the checkpoint did not hold."""
    found = getattr(obj.config, "model_type", "")
    where = f"{what} model folder {spec}" if is_local(spec) else f"{what} model {spec!r}"
    if found != expected:
        raise ModelUnavailableError(
            f"{where} holds a {found or 'unknown'!r} model, not a {expected!r} model: "
            f"choose a {what} model in Metrics → Settings")
    missing = sorted(info.get("missing_keys") or ())
    if missing:
        raise ModelUnavailableError(
            f"{where} cannot be used: {len(missing):,} weight(s) are missing from its "
            f"checkpoint (for example {missing[0]}), so they would be random")


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
        build = (f"built for CUDA {torch.version.cuda}" if torch.version.cuda
                 else "a CPU-only build")  # it said "built for CUDA None"
        raise ValueError(f"the device is set to CUDA GPU ({requested}) but torch sees no "
                         f"CUDA GPU (torch {torch.__version__}, {build}): choose CPU or "
                         "Automatic")
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
    """Stack numpy arrays into one tensor on ``device`` (their dtype kept)."""
    import numpy as np
    import torch

    x = torch.from_numpy(np.stack(batch))
    if device != "cpu":
        x = x.pin_memory().to(device, non_blocking=True)
    return x


def normalized(batch: list[Any], device: str, mean: tuple[float, ...],
               std: tuple[float, ...], dtype: Any) -> Any:
    """``(3, H, W) uint8`` arrays → one normalised tensor on ``device``: moved as bytes,
    then ``(x / 255 − mean) / std`` in float32 there (the same operations as
    :func:`core.metrics.imageio.normalize_chw`), cast to the model's ``dtype``."""
    import torch

    x = to_tensor(batch, device).to(torch.float32) / 255.0
    m = torch.tensor(mean, dtype=torch.float32, device=x.device).view(1, -1, 1, 1)
    s = torch.tensor(std, dtype=torch.float32, device=x.device).view(1, -1, 1, 1)
    return ((x - m) / s).to(dtype)
