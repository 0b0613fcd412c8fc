"""Every error kgqa raises on purpose, in one place. `KGQAError` is their root: catch it
to report what went wrong in a sentence; anything else is a bug and shows its traceback.
Each class lives in the layer that raises it (the root in `kg_store`, the lowest)."""

from __future__ import annotations

from agent.evaluation.harness import NotResults, ResultsFromAnotherRun, ResultsInUse
from agent.llm.base import LLMError, LLMTimeout, LLMUnavailable, ModelNotFound
from agent.llm.local import LocalModelMissing, StartAbandoned
from kg_store.errors import (
    ConfigError,
    InputError,
    InvalidId,
    KGQAError,
    StoreAuthError,
    StoreError,
    StoreQueryError,
    StoreUnavailable,
    UnknownStoreURL,
)
from kgqa.results_pages import SpecError
from kgqa.traces import TraceError
from loaders.records import MalformedInput

__all__ = ["ConfigError", "InputError", "InvalidId", "KGQAError", "LLMError", "LLMTimeout", "LLMUnavailable",
           "LocalModelMissing", "MalformedInput", "ModelNotFound", "NotResults", "ResultsFromAnotherRun", "ResultsInUse", "SpecError",
           "StartAbandoned", "StoreAuthError", "StoreError", "StoreQueryError", "StoreUnavailable", "TraceError",
           "UnknownStoreURL"]
