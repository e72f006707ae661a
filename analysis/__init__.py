"""From judged results to the papers' tables and figures, beside the papers' own numbers.

Each paper has its folder, analysis/<benchmark>/ (think360, omibench, mira, c2rbench, morphobench), holding
one module per table and the helpers that paper's tables share; the machinery every table uses (inputs,
table, plot, stats, reference, report, browse, …) is here, at the top. A table module defines `IDS`, the
table ids it builds (`omibench.T2`), and `build(table_id, ctx)`; a module without `IDS` is not a table.

A table module is named by its ids, written without the benchmark:
- one id: the id, each `-` written `_` (omibench.T2 → T2.py, c2rbench.F3-5 → F3_5.py, omibench.sig → sig.py);
- several ids (tables that share their data and code): the ids in `IDS` order joined by `_`
  (think360.T4 and think360.S2 → T4_S2.py), a run of three or more ids of one letter numbered one after the
  other written as its first and last joined by `_to_` (mira.T4 … mira.T10 → T4_to_T10.py).
tests/test_architecture.py checks the rule, and that a paper's folder imports no other paper's.
"""
