"""Benchmarks of engram-kit (run as modules: ``python -m benchmarks.ppr``)."""
