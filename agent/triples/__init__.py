"""The triple pipeline (`kgqa eval --pipeline triples`) as a LangGraph state machine:
the question subgraph's triples, scored (embedding cosine, or KG-Scout once trained),
optionally pooled along paths and filtered (GraphRAG-FI), read by the model, and
optionally integrated with the model's own answer. `graph.py` wires it."""
