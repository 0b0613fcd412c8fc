"""Two runs of one question set side by side: Hits@1 on the questions both answered, and
which questions one got right that the other did not (the figures behind "lost / won")."""

from __future__ import annotations


def compare(base: dict[str, dict], run: dict[str, dict]) -> dict:
    """`run` against `base` (result rows by question id, as `kgqa eval --out` writes them).
    lost: right (Hits@1) in base, wrong in run; won: the reverse; both over shared ids only."""
    shared = [qid for qid in run if qid in base]
    lost = [qid for qid in shared if base[qid]["hits1"] > run[qid]["hits1"]]
    won = [qid for qid in shared if base[qid]["hits1"] < run[qid]["hits1"]]

    def mean(rows: dict[str, dict], ids: list[str], key: str) -> float:
        return round(sum(rows[qid][key] for qid in ids) / len(ids), 4) if ids else 0.0

    return {
        "n": len(run), "shared": len(shared),
        "hits1": mean(run, list(run), "hits1"),
        "hits1_shared": mean(run, shared, "hits1"), "base_hits1_shared": mean(base, shared, "hits1"),
        "lost": len(lost), "won": len(won), "lost_ids": lost, "won_ids": won,
        "llm_calls_avg": mean(run, list(run), "llm_calls"), "prompt_tokens_avg": mean(run, list(run), "prompt_tokens"),
        "errors": sum(bool(row.get("error")) for row in run.values()),
    }
