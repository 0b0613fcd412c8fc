"""The evaluation browser: one self-contained HTML page per run (summary, the plots that
help read it, and every question with its prediction, gold answers, cost and a link to
its trace page) and one per pair of runs (won, lost, changed answer paths).

Pages are built from result rows as `kgqa eval --out` writes them, scores as written (the
figures `kgqa eval` and `kgqa compare` print). Gold answers appear here, after scoring,
and never on a trace page. Plots are inline SVG, drawn here: nothing is fetched."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from html import escape
from pathlib import Path

from agent.answer_text import names_match
from agent.evaluation.compare import answer_path, compare
from agent.evaluation.report import breakdown, mean_of
from agent.traces import answer_why

SHOWN_NAMES = 6  # answers listed in a table cell; the rest are in its tooltip


# Where a run's files lie -------------------------------------------------------------

def results_stem(results: Path) -> Path:
    """A results file without its suffixes: `run.jsonl.gz` -> `run` (eval's own naming)."""
    plain = results.with_suffix("") if results.suffix == ".gz" else results
    return plain.with_suffix("")


def default_page(results: Path, base: Path | None = None) -> Path:
    """The page beside a results file (`run.html`, like eval's `run.md`); for a comparison,
    `run.vs-base.html`."""
    stem = results_stem(results)
    return stem.with_name(f"{stem.name}.vs-{results_stem(base).name}.html" if base else f"{stem.name}.html")


def trace_file_of(row: dict, results: Path) -> Path | None:
    """The trace JSON a row was written with: the path the row names (as written, or
    beside the results file), else the run's own traces folder (`run.traces/`, eval's
    naming) when results and traces were moved together."""
    from agent.evaluation.harness import trace_file_name

    folder = results_stem(results).with_name(results_stem(results).name + ".traces")
    named = Path(row["trace"]) if row.get("trace") else None
    candidates = [named, results.parent / named, folder / named.name] if named else []
    candidates.append(folder / trace_file_name(str(row.get("id"))))
    return next((c for c in candidates if c is not None and c.is_file()), None)


@dataclass
class RunPages:
    """What a page knows of a run beyond its rows: its trace pages (links relative to
    the page), what each trace says of the model's own answer, and pipeline, model and
    store as its traces name them."""
    links: dict[str, str] = field(default_factory=dict)
    verdicts: dict[str, dict] = field(default_factory=dict)
    info: dict[str, str] = field(default_factory=dict)


# Figures ------------------------------------------------------------------------------

def figures(rows: list[dict]) -> dict:
    """A run's summary over all its rows (the figures of `EvalRun.summary`, and errors)."""
    seconds = sorted(float(r.get("seconds") or 0.0) for r in rows)
    n = len(rows)
    return {
        "n": n, "hits1": mean_of(rows, "hits1"), "hit": mean_of(rows, "hit"), "f1": mean_of(rows, "f1"),
        "coverage": mean_of(rows, "coverage"), "lenient_em": mean_of(rows, "lenient_em"),
        "llm_calls_avg": mean_of(rows, "llm_calls"), "prompt_tokens_avg": mean_of(rows, "prompt_tokens"),
        "completion_tokens_avg": mean_of(rows, "completion_tokens"),
        "seconds_p50": statistics.median(seconds) if seconds else 0.0,
        "seconds_p95": seconds[min(n - 1, int(0.95 * n))] if seconds else 0.0,
        "errors": sum(bool(r.get("error")) for r in rows),
        "llm_calls": sum(int(r.get("llm_calls") or 0) for r in rows),
        "llm_cache_hits": sum(int(r.get("llm_cache_hits") or 0) for r in rows),
    }


def right(row: dict) -> bool:
    return float(row.get("hits1") or 0.0) >= 1.0


def row_verdict(row: dict, verdicts: dict[str, dict]) -> dict | None:
    """The trace's verdict on the model's own answer; without a trace, for PoG rows (whose
    `raw_output` is the names the model gave, one a line) the same from the row, with
    what decided unknown."""
    if row.get("id") in verdicts:
        return verdicts[row["id"]]
    details = _details(row)
    if "depth_source" not in details or row.get("error"):
        return None
    said = [line.strip() for line in str(row.get("raw_output") or "").splitlines() if line.strip()]
    final = list(row.get("prediction") or [])
    if not final:
        return None
    if any(names_match(a, s) for a in final for s in said):
        return {"model": said, "final": final, "status": "own", "by": None}
    return {"model": said, "final": final, "status": "overruled" if said else "filled", "by": None}


def _details(row: dict) -> dict:
    details = row.get("details")
    return details if isinstance(details, dict) else {}


# Plots: inline SVG ----------------------------------------------------------------------

GREEN, RED, GREY, BLUE = "#3a9d5d", "#d0574b", "#9aa3ad", "#3f78c9"


def accuracy_svg(groups: dict[str, list[list[dict]]], series: list[tuple[str, str]], svg_id: str) -> str:
    """Hits@1 per group as horizontal bars, one per series (label, colour), each labelled
    with its value and question count."""
    label_w, bar_w, band = 170, 300, 8 + 18 * len(series)
    height = band * len(groups) + 24
    out = [(f"<svg id='{svg_id}' class='plot' xmlns='http://www.w3.org/2000/svg' width='{label_w + bar_w + 110}' "
           f"height='{height}'>")]
    for x in (0.0, 0.5, 1.0):
        gx = label_w + x * bar_w
        out.append(f"<line x1='{gx}' y1='0' x2='{gx}' y2='{height - 18}' stroke='#e3e6ea'/>"
                   f"<text x='{gx}' y='{height - 4}' text-anchor='middle' class='tick'>{x:g}</text>")
    for i, (name, per_series) in enumerate(groups.items()):
        y = i * band + 4
        out.append(f"<text x='{label_w - 6}' y='{y + band / 2 + 2}' text-anchor='end'>{escape(_short(name, 28))}"
                   f"<title>{escape(name)}</title></text>")
        for j, ((label, colour), rows) in enumerate(zip(series, per_series, strict=True)):
            value = mean_of(rows, "hits1")
            by = y + 2 + j * 18
            out.append(f"<g class='acc-bar'><title>{escape(label)} · {escape(name)}: Hits@1 {value:.3f} over "
                       f"{len(rows)} questions</title><rect x='{label_w}' y='{by}' width='{max(value * bar_w, 1):.1f}' "
                       f"height='15' fill='{colour}'/><text x='{label_w + value * bar_w + 4:.1f}' y='{by + 12}'>"
                       f"{value:.3f} <tspan class='tick'>n={len(rows)}</tspan></text></g>")
    out.append("</svg>")
    return "".join(out)


def histogram_svg(series: list[tuple[str, list[float], str]], *, svg_id: str, unit: str, integer: bool = False,
                  stacked: bool = False) -> str:
    """Counts of questions per bin, for each series (label, values, colour): stacked (right
    and wrong of one run) or side by side (two runs). A long tail is folded into the last
    bin, labelled "≥"."""
    values = [v for _, vs, _ in series for v in vs]
    edges = _bins(values, integer)
    counts = [[0] * (len(edges) - 1) for _ in series]
    for k, (_, vs, _) in enumerate(series):
        for v in vs:
            counts[k][_bin_of(v, edges)] += 1
    per_bin = [sum(c[i] for c in counts) if stacked else max(c[i] for c in counts) for i in range(len(edges) - 1)]
    top = max(per_bin + [1])
    left, width, plot_h, top_pad = 34, 340, 130, 8
    slot = width / (len(edges) - 1)
    out = [(f"<svg id='{svg_id}' class='plot' xmlns='http://www.w3.org/2000/svg' width='{left + width + 10}' "
           f"height='{top_pad + plot_h + 34}'>"),
           (f"<text x='{left - 4}' y='{top_pad + 8}' text-anchor='end' class='tick'>{top}</text>"
           f"<text x='{left - 4}' y='{top_pad + plot_h}' text-anchor='end' class='tick'>0</text>"
           f"<line x1='{left}' y1='{top_pad + plot_h}' x2='{left + width}' y2='{top_pad + plot_h}' stroke='#9aa3ad'/>")]
    for i in range(len(edges) - 1):
        x0 = left + i * slot
        base = top_pad + plot_h
        tip = [f"{_bin_label(edges, i, integer)} {unit}"]
        for k, (label, _, colour) in enumerate(series):
            count = counts[k][i]
            tip.append(f"{label}: {count}")
            h = count / top * plot_h
            if stacked:
                x, w = x0 + 1, slot - 2
                base -= h
                y = base
            else:
                w = (slot - 2) / len(series)
                x, y = x0 + 1 + k * w, top_pad + plot_h - h
            if count:
                out.append(f"<rect class='hist-bar' x='{x:.1f}' y='{y:.1f}' width='{max(w, 1):.1f}' height='{h:.1f}' "
                           f"fill='{colour}'/>")
        out.append(f"<rect x='{x0:.1f}' y='{top_pad}' width='{slot:.1f}' height='{plot_h}' fill='transparent'>"
                   f"<title>{escape(', '.join(tip))}</title></rect>")
    unit_bins = integer and edges[1] - edges[0] == 1
    last = len(edges) - 2 if unit_bins else len(edges) - 1
    for i in sorted({0, last // 2, last}):
        x = left + (i + 0.5 if unit_bins else i) * slot
        folded = i == last and edges[-1] < max(values or [0])
        text = ("≥" if folded else "") + _number(edges[i])
        out.append(f"<text x='{x:.1f}' y='{top_pad + plot_h + 14}' text-anchor='middle' class='tick'>{text}</text>")
    out.append(f"<text x='{left + width / 2}' y='{top_pad + plot_h + 30}' text-anchor='middle' class='tick'>"
               f"{escape(unit)}</text></svg>")
    return "".join(out)


def _bins(values: list[float], integer: bool) -> list[float]:
    if not values:
        return [0.0, 1.0]
    hi = max(values)
    ordered = sorted(values)
    tail = ordered[min(len(ordered) - 1, int(0.97 * len(ordered)))]
    if hi > 3 * tail > 0:  # a few slow outliers: fold them into the last bin
        hi = tail
    if integer and hi <= 24:
        return [float(i) for i in range(int(hi) + 2)]
    step = _nice(hi / 14) if hi > 0 else 1.0
    if integer:
        step = max(1.0, math.ceil(step))
    count = max(1, math.ceil(hi / step + 1e-9))
    if count * step <= hi:
        count += 1
    return [i * step for i in range(count + 1)]


def _nice(x: float) -> float:
    magnitude = 10 ** math.floor(math.log10(x))
    return next(m * magnitude for m in (1, 2, 2.5, 5, 10) if m * magnitude >= x)


def _bin_of(value: float, edges: list[float]) -> int:
    for i in range(len(edges) - 1):
        if value < edges[i + 1]:
            return i
    return len(edges) - 2


def _bin_label(edges: list[float], i: int, integer: bool) -> str:
    if integer and edges[i + 1] - edges[i] == 1:
        return _number(edges[i])
    return f"{_number(edges[i])}–{_number(edges[i + 1])}"


def _number(x: float) -> str:
    return f"{x:g}" if abs(x) < 10_000 else f"{x / 1000:g}k"


# Pieces of a page -----------------------------------------------------------------------

STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d232a;max-width:1500px}
h1{font-size:20px;margin:0 0 4px} h2{font-size:16px;margin:26px 0 8px;border-bottom:1px solid #dde}
h3{font-size:14px;margin:6px 0} .meta,.tick{color:#5b6570} .tick{font-size:10px;fill:#5b6570}
code{background:#f6f8fa;padding:1px 4px;border-radius:3px;font-size:12px;word-break:break-all}
.tiles{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}
.tile{border:1px solid #e3e6ea;border-radius:6px;padding:6px 12px;min-width:92px}
.tile b{display:block;font-size:19px} .tile span{color:#5b6570;font-size:12px}
.tile.won b{color:#17702f} .tile.lost b{color:#b3261e}
.plots{display:flex;flex-wrap:wrap;gap:28px} .plots figure{margin:0} figcaption{font-weight:600;margin-bottom:4px}
svg text{font:11px system-ui,sans-serif} .legend span{margin-right:14px;font-size:12px}
.swatch{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
table{border-collapse:collapse;font-size:13px} th,td{padding:3px 8px;border-bottom:1px solid #eceef1;
 vertical-align:top;text-align:left} th{background:#f6f8fa;white-space:nowrap}
#questions th{position:sticky;top:0;cursor:pointer}
td.num,th.num{text-align:right;white-space:nowrap} td.names{max-width:260px} td.question{max-width:380px}
tr.wrong td.mark,td.mark.wrong{color:#b3261e} tr.right td.mark,td.mark.right{color:#17702f} td.mark{font-weight:700}
.badge{font-size:11px;padding:0 6px;border-radius:8px;background:#eef;white-space:nowrap}
.badge.overruled,.badge.filled{background:#fff0d6;color:#8a5200} .badge.lost{background:#fde3e0;color:#b3261e}
.badge.won{background:#dcf5e3;color:#17702f} .badge.changed{background:#ece3fb;color:#5a3a9a}
.badge.error{background:#fde3e0;color:#b3261e}
.filters{display:flex;flex-wrap:wrap;gap:14px;align-items:center;margin:8px 0;padding:8px;background:#f6f8fa;
 border-radius:6px} .filters label{white-space:nowrap}
.delta.won{color:#17702f} .delta.lost{color:#b3261e}
details.path summary{cursor:pointer} details.path div{font-size:12px;max-width:420px}
"""

SCRIPT = """
(() => {
  const table = document.getElementById('questions');
  const body = table.tBodies[0];
  const rows = [...body.rows];
  const shown = document.getElementById('shown');
  const search = document.getElementById('search');
  const group = document.getElementById('group');
  function apply() {
    const show = (document.querySelector('input[name=show]:checked') || {value: 'all'}).value;
    const text = search.value.trim().toLowerCase();
    let n = 0;
    for (const row of rows) {
      const ok = (show === 'all' || row.classList.contains(show)) && (!group || !group.value
        || row.dataset.group === group.value) && (!text || row.textContent.toLowerCase().includes(text));
      row.hidden = !ok;
      if (ok) n++;
    }
    shown.textContent = n;
  }
  document.querySelectorAll('input[name=show]').forEach(e => e.addEventListener('change', apply));
  search.addEventListener('input', apply);
  if (group) group.addEventListener('change', apply);
  table.tHead.querySelectorAll('th[data-sort]').forEach(th => th.addEventListener('click', () => {
    const i = th.cellIndex, numeric = th.dataset.sort === 'num';
    const dir = th.dataset.dir === 'asc' ? -1 : 1;
    th.dataset.dir = dir === 1 ? 'asc' : 'desc';
    const key = r => { const c = r.cells[i], v = c.dataset.v ?? c.textContent; return numeric ? +v : v.toLowerCase(); };
    rows.sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0) * dir);
    rows.forEach(r => body.appendChild(r));
  }));
  apply();
})();
"""


def _page(title: str, body: list[str]) -> str:
    return "\n".join(["<!doctype html><html lang='en'><head><meta charset='utf-8'>",
                      f"<title>{escape(title)}</title><style>{STYLE}</style></head><body>", *body,
                      f"<script>{SCRIPT}</script></body></html>"])


def _tiles(items: Iterable[tuple[str, str, str]]) -> str:
    return "<div class='tiles'>" + "".join(
        f"<div class='tile {css}'><b>{escape(value)}</b><span>{escape(label)}</span></div>"
        for value, label, css in items) + "</div>"


def _names(names: list[str] | None) -> str:
    names = [str(n) for n in names or []]
    if not names:
        return "<span class='meta'>(none)</span>"
    text = ", ".join(names[:SHOWN_NAMES]) + (f" … +{len(names) - SHOWN_NAMES}" if len(names) > SHOWN_NAMES else "")
    return f"<span title='{escape(', '.join(names), quote=True)}'>{escape(text)}</span>"


def _short(text: str, n: int) -> str:
    return text if len(text) <= n else text[: n - 1] + "…"


def _question_cell(row: dict, link: str | None) -> str:
    text = escape(str(row.get("question") or row.get("id")))
    shown = f"<a href='{escape(link, quote=True)}'>{text}</a>" if link else text
    return f"<td class='question' title='{escape(str(row.get('id')), quote=True)}'>{shown}</td>"


def _legend(items: list[tuple[str, str]]) -> str:
    return "<div class='legend'>" + "".join(
        f"<span><i class='swatch' style='background:{c}'></i>{escape(label)}</span>" for label, c in items) + "</div>"


def _figure(caption: str, svg: str, legend: str = "") -> str:
    return f"<figure><figcaption>{escape(caption)}</figcaption>{svg}{legend}</figure>"


def _filters(options: list[tuple[str, str, int]], groups: list[str], group_key: str | None, total: int) -> str:
    radios = "".join(
        f"<label><input type='radio' name='show' value='{value}' id='show-{value}'"
        f"{' checked' if value == 'all' else ''}> {escape(label)} ({count})</label>" for value, label, count in options)
    select = ""
    if group_key and len(groups) > 1:
        select = (f"<label>{escape(group_key)} <select id='group'><option value=''>all</option>"
                  + "".join(f"<option>{escape(g)}</option>" for g in groups) + "</select></label>")
    return (f"<div class='filters'>{radios}{select}<label>search <input type='search' id='search' "
            f"placeholder='question, answer, id'></label><span class='meta'><b id='shown'>{total}</b> of {total} "
            "shown</span></div>")


def _group_of(row: dict, key: str | None) -> str:
    return str((row.get("meta") or {}).get(key, "?")) if key else "all"


# The run page -------------------------------------------------------------------------

def run_page(rows: list[dict], *, name: str, pages: RunPages | None = None, summary: dict | None = None,
             command: str | None = None) -> str:
    """One run's page: the summary, accuracy by hop count or question type (and by the
    answer's source), time, calls and tokens per question split right/wrong, and every
    question in a table that filters to the wrong ones, each row linking its trace page."""
    pages = pages or RunPages()
    info = {**pages.info, **{k: str(v) for k, v in (summary or {}).items() if k in ("pipeline", "model", "store")}}
    figs = figures(rows)
    verdicts = {str(r.get("id")): row_verdict(r, pages.verdicts) for r in rows}
    overruled = sum(1 for v in verdicts.values() if v and v["status"] in ("overruled", "filled"))
    wrong = sum(not right(r) for r in rows)
    key, groups = breakdown(rows)
    body = [(f"<h1>Evaluation: {escape(info.get('pipeline', '?'))} on {figs['n']} questions · "
            f"{escape(Path(name).name)}</h1>"),
            (f"<div class='meta'>results <code>{escape(name)}</code> · model {escape(info.get('model', '?'))} · "
            f"store {escape(info.get('store', '?'))}</div>")]
    if command:
        body.append(f"<div class='meta'>command <code>{escape(command)}</code></div>")
    body.append(_tiles([
        (f"{figs['hits1']:.3f}", "Hits@1", ""), (f"{figs['hit']:.3f}", "Hit", ""), (f"{figs['f1']:.3f}", "F1", ""),
        (f"{figs['coverage']:.3f}", "coverage", ""), (f"{figs['lenient_em']:.3f}", "lenient", ""),
        (str(wrong), "wrong (Hits@1)", "lost" if wrong else ""), (str(figs["errors"]), "errors", ""),
        (str(overruled), "model overruled", ""), (f"{figs['llm_calls_avg']:.2f}", "LLM calls / question", ""),
        (f"{figs['prompt_tokens_avg']:.0f}", "prompt tokens / question", ""),
        (f"{figs['seconds_p50']:.2f} / {figs['seconds_p95']:.2f}", "seconds p50 / p95", "")]))
    if figs["llm_cache_hits"]:
        body.append(f"<p class='meta'>{figs['llm_cache_hits']} of {figs['llm_calls']} LLM calls were answered from "
                    "the reply cache: seconds for those questions are not generation times.</p>")
    body += ["<h2>Where it is right, and what it costs</h2>", "<div class='plots'>"]
    if key and len(groups) > 1:
        body.append(_figure(f"Hits@1 by {key}", accuracy_svg({g: [rs] for g, rs in groups.items()},
                                                               [("this run", BLUE)], "accuracy-by-group")))
    sources = _by(rows, lambda r: _source_label(r, verdicts[str(r.get("id"))]))
    if len(sources) > 1:
        body.append(_figure("Hits@1 by where the answer came from",
                            accuracy_svg({g: [rs] for g, rs in sources.items()}, [("this run", BLUE)],
                                         "accuracy-by-source")))
    split = [("right", [r for r in rows if right(r)], GREEN), ("wrong", [r for r in rows if not right(r)], RED)]
    legend = _legend([("right", GREEN), ("wrong", RED)])
    for caption, field_name, unit, integer, svg_id in _DISTRIBUTIONS:
        series = [(label, [float(r.get(field_name) or 0.0) for r in rs], c) for label, rs, c in split]
        body.append(_figure(caption, histogram_svg(series, svg_id=svg_id, unit=unit, integer=integer, stacked=True),
                            legend))
    body.append("</div>")
    if key and len(groups) > 1:
        body += [f"<h2>By {escape(key)}</h2>", _group_table({g: rs for g, rs in groups.items()})]
    body += ["<h2>Questions</h2>",
             _filters([("all", "all", len(rows)), ("wrong", "wrong only", wrong),
                       ("right", "right only", len(rows) - wrong), ("overruled", "model overruled", overruled),
                       ("error", "errors", figs["errors"])], list(groups), key, len(rows)),
             "<table id='questions'><thead><tr><th data-sort='num' class='num'>#</th><th data-sort='text'>question"
             "</th><th data-sort='text'>prediction</th><th data-sort='text'>gold</th><th data-sort='num'>Hits@1</th>"
             "<th data-sort='num' class='num'>F1</th><th data-sort='num' class='num'>calls</th>"
             "<th data-sort='num' class='num'>seconds</th><th data-sort='text'>answer by</th>"
             + (f"<th data-sort='text'>{escape(key)}</th>" if key else "") + "</tr></thead><tbody>"]
    for number, row in enumerate(rows, 1):
        verdict = verdicts[str(row.get("id"))]
        classes = ["q", "right" if right(row) else "wrong"]
        if verdict and verdict["status"] in ("overruled", "filled"):
            classes.append("overruled")
        if row.get("error"):
            classes.append("error")
        group = _group_of(row, key)
        body.append(
            f"<tr class='{' '.join(classes)}' data-id='{escape(str(row.get('id')), quote=True)}' "
            f"data-group='{escape(group, quote=True)}'><td class='num'>{number}</td>"
            f"{_question_cell(row, pages.links.get(str(row.get('id'))))}"
            f"<td class='names prediction'>{_names(row.get('prediction'))}</td>"
            f"<td class='names gold'>{_names(row.get('gold'))}</td>"
            f"<td class='mark' data-v='{float(row.get('hits1') or 0):g}'>{'✓' if right(row) else '✗'}</td>"
            f"<td class='num'>{float(row.get('f1') or 0):.2f}</td><td class='num'>{int(row.get('llm_calls') or 0)}</td>"
            f"<td class='num'>{float(row.get('seconds') or 0):.2f}</td><td>{_answer_by(row, verdict)}</td>"
            + (f"<td>{escape(group)}</td>" if key else "") + "</tr>")
    body.append("</tbody></table>")
    return _page(f"evaluation: {Path(name).name}", body)


_DISTRIBUTIONS = (("Seconds per question", "seconds", "seconds", False, "seconds-histogram"),
                  ("LLM calls per question", "llm_calls", "LLM calls", True, "calls-histogram"),
                  ("Prompt tokens per question", "prompt_tokens", "prompt tokens", True, "tokens-histogram"))


def _by(rows: list[dict], label: Callable[[dict], str]) -> dict[str, list[dict]]:
    groups: dict[str, list[dict]] = {}
    for row in rows:
        groups.setdefault(label(row), []).append(row)
    return dict(sorted(groups.items()))


def _source_label(row: dict, verdict: dict | None) -> str:
    if row.get("error"):
        return "error"
    source = str(_details(row).get("source") or "answer")
    if verdict and verdict["status"] in ("overruled", "filled"):
        return f"{source}, overruled" + (f" by {verdict['by']}" if verdict.get("by") else "")
    return source


def _answer_by(row: dict, verdict: dict | None) -> str:
    if row.get("error"):
        return f"<span class='badge error' title='{escape(str(row['error']), quote=True)}'>error</span>"
    parts = []
    source = _details(row).get("source")
    if source:
        why = answer_why(row)
        title = f" title='{escape(why, quote=True)}'" if why else ""
        parts.append(f"<span class='badge'{title}>{escape(str(source))}</span>")
    if _details(row).get("decided_by") == "fallback":
        parts.append("<span class='badge overruled'>fallback</span>")
    if verdict and verdict["status"] in ("overruled", "filled"):
        said = ", ".join(verdict["model"]) or "nothing"
        by = f" by {verdict['by']}" if verdict.get("by") else ""
        parts.append(f"<span class='badge overruled' title='{escape(f'the model said: {said}', quote=True)}'>"
                     f"overruled{escape(by)}</span>")
    return " ".join(parts)


def _group_table(groups: dict[str, list[dict]]) -> str:
    lines = [("<table class='groups'><thead><tr><th>group</th><th class='num'>n</th><th class='num'>Hits@1</th>"
             "<th class='num'>Hit</th><th class='num'>F1</th><th class='num'>LLM calls</th>"
             "<th class='num'>prompt tokens</th><th class='num'>seconds p50</th><th class='num'>errors</th></tr>"
             "</thead><tbody>")]
    for name, rows in groups.items():
        f = figures(rows)
        lines.append(f"<tr><td>{escape(name)}</td><td class='num'>{f['n']}</td><td class='num'>{f['hits1']:.3f}</td>"
                     f"<td class='num'>{f['hit']:.3f}</td><td class='num'>{f['f1']:.3f}</td>"
                     f"<td class='num'>{f['llm_calls_avg']:.2f}</td><td class='num'>{f['prompt_tokens_avg']:.0f}</td>"
                     f"<td class='num'>{f['seconds_p50']:.2f}</td><td class='num'>{f['errors']}</td></tr>")
    lines.append("</tbody></table>")
    return "".join(lines)


# The comparison page --------------------------------------------------------------------

def compare_page(base: dict[str, dict], run: dict[str, dict], *, base_name: str, run_name: str,
                 base_pages: RunPages | None = None, run_pages: RunPages | None = None) -> str:
    """Two runs of one question set side by side: their figures, accuracy by group and
    cost on the shared questions, and every shared question marked won (wrong in BASE,
    right in RUN), lost (the reverse) or the same, and whether its answer path changed."""
    base_pages, run_pages = base_pages or RunPages(), run_pages or RunPages()
    result = compare(base, run)
    shared = [qid for qid in run if qid in base]
    won, lost, changed = set(result["won_ids"]), set(result["lost_ids"]), set(result["changed_path_ids"])
    answers_changed = {q for q in shared if _answer_set(base[q]) != _answer_set(run[q])}
    base_shared, run_shared = [base[q] for q in shared], [run[q] for q in shared]
    body = [f"<h1>Comparison: {escape(Path(run_name).name)} against {escape(Path(base_name).name)}</h1>",
            (f"<div class='meta'>base <code>{escape(base_name)}</code> ({len(base)} questions, "
            f"{_describe(base_pages.info)}) · run <code>{escape(run_name)}</code> ({len(run)} questions, "
            f"{_describe(run_pages.info)}) · {len(shared)} shared; won and lost count Hits@1 on the shared ones</div>"),
            _tiles([(str(len(shared)), "shared questions", ""), (str(len(won)), "won", "won"),
                    (str(len(lost)), "lost", "lost"), (str(len(changed)), "answer path changed", ""),
                    (str(len(answers_changed)), "answer changed", ""),
                    (f"{result['base_hits1_shared']:.3f} → {result['hits1_shared']:.3f}", "Hits@1 on shared", "")]),
            "<h2>Figures</h2>", _side_by_side(base_shared, run_shared, list(base.values()), list(run.values())),
            "<h2>Where each is right, and what each costs (shared questions)</h2>", "<div class='plots'>"]
    key, groups = breakdown(run_shared)
    pair = [("base", GREY), ("run", BLUE)]
    body.insert(-1, _legend([(f"base: {base_name}", GREY), (f"run: {run_name}", BLUE)]))
    legend = _legend([("base", GREY), ("run", BLUE)])
    if key and len(groups) > 1:
        paired = {g: [[base[r["id"]] for r in rs], rs] for g, rs in groups.items()}
        body.append(_figure(f"Hits@1 by {key}", accuracy_svg(paired, pair, "accuracy-by-group"), legend))
    else:
        body.append(_figure("Hits@1", accuracy_svg({"all": [base_shared, run_shared]}, pair, "accuracy-by-group"),
                            legend))
    for caption, field_name, unit, integer, svg_id in _DISTRIBUTIONS:
        series = [(label, [float(r.get(field_name) or 0.0) for r in rs], c)
                  for (label, c), rs in zip(pair, (base_shared, run_shared), strict=True)]
        body.append(_figure(caption, histogram_svg(series, svg_id=svg_id, unit=unit, integer=integer), legend))
    body.append("</div>")
    both_wrong = sum(not right(base[q]) and not right(run[q]) for q in shared)
    body += ["<h2>Shared questions</h2>",
             _filters([("all", "all", len(shared)), ("won", "won", len(won)), ("lost", "lost", len(lost)),
                       ("changed", "answer path changed", len(changed)),
                       ("answer-changed", "answer changed", len(answers_changed)),
                       ("both-wrong", "wrong in both", both_wrong)], list(groups), key, len(shared)),
             ("<table id='questions'><thead><tr><th data-sort='num' class='num'>#</th><th data-sort='text'>question</th>"
             "<th data-sort='text'>gold</th><th data-sort='text'>base answer</th><th data-sort='text'>run answer</th>"
             "<th data-sort='text'>base</th><th data-sort='text'>run</th><th data-sort='text'>status</th>"
             "<th data-sort='text'>answer path</th><th data-sort='num' class='num'>calls</th>"
             "<th data-sort='num' class='num'>seconds</th><th>traces</th></tr></thead><tbody>")]
    for number, qid in enumerate(shared, 1):
        b, r = base[qid], run[qid]
        status = "won" if qid in won else "lost" if qid in lost else "both-right" if right(r) else "both-wrong"
        classes = ["q", status, *(["changed"] if qid in changed else []),
                   *(["answer-changed"] if qid in answers_changed else [])]
        links = [f"<a href='{escape(href, quote=True)}' class='{side}-trace'>{side}</a>"
                 for side, href in (("base", base_pages.links.get(qid)), ("run", run_pages.links.get(qid))) if href]
        label = {"won": "won", "lost": "lost", "both-right": "both right", "both-wrong": "both wrong"}[status]
        body.append(
            f"<tr class='{' '.join(classes)}' data-id='{escape(qid, quote=True)}' "
            f"data-group='{escape(_group_of(r, key), quote=True)}'><td class='num'>{number}</td>"
            f"{_question_cell(r, run_pages.links.get(qid) or base_pages.links.get(qid))}"
            f"<td class='names gold'>{_names(r.get('gold') or b.get('gold'))}</td>"
            f"<td class='names'>{_names(b.get('prediction'))}</td><td class='names'>{_names(r.get('prediction'))}</td>"
            f"{_mark(b)}{_mark(r)}<td><span class='badge {status}'>{label}</span></td>"
            f"<td>{_path_cell(b, r, qid in changed)}</td>"
            f"<td class='num' data-v='{int(r.get('llm_calls') or 0) - int(b.get('llm_calls') or 0)}'>"
            f"{int(b.get('llm_calls') or 0)} → {int(r.get('llm_calls') or 0)}</td>"
            f"<td class='num' data-v='{float(r.get('seconds') or 0) - float(b.get('seconds') or 0):.3f}'>"
            f"{float(b.get('seconds') or 0):.2f} → {float(r.get('seconds') or 0):.2f}</td>"
            f"<td>{' '.join(links)}</td></tr>")
    body.append("</tbody></table>")
    body.append(f"<p class='meta'>Not listed: {_count(len(base) - len(shared), 'question')} only in the base, "
                f"{len(run) - len(shared)} only in the run.</p>")
    return _page(f"comparison: {Path(run_name).name} against {Path(base_name).name}", body)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def _describe(info: dict[str, str]) -> str:
    return " / ".join(info[k] for k in ("pipeline", "model") if info.get(k)) or "pipeline unknown"


def _answer_set(row: dict) -> set[str]:
    return {str(a).strip().lower() for a in row.get("prediction") or []}


def _mark(row: dict) -> str:
    ok = right(row)
    return f"<td class='mark {'right' if ok else 'wrong'}' data-v='{int(ok)}'>{'✓' if ok else '✗'}</td>"


def _path_cell(base: dict, run: dict, changed: bool) -> str:
    before, after = answer_path(base), answer_path(run)
    if not before and not after:
        return "<span class='meta'>—</span>"
    if not changed:
        return f"<span class='meta' title='{escape(after or '', quote=True)}'>same</span>"
    return (f"<details class='path'><summary><span class='badge changed'>changed</span></summary>"
            f"<div><b>base</b> {escape(before or '(none)')}</div><div><b>run</b> {escape(after or '(none)')}</div>"
            "</details>")


def _side_by_side(base_shared: list[dict], run_shared: list[dict], base_all: list[dict], run_all: list[dict]) -> str:
    b, r, ba, ra = figures(base_shared), figures(run_shared), figures(base_all), figures(run_all)
    lines = [("<table id='figures'><thead><tr><th>figure</th><th class='num'>base</th><th class='num'>run</th>"
             "<th class='num'>change</th></tr></thead><tbody>"),
             f"<tr><td>questions</td><td class='num'>{ba['n']}</td><td class='num'>{ra['n']}</td><td></td></tr>"]
    for label, key, digits, better in (
            ("Hits@1 (shared)", "hits1", 3, 1), ("Hit (shared)", "hit", 3, 1), ("F1 (shared)", "f1", 3, 1),
            ("coverage (shared)", "coverage", 3, 1), ("Hits@1 (all of each)", None, 3, 1),
            ("LLM calls / question", "llm_calls_avg", 2, -1), ("prompt tokens / question", "prompt_tokens_avg", 0, -1),
            ("seconds p50", "seconds_p50", 2, -1), ("seconds p95", "seconds_p95", 2, -1), ("errors", "errors", 0, -1)):
        x, y = (ba["hits1"], ra["hits1"]) if key is None else (b[key], r[key])
        delta = y - x
        css = "won" if delta * better > 0 else "lost" if delta * better < 0 else ""
        lines.append(f"<tr><td>{label}</td><td class='num'>{x:.{digits}f}</td><td class='num'>{y:.{digits}f}</td>"
                     f"<td class='num delta {css}'>{delta:+.{digits}f}</td></tr>")
    lines.append("</tbody></table>")
    return "".join(lines)
