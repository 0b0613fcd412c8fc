"""Assembling the agent from settings: the top layer of `agent/`. Every entry point (`kgqa
ask`, `chat`, `serve`, `eval`, LangGraph's own server) opens its store, model, embeddings
and memory here, so they cannot drift apart.

- `agent`: `open_agent`, all of them opened and closed together.
- `context`: stores opened with the settings' options, PoG's context, the model started
  in the background, the warm-up.
- `models`: the settings' model (an endpoint, or the embedded one started and stopped).
- `pipelines`: the pipelines `kgqa eval --pipeline` chooses, by name, over an opened agent.
"""
