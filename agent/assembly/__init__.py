"""Assembling the agent from settings: the top layer of `agent/`. Every entry point (`kgqa
ask`, `chat`, `serve`, `eval`, LangGraph's own server) opens its store, model, embeddings
and memory here, so they cannot drift apart.

- `context`: stores opened with the settings' options, PoG's and the chat's contexts.
- `models`: the settings' model (an endpoint, or the embedded one started and stopped).
- `pipelines`: the pipelines `kgqa eval --pipeline` chooses, by name.
"""
