"""Scoring and the batch evaluation harness."""
