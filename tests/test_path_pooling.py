"""Path pooling against hand-computed scores (the notes' worked example, exact fractions)."""

from __future__ import annotations

import pytest

from agent.optional_nodes.path_pooling import PoolingOptions, merged_lines, pool_scores, rerank
from kg_store import Triple

TOY = [
    Triple("Lou Seal", "sports.mascot.team", "San Francisco Giants"),  # 0.9
    Triple("San Francisco Giants", "sports.sports_team.championships", "2010 World Series"),  # 0.8
    Triple("San Francisco Giants", "sports.sports_team.team_mascot", "Lou Seal"),  # 0.7: back into the query entity
    Triple("Oakland Athletics", "sports.sports_team.championships", "1989 World Series"),  # 0.5: unreachable
    Triple("2010 World Series", "time.event.instance_of_recurring_event", "World Series"),  # 0.3: deep on a chain
    Triple("San Francisco Giants", "sports.sports_team.arena_stadium", "AT&T Park"),  # 0.2
]
SCORES = [0.9, 0.8, 0.7, 0.5, 0.3, 0.2]


def test_mean_pooling_with_shortest_paths_matches_the_hand_computation()  ->  None:
    pooled = pool_scores(TOY, SCORES, ["Lou Seal"])
    # kernels: (t0), (t0,t1), (t0,t5), (t0,t1,t4) forward; (t2) backward; t3 alone
    assert pooled == pytest.approx([11 / 10, 19 / 20, 9 / 10, 7 / 10, 11 / 15, 13 / 20], abs=1e-9)
    # the low-scored answer-chain triple now outranks the unreachable one
    assert pooled[4] > pooled[3] and SCORES[4] < SCORES[3]


def test_max_pooling_keeps_the_best_score_along_each_path()  ->  None:
    pooled = pool_scores(TOY, SCORES, ["Lou Seal"], PoolingOptions(pooling="max"))
    assert pooled == pytest.approx([1.1, 1.0, 0.9, 0.7, 29 / 30, 1.0], abs=1e-9)


def test_duplicate_coverage_takes_the_best_kernel_and_unreachable_triples_stand_alone()  ->  None:
    # t0 is on four kernels; its score is the best of them (as a one-triple kernel: 0.9 + 0.2)
    assert pool_scores(TOY, SCORES, ["Lou Seal"])[0] == pytest.approx(1.1)
    # with no query entity in the graph every triple is a one-triple path: s + s_min
    alone = pool_scores(TOY, SCORES, ["Nobody"])
    assert alone == pytest.approx([s + 0.2 for s in SCORES])


def test_bfs_and_random_walks_give_the_same_scores_on_a_tree()  ->  None:
    # the toy graph is a tree around the query entity: every search finds the same paths
    expected = pool_scores(TOY, SCORES, ["Lou Seal"])
    assert pool_scores(TOY, SCORES, ["Lou Seal"], PoolingOptions(search="bfs")) == pytest.approx(expected)
    assert pool_scores(TOY, SCORES, ["Lou Seal"], PoolingOptions(search="random_walk")) == pytest.approx(expected)


def test_bfs_sees_every_simple_path_where_dijkstra_sees_the_shortest()  ->  None:
    # two equal-length paths to d: a-b-d (scores 0.5) and a-c-d (0.9)
    triples = [Triple("a", "r", "b"), Triple("b", "r", "d"), Triple("a", "r", "c"), Triple("c", "r", "d")]
    scores = [0.5, 0.5, 0.9, 0.9]
    dijkstra = pool_scores(triples, scores, ["a"])
    bfs = pool_scores(triples, scores, ["a"], PoolingOptions(search="bfs"))
    # Dijkstra reaches d through the better-scored of the two equal-length paths (a-c-d);
    # b-d is then on no kernel and stands alone: 0.5 + 0.5
    assert dijkstra[1] == pytest.approx(1.0)
    # BFS walks a-b-d too, so b-d is second on that kernel: (0.5 + 0.5)/2 + 0.5/2
    assert bfs[1] == pytest.approx(0.75)


def test_rerank_puts_the_best_last_or_at_both_ends()  ->  None:
    pooled = pool_scores(TOY, SCORES, ["Lou Seal"])
    assert rerank(6, pooled) == [5, 3, 4, 2, 1, 0]
    assert rerank(6, pooled, "middle") == [0, 2, 3, 5, 4, 1]


def test_adjacent_triples_that_meet_are_written_as_one_path()  ->  None:
    ordered = [TOY[i] for i in rerank(6, pool_scores(TOY, SCORES, ["Lou Seal"]), "middle")]
    assert merged_lines(ordered) == [
        "Lou Seal -> sports.mascot.team -> San Francisco Giants -> sports.sports_team.team_mascot -> Lou Seal",
        "Oakland Athletics -> sports.sports_team.championships -> 1989 World Series",
        "San Francisco Giants -> sports.sports_team.arena_stadium -> AT&T Park",
        "2010 World Series -> time.event.instance_of_recurring_event -> World Series",
        "San Francisco Giants -> sports.sports_team.championships -> 2010 World Series",
    ]
    assert merged_lines([Triple("m.1", "r", "m.2"), Triple("m.2", "s", "m.3")], {"m.1": "A", "m.2": "B"}) == [
        "A -> r -> B -> s -> m.3"]
