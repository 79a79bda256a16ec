"""answering stage."""
