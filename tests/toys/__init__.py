"""Toy extensions used by tests/test_seams.py: each shows that adding one touches only its own new module plus one
registration line (a graph format, an embedder, an agent)."""
