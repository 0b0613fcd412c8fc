"""Typed errors: callers (the CLI, the agent) catch these, never driver exceptions.

`KGQAError` is the root of every error kgqa raises on purpose, with one child per kind:
`ConfigError` (settings that cannot work together), `StoreError` (below), `InputError`
(a file or id a user gave), and `agent.llm.base.LLMError` (the model). It lives here, in
the lowest layer, so that every layer can raise its own kind; an entry point catches the
root once and reports it, and anything else is a bug that shows its traceback."""


class KGQAError(Exception):
    """The root of every error kgqa raises on purpose."""


class ConfigError(KGQAError, ValueError):
    """Settings or options that cannot work together (a pipeline that does not exist, the
    attention filter with a model whose weights cannot be read)."""


class InputError(KGQAError, ValueError):
    """Input a user gave that cannot be used: a malformed file, a wrong format name."""


class StoreError(KGQAError):
    """Base class of every error a graph store raises."""


class StoreUnavailable(StoreError):
    """The store cannot be reached (server down, wrong host or port, missing path)."""


class StoreAuthError(StoreError):
    """The store refused our credentials."""


class UnknownStoreURL(StoreError):
    """A store URL whose scheme no backend handles."""


class InvalidId(StoreError, InputError):
    """An id or name that cannot be used as a key (empty, control characters, too long)."""


class StoreQueryError(StoreError):
    """The store rejected or failed a query."""
