"""Conversations over the PoG agent: follow-up questions resolved against earlier turns,
threads kept by a LangGraph checkpointer (see `graph.py` for the flow)."""
