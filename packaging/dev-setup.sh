#!/usr/bin/env bash
# Set up (or refresh) the project's virtual environment at .venv. Idempotent: a stamp
# of pyproject.toml and this script skips the pip step when nothing changed.
#   packaging/dev-setup.sh          Python packages only (enough for the tests):
#                                   winnow[all,test] pinned by packaging/constraints.txt
#   packaging/dev-setup.sh --gui    also the X11 libraries Qt's xcb platform needs
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

if [[ "${1:-}" == "--gui" ]]; then
  # Qt's xcb plugin needs a few X11 libraries a server image may lack (best effort).
  need=()
  for pkg in libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0 \
             libxcb-shape0 libxcb-xkb1 libxkbcommon-x11-0 libegl1 libgl1 libfontconfig1; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
  done
  if ((${#need[@]})) && command -v apt-get >/dev/null && [[ $(id -u) == 0 ]]; then
    echo "Installing X11 libraries for Qt: ${need[*]}"
    (apt-get update -qq && apt-get install -y -qq "${need[@]}" >/dev/null) \
      || echo "warning: could not install ${need[*]}; the window may not open" >&2
  fi
fi

[[ -x .venv/bin/python ]] || "$PY" -m venv .venv
stamp=.venv/.winnow-setup
want=$(cat pyproject.toml packaging/constraints.txt packaging/dev-setup.sh | sha256sum | cut -c1-32)
if [[ "$(cat "$stamp" 2>/dev/null)" != "$want" ]]; then
  .venv/bin/python -m pip install -q --disable-pip-version-check --upgrade pip
  # everything (base + [anonymize] + [metrics]) and the test tools, at the exact versions
  # of packaging/constraints.txt (refresh them with packaging/refresh-constraints.sh)
  .venv/bin/python -m pip install -q --disable-pip-version-check \
    -c packaging/constraints.txt -e '.[all,test]'
  echo "$want" > "$stamp"
fi
