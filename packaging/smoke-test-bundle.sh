#!/usr/bin/env bash
# Smoke test of a built bundle (default dist/winnow), offscreen:
#   --version; a demo project written and opened by the app; a photo with EXIF/GPS
#   anonymized and its released bytes checked for metadata; a rater file opened in the
#   rater view and a judgment submitted with the keyboard; every run quits cleanly;
#   nothing non-commercial or torch inside.
# Inputs are made and outputs checked with the build venv's Python (PY), never with the
# bundle's own code paths.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
bundle=$(cd "${1:-dist/winnow}" && pwd)
exe=$bundle/winnow
PY=${PY:-$repo/build/bundle-venv/bin/python}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp"
export QT_QPA_PLATFORM=offscreen WINNOW_USER=smoke XDG_CONFIG_HOME="$tmp/config" \
  WINNOW_LOG_DIR="$tmp/logs"
passed=0
ok() { passed=$((passed + 1)); echo "bundle smoke: ok: $*"; }
fail() { echo "bundle smoke: FAILED: $*" >&2; exit 1; }
# run the bundle; its stderr must hold no traceback
run() {
  local status=0
  "$exe" "$@" 2> err.txt || status=$?
  [[ $status == 0 ]] || { cat err.txt >&2; fail "winnow $* exited $status"; }
  ! grep -q Traceback err.txt || { cat err.txt >&2; fail "winnow $* printed a traceback"; }
}
check() { PYTHONPATH=$repo "$PY" -c "$1" || fail "$2"; }

[[ "$(run --version)" == "winnow "* ]] || fail "--version"
ok "--version"

[[ -z "$(find "$bundle" \( -name '*68_face_landmarks*' -o -name 'torch' -o -name 'libx265*' \) \
  -print -quit)" ]] || fail "the bundle holds a file it must never ship"
ok "no 68-point dlib model, torch or x265 inside"

run demo demo.winnow > /dev/null
run demo.winnow --quit-when-ready | grep -q "ready: demo.winnow" || fail "the app never got ready"
ok "demo written, opened by the app, closed"

# a demo photo (drawn faces, signs) as a JPEG carrying EXIF with GPS and a comment
mkdir photos
check "
import glob
from PIL import Image
src = sorted(glob.glob('demo.demo-sources/photos/*'))[0]
exif = Image.Exif()
exif[0x010F] = 'SmokeCam'                                 # Make
exif.get_ifd(0x8825)[2] = (48.0, 51.0, 24.0)               # GPSLatitude
Image.open(src).convert('RGB').save('photos/street.jpg', exif=exif, comment=b'secret place')
assert b'SmokeCam' in open('photos/street.jpg', 'rb').read()
" "could not make the test photo"
# a real face too, where the shared test corpus is at hand (it is in CI)
faces=${WINNOW_TESTDATA:-$repo/../shared/testdata}/faces
if [[ -f $faces/2008_002470.jpg ]]; then
  cp "$faces/2008_002470.jpg" photos/people.jpg
elif [[ -n "${CI:-}" ]]; then
  fail "the shared test corpus is missing at $faces (set WINNOW_TESTDATA)"
else
  echo "bundle smoke: note: no real face photo at $faces; CenterFace is checked by verification only"
fi
"$exe" anonymize photos --out released --report report.json > anonymize.json 2> err.txt || true
! grep -q Traceback err.txt || { cat err.txt >&2; fail "winnow anonymize printed a traceback"; }
check "
import json
from pathlib import Path
from core.imaging.release import metadata_found
report = json.load(open('report.json'))
assert not report['failed'] and not report['errors'], report
photos = {Path(p['file']).name: p for p in report['photos']}
data = Path('released/street.jpg').read_bytes()
assert metadata_found(data) == [], metadata_found(data)
assert b'SmokeCam' not in data and b'secret place' not in data
assert all(p['verification']['detector'] == 'centerface' for p in photos.values()), photos
if 'people.jpg' in photos:                  # the frozen CenterFace found the faces
    found = [r for r in photos['people.jpg']['regions'] if r['detector'] == 'centerface']
    assert len(found) >= 3, photos['people.jpg']
regions = sum(len(p['regions']) for p in photos.values())
print(f'bundle smoke: {regions} regions hidden in {len(photos)} photos, no metadata')
" "the released photo"
ok "photo anonymized, released bytes carry no metadata"

run session create demo.winnow --name smoke --protocol side_by_side --raters 1 --gold none \
  --models aurora-xl,pixelforge --out files --json > created.json
run files/smoke-R1.winnow-session --keys "Smoke{Return}{Left}{Return}" | grep -q "keys typed" \
  || fail "the rater view did not take the keys"
check "
from core.rating.session_file import RatingSession
s = RatingSession.open('files/smoke-R1.winnow-session')
answers = [j.answer for j in s.judgments()]
assert s.rater == 'Smoke' and answers == [{'winner': 'left'}], (s.rater, answers)
" "the judgment was not saved"
ok "rater file opened, one judgment submitted and saved, quit cleanly"
echo "bundle smoke: $passed passed, 0 failed"
