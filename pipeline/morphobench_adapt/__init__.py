"""MorphoBench's difficulty adaptation (§3.3, §4.1, Appendix A.3): R(Lite) and R(Complex) from R(v0) by
hints drawn from a proof graph of a reference trace, P(Perturbed) from P(v0) by obfuscating the textual
references to the visual cues the model names. Every model output is checked in code before it is
used — the spoiler and leakage checks by the rule judge's own matcher — and what fails is asked again a
bounded number of times, then dropped and counted. `python -m pipeline.morphobench_adapt --help`.
"""
