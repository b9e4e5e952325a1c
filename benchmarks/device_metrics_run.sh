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
P="python3 benchmarks/bench_prepare_pipeline.py --device cuda --real-size"
timeout 200 $P --pairs 2048 --repeats 2 --workers 0,8 --batches 8,32,64,128 \
    --metrics clipscore,structure_distance 2>&1 | grep -v "it/s\]" | tee "$OUT/pipeline.log"
timeout 90 $P --pairs 256 --repeats 1 --faces .devcarry/faces --batches 8,32 \
    --metrics face_identity 2>&1 | grep -v "it/s\]" | tee "$OUT/pipeline_faces.log"
B="python3 benchmarks/bench_metrics.py --device cuda --real-size --per-input 4"
timeout 150 $B --repeats 2 --pairs 2048 --metrics clipscore,structure_distance \
    --sweep 0:0:t,0:0:p,0:64:p 2>&1 | grep "sweep\|^device" | tee "$OUT/sweep.log"
timeout 60 $B --repeats 2 --pairs 256 --faces .devcarry/faces --metrics face_identity \
    --sweep 0:0:t,0:0:p 2>&1 | grep "sweep\|^device" | tee "$OUT/faces.log"
