"""OMIBench's tables (one module per table, named by its ids: see analysis/__init__.py) and what they share:
runs (what the tables read), metrics (ACC by the published and by the careful rule, GPTScore), subjects
(accuracy per subject and its micro-averaged Total), baseline (settings against Default CoT), scaling and
votes (test-time scaling: parallel, sequential and by parameters)."""
