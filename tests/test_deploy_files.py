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
        assert service["healthcheck"]["test"], name
        assert any(v.split(":")[0] in compose["volumes"] for v in service["volumes"]), name
        assert all(p.startswith("127.0.0.1:") for p in service["ports"]), "servers must not listen on every interface"
    app = services["app"]
    assert app["build"] == "."
    assert {k: v["condition"] for k, v in app["depends_on"].items()} == {
        "neo4j": "service_healthy", "virtuoso": "service_healthy"}


def test_dockerfile_copies_every_package() -> None:
    dockerfile = (ROOT / "Dockerfile").read_text()
    for package in ("agent", "kg_store", "loaders", "prompts", "kgqa"):
        assert f"COPY {package} {package}" in dockerfile
