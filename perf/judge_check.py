"""Do two versions of the rule judge give the same verdicts? A check to run by hand, not a test.

    .venv/bin/python perf/judge_check.py --base 44986b0              # this tree against that commit
    .venv/bin/python perf/judge_check.py --base main --responses 100000

The answers compared:
- perf_data's procedural mix (`--responses`, default 50,000): every answer type, 5 responses per record;
- every call to `judge.rules.score`, `judge.match.match_one` and `judge.match.match_answer` made while the
  repository's judge tests run (the test modules that import the judge, e2e tests left out), recorded
  by a pytest plugin and replayed outside the tests (a monkeypatched call is replayed unpatched);
- tests/answer_shapes.py: (record, response) pairs of every answer type and (pred, gold) formula pairs.

The base commit's tree is exported with `git archive` into a temporary folder (no worktree is added);
each version replays every call in a subprocess of its own, and the outputs (verdict fields, or the
exception raised) must be identical. sympy can exceed math-verify's time limit on a few formulas in one
process and not in another (it depends on the hash seed and on what the process computed before), so a
call whose outputs differ is replayed alone in fresh processes with several hash seeds: when the base's
own output varies and this tree's is one of them, the call is reported apart, as not repeatable. Exits 1
on any other difference and prints the first ones.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

CAPTURE_PLUGIN = '''
import json, os
import judge.match as match, judge.rules as rules

OUT = open(os.environ["JUDGE_CHECK_CAPTURE"], "a", encoding="utf-8")

def recording(module, name):
    fn = getattr(module, name)
    def wrapper(*args, **kwargs):
        try:
            OUT.write(json.dumps({"fn": name, "args": list(args), "kwargs": kwargs}) + "\\n")
        except (TypeError, ValueError):
            pass  # an argument that is not JSON (a test's stand-in object): not replayable
        return fn(*args, **kwargs)
    setattr(module, name, wrapper)

for module, name in ((rules, "score"), (match, "match_one"), (match, "match_answer")):
    recording(module, name)
'''

REPLAY = '''
import json, sys
sys.path.insert(0, sys.argv[1])
from judge import match, rules
FUNCTIONS = {"score": rules.score, "match_one": match.match_one, "match_answer": match.match_answer}
with open(sys.argv[2], encoding="utf-8") as src, open(sys.argv[3], "w", encoding="utf-8") as out:
    for line in src:
        call = json.loads(line)
        try:
            result = {"out": FUNCTIONS[call["fn"]](*call["args"], **call["kwargs"])}
        except Exception as e:
            result = {"raised": f"{type(e).__name__}: {e}"}
        out.write(json.dumps(result, sort_keys=True) + "\\n")
'''


def judge_test_modules() -> list[str]:
    """The test modules that import the judge."""
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").glob("test_*.py")
                  if "from judge" in p.read_text() or "import judge" in p.read_text())


def capture_test_calls(work: Path) -> Path:
    plugin_dir = work / "plugin"
    plugin_dir.mkdir()
    (plugin_dir / "judge_check_capture.py").write_text(CAPTURE_PLUGIN)
    out = work / "tests.calls.jsonl"
    env = {**os.environ, "JUDGE_CHECK_CAPTURE": str(out),
           "PYTHONPATH": f"{plugin_dir}:{ROOT}"}
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "judge_check_capture",
           "-m", "not e2e", *judge_test_modules()]
    done = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if done.returncode != 0:
        print(done.stdout[-3000:], done.stderr[-3000:], sep="\n")
        raise SystemExit("the judge tests fail on this tree: fix them first")
    return out


def generated_calls(responses: int) -> list[dict]:
    from perf.perf_data import judging_set
    from tests.answer_shapes import formula_pairs, scored_cases

    calls = [{"fn": "score", "args": [rec, response], "kwargs": {}, "source": "perf_data"}
             for rec, response in judging_set(responses)]
    calls += [{"fn": "score", "args": [rec, response], "kwargs": {}, "source": "answer_shapes"}
              for rec, response in scored_cases(5000, seed=11)]
    calls += [{"fn": "match_one", "args": [pred, gold], "kwargs": {}, "source": "answer_shapes"}
              for pred, gold in formula_pairs(5000, seed=11)]
    return calls


def replay(tree: Path, calls: Path, out: Path, hash_seed: str = "0") -> float:
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", REPLAY, str(tree), str(calls), str(out)], cwd=tree, check=True,
                   env={**os.environ, "PYTHONHASHSEED": hash_seed})
    return time.perf_counter() - start


def fresh_outputs(tree: Path, call: dict, work: Path, seeds: range = range(5)) -> set[str]:
    """The outputs of one call replayed alone in fresh processes, one per hash seed."""
    src, out = work / "one.jsonl", work / "one.out.jsonl"
    src.write_text(json.dumps(call) + "\n", encoding="utf-8")
    outputs = set()
    for seed in seeds:
        replay(tree, src, out, str(seed))
        outputs.add(out.read_text(encoding="utf-8").strip())
    return outputs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="the commit (or branch) whose judge is the reference")
    ap.add_argument("--responses", type=int, default=50_000, help="responses of perf_data's mix")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="judge-check-") as tmp:
        work = Path(tmp)
        base = work / "base"
        base.mkdir()
        archive = subprocess.run(["git", "archive", args.base], cwd=ROOT, check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(base)], input=archive, check=True)

        print(f"recording the judge tests' calls ({len(judge_test_modules())} modules) ...", flush=True)
        calls = [{**json.loads(line), "source": "judge tests"}
                 for line in capture_test_calls(work).read_text(encoding="utf-8").splitlines()]
        calls += generated_calls(args.responses)
        corpus = work / "calls.jsonl"
        corpus.write_text("".join(json.dumps(c) + "\n" for c in calls), encoding="utf-8")

        outputs = {}
        for name, tree in (("base", base), ("this tree", ROOT)):
            out = work / f"{name}.out.jsonl"
            print(f"replaying {len(calls):,} calls with {name} ...", flush=True)
            print(f"    {replay(tree, corpus, out):.0f} s", flush=True)
            outputs[name] = out.read_text(encoding="utf-8").splitlines()

        by_source: dict[str, list[int]] = {}
        different, unrepeatable = [], []
        for call, old, new in zip(calls, outputs["base"], outputs["this tree"]):
            counts = by_source.setdefault(call["source"], [0, 0, 0])
            counts[0] += 1
            if old == new:
                continue
            seen_base = fresh_outputs(base, call, work) | {old}
            if len(seen_base) > 1 and fresh_outputs(ROOT, call, work) | {new} <= seen_base:
                counts[2] += 1
                unrepeatable.append((call, seen_base))
            else:
                counts[1] += 1
                different.append((call, old, new))
    for source, (n, bad, varies) in by_source.items():
        print(f"{source}: {n:,} calls, {bad} different, {varies} not repeatable in the base either")
    for call, seen in unrepeatable[:5]:
        print(f"\nnot repeatable: {call['fn']}{tuple(call['args'])}\n  the base gives any of: {sorted(seen)}")
    for call, old, new in different[:20]:
        print(f"\n{call['fn']}{tuple(call['args'])}\n  base:      {old}\n  this tree: {new}")
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
