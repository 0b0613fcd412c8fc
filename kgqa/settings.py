"""One settings object for the whole system: defaults < environment (KGQA_*) < CLI flags."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from kg_store.base import DEFAULT_SCHEMA_PREFIXES


def default_data_dir() -> Path:
    return Path.home() / ".local" / "share" / "kgqa"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="KGQA_", env_file=".env", extra="ignore")

    data_dir: Path = Field(default_factory=default_data_dir, description="Where embedded stores and caches live.")
    store: str | None = Field(
        default=None,
        description="Store URL (oxigraph:PATH, sparql+http://..., bolt://..., memory:). "
        "Default: the embedded Oxigraph store in DATA_DIR/store.",
    )
    schema_prefixes: tuple[str, ...] = Field(
        default=DEFAULT_SCHEMA_PREFIXES, description="Relations dropped as schema, by prefix."
    )
    neo4j_user: str | None = Field(default=None, description="Neo4j user (or in the bolt:// URL).")
    neo4j_password: str | None = Field(default=None, description="Neo4j password (or in the bolt:// URL).")
    neo4j_database: str | None = Field(default=None, description="Neo4j database name; server default if unset.")

    @property
    def store_url(self) -> str:
        return self.store or f"oxigraph:{self.data_dir / 'store'}"

    @property
    def demo_store_url(self) -> str:
        """The demo's own embedded store: never KGQA_STORE, which may hold a real KG."""
        return f"oxigraph:{self.data_dir / 'demo-store'}"
