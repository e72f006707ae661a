"""C²RBench's tables (one module per table, named by its ids: see analysis/__init__.py) and what they share
(common: the tasks, subsets and verdicts)."""
