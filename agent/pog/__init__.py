"""Paths-over-Graph (PoG) as a LangGraph state machine. `graph.py` wires the nodes and is
the place to read the whole flow; `agent.build_graph` and `agent.PoGContext` are the
entry points. (Nothing is imported here: `agent.settings` imports `agent.pog.config`,
and a command line start should not load langgraph and the nodes.)"""
