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
  # MorphoBench's generated tasks (MORPHO-G, §3.3): circuit black boxes of levels 1-3, checked by ngspice,
  # and "spot the different one" grids, in the release's format and converted like it. Deterministic:
  # made once.
  if [ ! -f data/demo/build/morpho_g.jsonl ]; then
    G=data/demo/build/official/morpho_g
    rm -rf "$G"
    for level in 1 2 3; do
      $PY -m data.generate circuits --n 1 --level "$level" --seed 0 --out "$G" --quiet
    done
    $PY -m data.generate spot_diff --n 1 --rows 6 --cols 11 --seed 0 --out "$G" --quiet
    $PY -m data.convert morphobench --src "$G" --out data/demo/build/morpho_g.jsonl
  fi
fi
$PY -m pipeline.experiments --profile "$PROFILE" --results results

if [ "$PROFILE" = demo ]; then
  # MorphoBench's adaptation families (§3.3) by the embedded model, from its own answers to two v0 items
  # each; it is too small for their model stages, so the reports (adapt_*.md) show the heuristic graphs
  # and the items dropped, and why. Every call is logged: a rerun asks nothing.
  A=data/demo/build/official/morphobench_adapted
  RAW=results/raw/morphobench/smollm2-135m/with_hints+caption.jsonl
  $PY -m pipeline.adapt reasoning --data data/demo/build/morphobench.jsonl --model configs/models/smollm2-135m.yaml \
      --source "responses:$RAW" --out "$A" --limit 2 --results results --max-tokens 256
  $PY -m pipeline.adapt recognition --data data/demo/build/morphobench.jsonl --model configs/models/smollm2-135m.yaml \
      --out "$A" --limit 2 --results results --max-tokens 256
  $PY -m data.convert morphobench --src "$A" --out data/demo/build/morphobench_adapted.jsonl
  $PY -m pipeline.experiments --profile demo --only morphobench.T2-adapted --results results
  echo "Adapted splits: $A (reports adapt_reasoning.md, adapt_recognition.md)"
fi

echo
echo "Raw outputs: results/raw/<benchmark>/<model>/<setting>.jsonl (+ .manifest.json beside each)"
echo "Verdicts:    results/judged/<benchmark>/<model>/<setting>.<judge>.jsonl (+ .manifest.json)"

# Every table and figure that has inputs, beside the papers' numbers, and the report.
$PY -m analysis.run --all --report --results results
echo "Report: $(pwd)/results/report.md (and report.html)"
