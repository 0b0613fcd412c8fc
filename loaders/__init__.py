"""Readers for KG files and question sets, and the streaming loader into any store."""
