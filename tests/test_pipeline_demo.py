"""The demo's model work runs in one process: every step shares one start of the model's servers."""
from pathlib import Path

from infer import server
from infer.layout import caption_stand_in, raw_path
from pipeline import demo
from tests.test_server_kept import config, listening


def test_every_step_runs_in_order_with_the_servers_started_once(tmp_path, monkeypatch, capsys):
    calls, urls = [], []

    def step(command):
        def main(args):
            calls.append((command, args))
            with server.serve(config(), tmp_path) as started:  # as each step's runs ask for the model
                urls.append(started[0])
            return 0
        return main

    monkeypatch.setattr(demo, "MAINS", {name: step(name) for name in demo.MAINS})
    assert demo.main(["--results", str(tmp_path / "results")]) == 0
    assert [c for c, _ in calls] == ["pipeline.experiments", "pipeline.morphobench_adapt", "pipeline.morphobench_adapt", "data.convert",
                                     "pipeline.experiments"]
    assert len(urls) == 5 and len(set(urls)) == 1, "one start of the servers for every step"
    assert not listening(urls[0]), "stopped at the end"
    reasoning = calls[1][1]
    assert reasoning[0] == "reasoning"
    # the answers of the text-only model's stand-in for with_hints (morphobench.T1-T2)
    raw = raw_path(tmp_path / "results", "morphobench", "smollm2-135m", caption_stand_in("with_hints"))
    assert f"responses:{raw}" in reasoning
    assert calls[4][1][:4] == ["--profile", "demo", "--only", "morphobench.T2-adapted"]
    assert "Adapted splits:" in capsys.readouterr().out


def test_a_failing_step_stops_the_run_with_its_status(tmp_path, monkeypatch, capsys):
    ran = []

    def fails(args):
        ran.append("adapt")
        return 1

    monkeypatch.setattr(demo, "MAINS", {"pipeline.experiments": lambda args: ran.append("experiments") or 0,
                                        "pipeline.morphobench_adapt": fails, "data.convert": lambda args: ran.append("convert") or 0})
    assert demo.main(["--results", str(tmp_path)]) == 1
    assert ran == ["experiments", "adapt"]
    assert "error: python -m pipeline.morphobench_adapt reasoning" in capsys.readouterr().err


def test_the_steps_are_the_commands_mains():
    from data import convert
    from pipeline import experiments
    from pipeline.morphobench_adapt import __main__ as adapt

    assert demo.MAINS == {"pipeline.experiments": experiments.main, "pipeline.morphobench_adapt": adapt.main,
                          "data.convert": convert.main}
    assert (Path(demo.ROOT) / demo.MODEL).is_file()
