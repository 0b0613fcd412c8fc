"""The LangGraph agents (Paths-over-Graph and the triple pipeline) and their model clients.

Built in later issues; the store protocol in `kg_store` is what they stand on.
"""
