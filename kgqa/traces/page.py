"""`kgqa trace html`: one self-contained page (no network) with the run's timeline, its
reasoning paths drawn as a graph, every node's changes and every prompt, expandable."""

from __future__ import annotations

import json
from html import escape

from agent.traces import answer_verdict, answer_why, depth_verdict
from kg_store.model import shown_id
from kgqa.traces import Trace, cost, events, kept_paths, prompt_text, source
from kgqa.traces.graph import GraphEdge, ReasoningGraph, reasoning_graph

COLUMN_WIDTH, NODE_WIDTH, ROW_HEIGHT, NODE_HEIGHT = 320, 180, 40, 26
TIMELINE_WIDTH, LANE_HEIGHT = 900, 22

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d232a;max-width:1200px}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:24px 0 8px;border-bottom:1px solid #dde}
.meta{color:#5b6570} .answer{font-size:17px;margin:10px 0} .answer b{color:#17702f}
.source{padding:1px 6px;border-radius:8px;background:#eef;font-size:12px}
details{margin:4px 0;border:1px solid #e3e6ea;border-radius:6px;padding:4px 8px}
summary{cursor:pointer} pre{white-space:pre-wrap;font-size:12px;background:#f6f8fa;padding:8px;margin:4px 0}
svg text{font:11px system-ui,sans-serif;paint-order:stroke;stroke:#fff;stroke-width:3px} .legend span{margin-right:14px}
.n-topic rect{fill:#dbe9ff;stroke:#2f6fd0} .n-answer rect{fill:#dcf5e3;stroke:#17702f}
.n-entity rect{fill:#f3f4f6;stroke:#9aa3ad} .e-kept{stroke:#44505c;stroke-width:1.6}
.e-pruned{stroke:#c3c8ce;stroke-dasharray:4 3} .bar{fill:#7aa6e6} .llm{fill:#e6a23c}
ol li{margin:3px 0} .error{color:#b3261e}
.verdict{margin:8px 0;padding:8px 12px;border-radius:6px;border-left:5px solid #9aa3ad;background:#f6f8fa}
.verdict.overruled,.verdict.filled{border-color:#c77700;background:#fff4e0}
.verdict.own,.verdict.extended{border-color:#17702f;background:#eef9f1}
"""


def trace_page(trace: Trace) -> str:
    question = trace["question"]
    spent = cost(trace)
    answers = ", ".join(trace.get("predictions") or []) or "(none)"
    origin = source(trace)
    graph = reasoning_graph(trace)
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>",
        f"<title>trace: {escape(question['text'])}</title><style>{STYLE}</style></head><body>",
        f"<h1>{escape(question['text'])}</h1>",
        (f"<div class='meta'>{escape(str(question.get('id')))} · pipeline {escape(str(trace.get('pipeline')))} · "
         f"model {escape(str(trace.get('model')))} · store {escape(str(trace.get('store')))}</div>"),
        f"<div class='answer'>Answer: <b id='answer'>{escape(answers)}</b> "
        + (f"<span class='source'>source: {escape(origin)}</span>" if origin else "")
        + (f" <span class='meta' id='why'>{escape(why)}</span>" if (why := answer_why(trace)) else "") + "</div>",
        (f"<div class='meta'>{spent['llm_calls']} LLM calls ({spent['cache_hits']} from cache), "
         f"{spent['prompt_tokens']} prompt + {spent['completion_tokens']} completion tokens, "
         f"{spent['seconds']:.2f} s</div>"),
        *verdict_notes(trace),
    ]
    if trace.get("error"):
        parts.append(f"<p class='error'>error: {escape(trace['error'])}</p>")
    parts += ["<h2>Timeline</h2>", timeline_svg(trace)]
    parts += ["<h2>Reasoning paths</h2>", graph_svg(graph) if graph.nodes else "<p class='meta'>no paths in this trace</p>"]
    if kept_paths(trace):
        parts.append("<h2>Evidence paths</h2><ol id='paths'>")
        parts += [f"<li>{escape(p['text'])} <span class='meta'>score {p['score']:.2f}"
                  f"{' · answer path' if p.get('answer') else ''}</span></li>" for p in kept_paths(trace)]
        parts.append("</ol>")
    parts.append("<h2>Nodes</h2>")
    for event in events(trace):
        parts.append(f"<details class='event'><summary>{escape(event['node'])} "
                     f"<span class='meta'>{event['seconds']:.3f} s</span></summary>"
                     f"<pre>{escape(json.dumps(event['update'], ensure_ascii=False, indent=1))}</pre></details>")
    parts.append(f"<h2>LLM calls ({spent['llm_calls']})</h2>")
    for number, call in enumerate(trace.get("llm_calls") or [], 1):
        parts.append(f"<details class='llm-call'><summary>#{number} · {call.get('prompt_tokens', 0)} + "
                     f"{call.get('completion_tokens', 0)} tokens · {call.get('seconds', 0):.2f} s"
                     f"{' · cache' if call.get('cached') else ''}</summary>"
                     f"<b>prompt</b><pre class='prompt'>{escape(prompt_text(call))}</pre>"
                     f"<b>reply</b><pre class='reply'>{escape(str(call.get('reply', '')))}</pre></details>")
    parts.append("</body></html>")
    return "\n".join(parts)


def verdict_notes(trace: Trace) -> list[str]:
    """Plain sentences on whose answer this is: the model's own, or overruled, and by what
    (the path memory, the paths' structure, GraphRAG-FI, a constraint); and who set the
    depth the search started at when it was not the model."""
    notes = []
    verdict = answer_verdict(trace)
    if verdict and verdict["status"] in ("overruled", "filled"):
        by = escape(_BY.get(verdict["by"], str(verdict["by"])))
        final = f"<q>{escape(_listed(verdict['final']))}</q>"
        if verdict["status"] == "overruled":
            notes.append(f"<div class='verdict overruled' id='verdict'><b>The model's own answer was overruled by {by}."
                         f"</b> The model answered <q class='model-answer'>{escape(_listed(verdict['model']))}</q>; "
                         f"the final answer is {final}: {escape(verdict['why'])}.</div>")
        else:
            notes.append(f"<div class='verdict filled' id='verdict'><b>The model named no answer; {by} gave it.</b> "
                         f"The final answer is {final}: {escape(verdict['why'])}.</div>")
    elif verdict and verdict["status"] in ("own", "extended"):
        added = len(verdict["final"]) - len(verdict["kept"])
        more = (f" The path it named adds {added} more end {'entity' if added == 1 else 'entities'}."
                if verdict["status"] == "extended" else "")
        notes.append(f"<div class='verdict {verdict['status']}' id='verdict'>The answer is the model's own: "
                     f"<q class='model-answer'>{escape(_listed(verdict['model']))}</q>.{escape(more)}</div>")
    depth = depth_verdict(trace)
    if depth and depth["overruled"]:
        notes.append(f"<div class='verdict overruled' id='depth-verdict'><b>The model's search depth was overruled "
                     f"by {escape(_BY.get(depth['source'], str(depth['source'])))}.</b> The model said "
                     f"{_hops(depth['model'])}; the search started at {_hops(depth['depth'])}.</div>")
    elif depth and depth["source"] in ("memory", "structure"):
        notes.append(f"<div class='verdict' id='depth-verdict'>Search depth {depth['depth']} set by "
                     f"{escape(_BY[depth['source']])}"
                     + (" (the model said the same)" if depth["model"] == depth["depth"] else "") + ".</div>")
    return notes


_BY = {"memory": "the path memory", "structure": "the paths' structure", "GraphRAG-FI": "GraphRAG-FI's answer integration",
       "constraint": "a constraint (superlative)"}


def _hops(n: object) -> str:
    return f"{n} hop" if n == 1 else f"{n} hops"


def _listed(names: list[str], shown: int = 6) -> str:
    return ", ".join(names[:shown]) + (f" and {len(names) - shown} more" if len(names) > shown else "")


def graph_svg(graph: ReasoningGraph) -> str:
    width = graph.columns * COLUMN_WIDTH
    height = graph.rows * ROW_HEIGHT + 10
    out = [(f"<svg id='reasoning-graph' xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' "
            f"viewBox='0 0 {width} {height}'>"),
           ("<defs><marker id='arrow' viewBox='0 0 10 10' refX='10' refY='5' markerWidth='6' markerHeight='6' "
            "orient='auto-start-reverse'><path d='M0,0L10,5L0,10z' fill='#66717d'/></marker></defs>")]
    # Pruned edges first so the kept ones are drawn over them; labels last, over everything.
    edges = [_edge(graph, edge) for edge in sorted(graph.edges, key=lambda e: e.kept)]
    out += [line for line, _ in edges]
    for node in graph.nodes.values():
        x, y = node.column * COLUMN_WIDTH + 4, node.row * ROW_HEIGHT + 6
        label = node.name if len(node.name) <= 28 else node.name[:27] + "…"
        out.append(f"<g class='node n-{node.role}' data-id='{escape(shown_id(node.id), quote=True)}'>"
                   f"<title>{escape(node.name)} ({escape(shown_id(node.id))})</title>"
                   f"<rect x='{x}' y='{y}' rx='5' width='{NODE_WIDTH}' height='{NODE_HEIGHT}'/>"
                   f"<text x='{x + 8}' y='{y + 17}'>{escape(label)}</text></g>")
    out += [label for _, label in edges]
    out.append("</svg><div class='legend meta'><span>■ blue: topic entity</span><span>■ green: answer</span>"
               "<span>solid: kept path</span><span>dashed: explored, pruned away</span></div>")
    return "".join(out)


def _edge(graph: ReasoningGraph, edge: GraphEdge) -> tuple[str, str]:
    """The edge's line, and its relation label (drawn after the nodes, at the target's end
    so that edges fanning out of one node keep their labels apart)."""
    head, tail = graph.nodes[edge.source], graph.nodes[edge.target]
    x1, y1 = head.column * COLUMN_WIDTH + 4 + NODE_WIDTH, head.row * ROW_HEIGHT + 6 + NODE_HEIGHT / 2
    x2, y2 = tail.column * COLUMN_WIDTH + 4, tail.row * ROW_HEIGHT + 6 + NODE_HEIGHT / 2
    if tail.column <= head.column:  # a path back to an earlier column: bend below
        x2 += NODE_WIDTH
    relation = edge.relation.rsplit(".", 1)[-1]
    label = relation if edge.forward else f"← {relation}"
    marker = "marker-end='url(#arrow)'" if edge.forward else "marker-start='url(#arrow)'"
    kind = "e-kept" if edge.kept else "e-pruned"
    line = (f"<g class='edge {kind}'><title>{escape(edge.relation)}</title>"
            f"<path d='M{x1},{y1} C{x1 + 40},{y1} {x2 - 40},{y2} {x2},{y2}' fill='none' {marker}/></g>")
    text = (f"<text class='edge-label' x='{x2 - 8}' y='{y2 - 4}' text-anchor='end' fill='#66717d'>"
            f"<title>{escape(edge.relation)}</title>{escape(label[:24])}</text>")
    return line, text


def timeline_svg(trace: Trace) -> str:
    """Node runs as bars on one lane, LLM calls on a second, on one time axis."""
    spans: list[tuple[str, float, float, str]] = []
    for event in events(trace):
        spans.append((event["node"], event["started"], event["started"] + event["seconds"], "bar"))
    for number, call in enumerate(trace.get("llm_calls") or [], 1):
        if "ended" in call:
            spans.append((f"LLM #{number}", call["ended"] - call.get("seconds", 0), call["ended"], "llm"))
    if not spans:
        return "<p class='meta'>no timing recorded</p>"
    start = min(s[1] for s in spans)
    total = max(max(s[2] for s in spans) - start, 1e-6)
    scale = TIMELINE_WIDTH / total
    out = [(f"<svg id='timeline' xmlns='http://www.w3.org/2000/svg' width='{TIMELINE_WIDTH + 10}' "
            f"height='{2 * LANE_HEIGHT + 24}'>")]
    for name, begin, end, kind in spans:
        lane = 0 if kind == "bar" else 1
        x, w = (begin - start) * scale, max((end - begin) * scale, 2)
        out.append(f"<g><title>{escape(name)}: {end - begin:.3f} s</title><rect class='{kind}' x='{x:.1f}' "
                   f"y='{lane * LANE_HEIGHT + 2}' width='{w:.1f}' height='{LANE_HEIGHT - 4}'/>"
                   + (f"<text x='{x + 3:.1f}' y='{lane * LANE_HEIGHT + 15}'>{escape(name)}</text>" if w > 60 else "")
                   + "</g>")
    out.append(f"<text x='0' y='{2 * LANE_HEIGHT + 16}' fill='#5b6570'>0 s</text>"
               f"<text x='{TIMELINE_WIDTH - 50}' y='{2 * LANE_HEIGHT + 16}' fill='#5b6570'>{total:.2f} s</text></svg>"
               "<div class='legend meta'><span>blue: graph nodes</span><span>orange: LLM calls</span></div>")
    return "".join(out)
