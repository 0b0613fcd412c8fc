"""`kgqa store ...`: look inside a store (counts, neighbours, entity search), settle it."""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich.table import Table

from kg_store.model import Neighborhood, is_value_node, shown_id
from kgqa.cli.common import JsonOpt, StoreOpt, app, choices, opened, out, print_json, settings_from

Direction = choices("Direction", ("out", "in", "both"))

store_app = typer.Typer(help="Inspect a graph store.", no_args_is_help=True)
app.add_typer(store_app, name="store")


@store_app.command("stats")
def store_stats(store: StoreOpt = None, as_json: JsonOpt = False) -> None:
    """Count facts, entities and relations."""
    with opened(settings_from(store), read_only=True) as target:
        stats = target.stats()
    data = {"triples": stats.triples, "entities": stats.entities, "relations": stats.relations}
    if as_json:
        print_json(data)
    else:
        out.print(f"{target.display_url}: {stats.triples:,} triples, {stats.entities:,} entities, {stats.relations:,} relations")


@store_app.command("settle")
def store_settle(store: StoreOpt = None, as_json: JsonOpt = False) -> None:
    """Finish a store as the end of `kgqa load` does: compact it and build the embedded
    store's name and adjacency indexes where they are missing (a store written by an
    earlier kgqa, or by another tool once its side files are deleted); on a SPARQL store,
    count the big entities' facts and note which relations reach an entity twice (after a
    bulk load; needs the update credentials)."""
    with opened(settings_from(store)) as target:
        started = time.perf_counter()
        with out.status(f"settling {target.display_url} (minutes at tens of millions of facts)"):
            target.after_load()
        seconds = round(time.perf_counter() - started, 1)
    if as_json:
        print_json({"store": target.display_url, "seconds": seconds})
    else:
        out.print(f"{target.display_url}: settled in {seconds} s")


@store_app.command("neighbors")
def store_neighbors(
    entity: Annotated[list[str], typer.Argument(help="Entity id(s), e.g. m.0abc or 'Tom Hanks'.")],
    store: StoreOpt = None,
    direction: Annotated[Direction, typer.Option(help="Which edges: from the entity, to it, or both.")] = Direction.both,
    relation: Annotated[list[str] | None, typer.Option("--relation", "-r", help="Only these relations.")] = None,
    limit: Annotated[int | None, typer.Option(min=1, help="At most this many edges per entity and direction.")] = None,
    values: Annotated[bool, typer.Option("--values", help="Literal attributes too, as the agent walks them.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Neighbours of entities (one batched query)."""
    with opened(settings_from(store), read_only=True) as target:
        hood = target.neighbors(entity, direction=direction.value, relations=relation, limit_per_entity=limit,  # type: ignore[arg-type]
                                values=values)
        names = target.names(entity)
    if as_json:
        print_json(neighborhood_json(hood, names))
    else:
        print_neighborhood(hood, names)


def neighborhood_json(hood: Neighborhood, names: dict[str, str | None]) -> list[dict]:
    return [
        {
            "id": source,
            "name": names.get(source),
            "truncated": source in hood.truncated,
            "neighbors": [
                {"relation": e.relation, "id": e.neighbor, "name": e.neighbor_label, "direction": e.direction,
                 "literal": is_value_node(e.neighbor)}
                for e in edges
            ],
        }
        for source, edges in hood.edges.items()
    ]


def print_neighborhood(hood: Neighborhood, names: dict[str, str | None]) -> None:
    for source, edges in hood.edges.items():
        title = f"{names.get(source) or source} ({source}): {len(edges)} edges" + (" (capped)" if source in hood.truncated else "")
        table = Table(title=title, title_justify="left")
        for col in ("direction", "relation", "neighbour", "id"):
            table.add_column(col)
        for e in edges:
            table.add_row("->" if e.direction == "out" else "<-", e.relation, e.neighbor_label, shown_id(e.neighbor))
        out.print(table)


@store_app.command("search")
def store_search(
    text: Annotated[str, typer.Argument(help="A name to link, e.g. 'tom hanks'.")],
    store: StoreOpt = None,
    limit: Annotated[int, typer.Option(min=1, help="Candidates to return.")] = 10,
    as_json: JsonOpt = False,
) -> None:
    """Entity-linking candidates for a name: exact, normalised, prefix, substring."""
    with opened(settings_from(store), read_only=True) as target:
        matches = target.search_entities(text, limit=limit)
    rows = [{"id": m.id, "name": m.name, "score": m.score, "match": m.match} for m in matches]
    if as_json:
        print_json(rows)
        return
    table = Table("id", "name", "match", "score")
    for r in rows:
        table.add_row(r["id"], r["name"], r["match"], f"{r['score']:.2f}")
    out.print(table)
