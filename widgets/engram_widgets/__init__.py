"""Jupyter layer."""
