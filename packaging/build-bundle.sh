#!/usr/bin/env bash
# Build the lean one-folder bundle (base + [anonymize]; no torch) into dist/winnow/.
#   packaging/build-bundle.sh            build (reuses build/bundle-venv when unchanged)
#   packaging/build-bundle.sh --smoke    build, then run packaging/smoke-test-bundle.sh
# The build venv holds exactly the lean edition's packages at the versions of
# packaging/constraints.txt, so PyInstaller cannot pick up torch or a test tool.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build/bundle-venv
quiet() { grep -v "is ignored: it is neither a file nor a directory" >&2 || true; }
[[ -x $venv/bin/python ]] || "${PYTHON:-python3}" -m venv "$venv"
stamp=$venv/.winnow-bundle
want=$(cat pyproject.toml packaging/constraints.txt | sha256sum | cut -c1-32)
if [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  "$venv/bin/python" -m pip install -q --disable-pip-version-check \
    -c packaging/constraints.txt -e '.[anonymize,bundle]' 2> >(quiet)
  echo "$want" > "$stamp"
fi
start=$(date +%s)
"$venv/bin/pyinstaller" packaging/winnow.spec --noconfirm --clean --log-level WARN \
  --distpath dist --workpath build/pyinstaller
echo "bundle: built dist/winnow in $(( $(date +%s) - start )) s," \
  "$(du -sm dist/winnow | cut -f1) MiB, $(find dist/winnow -type f | wc -l) files"
if [[ "${1:-}" == "--smoke" ]]; then
  packaging/smoke-test-bundle.sh dist/winnow
fi
