"""The graphs `langgraph.json` names, for LangGraph's own server (`langgraph dev`,
`langgraph up`) and LangGraph Studio.

That server passes no Python objects. A run's context reaches the graph as JSON (the
run's `context`, else its config's `configurable`, else `{}`), cut down to the keys of
the graph's context schema and handed to that schema's constructor. So these graphs
declare `ServerContext` as their context: a few optional strings laid over the settings
(KGQA_* variables, .env). On first use it opens the store, the model and the embeddings
those settings name (`agent.assembly.context`, as every other entry point does), keeps them open
until the process exits, and answers the nodes as the PoG / chat context would. The
input and output schemas are typed, so Studio draws a form and the assistants describe
what a run takes and gives. The server keeps threads with its own checkpointer."""

# langgraph.json names these graphs by module (kgqa.studio:pog), not by file: the server
# runs a file once per graph named in it, which would open everything twice.
# No `from __future__ import annotations`: a file run outside sys.modules (as by path)
# cannot resolve a dataclass's string annotations.
import atexit
import threading
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, NotRequired, get_type_hints

from typing_extensions import TypedDict

from agent.assembly.agent import open_agent
from agent.chat.context import ChatContext
from agent.chat.graph import build_chat_graph
from agent.chat.state import ChatTurn
from agent.pog.graph import build_graph
from agent.pog.state import Entity, PathCandidate, Source
from agent.settings import Settings

# Pydantic writes the server's JSON schemas, and before Python 3.12 it reads only
# typing_extensions' TypedDict: hence these schemas, not the states' own classes.


class PoGInput(TypedDict):
    question: str
    # The topic entities ({id, name}) when known; otherwise the question is linked to the graph.
    given_topics: NotRequired[list[Entity]]


class PoGOutput(TypedDict, total=False):
    answers: list[str]
    answer_entities: list[str]
    source: Source | None  # kg, kg+llm (a guess a path confirmed), llm (no path behind it)
    sufficient: bool
    topics: list[Entity]
    answer_path: PathCandidate | None
    evidence: str  # the kept paths as the answer prompt showed them


class ChatInput(TypedDict):
    message: str  # follow-ups may say he / it / them: the thread's earlier turns resolve them


# A chat turn as the chat's state types it (agent.chat.state.ChatTurn), remade for pydantic.
Turn = TypedDict("Turn", get_type_hints(ChatTurn))  # type: ignore[misc]


class ChatOutput(TypedDict):
    turns: list[Turn]  # every answered turn of the thread, the latest last


@dataclass
class ServerContext:
    """What a run may set (Studio's context form, the SDK's `context=`); unset: the settings'."""

    store_url: str | None = None  # oxigraph:PATH, sparql+http://..., bolt://..., memory:
    llm_base_url: str | None = None  # an OpenAI-compatible endpoint
    llm_model: str | None = None

    def settings(self) -> Settings:
        given = {"store": self.store_url, "llm_base_url": self.llm_base_url, "llm_model": self.llm_model}
        return Settings(**{name: value for name, value in given.items() if value is not None})

    def opened(self) -> ChatContext:
        """The chat context (PoG's within it) for these settings: opened once per process
        and settings, looked up once per run."""
        if "_opened" not in self.__dict__:
            self.__dict__["_opened"] = open_once(self.settings())
        return self.__dict__["_opened"]


_opened: dict[str, ChatContext] = {}
_opening = threading.Lock()
_resources = ExitStack()
atexit.register(_resources.close)


def open_once(settings: Settings) -> ChatContext:
    key = settings.model_dump_json()
    with _opening:
        if key not in _opened:
            qa = _resources.enter_context(open_agent(settings))
            _opened[key] = ChatContext(qa.context, trace_dir=settings.trace_dir)
        return _opened[key]


@dataclass
class PoGServerContext(ServerContext):
    """Stands in for a PoGContext: the nodes' `runtime.context.store`, `.llm`, ... are its."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):  # copy, pickle and the like probe these: never open anything for them
            raise AttributeError(name)
        return getattr(self.opened().pog, name)


@dataclass
class ChatServerContext(ServerContext):
    """Stands in for a ChatContext (`.pog`, `.pog_graph`, `.trace_dir`)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.opened(), name)


# In-process runs that pass no context (`pog.invoke({...})`) get the settings' own.
chat = build_chat_graph(default_context=ChatServerContext, context_schema=ChatServerContext,
                        input_schema=ChatInput, output_schema=ChatOutput)
pog = build_graph(Settings(), default_context=PoGServerContext, context_schema=PoGServerContext,
                  input_schema=PoGInput, output_schema=PoGOutput)
