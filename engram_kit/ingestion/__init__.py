"""ingestion stage."""
