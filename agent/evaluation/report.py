"""The Markdown report written next to an evaluation's results: the summary, a
breakdown per hop count or question type, and a plot of accuracy and cost."""

from __future__ import annotations

import statistics
from collections import defaultdict
from pathlib import Path

from agent.evaluation.metrics import answer_scores

GROUP_KEYS = ("hops", "compositionality_type", "function", "level")


def breakdown(rows: list[dict]) -> tuple[str | None, dict[str, list[dict]]]:
    """Rows grouped by the first meta label the questions carry (MetaQA hops, CWQ type)."""
    for key in GROUP_KEYS:
        if any(key in (r.get("meta") or {}) for r in rows):
            groups: dict[str, list[dict]] = defaultdict(list)
            for r in rows:
                groups[str((r.get("meta") or {}).get(key, "?"))].append(r)
            return key, dict(sorted(groups.items()))
    return None, {"all": rows}


def mean_of(rows: list[dict], key: str) -> float:
    """The mean of a result field over rows (a missing or null value counts as 0)."""
    return sum(float(r.get(key) or 0.0) for r in rows) / len(rows) if rows else 0.0


def write_report(rows: list[dict], summary: dict, out_path: Path, command: str) -> Path:
    key, groups = breakdown(rows)
    md = out_path.with_suffix(".md")
    png = out_path.with_suffix(".png")
    lines = [
        f"# Evaluation: {summary['pipeline']} on {summary['n']} questions", "",
        f"Command: `{command}`", "",
        (f"Model `{summary['model']}`, store `{summary['store']}`. Metrics over all {summary['n']} questions "
         "(RoG convention; lenient match is PoG's substring check, reported separately)."), "",
        "| metric | value |", "|---|---:|",
        *[f"| {k} | {v} |" for k, v in summary.items() if k not in ("pipeline", "model", "store")], "",
        *_cache_note(rows),
        f"## By {key or 'question set'}", "",
        "| group | n | Hits@1 | Hit | F1 | coverage | LLM calls | prompt tokens | seconds | non-LLM s p50 |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, group in groups.items():
        lines.append(
            f"| {name} | {len(group)} | {mean_of(group, 'hits1'):.3f} | {mean_of(group, 'hit'):.3f} | "
            f"{mean_of(group, 'f1'):.3f} | {mean_of(group, 'coverage'):.3f} | {mean_of(group, 'llm_calls'):.2f} | "
            f"{mean_of(group, 'prompt_tokens'):.0f} | {mean_of(group, 'seconds'):.2f} | {_non_llm_p50(group):.3f} |"
        )
    _plot(groups, png, summary)
    lines += ["", f"![accuracy and cost]({png.name})", ""]
    md.write_text("\n".join(lines), encoding="utf-8")
    return md


def _non_llm_p50(rows: list[dict]) -> float:
    """Median seconds a question spent outside the model (store, embeddings, Python)."""
    spent = sorted(r["seconds"] - (r.get("llm_seconds") or 0.0) for r in rows)
    return statistics.median(spent) if spent else 0.0


def _cache_note(rows: list[dict]) -> list[str]:
    calls = sum(r.get("llm_calls") or 0 for r in rows)
    hits = sum(r.get("llm_cache_hits") or 0 for r in rows)
    if not hits:
        return []
    return [(f"{hits} of {calls} LLM calls were answered from the reply cache: seconds for those questions "
             "are not generation times (rerun with `--no-cache` to time the model)."), ""]


def _plot(groups: dict[str, list[dict]], png: Path, summary: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")  # files only, no display
    import matplotlib.pyplot as plt

    names = list(groups)
    fig, (acc, cost) = plt.subplots(1, 2, figsize=(10, 4))
    width = 0.25
    for offset, metric in enumerate(("hits1", "f1", "coverage")):
        acc.bar([i + (offset - 1) * width for i in range(len(names))],
                [mean_of(groups[n], metric) for n in names], width, label=metric)
    acc.set_xticks(range(len(names)), names)
    acc.set_ylim(0, 1)
    acc.set_title("accuracy")
    acc.legend()
    cost.bar(range(len(names)), [mean_of(groups[n], "seconds") for n in names], color="gray")
    cost.set_xticks(range(len(names)), names)
    cost.set_title("seconds per question")
    fig.suptitle(f"{summary['pipeline']} / {summary['model']}")
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


def rescored(rows: list[dict]) -> list[dict]:
    """Rows with their metrics recomputed from the stored predictions and gold answers
    under today's metrics (files written before a metric changed stay comparable). The
    lenient figure is recomputed from `raw_output`; coverage needs the retrieved
    entities, which rows do not keep, so it stays as written."""
    return [{**row, **answer_scores(row.get("prediction") or [], row.get("gold") or [], row.get("raw_output") or "")}
            for row in rows]


TABLE_HEADER = ("| run | n | Hits@1 | Hit | F1 | coverage | lenient | LLM calls | prompt tok | completion tok "
                "| s p50 | LLM s p50 (uncached) | errors |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")


def table_row(label: str, rows: list[dict]) -> str:
    """One Markdown table row for a results file, re-scored (`rescored`). LLM seconds are
    the median over questions none of whose replies came from the cache ("-": none)."""
    rows = rescored(rows)
    seconds = [r["seconds"] for r in rows]
    fresh = [r.get("llm_seconds") or 0.0 for r in rows if not r.get("llm_cache_hits")]
    llm = f"{statistics.median(fresh):.1f}" if fresh else "-"
    return (f"| {label} | {len(rows)} | {mean_of(rows, 'hits1'):.3f} | {mean_of(rows, 'hit'):.3f} | "
            f"{mean_of(rows, 'f1'):.3f} | {mean_of(rows, 'coverage'):.3f} | {mean_of(rows, 'lenient_em'):.3f} | "
            f"{mean_of(rows, 'llm_calls'):.2f} | {mean_of(rows, 'prompt_tokens'):.0f} | "
            f"{mean_of(rows, 'completion_tokens'):.0f} | {statistics.median(seconds) if seconds else 0:.1f} | {llm} | "
            f"{sum(bool(r.get('error')) for r in rows)} |")
