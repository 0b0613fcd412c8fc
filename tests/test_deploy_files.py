"""docker-compose.yml cannot run here (no Docker engine): check its structure instead."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]


def test_compose_file_defines_servers_with_health_checks_and_volumes() -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
    services = compose["services"]
    assert services["neo4j"]["image"].startswith("neo4j:5")
    assert services["virtuoso"]["image"].startswith("openlink/virtuoso-opensource-7")
    for name in ("neo4j", "virtuoso"):
        service = services[name]
        assert any(v.split(":")[0] in compose["volumes"] for v in service["volumes"]), name
    for name in ("neo4j", "virtuoso", "llm", "vllm"):
        assert all(p.startswith("127.0.0.1:") for p in services[name]["ports"]), f"{name} must not listen on every interface"
    for name in ("neo4j", "virtuoso", "llm"):
        assert services[name]["healthcheck"]["test"], name
    assert services["vllm"]["profiles"] == ["vllm"]  # GPU only, on request
    app = services["app"]
    assert app["build"] == "."
    assert {k: v["condition"] for k, v in app["depends_on"].items()} == {
        "neo4j": "service_healthy", "virtuoso": "service_healthy", "llm": "service_healthy"}
    assert app["environment"]["KGQA_LLM_BASE_URL"].endswith("http://llm:8080/v1}")
    assert "kgqa-llm" in services["llm"]["command"] and app["environment"]["KGQA_LLM_MODEL"] == "kgqa-llm"


def test_dockerfile_copies_every_package() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    for package in ("agent", "kg_store", "loaders", "prompts", "kgqa"):
        assert f"COPY {package} {package}" in dockerfile


def test_langgraph_json_names_graphs_that_run_without_a_context(tmp_path, monkeypatch, endpoint) -> None:
    """LangGraph's server and Studio import these graphs and pass no context: they must open
    the store and the model from the settings themselves."""
    import importlib
    import json

    from langgraph.graph.state import CompiledStateGraph

    from kg_store import open_store
    from tests.pog_fixture import analysis, film_batch
    from tests.scripted_endpoint import completion

    with open_store(f"oxigraph:{tmp_path / 'store'}") as store:
        store.write(film_batch())
    state, url = endpoint
    for name, value in {"KGQA_DATA_DIR": str(tmp_path / "data"), "KGQA_STORE": f"oxigraph:{tmp_path / 'store'}",
                        "KGQA_LLM_BASE_URL": url, "KGQA_LLM_MODEL": "scripted", "KGQA_LLM_CACHE": "false"}.items():
        monkeypatch.setenv(name, value)
    config = json.loads((ROOT / "langgraph.json").read_text())
    graphs = {}
    for name, reference in config["graphs"].items():
        module, attribute = reference.split(":")  # a module, as the server imports it
        graphs[name] = getattr(importlib.import_module(module), attribute)
        assert isinstance(graphs[name], CompiledStateGraph)
    assert config["dependencies"] == ["."] and set(graphs) == {"kgqa_chat", "kgqa_pog"}
    state.script = [(200, completion(analysis(1, topics=("Big",)))), (200, completion("ans: Penny Marshall"))]
    result = graphs["kgqa_chat"].invoke({"message": "who directed Big"}, {"configurable": {"thread_id": "studio"}})
    assert result["turns"][-1]["answers"] == ["Penny Marshall"]
    assert (tmp_path / "data" / "traces" / "studio-1.json").is_file()
