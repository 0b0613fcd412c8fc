"""One settings object for the whole system: defaults < environment (KGQA_*) < CLI flags.
It lives in the library, which opens stores and models from it (`agent.assembly.context`); the
command line only puts its flags on top (`kgqa.cli.common.settings_from`)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal, get_args

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from agent.pog.config import PoGConfig
from agent.triples.config import TriplesConfig
from kg_store.base import DEFAULT_SCHEMA_PREFIXES
from loaders.rdf import DEFAULT_LABEL_LANGUAGE, DEFAULT_LABEL_PREDICATES

LocalModelName = Literal["qwen-0.5b", "qwen-1.5b"]
LOCAL_MODELS: tuple[str, ...] = get_args(LocalModelName)


def default_data_dir() -> Path:
    return Path.home() / ".local" / "share" / "kgqa"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="KGQA_", env_file=".env", extra="ignore", env_nested_delimiter="__")

    data_dir: Path = Field(default_factory=default_data_dir, description="Where embedded stores and caches live.")
    store: str | None = Field(
        default=None,
        description="Store URL (oxigraph:PATH, sparql+http://..., bolt://..., memory:). "
        "Default: the embedded Oxigraph store in DATA_DIR/store.",
    )
    schema_prefixes: tuple[str, ...] = Field(
        default=DEFAULT_SCHEMA_PREFIXES, description="Relations dropped as schema, by prefix."
    )
    label_predicates: tuple[str, ...] = Field(
        default=DEFAULT_LABEL_PREDICATES, description="RDF predicates whose literals name entities (kgqa load -f rdf): "
        "IRIs or prefixed names (rdfs:label, skos:prefLabel, ...).")
    label_language: str = Field(
        default=DEFAULT_LABEL_LANGUAGE, description="Preferred language of RDF names and literals (kgqa load -f rdf); "
        "'*' keeps every language.")
    neo4j_user: str | None = Field(default=None, description="Neo4j user (or in the bolt:// URL).")
    neo4j_password: str | None = Field(default=None, description="Neo4j password (or in the bolt:// URL).")
    neo4j_database: str | None = Field(default=None, description="Neo4j database name; server default if unset.")

    llm: LocalModelName = Field(default="qwen-0.5b", description="Embedded model, used when no endpoint is set.")
    llm_gpu_layers: int = Field(
        default=0, ge=-1, description="Layers of the embedded model to run on a GPU (-1: all); needs a CUDA "
        "build of llama-cpp-python (docs/models.md).")
    llm_servers: int = Field(
        default=1, ge=1, le=16, description="Copies of the embedded model to start, the cores shared among them: "
        "each answers one request at a time, so `kgqa eval --concurrency K` needs K of them to run K calls at "
        "once (docs/benchmarks.md says when that pays).")
    llm_base_url: str | None = Field(
        default=None, description="An OpenAI-compatible endpoint (OpenAI, vLLM, Ollama, llama.cpp); unset: embedded model."
    )
    llm_model: str | None = Field(default=None, description="Model name at the endpoint.")
    llm_api_key: str = Field(default="not-needed", description="API key for the endpoint.")
    llm_timeout: float = Field(default=120.0, description="Seconds per LLM request.")
    llm_max_retries: int = Field(
        default=3, ge=0, description="Retries (with backoff) of a request that timed out, was rate-limited or "
        "met a server error, before the endpoint counts as failing.")
    llm_structured: Literal["json_schema", "json_object", "gbnf", "text"] | None = Field(
        default=None, description="How to ask for JSON: json_schema (OpenAI, vLLM; the default for endpoints), "
        "json_object (llama.cpp; the embedded default), gbnf (a llama.cpp grammar), text (tolerant parsing only)."
    )
    pog: PoGConfig = Field(default_factory=PoGConfig, description="The PoG agent (KGQA_POG__STRATEGY=..., ...).")
    triples: TriplesConfig = Field(
        default_factory=TriplesConfig, description="The triple pipeline and its optional nodes (KGQA_TRIPLES__...).")
    embedding_device: Literal["cpu", "cuda"] = Field(
        default="cpu", description="Where sentence embeddings are computed (cuda: a GPU, for big training runs).")
    llm_cache: bool = Field(default=True, description="Keep a persistent cache of LLM replies (reruns are free).")
    llm_warm_up: bool = Field(
        default=True, description="While `chat` or `serve` waits for its first question, have the embedded model "
        "read the fixed start of the prompts a question sends, so that the first answer reads only the rest.")

    @property
    def cache_dir(self) -> Path:
        return self.data_dir / "cache"

    @property
    def trace_dir(self) -> Path:
        """Where chat and serve write one trace per question."""
        return self.data_dir / "traces"

    @property
    def chat_db(self) -> Path:
        """The chat threads (a LangGraph SQLite checkpointer)."""
        return self.data_dir / "chat.sqlite"

    @property
    def needs_logprobs(self) -> bool:
        """Whether a pipeline will ask the model for token logprobs (GraphRAG-FI's integration)."""
        return self.pog.graphrag_fi.integrate or self.triples.graphrag_fi.integrate

    @property
    def store_url(self) -> str:
        return self.store or f"oxigraph:{self.data_dir / 'store'}"

    @property
    def demo_store_url(self) -> str:
        """The demo's own embedded store: never KGQA_STORE, which may hold a real KG."""
        return f"oxigraph:{self.data_dir / 'demo-store'}"
