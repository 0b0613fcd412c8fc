"""`kgqa trace show`: a trace as a tree in the terminal."""

from __future__ import annotations

from typing import Any

from rich.markup import escape
from rich.tree import Tree

from kg_store.model import shown_id
from kgqa.traces import Trace, agent_part, cost, events, kept_paths, source

PATHS_PER_STEP = 5
PROMPT_PREVIEW = 100


def trace_tree(trace: Trace, *, prompts: bool = False) -> Tree:
    question = trace["question"]
    root = Tree(f"[bold]{escape(question['text'])}[/]  [dim]{escape(str(question.get('id')))}[/]")
    spent = cost(trace)
    root.add(f"{trace.get('pipeline')} · {escape(str(trace.get('model')))} · {escape(str(trace.get('store')))} · "
             f"{spent['llm_calls']} LLM calls ({spent['cache_hits']} cached), {spent['prompt_tokens']}+"
             f"{spent['completion_tokens']} tokens, {spent['seconds']:.2f} s")
    answer = ", ".join(trace.get("predictions") or []) or "(none)"
    origin = source(trace)
    root.add(f"[bold green]answer:[/] {escape(answer)}" + (f"  [dim]source {origin}[/]" if origin else ""))
    if trace.get("error"):
        root.add(f"[bold red]error:[/] {escape(trace['error'])}")
    agent = agent_part(trace)
    if agent.get("topics"):
        topics = root.add("topic entities")
        for topic in agent["topics"]:
            topic_id = shown_id(topic['id'])
            topics.add(f"{escape(str(topic.get('name')))}" + ('' if topic_id == topic.get('name') else f" [dim]{escape(topic_id)}[/]"))
        for mention, candidates in (agent.get("link_candidates") or {}).items():
            listed = ", ".join(f"{c.get('name')} ({c['id']})" for c in candidates[:5])
            topics.add(f"[dim]linked '{escape(mention)}' from: {escape(listed)}[/]")
    if agent.get("indicator"):
        root.add(f"indicator: {escape(agent['indicator'])}")
    if events(trace):
        flow = root.add("nodes")
        for event in events(trace):
            _event_branch(flow.add(f"[cyan]{event['node']}[/] [dim]{event['seconds']:.3f} s[/]"), event["update"])
    elif trace.get("retrieved"):  # a pipeline without agent nodes: what it put in the prompt
        retrieved = trace["retrieved"]
        _ranked(root.add(f"retrieved entities ({len(retrieved)})"), retrieved)
    if kept_paths(trace):
        paths = root.add("evidence paths")
        for path in kept_paths(trace):
            mark = " [green](answer)[/]" if path.get("answer") else ""
            paths.add(f"{escape(path['text'])} [dim]score {path['score']:.2f}[/]{mark}")
    calls = root.add(f"LLM calls ({spent['llm_calls']})")
    for number, call in enumerate(trace.get("llm_calls") or [], 1):
        first = (call.get("messages") or [{}])[-1].get("content", "")
        label = (f"#{number} {call.get('prompt_tokens', 0)}+{call.get('completion_tokens', 0)} tokens, "
                 f"{call.get('seconds', 0):.2f} s{' (cache)' if call.get('cached') else ''}")
        branch = calls.add(f"{label}  [dim]{escape(first[:PROMPT_PREVIEW].splitlines()[0] if first else '')}[/]")
        if prompts:
            branch.add(escape(first))
        branch.add(f"[yellow]reply:[/] {escape(str(call.get('reply', ''))[:400])}")
    return root


def _event_branch(branch: Tree, update: dict[str, Any]) -> None:
    """What a node changed: rankings as their head, the rest as short values."""
    for key, value in update.items():
        if key == "pruning_steps":
            if len(value) == 1:  # fuzzy alone: the same ranking as the candidates
                continue
            for step in value:
                shown = branch.add(f"{step['step']}: {len(step['paths'])} paths")
                _ranked(shown, step["paths"])
        elif key in ("candidates", "kept", "topic_kept", "triples", "selected") and isinstance(value, list):
            _ranked(branch.add(f"{key}: {len(value)}"), value)
        elif value not in (None, [], {}, ""):
            text = str(value)
            branch.add(f"{key}: [dim]{escape(text[:160] + ('…' if len(text) > 160 else ''))}[/]")


def _ranked(branch: Tree, items: list[Any]) -> None:
    for item in items[:PATHS_PER_STEP]:
        if isinstance(item, dict) and "text" in item:
            branch.add(f"[dim]{item.get('score', 0):.3f}[/] {escape(item['text'][:200])}")
        else:
            branch.add(f"[dim]{escape(str(item)[:200])}[/]")
    if len(items) > PATHS_PER_STEP:
        branch.add(f"[dim]… {len(items) - PATHS_PER_STEP} more[/]")
