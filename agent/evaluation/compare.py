"""Two runs of one question set side by side: Hits@1 on the questions both answered,
which questions one got right that the other did not (the figures behind "lost / won"),
and which answered from another path."""

from __future__ import annotations

from agent.evaluation.report import mean_of


def compare(base: dict[str, dict], run: dict[str, dict]) -> dict:
    """`run` against `base` (result rows by question id, as `kgqa eval --out` writes them).
    lost: right (Hits@1) in base, wrong in run; won: the reverse; changed paths: the
    answer came from another path (PoG rows); all over shared ids only."""
    shared = [qid for qid in run if qid in base]
    lost = [qid for qid in shared if base[qid]["hits1"] > run[qid]["hits1"]]
    won = [qid for qid in shared if base[qid]["hits1"] < run[qid]["hits1"]]
    changed = [qid for qid in shared if answer_path(base[qid]) != answer_path(run[qid])]

    run_rows, run_shared, base_shared = list(run.values()), [run[q] for q in shared], [base[q] for q in shared]
    return {
        "n": len(run), "shared": len(shared),
        "hits1": round(mean_of(run_rows, "hits1"), 4),
        "hits1_shared": round(mean_of(run_shared, "hits1"), 4),
        "base_hits1_shared": round(mean_of(base_shared, "hits1"), 4),
        "lost": len(lost), "won": len(won), "lost_ids": lost, "won_ids": won,
        "changed_paths": len(changed), "changed_path_ids": changed,
        "llm_calls_avg": round(mean_of(run_rows, "llm_calls"), 4),
        "prompt_tokens_avg": round(mean_of(run_rows, "prompt_tokens"), 4),
        "errors": sum(bool(row.get("error")) for row in run_rows),
    }


def answer_path(row: dict) -> str | None:
    """The path a row's answer came from, as text (PoG rows; None for other pipelines)."""
    details = row.get("details")
    return details.get("answer_path") if isinstance(details, dict) else None
