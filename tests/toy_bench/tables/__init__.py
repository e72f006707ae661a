"""ToyBench's tables."""
