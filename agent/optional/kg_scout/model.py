"""The dual-tower policy network (thesis §3.3.4), layer for layer as the authors' code has it.

    Q_trip = Attn_T(query = triples, key = value = question)      (the same row for every
    Q_rel  = Attn_R(query = relations, key = value = question)     triple: one key; faithful)
    g      = Gate([q, T_i, R_i])                  in (0, 1)
    s_A    = TowerA([T_i, Q_trip_i, q, PPR_i])
    s_B    = TowerB([R_i, Q_rel_i, q, PPR_i])
    score  = Combiner([s_A, s_B, g]);   policy = softmax(score / temperature)
"""

from __future__ import annotations

import torch
from torch import nn

DIMENSIONS = 384


def _tower(inputs: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(inputs, 384), nn.LayerNorm(384), nn.ReLU(), nn.Dropout(0.1),
                         nn.Linear(384, 192), nn.ReLU(), nn.Linear(192, 1))


class PolicyNetwork(nn.Module):
    def __init__(self, dims: int = DIMENSIONS) -> None:
        super().__init__()
        self.attend_triples = nn.MultiheadAttention(dims, num_heads=8, dropout=0.1, batch_first=True)
        self.attend_relations = nn.MultiheadAttention(dims, num_heads=8, dropout=0.1, batch_first=True)
        self.gate = nn.Sequential(*_tower(3 * dims), nn.Sigmoid())
        self.tower_triples = _tower(3 * dims + 2)
        self.tower_relations = _tower(3 * dims + 2)
        self.combiner = nn.Sequential(nn.Linear(3, 192), nn.ReLU(), nn.Dropout(0.1), nn.Linear(192, 1))
        self.temperature = nn.Parameter(torch.tensor(1.0))

    def forward(self, question: torch.Tensor, triples: torch.Tensor, relations: torch.Tensor,
                ppr: torch.Tensor) -> torch.Tensor:
        """Scores (N,) of N candidates; question (d,), triples and relations (N, d), ppr (N, 2)."""
        q = question.unsqueeze(0)
        seen_by_triples, _ = self.attend_triples(triples, q, q, need_weights=False)
        seen_by_relations, _ = self.attend_relations(relations, q, q, need_weights=False)
        qs = q.expand(triples.shape[0], -1)
        gate = self.gate(torch.cat([qs, triples, relations], dim=-1))
        a = self.tower_triples(torch.cat([triples, seen_by_triples, qs, ppr], dim=-1))
        b = self.tower_relations(torch.cat([relations, seen_by_relations, qs, ppr], dim=-1))
        return self.combiner(torch.cat([a, b, gate], dim=-1)).squeeze(-1)

    def logits(self, scores: torch.Tensor) -> torch.Tensor:
        return scores / self.temperature.clamp(0.1, 5.0)


def sample_without_replacement(logits: torch.Tensor, k: int, generator: torch.Generator | None = None
                               ) -> tuple[torch.Tensor, torch.Tensor]:
    """k indices drawn one after another from softmax(logits) without replacement
    (Gumbel-top-k draws exactly that), and the log-probability of each draw given the
    earlier ones: z_i - logsumexp(z of the candidates still left)."""
    noise = torch.rand(logits.shape, generator=generator, device=generator.device if generator else logits.device)
    gumbel = -torch.log(-torch.log(noise.to(logits.device).clamp_min(1e-20)))
    chosen = torch.topk(logits.detach() + gumbel, k).indices
    picked = logits[chosen]
    # logsumexp over what is left before each draw = log(total - sum of the earlier picks)
    total = torch.logsumexp(logits, dim=0)
    earlier = torch.cat([torch.zeros(1, device=logits.device), torch.cumsum(torch.exp(picked - total), dim=0)[:-1]])
    remaining = total + torch.log((1.0 - earlier).clamp_min(1e-12))
    return chosen, picked - remaining
