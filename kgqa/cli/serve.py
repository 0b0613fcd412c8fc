"""`kgqa serve`: the agent over HTTP on this machine, with a chat page and trace view."""

from __future__ import annotations

import threading
from types import FrameType
from typing import TYPE_CHECKING, Annotated

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

if TYPE_CHECKING:
    import uvicorn

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
    allowed_host: Annotated[list[str] | None, typer.Option("--allowed-host", help=(
        "A Host header to answer (repeat for more); default: the names of --host (127.0.0.1, localhost, ::1 for a "
        "loopback --host; any for 0.0.0.0). Others get 400: a page elsewhere cannot reach the server by DNS "
        "rebinding."))] = None,
    max_body: Annotated[int, typer.Option("--max-body", min=1_000, help="Request bodies over this many bytes are "
                                          "refused (413) before they are read.")] = 1_000_000,
) -> None:
    """Serve ask, chat (server-sent events) and traces over HTTP, with a page at /."""
    import uvicorn

    from kgqa.web.app import LOOPBACK_HOSTS, create_app

    settings = with_pog_flags(settings_from(store, llm), strategy, width, depth, path_memory, preset)
    # The model server starts here, in the main thread, before uvicorn: it is tied to the
    # thread that starts it (see agent/llm/local.py).
    with agent_session(settings, demo) as (graph, context):
        console.print(f"kgqa serving {context.pog.store.display_url} on http://{host}:{port}/ (API: /docs)")
        # On SIGTERM, requests still waiting for the one answering slot get a few seconds,
        # then the server stops anyway (turns run in daemon threads).
        stopping = threading.Event()
        hosts = allowed_host or (list(LOOPBACK_HOSTS) if host in LOOPBACK_HOSTS else
                                 ["*"] if host in ("0.0.0.0", "::") else [host])
        app_ = create_app(graph, context, allowed_hosts=hosts, max_body_bytes=max_body, stopping=stopping)
        config = uvicorn.Config(app_, host=host, port=port, log_level="warning", timeout_graceful_shutdown=GRACE_S)
        stopping_server(config, stopping).run()


def stopping_server(config: uvicorn.Config, stopping: threading.Event) -> uvicorn.Server:
    """uvicorn's server, telling the app when SIGTERM or Ctrl-C arrives, so that requests
    waiting for the answering slot get 503 at once rather than an error when the grace
    period ends."""
    import uvicorn

    class Server(uvicorn.Server):
        def handle_exit(self, sig: int, frame: FrameType | None) -> None:
            stopping.set()
            super().handle_exit(sig, frame)

    return Server(config)
