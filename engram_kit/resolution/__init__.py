"""resolution stage."""
