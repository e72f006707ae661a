#!/usr/bin/env bash
# Run everything.
#
#   bash run_all.sh                  # demo profile: no GPU, no API key needed
#   bash run_all.sh --profile paper  # the papers' models, on the official data you converted
#
# demo: set up .venv, generate the demo sets of all five benchmarks in their official formats,
# convert them with the real converters, and run every experiment family of configs/experiments/
# through the embedded model (SmolLM2-135M behind llama.cpp's OpenAI-compatible server), judging
# each run with the rule judges and, for the main tables, the papers' LLM judges (the same small
# model stands in for GPT-4o). paper: the same experiments with configs/models/paper/; models whose
# endpoints or keys are not in the environment are not run, and the variables to set are listed once; when
# nothing ran, it stops there without rebuilding the report.
# Everything resumes: a second run sends no request.
set -euo pipefail
cd "$(dirname "$0")"
PROFILE=demo
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) PROFILE="$2"; shift 2 ;;
    *) echo "usage: bash run_all.sh [--profile demo|paper]" >&2; exit 2 ;;
  esac
done
bash setup.sh
PY=.venv/bin/python

# The model steps run as a job this script waits for, so that a SIGTERM sent to the script reaches them:
# they stop cleanly, say what they saved, and the script exits with their code (143). Ctrl-C reaches
# them from the terminal (130). A rerun resumes.
STEP=
model_step() {
  "$@" &
  STEP=$!
  local status
  while :; do
    status=0
    wait "$STEP" || status=$?
    kill -0 "$STEP" 2> /dev/null || break  # ended: its status is the step's (a signal only woke the wait)
  done
  STEP=
  return "$status"
}
trap 'if [ -n "$STEP" ]; then kill -TERM "$STEP" 2> /dev/null; else exit 143; fi' TERM
trap 'if [ -z "$STEP" ]; then exit 130; fi' INT

if [ "$PROFILE" = demo ]; then
  $PY -m data.demo --out data/demo/build
  # MorphoBench's generated tasks (MORPHO-G, §3.3): circuit black boxes of levels 1-3, checked by ngspice,
  # and "spot the different one" grids, in the release's format and converted like it. Deterministic:
  # made once (again when the file predates the recorded distractor design). The circuits' distractors
  # join as many terminals as the truth (same_count, the default; fig7: Fig. 7's different counts).
  DISTRACTORS=${MORPHO_G_DISTRACTORS:-same_count}
  if [ ! -f data/demo/build/morpho_g.jsonl ] || ! grep -q "\"distractor_design\":\"$DISTRACTORS\"" data/demo/build/morpho_g.jsonl; then
    G=data/demo/build/official/morpho_g
    rm -rf "$G"
    for level in 1 2 3; do
      $PY -m data.generate circuits --n 1 --level "$level" --seed 0 --distractors "$DISTRACTORS" --out "$G" --quiet
    done
    $PY -m data.generate spot_diff --n 1 --rows 6 --cols 11 --seed 0 --out "$G" --quiet
    $PY -m data.convert morphobench --src "$G" --out data/demo/build/morpho_g.jsonl
  fi
fi
if [ "$PROFILE" = demo ]; then
  # Every demo experiment, then MorphoBench's adaptation families by the embedded model and the experiment
  # on the adapted splits, in one process: the embedded model's servers start once (pipeline/demo.py).
  model_step $PY -m pipeline.demo --results results
else
  # Nothing of the paper profile ran (no model configured, no data converted: status 1): the sweep says what to
  # do first, and the report is not rebuilt from whatever else results/ holds. Some runs made and others not
  # (status 3, e.g. one model's endpoint down): the report is rebuilt from those made, and the script exits 3.
  status=0
  model_step $PY -m pipeline.experiments --profile "$PROFILE" --results results || status=$?
  if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
    echo "run_all.sh: the $PROFILE profile's sweep exited with $status (above); the report was not rebuilt" >&2
    exit "$status"
  fi
fi

# Every table and figure that has inputs, beside the papers' numbers, and the report.
$PY -m analysis.run --all --report --results results
echo "Report: results/report.md (and report.html) in this checkout"
if [ "${status:-0}" -eq 3 ]; then
  echo "run_all.sh: the $PROFILE profile's sweep could not make some runs (listed above);" \
    "the report holds the others" >&2
  exit 3
fi
