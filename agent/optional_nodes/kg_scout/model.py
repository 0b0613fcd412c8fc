"""The dual-tower policy network (thesis §3.3.4), layer for layer as the authors' code has it.

    Q_trip = Attn_T(query = triples, key = value = question)      (the same row for every
    Q_rel  = Attn_R(query = relations, key = value = question)     triple: one key; faithful)
    g      = Gate([q, T_i, R_i])                  in (0, 1)
    s_A    = TowerA([T_i, Q_trip_i, q, PPR_i])
    s_B    = TowerB([R_i, Q_rel_i, q, PPR_i])
    score  = Combiner([s_A, s_B, g]);   policy = softmax(score / temperature)

`forward` computes exactly that, but cheaply (training on a CPU in minutes needs it). With
one key, each head's softmax weight is 1, so an attention's output row is
out_proj(v_proj(q)) whatever the query; in training, dropout on the attention weights
zeroes a head's weight for a row with probability p and scales the others by 1/(1-p),
which is drawn here as an (N, heads) mask over the heads' shares. The first layer of a
tower is linear in the concatenation, so the parts that are the same for every candidate
(q) or mix eight per-head vectors (the attention's row) are computed once, and only T_i
and R_i go through N x d x d products: a training step over 1,000 candidates takes 36 ms
on two cores against 78 ms for the layers as written (`reference_forward`, kept for
the tests). The parameters are the same modules, so checkpoints are unchanged.
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
        d = question.shape[0]
        gate_in, tower_a, tower_b = self.gate[0], self.tower_triples[0], self.tower_relations[0]
        hidden = tower_a.out_features
        # Rows [T_i | R_i] times the first layers' T and R columns, in two products.
        from_triples = triples @ torch.cat([tower_a.weight[:, :d], gate_in.weight[:, d:2 * d]]).T
        from_relations = relations @ torch.cat([tower_b.weight[:, :d], gate_in.weight[:, 2 * d:]]).T
        first_a = self._tower_input(tower_a, from_triples[:, :hidden], self.attend_triples, question, ppr)
        first_b = self._tower_input(tower_b, from_relations[:, :hidden], self.attend_relations, question, ppr)
        first_gate = from_triples[:, hidden:] + from_relations[:, hidden:] + (gate_in.weight[:, :d] @ question + gate_in.bias)
        a = self.tower_triples[1:](first_a)
        b = self.tower_relations[1:](first_b)
        gate = self.gate[1:](first_gate)
        return self.combiner(torch.cat([a, b, gate], dim=-1)).squeeze(-1)

    def _tower_input(self, layer: nn.Linear, own: torch.Tensor, attention: nn.MultiheadAttention,
                     question: torch.Tensor, ppr: torch.Tensor) -> torch.Tensor:
        """A tower's first layer on [own_i, attended_i, q, ppr_i], given `own` (its rows'
        product with the layer's first d columns)."""
        d = question.shape[0]
        seen = self._attended(attention, question, own.shape[0], layer.weight[:, d:2 * d])
        return own + seen + ppr @ layer.weight[:, 3 * d:].T + (layer.weight[:, 2 * d:3 * d] @ question + layer.bias)

    def _attended(self, attention: nn.MultiheadAttention, question: torch.Tensor, rows: int,
                  weight: torch.Tensor) -> torch.Tensor:
        """`weight` @ the attention's output row for each of `rows` queries over the one key."""
        d, heads = attention.embed_dim, attention.num_heads
        value = attention.in_proj_weight[2 * d:] @ question + attention.in_proj_bias[2 * d:]
        # Each head's share of out_proj(value), then through `weight`: (heads, hidden).
        per_head = (attention.out_proj.weight.view(d, heads, d // heads) * value.view(1, heads, -1)).sum(-1).T
        per_head = per_head @ weight.T
        constant = attention.out_proj.bias @ weight.T
        if self.training and attention.dropout > 0:
            keep = torch.bernoulli(torch.full((rows, heads), 1 - attention.dropout, device=question.device))
            return keep / (1 - attention.dropout) @ per_head + constant
        return (per_head.sum(0) + constant).expand(rows, -1)

    def reference_forward(self, question: torch.Tensor, triples: torch.Tensor, relations: torch.Tensor,
                          ppr: torch.Tensor) -> torch.Tensor:
        """The layers run as written (slow); `forward` must agree with it."""
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
