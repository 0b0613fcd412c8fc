# The kgqa command line, for `docker compose run app ...` (see docker-compose.yml).
FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY agent agent
COPY kg_store kg_store
COPY loaders loaders
COPY prompts prompts
COPY kgqa kgqa
RUN pip install --no-cache-dir .
ENTRYPOINT ["kgqa"]
