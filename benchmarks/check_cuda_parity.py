"""Do the model-based metrics give the same values on CUDA as on the CPU?

Prints, as JSON, for the same random-weight models (real-size configs of
``bench_metrics.py``) and the same images:

* **face port**: dlib's face descriptors of real face chips from dlib's own ResNet
  (CPU), the torch port on the CPU, on CUDA as Winnow runs it (TF32 off) and on CUDA
  with TF32 on (what the switch avoids); max |Δ| per component and the largest change
  of a face-identity cosine;
* **CLIPScore (its raw cosine), structure distance, face identity, colour shift**:
  metric values through
  :func:`core.metrics.runner.iter_results` on the CPU and on CUDA (TF32 on, as
  configured by :func:`core.metrics.models.configure_torch`); max |Δ|.

    python benchmarks/check_cuda_parity.py --faces ../shared/testdata/faces --pairs 16

Needs a CUDA device; a diagnostic, not a test (CI has no GPU).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_metrics import build_models, make_pairs  # noqa: E402

from core.metrics.imageio import load_array  # noqa: E402
from core.metrics.registry import get  # noqa: E402
from core.metrics.runner import iter_results  # noqa: E402
from core.metrics.settings import MetricSettings  # noqa: E402
from core.metrics.worker import ModelWorker  # noqa: E402


def face_port(faces: Path, dev: str = "cuda") -> dict[str, float]:
    """Descriptor and cosine differences of the face port across devices."""
    import dlib
    import torch

    from core.metrics import face_identity as fi
    from core.metrics.dlib_resnet import CHIP_PADDING, CHIP_SIZE, build_net, embed_chips

    finder = fi.FaceFinder()
    chips = [finder.chips(load_array(p), CHIP_SIZE, CHIP_PADDING)
             for p in sorted(faces.glob("*.jpg"))]
    allc = np.concatenate([c for c in chips if len(c)])
    path = str(Path(fi.dlib_model_dir()) / fi.RESNET_FILE)
    own = np.asarray([np.asarray(v) for v in
                      dlib.face_recognition_model_v1(path).compute_face_descriptor(list(allc))],
                     np.float32)
    cpu = embed_chips(build_net(path), allc)
    net = build_net(path).to(dev)
    cuda = embed_chips(net, allc)
    torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = True
    with torch.inference_mode():  # what embed_chips would give without switching TF32 off
        tf32 = net(allc).float().cpu().numpy()

    def unit(e: np.ndarray) -> np.ndarray:
        return e / np.linalg.norm(e, axis=1, keepdims=True)

    def cos_change(a: np.ndarray, b: np.ndarray) -> float:
        return float(np.abs(unit(a) @ unit(a).T - unit(b) @ unit(b).T).max())

    return {"faces": int(len(allc)),
            "dlib_vs_port_cpu_max_abs": float(np.abs(own - cpu).max()),
            "dlib_vs_port_cuda_max_abs": float(np.abs(own - cuda).max()),
            "port_cpu_vs_cuda_max_abs": float(np.abs(cpu - cuda).max()),
            "port_cuda_tf32_vs_dlib_max_abs": float(np.abs(own - tf32).max()),
            "cosine_change_cuda_vs_dlib": cos_change(own, cuda),
            "cosine_change_cuda_tf32_vs_dlib": cos_change(own, tf32)}


def metric_values(names: list[str], pairs: int, faces: Path, dev: str = "cuda"
                  ) -> dict[str, dict[str, float]]:
    """Max |Δ| of each metric's values, CPU vs CUDA, on the same models and images."""
    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        clip, dino = build_models(root, "real")
        for name in names:
            metric = get(name)
            items = make_pairs(root, name, pairs, faces_dir=faces)
            values = {}
            for device in ("cpu", dev):
                settings = MetricSettings(clip_model=str(clip), dino_model=str(dino),
                                          device=device, decode_threads=4)
                worker = ModelWorker(f"parity-{device}")
                try:
                    values[device] = np.array(
                        [_raw(r) for batch in iter_results(metric, items, settings, device, worker)
                         for _, r, _ in batch], float)
                finally:
                    worker.stop()
            diff = np.abs(values["cpu"] - values[dev])
            out[name] = {"pairs": len(items), "max_abs": float(np.nanmax(diff)),
                         "value_range": float(np.nanmax(values["cpu"])
                                              - np.nanmin(values["cpu"])),
                         "same_na": bool((np.isnan(values["cpu"])
                                          == np.isnan(values[dev])).all())}
    return out


def _raw(result: object) -> float:
    """The metric's value before clipping (CLIPScore's cosine), NaN where none."""
    value = getattr(result, "details", {}).get("cosine", getattr(result, "value", None))
    return float("nan") if value is None else float(value)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--faces", type=Path, default=bench_faces_default())
    ap.add_argument("--pairs", type=int, default=16)
    ap.add_argument("--device", default="cuda", help="compared with the CPU (cpu: a dry run)")
    ap.add_argument("--metrics", default="clipscore,structure_distance,face_identity,"
                    "colour_shift")
    args = ap.parse_args()
    result = {"face_port": face_port(args.faces, args.device),
              "metrics": metric_values([m for m in args.metrics.split(",") if m],
                                       args.pairs, args.faces, args.device)}
    print(json.dumps(result, indent=2))


def bench_faces_default() -> Path:
    from bench_metrics import FACES

    return FACES


if __name__ == "__main__":
    main()
