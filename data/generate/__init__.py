"""MORPHO-G: MorphoBench's automatically generated questions (§3.3, Appendix A.3), generated here with
every output checked, in MorphoBench's official format (``python -m data.generate --help``).

circuits      circuit black-box items (Fig. 7): `netlist` draws circuits, `mutate` near misses,
              `spice` simulates them with ngspice, `circuit_items` makes and checks an item whose
              distractors follow a design (`same_count`, the default: every option joins the
              question's terminals; `fig7`: the figure's different terminal counts), both keeping
              options whose waveforms differ from the truth's (`distractors`), `waveform` draws the
              question image, `circuits` writes a run; `heuristics` answers items from the options'
              text alone and `measure_heuristics` measures it per design and level
spot_diff     "spot the different one" grids (Fig. 8): `glyphs` ranks character pairs by similarity,
              `spot_diff` draws, checks and writes the grids
common        seeded randomness, the quoted question templates, reproducible parquet and PNG output
"""
