#!/usr/bin/env bash
# Run the test suite: set up .venv with the tests' requirements (and Chromium, for the report's browser tests)
# if needed, fetch the pinned GPU engines' wheels (read as source by the GPU launch tests; they cannot import
# without CUDA), then pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash setup.sh --tests
WHEELS=.venv/gpu-wheels
for pin in $(grep -E '^[A-Za-z0-9_.-]+==' requirements-gpu.txt); do
  if ! ls "$WHEELS/${pin%%==*}-${pin##*==}-"*.whl > /dev/null 2>&1; then
    echo "tests: downloading the $pin wheel (not installed; its source is checked)" >&2
    .venv/bin/pip download --quiet --disable-pip-version-check --no-deps --only-binary :all: \
      --implementation cp --python-version 3.11 --platform manylinux_2_28_x86_64 \
      --platform manylinux2014_x86_64 --platform manylinux1_x86_64 "$pin" -d "$WHEELS"
  fi
done
export GPU_WHEELS=$WHEELS
exec .venv/bin/python -m pytest -q "$@"
