"""The optional methods of our papers, as algorithms the pipelines call: path pooling,
GraphRAG-FI and the KG-Scout retriever."""
