"""Prompt templates (one file per prompt) and the helpers that render them."""
