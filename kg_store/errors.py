"""Typed errors: callers (the CLI, the agent) catch these, never driver exceptions."""


class StoreError(Exception):
    """Base class of every error a graph store raises."""


class StoreUnavailable(StoreError):
    """The store cannot be reached (server down, wrong host or port, missing path)."""


class StoreAuthError(StoreError):
    """The store refused our credentials."""


class UnknownStoreURL(StoreError):
    """A store URL whose scheme no backend handles."""


class InvalidId(StoreError, ValueError):
    """An id or name that cannot be used as a key (empty, control characters, too long)."""


class StoreQueryError(StoreError):
    """The store rejected or failed a query."""
