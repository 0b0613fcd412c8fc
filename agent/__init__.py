"""The agents over the store protocol: the Paths-over-Graph LangGraph state machine
(`agent.pog`), the pipelines `kgqa eval` runs, and their model clients.

    from agent import open_agent
    with open_agent(settings) as qa:                    # store, model, embeddings, memory
        answered = qa.ask("who directed [Big]?")        # answers, source, why, evidence paths, cost

Exports load on first use (langgraph and torch are not needed to import the package).

Layers, bottom to top; a module imports only from its own unit and the layers below
(`tests/test_layers.py` fails on an upward import):

1. `answer_text` (names matched and answers read from replies, the result a pipeline
   returns), `events` (node events), `process` and `exec_with_death_signal` (child
   processes), `minilm` (the embedding model's weights);
2. `llm` (model clients), `embeddings`;
3. `linking`: names in questions to graph entities;
4. `optional_nodes`: the optional nodes' machinery (GraphRAG-FI, path pooling, KG-Scout);
5. `pog`, `triples`: the two agents, each a LangGraph state machine;
6. `pipelines`: agents and baselines behind one interface, as `kgqa eval` runs them;
7. `traces`: a question run's trace document;
8. `asking`: one question answered for a person, with its evidence and trace;
9. `chat`: conversations with follow-up questions;
10. `settings`: the one settings object;
11. `assembly`: stores, models, contexts and pipelines built from the settings;
12. `evaluation`: batch runs, metrics, reports.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {"open_agent": "agent.assembly.agent", "build_graph": "agent.pog.graph", "run_question": "agent.pog.graph",
            "PoGContext": "agent.pog.context", "PoGConfig": "agent.pog.config"}
__all__ = list(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'agent' has no attribute {name!r}")
