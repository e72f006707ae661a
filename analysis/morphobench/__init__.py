"""MorphoBench's tables (one module per table, named by its ids: see analysis/__init__.py) and what they
share (common: the splits, verdicts, changes to the v0 baseline and the cells as the paper prints them)."""
