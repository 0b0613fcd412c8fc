"""`kgqa llm status`: which model runs, whether its parts are in place, whether it answers."""

from __future__ import annotations

from typing import Annotated

import typer

from kgqa.cli.common import JsonOpt, LLMOpt, app, out, print_json, settings_from

llm_app = typer.Typer(help="The language model: what is configured, and whether it answers.", no_args_is_help=True)
app.add_typer(llm_app, name="llm")


@llm_app.command("status")
def llm_status(
    probe: Annotated[bool, typer.Option("--probe", help="Start the model if needed and send one short request.")] = False,
    llm: LLMOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Say which model runs (endpoint or embedded), whether its parts are in place, and,
    with --probe, whether it answers."""
    from agent.assembly.models import open_llm
    from agent.llm.base import LLMError
    from agent.llm.local import MODELS, LocalLlamaServer, LocalModelMissing, part_files

    settings = settings_from(llm=llm)
    status: dict[str, object] = {}
    if settings.llm_base_url:
        status.update(mode="endpoint", base_url=settings.llm_base_url, model=settings.llm_model)
    else:
        model = MODELS[settings.llm]
        status.update(mode="embedded", model=model.key, runtime_installed=LocalLlamaServer.available())
        try:
            part_files(model)
            status["weights_installed"] = True
        except LocalModelMissing as exc:
            status.update(weights_installed=False, hint=str(exc))
        weights = settings.data_dir / "models" / model.filename
        status["weights_file"] = str(weights) if weights.exists() else None
    if probe:
        try:
            with open_llm(settings.model_copy(update={"llm_cache": False})) as client:
                reply = client.chat([{"role": "user", "content": "Reply with one word: ready"}], max_tokens=8)
            status.update(reachable=True, reply=reply.text.strip(), seconds=round(reply.seconds, 2))
        except LLMError as exc:
            status.update(reachable=False, error=str(exc))
    if as_json:
        print_json(status)
    else:
        for key, value in status.items():
            out.print(f"[bold]{key}[/]: {value}")
    if probe and not status.get("reachable"):
        raise typer.Exit(1)
