"""Question-answering pipelines the evaluation harness can run, by name."""
