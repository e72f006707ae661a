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
# endpoints or keys are not in the environment are listed as not configured.
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

if [ "$PROFILE" = demo ]; then
  $PY -m data.demo --out data/demo/build
fi
$PY -m pipeline.experiments --profile "$PROFILE" --results results

echo
echo "Raw outputs: results/raw/<benchmark>/<model>/<setting>.jsonl (+ .manifest.json beside each)"
echo "Verdicts:    results/judged/<benchmark>/<model>/<setting>.<judge>.jsonl (+ .manifest.json)"

# Every table and figure that has inputs, beside the papers' numbers, and the report.
$PY -m analysis.run --all --report --results results
echo "Report: $(pwd)/results/report.md (and report.html)"
