"""`kgqa trace diff`: what changed between two runs of the same question, for tuning:
answers, source, cost, the nodes that ran, the kept paths and their scores, prompts."""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from kgqa.traces import Trace, cost, events, kept_paths, prompt_text, source


def trace_diff(before: Trace, after: Trace) -> dict[str, Any]:
    old_answers, new_answers = before.get("predictions") or [], after.get("predictions") or []
    old_paths = {p["text"]: p["score"] for p in kept_paths(before)}
    new_paths = {p["text"]: p["score"] for p in kept_paths(after)}
    old_cost, new_cost = cost(before), cost(after)
    old_prompts = [prompt_text(c) for c in before.get("llm_calls") or []]
    new_prompts = [prompt_text(c) for c in after.get("llm_calls") or []]
    return {
        "same_question": before["question"]["text"] == after["question"]["text"],
        "question": [before["question"]["text"], after["question"]["text"]],
        "settings": {k: [before.get(k), after.get(k)] for k in ("pipeline", "model", "store")
                     if before.get(k) != after.get(k)},
        "answers": {"before": old_answers, "after": new_answers,
                    "added": [a for a in new_answers if a not in old_answers],
                    "removed": [a for a in old_answers if a not in new_answers]},
        "source": [source(before), source(after)],
        "cost": {k: [old_cost[k], new_cost[k]] for k in old_cost},
        "nodes": [[e["node"] for e in events(before)], [e["node"] for e in events(after)]],
        "paths": {"added": [t for t in new_paths if t not in old_paths],
                  "removed": [t for t in old_paths if t not in new_paths],
                  "rescored": {t: [old_paths[t], new_paths[t]] for t in new_paths
                               if t in old_paths and abs(old_paths[t] - new_paths[t]) > 1e-6}},
        "prompts": {"before": len(old_prompts), "after": len(new_prompts),
                    "changed": [i + 1 for i, (a, b) in enumerate(zip(old_prompts, new_prompts, strict=False)) if a != b]},
        "error": [before.get("error"), after.get("error")],
    }


def diff_lines(diff: dict[str, Any]) -> list[str]:
    """The difference as lines for people (rich markup, the texts escaped); identical
    parts are left out."""
    lines: list[str] = []
    if not diff["same_question"]:
        lines.append(f"[yellow]different questions:[/] {escape(repr(diff['question'][0]))} vs {escape(repr(diff['question'][1]))}")
    for key, (old, new) in diff["settings"].items():
        lines.append(escape(f"{key}: {old} → {new}"))
    answers = diff["answers"]
    if answers["added"] or answers["removed"] or answers["before"] != answers["after"]:
        lines.append(escape(f"answers: {', '.join(answers['before']) or '(none)'} → "
                            f"{', '.join(answers['after']) or '(none)'}"))
        lines += [f"  [green]+[/] {escape(a)}" for a in answers["added"]]
        lines += [f"  [red]-[/] {escape(a)}" for a in answers["removed"]]
    else:
        lines.append(escape(f"answers: unchanged ({', '.join(answers['after']) or 'none'})"))
    if diff["source"][0] != diff["source"][1]:
        lines.append(f"source: {diff['source'][0]} → {diff['source'][1]}")
    spent = ", ".join(f"{k} {old:g} → {new:g}" for k, (old, new) in diff["cost"].items() if old != new)
    lines.append(f"cost: {spent or 'unchanged'}")
    if diff["nodes"][0] != diff["nodes"][1]:
        lines.append(f"nodes: {' > '.join(diff['nodes'][0])}\n    → {' > '.join(diff['nodes'][1])}")
    paths = diff["paths"]
    lines += [f"  [green]+ path[/] {escape(t)}" for t in paths["added"]]
    lines += [f"  [red]- path[/] {escape(t)}" for t in paths["removed"]]
    lines += [f"  [yellow]~ path[/] {escape(t)}: {old:.3f} → {new:.3f}" for t, (old, new) in paths["rescored"].items()]
    prompts = diff["prompts"]
    if prompts["changed"] or prompts["before"] != prompts["after"]:
        lines.append(f"prompts: {prompts['before']} → {prompts['after']} calls; changed: "
                     f"{', '.join(f'#{n}' for n in prompts['changed']) or 'none of the shared ones'}")
    if any(diff["error"]):
        lines.append(escape(f"error: {diff['error'][0]} → {diff['error'][1]}"))
    return lines
