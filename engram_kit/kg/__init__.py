"""Knowledge graph loading: Hetionet v1.0 schema, readers and download."""
