"""Model clients: one interface for any OpenAI-compatible endpoint, a scripted fake for
tests, structured output parsed defensively, accounting and a response cache."""

from agent.llm.base import (
    LLMClient,
    LLMError,
    LLMReply,
    LLMTimeout,
    LLMUnavailable,
    Message,
    ModelNotFound,
    Usage,
)
from agent.llm.fake import FakeLLM

__all__ = ["FakeLLM", "LLMClient", "LLMError", "LLMReply", "LLMTimeout", "LLMUnavailable", "Message", "ModelNotFound", "Usage"]
