#!/usr/bin/env bash
# The base install (no extras) works on its own: `pip install .` into a throwaway venv
# with packaging/constraints.txt, then `winnow --version`, the extras' modules absent,
# a rating session end to end (demo → create → rate through core → merge → results →
# stats), the app ready on the project, and `winnow anonymize` naming the missing extra.
# Run by .ci/run; about 2 minutes with a warm pip cache.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# a clean copy of the source (tracked and new files): no stale build/ output can leak in
mkdir "$tmp/src"
git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$tmp/src"
"${PYTHON:-python3}" -m venv "$tmp/venv"
py=$tmp/venv/bin/python
quiet() { grep -v "is ignored: it is neither a file nor a directory" >&2 || true; }
"$py" -m pip install -q --disable-pip-version-check -c packaging/constraints.txt "$tmp/src" \
  2> >(quiet)

cd "$tmp"  # away from the checkout: only the installed package is importable
export PATH="$tmp/venv/bin:$PATH" QT_QPA_PLATFORM=offscreen WINNOW_USER=ci-base
export XDG_CONFIG_HOME="$tmp/config" WINNOW_LOG_DIR="$tmp/logs"
step() { echo "base install: $*"; }

step "$(winnow --version)"
for module in torch transformers onnxruntime rapidocr dlib cv2 face_recognition_models; do
  if "$py" -c "import $module" 2>/dev/null; then
    echo "base install: FAILED: $module is importable without the extras" >&2; exit 1
  fi
done
step "no torch, transformers, onnxruntime, rapidocr, dlib, OpenCV"
"$py" -c "
from importlib.resources import files
from core.imaging.faces import shipped_centerface
assert shipped_centerface().stat().st_size > 7_000_000, shipped_centerface()
assert 'CenterFace' in files('resources').joinpath('THIRD_PARTY_NOTICES.md').read_text()
"
step "the wheel carries resources/models/centerface.onnx and THIRD_PARTY_NOTICES.md"

winnow demo demo.winnow > /dev/null
winnow session create demo.winnow --name base --protocol side_by_side --raters 1 \
  --gold none --models aurora-xl,pixelforge --out files --json > created.json
"$py" - <<'PY'
import json
from core.rating.session_file import RatingSession

(path,) = json.load(open("created.json"))["files"]
session = RatingSession.open(path)
session.set_rater("Base Rater")
n = 0
while (task := session.next_task()) is not None:
    session.submit(task.task_id, {"winner": "left"}, time_ms=900)
    n += 1
session.close()
assert n > 0
print(f"base install: rated {n} tasks")
PY
winnow session merge demo.winnow files/base-R1.winnow-session | grep -q "new judgment"
winnow session results demo.winnow --session base --out votes.csv
"$py" -c "import json, sys; s = json.load(sys.stdin)['scores']; \
assert set(s) == {'aurora-xl', 'pixelforge'} and abs(sum(s.values()) - 100) < 1e-6, s" \
  < <(winnow stats bt votes.csv)
step "session created, rated, merged, exported, scored"

winnow demo.winnow --quit-when-ready | grep -q "ready: demo.winnow"
step "the app opened the project"

mkdir photos && cp "$("$py" -c 'import resources, pathlib; print(pathlib.Path(resources.__file__).parent / "winnow.svg")')" photos/
set +e
winnow anonymize photos --out out 2> anonymize.err
status=$?
set -e
if [[ $status != 2 ]] || ! grep -q "optional 'anonymize' part" anonymize.err \
    || ! grep -q "\[anonymize\]" anonymize.err || grep -q Traceback anonymize.err; then
  echo "base install: FAILED: winnow anonymize did not name the missing extra:" >&2
  cat anonymize.err >&2; exit 1
fi
step "winnow anonymize names the missing extra and its install command"
echo "base install: 6 passed, 0 failed"
