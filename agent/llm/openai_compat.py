"""Any OpenAI-compatible chat endpoint (OpenAI, vLLM, Ollama, llama.cpp's server) through
the `openai` package, whose own retries (with backoff) cover rate limits, timeouts and
5xx; what is left when they give up becomes one of our typed errors."""

from __future__ import annotations

import importlib
import json
import sys
import time
from functools import cache
from typing import Any, Literal

import openai
from openai.types.chat import ChatCompletion
from pydantic import BaseModel

from agent.llm.base import LLMClient, LLMError, LLMReply, LLMTimeout, LLMUnavailable, Message, ModelNotFound

# How to ask for JSON: OpenAI's json_schema; llama.cpp's json_object with a schema (its
# server rejects json_schema with HTTP 500); a GBNF grammar made from the schema (llama.cpp
# servers: decoding cannot leave the grammar); or plain text read by the tolerant parser.
StructuredMode = Literal["json_schema", "json_object", "gbnf", "text"]


@cache
def gbnf_grammar(schema_json: str) -> str:
    """llama.cpp's own JSON-schema-to-GBNF converter (shipped with llama-cpp-python)."""
    try:
        from llama_cpp.llama_grammar import json_schema_to_gbnf
    except ImportError as exc:
        raise LLMError("structured mode 'gbnf' converts schemas with llama-cpp-python: "
                       "pip install -e '.[local-llm]', or use json_object") from exc
    return json_schema_to_gbnf(schema_json)


def _await_httpx_import() -> None:
    """Wait for another thread's import of `httpx` to finish. The openai client checks
    `sys.modules["httpx"]` for the legacy package's URL type when it is built; built on the
    model's start-up thread while the main thread is importing httpx (langsmith does), it
    read the half-made module and failed ("partially initialized module 'httpx' has no
    attribute 'URL'": `kgqa eval` failed to start twice in a row in a fresh checkout).
    Importing a module that another thread is initialising blocks until that thread is done."""
    if "httpx" in sys.modules:
        importlib.import_module("httpx")


class OpenAICompatibleClient(LLMClient):
    def __init__(
        self,
        base_url: str,
        model: str,
        *,
        api_key: str = "not-needed",
        timeout: float = 120.0,
        max_retries: int = 3,
        structured: StructuredMode = "json_schema",
        logprobs: bool = True,
    ) -> None:
        super().__init__()
        self.base_url, self.model, self.structured = base_url, model, structured
        # False: the endpoint was started without token logprobs (the embedded server, unless
        # GraphRAG-FI's integration is on); a request for them fails here, not after retries.
        self.logprobs = logprobs
        _await_httpx_import()
        self._client = openai.OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=max_retries)

    @property
    def model_name(self) -> str:
        return self.model

    def _request(
        self, messages: list[Message], temperature: float, max_tokens: int, schema: type[BaseModel] | None, logprobs: bool
    ) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self.model, "messages": messages, "temperature": temperature, "max_tokens": max_tokens,
        }
        if logprobs:
            # llama.cpp's server returns logprobs only when top_logprobs is asked for too.
            request["logprobs"], request["top_logprobs"] = True, 1
        if schema is not None and self.structured == "json_schema":
            request["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": schema.__name__, "schema": schema.model_json_schema()},
            }
        elif schema is not None and self.structured == "json_object":
            request["response_format"] = {"type": "json_object", "schema": schema.model_json_schema()}
        elif schema is not None and self.structured == "gbnf":
            # Not an OpenAI field: the openai package sends extra_body keys as they are.
            request["extra_body"] = {"grammar": gbnf_grammar(json.dumps(schema.model_json_schema(), sort_keys=True))}
        return request

    def _chat(
        self,
        messages: list[Message],
        *,
        temperature: float,
        max_tokens: int,
        schema: type[BaseModel] | None,
        logprobs: bool,
    ) -> LLMReply:
        if logprobs and not self.logprobs:
            raise LLMUnavailable(f"{self.base_url} was started without token logprobs; the embedded model starts with "
                           "them when GraphRAG-FI's integration is on in the settings (pog.graphrag_fi.integrate or "
                           "triples.graphrag_fi.integrate)")
        request = self._request(messages, temperature, max_tokens, schema, logprobs)
        started = time.perf_counter()
        try:
            response = self._client.chat.completions.create(**request)
        except openai.NotFoundError as exc:
            raise ModelNotFound(f"{self.base_url} does not serve model {self.model!r} ({exc.message})") from exc
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise LLMUnavailable(f"{self.base_url} refused the API key (HTTP {exc.status_code}: {exc.message}); "
                                 "set KGQA_LLM_API_KEY") from exc
        except openai.APITimeoutError as exc:  # before its base class, APIConnectionError
            raise LLMTimeout(f"{self.base_url} gave no reply within {self._client.timeout}s "
                             f"(after {self._client.max_retries} retries)") from exc
        except openai.APIConnectionError as exc:
            raise LLMUnavailable(f"cannot reach the LLM endpoint {self.base_url}: {exc}") from exc
        except openai.RateLimitError as exc:
            raise LLMUnavailable(f"{self.base_url} kept rate-limiting after retries: {exc.message}") from exc
        except openai.InternalServerError as exc:  # 5xx, already retried with backoff
            raise LLMUnavailable(f"{self.base_url} answered HTTP {exc.status_code} "
                                 f"(after {self._client.max_retries} retries): {exc.message}") from exc
        except openai.APIStatusError as exc:  # 4xx for this request (its prompt too long, say)
            raise LLMError(f"{self.base_url} answered HTTP {exc.status_code}: {exc.message}") from exc
        except ValueError as exc:  # a body that says it is JSON and is not
            raise LLMUnavailable(f"{self.base_url} answered with a body that is not JSON ({exc}): "
                                 "is it an OpenAI-compatible endpoint?") from exc
        seconds = time.perf_counter() - started
        if not isinstance(response, ChatCompletion) or not response.choices:
            # openai hands back a non-JSON body (a proxy's HTML page) as a plain string
            shown = response if isinstance(response, str) else json.dumps(response.model_dump(), default=str)
            raise LLMUnavailable(f"{self.base_url} answered with something that is not a chat completion: "
                                 f"{shown[:120]!r}; is it an OpenAI-compatible endpoint (…/v1)?")
        choice = response.choices[0]
        token_logprobs = None
        if logprobs and choice.logprobs is not None and choice.logprobs.content:
            token_logprobs = [(t.token, t.logprob) for t in choice.logprobs.content]
        usage = response.usage
        return LLMReply(
            text=choice.message.content or "",
            prompt_tokens=usage.prompt_tokens if usage else 0,
            completion_tokens=usage.completion_tokens if usage else 0,
            seconds=seconds,
            logprobs=token_logprobs,
            raw={"request": request, "finish_reason": choice.finish_reason},
        )
