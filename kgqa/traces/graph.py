"""The reasoning paths of a PoG trace as a graph to draw: the kept evidence paths solid,
paths explored and pruned away dashed; topic and answer entities marked."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from kgqa.traces import Trace, agent_part, events, kept_paths

Role = Literal["topic", "answer", "entity"]
MAX_NODES = 80  # past this the picture is noise: the page lists every path anyway


@dataclass
class GraphNode:
    id: str
    name: str
    role: Role
    column: int
    row: int = 0


@dataclass
class GraphEdge:
    source: str
    target: str
    relation: str
    forward: bool
    kept: bool


@dataclass
class ReasoningGraph:
    nodes: dict[str, GraphNode]
    edges: list[GraphEdge]

    @property
    def columns(self) -> int:
        return 1 + max((n.column for n in self.nodes.values()), default=-1)

    @property
    def rows(self) -> int:
        return 1 + max((n.row for n in self.nodes.values()), default=-1)


def reasoning_graph(trace: Trace) -> ReasoningGraph:
    agent = agent_part(trace)
    names: dict[str, str | None] = dict(agent.get("names") or {})
    topics = {t["id"] for t in agent.get("topics") or []}
    answers = {a.casefold() for a in trace.get("predictions") or []}
    kept_texts = set()
    sequences: list[tuple[list[str], list[list[Any]], bool]] = []
    for path in kept_paths(trace):
        kept_texts.add(path["text"])
        for sequence in path.get("evidence") or []:
            names.update({e["id"]: e.get("name") for e in sequence})
            sequences.append(([e["id"] for e in sequence], path["relations"], True))
    for item in _explored(trace):
        if item["text"] not in kept_texts and item.get("evidence") and item.get("steps"):
            sequences.append((item["evidence"], item["steps"], False))

    graph = ReasoningGraph({}, [])
    seen_edges: set[tuple[str, str, str]] = set()
    for ids, steps, kept in sequences:
        if len(graph.nodes) >= MAX_NODES and not kept:
            break
        for position, entity in enumerate(ids):
            node = graph.nodes.get(entity)
            if node is None:
                name = names.get(entity) or entity
                role: Role = "topic" if entity in topics else "answer" if name.casefold() in answers else "entity"
                graph.nodes[entity] = GraphNode(entity, name, role, position)
            else:
                node.column = min(node.column, position)
        for (relation, forward), head, tail in zip(steps, ids, ids[1:], strict=False):
            key = (head, tail, relation)
            if key in seen_edges:  # a kept edge drawn first stays solid
                continue
            seen_edges.add(key)
            graph.edges.append(GraphEdge(head, tail, relation, bool(forward), kept))
    rows: dict[int, int] = {}
    for node in graph.nodes.values():
        node.row = rows.get(node.column, 0)
        rows[node.column] = node.row + 1
    return graph


def _explored(trace: Trace) -> list[dict[str, Any]]:
    """Every ranked path the pruning events recorded (each phase's candidates)."""
    found: dict[str, dict[str, Any]] = {}
    for event in events(trace):
        update = event.get("update") or {}
        for item in update.get("candidates") or []:
            if isinstance(item, dict) and "text" in item:
                found.setdefault(item["text"], item)
    return list(found.values())
