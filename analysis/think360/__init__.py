"""Think360°'s tables (one module per table, named by its ids: see analysis/__init__.py) and what they
share (common)."""
