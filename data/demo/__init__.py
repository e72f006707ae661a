"""Procedural demo sets, one module per benchmark, each written in that benchmark's official format."""
