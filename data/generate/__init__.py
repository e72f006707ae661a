"""MORPHO-G: MorphoBench's automatically generated questions (§3.3, Appendix A.3), generated here with
every output checked, in MorphoBench's official format (``python -m data.generate --help``).

circuits      circuit black-box items (Fig. 7): `netlist` draws circuits, `mutate` near misses,
              `spice` simulates them with ngspice, `circuit_items` picks options whose waveforms
              differ from the truth's, `waveform` draws the question image, `circuits` writes a run
spot_diff     "spot the different one" grids (Fig. 8): `glyphs` ranks character pairs by similarity,
              `spot_diff` draws, checks and writes the grids
common        seeded randomness, the quoted question templates, reproducible parquet and PNG output
"""
