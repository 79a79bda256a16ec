"""engram-kit."""
