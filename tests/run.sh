#!/usr/bin/env bash
# Run the test suite: set up .venv if needed, then pytest. Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash setup.sh
exec .venv/bin/python -m pytest -q "$@"
