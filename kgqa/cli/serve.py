"""`kgqa serve`: the agent over HTTP on this machine, with a chat page and trace view."""

from __future__ import annotations

from typing import Annotated

import typer

from kgqa.cli.chat import agent_session
from kgqa.cli.common import (
    DepthOpt,
    LLMOpt,
    MemoryOpt,
    PresetOpt,
    StoreOpt,
    StrategyOpt,
    WidthOpt,
    app,
    console,
    settings_from,
    with_pog_flags,
)

GRACE_S = 5


@app.command()
def serve(
    port: Annotated[int, typer.Option("--port", help="Port on 127.0.0.1.")] = 8000,
    host: Annotated[str, typer.Option("--host", help="Interface; 0.0.0.0 exposes it to the network.")] = "127.0.0.1",
    store: StoreOpt = None,
    demo: Annotated[bool, typer.Option("--demo", help="Serve the bundled demo KG (loaded on first use).")] = False,
    preset: PresetOpt = None,
    strategy: StrategyOpt = None,
    width: WidthOpt = None,
    depth: DepthOpt = None,
    path_memory: MemoryOpt = None,
    llm: LLMOpt = None,
) -> None:
    """Serve ask, chat (server-sent events) and traces over HTTP, with a page at /."""
    import uvicorn

    from kgqa.web.app import create_app

    settings = with_pog_flags(settings_from(store, llm), strategy, width, depth, path_memory, preset)
    # The model server starts here, in the main thread, before uvicorn: it is tied to the
    # thread that starts it (see agent/llm/local.py).
    with agent_session(settings, demo) as (graph, context):
        console.print(f"kgqa serving {context.pog.store.display_url} on http://{host}:{port}/ (API: /docs)")
        # On SIGTERM, requests still waiting for the one answering slot get a few seconds,
        # then the server stops anyway (turns run in daemon threads).
        uvicorn.run(create_app(graph, context), host=host, port=port, log_level="warning",
                    timeout_graceful_shutdown=GRACE_S)
