#!/bin/sh
# Measures this example's tests with `flakeproof repeat`: RUNS runs of pytest (default 8), each
# writing a JUnit report, into OUT_DIR (default examples/pytest/.flakeproof). Run from anywhere after
# `npm run build` at the repository root.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if ! python3 -m pytest --version >/dev/null 2>&1; then
  echo "examples/pytest: pytest is not installed for python3. Install it with \`apt-get install python3-pytest\` (Debian, Ubuntu) or \`python3 -m pip install pytest\`, then run this again." >&2
  exit 2
fi
runs=${RUNS:-8}
out=${OUT_DIR:-"$here/.flakeproof"}
# A fresh pool for each measurement, so its numbers do not depend on the last one.
EXAMPLE_STATE_DIR=${EXAMPLE_STATE_DIR:-"$here/.state"}
rm -rf "$EXAMPLE_STATE_DIR"
export EXAMPLE_STATE_DIR PYTHONDONTWRITEBYTECODE=1
exec node "$here/../../dist/src/cli/bin.js" repeat --runs "$runs" --junit "$out/junit/run-{run}.xml" --out-dir "$out" \
  -- python3 -m pytest -q -p no:cacheprovider --rootdir "$here" --junitxml="$out/junit/run-{run}.xml" "$here"
