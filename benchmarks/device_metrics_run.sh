#!/usr/bin/env bash
# The GPU run of issue 18 (ADR 196, ADR 209), as sent to a lent machine: one command.
# Needs the ignored kit folder .devcarry/ (see ADR 196): whl/ (dlib-bin for CPython 3.12),
# site/ (face_recognition_models with the 5-point and ResNet files; a rapidocr
# placeholder), faces/ (face photos of the testdata).  Writes logs under $OUT.
set -o pipefail
export PYTHONUNBUFFERED=1 OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site \
    .devcarry/whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD/.devcarry/site:$PWD
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader
python3 -c "import torch, transformers, sys; print(sys.version.split()[0], torch.__version__, transformers.__version__)"
# normalising uint8 images on the GPU gives the CPU's floats
python3 - <<'PY' 2>&1 | tee "$OUT/parity.log"
import numpy as np, torch
from core.metrics import models
from core.metrics.imageio import normalize_chw
from core.metrics.clipscore import OPENAI_MEAN, OPENAI_STD
rng = np.random.default_rng(0)
x = [rng.integers(0, 256, (3, 224, 224), dtype=np.uint8) for _ in range(8)]
gpu = models.normalized(x, "cuda", OPENAI_MEAN, OPENAI_STD, torch.float32).cpu().numpy()
cpu = np.stack([normalize_chw(a, OPENAI_MEAN, OPENAI_STD) for a in x])
print("normalised on cuda vs numpy: max abs diff", float(np.abs(gpu - cpu).max()),
      "equal bitwise:", bool(np.array_equal(gpu, cpu)))
PY
B="python3 benchmarks/bench_metrics.py --device cuda --real-size --per-input 4"
timeout 300 $B --repeats 3 --pairs 1024 --metrics clipscore,structure_distance \
    --sweep 0:0:t,0:0:p,8:0:p,0:32:p 2>&1 | grep -v "it/s\]" | tee "$OUT/sweep.log"
timeout 200 $B --repeats 2 --pairs 256 --faces .devcarry/faces --metrics face_identity \
    --sweep 0:0:t,0:0:p 2>&1 | grep -v "it/s\]" | tee "$OUT/faces.log"
