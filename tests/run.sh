#!/usr/bin/env bash
# Run the test suite: set up .venv (and Chromium, for the report's browser tests) if needed, then pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash setup.sh --with-browser
exec .venv/bin/python -m pytest -q "$@"
