"""`kgqa serve`: the agent over HTTP (FastAPI) with a small chat page and trace view."""
