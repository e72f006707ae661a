#!/usr/bin/env bash
# Run everything. With no arguments on a fresh machine (no GPU, no API key): set up .venv, generate
# and convert the demo sets of all five benchmarks, and run each benchmark's main prompt through the
# embedded model (SmolLM2-135M behind llama.cpp's OpenAI-compatible server). A second run sends no
# request: finished requests are skipped.
#
#   MODEL=configs/models/<name>.yaml DATA_DIR=<folder with <bench>.jsonl> bash run_all.sh
# runs the same main settings on another model and other data (e.g. the official releases).
set -euo pipefail
cd "$(dirname "$0")"
bash setup.sh
PY=.venv/bin/python
MODEL=${MODEL:-configs/models/smollm2-135m.yaml}
JUDGE_MODEL=${JUDGE_MODEL:-configs/models/smollm2-135m.yaml}   # the LLM judge (papers: GPT-4o, GPT-4o-mini, o3-mini)
DATA_DIR=${DATA_DIR:-data/demo/build}
RESULTS=${RESULTS:-results}

if [ "$DATA_DIR" = "data/demo/build" ]; then
  $PY -m data.demo --out data/demo/build
fi

# The embedded model reads text only, so the demo replaces every image by its exact caption
# (+caption); a vision model runs the papers' own image settings.
if $PY -c "import sys; from infer.config import load_model_config as l; sys.exit(0 if l('$MODEL').accepts_images else 1)"; then
  suffix=""
else
  suffix="+caption"
fi

declare -A MAIN_SETTING=(
  [think360]=direct        # Think360° Table 3: direct prompt
  [omibench]=cot_boxed     # OMIBench Table 2: CoT with \boxed{}
  [mira]=direct            # MIRA level 1 (D)
  [c2rbench]=zero_shot     # C²RBench Figures 7-8: zero-shot
  [morphobench]=with_hints # MorphoBench: question with hints appended
)
model_name=$($PY -c "from infer.config import load_model_config as l; print(l('$MODEL').name)")
for bench in think360 omibench mira c2rbench morphobench; do
  setting="${MAIN_SETTING[$bench]}$suffix"
  $PY -m infer.run --bench "$bench" --data "$DATA_DIR/$bench.jsonl" --model "$MODEL" \
      --setting "$setting" --results "$RESULTS"
  # Each paper's own judges: the rule judge and its LLM judge.
  $PY -m judge.run --bench "$bench" --data "$DATA_DIR/$bench.jsonl" --model "$model_name" \
      --setting "$setting" --judge default --judge-model "$JUDGE_MODEL" --results "$RESULTS"
done

echo
echo "Raw outputs: $RESULTS/raw/<benchmark>/<model>/<setting>.jsonl (+ .manifest.json beside each)"
echo "Verdicts:    $RESULTS/judged/<benchmark>/<model>/<setting>.<judge>.jsonl (+ .manifest.json)"
find "$RESULTS/raw" "$RESULTS/judged" -name '*.jsonl' | sort
