"""Relation paths from topic entities, over any store: the graph side of PoG's exploration.

Paths that follow the same relation sequence from the same topic entity are merged into
one `PathGroup` whose hops are entity sets (PoG's node/relation clustering: `{Tom Hanks}
<- starred_actors <- {Forrest Gump, Big, ...} -> directed_by -> {Robert Zemeckis, ...}`).
Exploring by groups keeps the work proportional to the number of distinct relation
sequences, not to the number of concrete paths, which explodes through hubs.

Freebase joins many facts through unnamed CVT nodes (`actor -film.actor.film-> CVT
-film.performance.film-> film`). A hop that lands only on unnamed nodes is continued
through them in the same depth step, so depth counts hops between named entities, as
the Freebase question sets count them.
"""

from __future__ import annotations

import threading
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from kg_store.base import GraphStore
from kg_store.model import UNNAMED, Edge, is_value_node, value_of


class Step(NamedTuple):  # a tuple: walks hash hundreds of thousands of chains
    relation: str
    forward: bool  # True: walked head -> tail; False: walked the edge backwards


Chain = tuple[Step, ...]


@dataclass
class PathGroup:
    seed: str
    chain: Chain
    # hops[i]: the entities reached after step i, each with the set of entities of the
    # previous hop it was reached from (to rebuild concrete paths for evidence).
    hops: list[dict[str, set[str]]]
    # Multi-entity questions: for each other topic entity whose walk meets this group's
    # ends, the relation sequence it took to get there (PoG's bidirectional join).
    joins: dict[str, Chain] = field(default_factory=dict)

    @property
    def ends(self) -> list[str]:
        return sorted(self.hops[-1]) if self.hops else [self.seed]

    @property
    def key(self) -> tuple[str, Chain]:
        return self.seed, self.chain

    def concrete_paths(self, end: str, limit: int = 3) -> list[list[str]]:
        """Up to `limit` node sequences seed .. end that this group contains."""
        found: list[list[str]] = []

        def walk(hop: int, node: str, suffix: list[str]) -> None:
            if len(found) >= limit:
                return
            if hop < 0:
                found.append([self.seed, *suffix])
                return
            parents = self.hops[hop].get(node, ())
            # Every parent leads back to the seed: for one path the least is enough, unsorted.
            for parent in (min(parents),) if limit == 1 and parents else sorted(parents):
                walk(hop - 1, parent, [node, *suffix])

        walk(len(self.hops) - 1, end, [])
        return found


@dataclass
class Exploration:
    """Every path group from the seeds up to `depth` named hops, and the names seen."""

    groups: list[PathGroup]
    names: dict[str, str | None]
    capped_entities: set[str] = field(default_factory=set)
    # Something was cut: a frontier over `max_frontier`, or a hop over `max_groups`.
    truncated: bool = False
    # Distinct entities and edges the walk read from the store (the question subgraph).
    entities: int = 0
    edges: int = 0

    def name(self, entity: str) -> str:
        return self.names.get(entity) or UNNAMED


class NeighborCache:
    """Read-through cache of per-entity neighbour lists in front of a store.

    One question's walk revisits the same entities at each depth and phase, and the
    questions of a benchmark share hubs; the store is read once per entity. Only for
    stores nobody writes to meanwhile. Thread-safe (evaluations answer in parallel).
    """

    def __init__(self, store: GraphStore, *, limit_per_entity: int | None = 100, max_entities: int = 200_000,
                 every_relation: bool = False, values: bool = False) -> None:
        self.store, self.limit_per_entity, self.max_entities = store, limit_per_entity, max_entities
        self.every_relation = every_relation  # a capped hub keeps a few edges of each relation (GraphStore.neighbors)
        self.values = values  # literal attributes as edges to value nodes, and a value node's holders (GraphStore.neighbors)
        self._edges: OrderedDict[str, list[Edge]] = OrderedDict()
        self._capped: set[str] = set()
        self._names: OrderedDict[str, str | None] = OrderedDict()
        self._lock = threading.Lock()
        self.store_reads = 0  # entities fetched from the store (cache misses)

    def neighbors(self, ids: Sequence[str]) -> tuple[dict[str, list[Edge]], set[str]]:
        """(edges of each id, the ids whose edges were capped as hubs). A value node's edges
        are the entities holding its value where the cache reads values, else none (and the
        store is not asked)."""
        with self._lock:
            missing = [i for i in dict.fromkeys(ids) if i not in self._edges and (self.values or not is_value_node(i))]
        if missing:
            hood = self.store.neighbors(missing, limit_per_entity=self.limit_per_entity,
                                        every_relation=self.every_relation, values=self.values)
            with self._lock:
                self.store_reads += len(missing)
                for entity in missing:
                    self._edges[entity] = hood.edges.get(entity, [])
                self._capped |= hood.truncated
                while len(self._edges) > self.max_entities:
                    self._capped.discard(self._edges.popitem(last=False)[0])
        with self._lock:
            edges = {}
            for entity in ids:
                edges[entity] = self._edges.get(entity, [])
                if entity in self._edges:
                    self._edges.move_to_end(entity)
            return edges, {i for i in ids if i in self._capped}

    def reached_twice(self, step: Step) -> bool:
        """Whether walking `step` reaches some entity from two or more: whether walking it
        back can find siblings (`GraphStore.reached_twice`)."""
        return self.store.reached_twice(step.relation, step.forward)

    def names(self, ids: Sequence[str]) -> dict[str, str | None]:
        """Each entity's name; a value node's is its value."""
        with self._lock:
            missing = [i for i in dict.fromkeys(ids) if i not in self._names and not is_value_node(i)]
        if missing:
            found = self.store.names(missing)
            with self._lock:
                self._names.update((i, found.get(i)) for i in missing)
                while len(self._names) > self.max_entities:
                    self._names.popitem(last=False)
        with self._lock:
            return {i: value_of(i) if is_value_node(i) else self._names.get(i) for i in ids}


# Picks the groups of one hop worth extending, given the names seen so far.
Beam = Callable[[list[PathGroup], dict[str, str | None]], list[PathGroup]]


def explore(
    source: NeighborCache,
    seeds: Sequence[str],
    *,
    depth: int,
    max_frontier: int = 5_000,
    max_groups: int = 2_000,
    beam: Beam | None = None,
    through_unnamed: bool = True,
) -> Exploration:
    """Path groups from each seed up to `depth` hops, breadth first, one batched store
    read per hop (entities already read come from the cache).

    A path returns to its seed only where a step reaches the seed alone (it passes through
    the topic itself); it may return to another entity: B -r'-> A by
    another relation ("the writer of the films directed by X" can be X), or back along the
    edge it just took after another relation, where that relation reaches some entity twice
    (X -r1-> A -r2-> B <-r2- {A, ...}: A is one of its own siblings). `max_frontier` caps
    the entities one hop expands; groups beyond `max_groups` per hop are dropped (the
    smallest entity sets kept: those are the specific relations). `beam`, when given, picks
    which of a hop's groups are extended further (every group is still returned). With
    `through_unnamed`, a group whose ends are all unnamed (CVTs) is continued through them
    within the same hop.
    """
    seeds = list(dict.fromkeys(seeds))
    names: dict[str, str | None] = dict(source.names(seeds))
    exploration = Exploration([], names)
    seen_entities: set[str] = set(seeds)
    current = [PathGroup(seed, (), []) for seed in seeds]
    for _ in range(depth):
        following = _step(source, current, exploration, max_frontier, seen_entities)
        if through_unnamed:
            unnamed = [g for g in following if all(names.get(e) is None for e in g.hops[-1])]
            if unnamed:
                continued = _step(source, unnamed, exploration, max_frontier, seen_entities)
                unnamed_ids = {id(g) for g in unnamed}
                following = [g for g in following if id(g) not in unnamed_ids] + (continued or unnamed)
        if len(following) > max_groups:
            following.sort(key=lambda g: len(g.hops[-1]))
            following, exploration.truncated = following[:max_groups], True
        exploration.groups.extend(following)
        current = beam(following, names) if beam else following
        if not current:
            break
    exploration.entities = len(seen_entities)
    return exploration


def _step(
    source: NeighborCache, groups: list[PathGroup], exploration: Exploration, max_frontier: int, seen: set[str]
) -> list[PathGroup]:
    """Every group extended by one edge, new groups keyed by (seed, chain + step)."""
    # A walk may start at a value (a topic "with symbol Ta"), never pass through one: a value
    # reached is a leaf (a common one, a year, would join everything that has it).
    frontier = list(dict.fromkeys(e for g in groups for e in (
        [x for x in g.hops[-1] if not is_value_node(x)] if g.hops else [g.seed])))
    if len(frontier) > max_frontier:
        frontier, exploration.truncated = frontier[:max_frontier], True
    if not frontier:
        return []
    edges, capped = source.neighbors(frontier)
    exploration.capped_entities |= capped
    exploration.edges += sum(len(es) for es in edges.values())
    names = exploration.names
    following: list[PathGroup] = []
    for group in groups:
        if group.hops and all(is_value_node(e) for e in group.hops[-1]):
            continue  # a value reached ends the path
        last = group.chain[-1] if group.chain else None
        # Walking back along the edge just taken reaches the siblings of where it came from,
        # that entity included: "the elements discovered by the discoverer of Tl's element"
        # are Thallium alone when William Crookes discovered nothing else (MetaQA's answers
        # keep it too). Not where it cannot reach a sibling: after a step that itself walked
        # back (r, r⁻¹, r), or along a relation no entity is reached by twice (a city is
        # the capital of one country: Hanoi's country is Vietnam again, however asked).
        # Nor from the seed passed through: back along that edge is where the path came from.
        back_to_parents = last is not None and not (
            len(group.chain) >= 2 and group.chain[-2] == Step(last.relation, not last.forward)
        ) and group.seed not in group.hops[-1] and source.reached_twice(last)
        # One group's extensions are its own (groups differ by seed or chain): collect them
        # by (relation, direction) and build each chain once, not once per edge (the
        # inner loop runs for millions of edges when a memory is synthesised).
        by_step: dict[tuple[str, bool], dict[str, set[str]]] = {}
        to_seed: dict[tuple[str, bool], set[str]] = {}  # steps that reach the seed, from which entities
        for entity, parents in (group.hops[-1].items() if group.hops else [(group.seed, set())]):
            for edge in edges.get(entity, ()):
                neighbour = edge.neighbor
                forward = edge.direction == "out"
                if not back_to_parents and neighbour in parents and edge.relation == last.relation \
                        and forward != last.forward:
                    continue  # back along the edge just walked
                if neighbour == group.seed:
                    # Not a fact of the seed's with itself, nor a CVT's link back to it (the
                    # seed's own fact again, under a longer chain).
                    if group.hops and names.get(entity) is not None:
                        to_seed.setdefault((edge.relation, forward), set()).add(entity)
                    continue
                names.setdefault(neighbour, edge.neighbor_name)
                seen.add(neighbour)
                reached = by_step.get((edge.relation, forward))
                if reached is None:
                    reached = by_step[(edge.relation, forward)] = {}
                parents_of = reached.get(neighbour)
                if parents_of is None:
                    reached[neighbour] = {entity}
                else:
                    parents_of.add(entity)
        # A step that reaches the seed alone passes through it: "the capital of the country
        # where Tokyo is" is Tokyo, and its population is Tokyo's. Where the step reaches
        # other entities too, the seed is left out of them, as benchmarks' answers leave the
        # topic out at every hop (MetaQA's: "the genres of the films that share directors
        # with X" are those of X's siblings, not X's own).
        for step, parents in to_seed.items():
            by_step.setdefault(step, {group.seed: parents})
        following += [PathGroup(group.seed, (*group.chain, Step(relation, forward)), [*group.hops, reached])
                      for (relation, forward), reached in by_step.items()]
    return following


def join_topics(groups: Iterable[PathGroup], seeds: Sequence[str], source: NeighborCache | None = None,
                max_ends: int = 5_000, *, shortest: bool = True, fewest_steps: bool = False) -> list[PathGroup]:
    """PoG's graph reduction for questions with several topic entities.

    A group's ends are cut to the entities that every other topic entity also reaches,
    and of those to the ones it reaches by the shortest join:
    its own walk's entities (the intersection of their neighbourhoods), or, with a
    `source` to read from, an edge from the end to it, directly or through an unnamed CVT
    node. The second way is what makes the cut work when the other topic is a hub whose
    walk was capped ("Male" in "which of JFK's brothers ...", "Democratic Party"): its
    neighbours are never all read, but a brother's own edges name it. One step from its seed,
    a group that reaches another topic itself joins where else the topics meet, if anywhere:
    nothing lies between the two to answer. The other walks'
    relation sequences are recorded as `joins`; groups whose ends no other topic reaches
    are dropped. With one seed, or when no group connects all seeds, nothing is cut.
    `shortest=False` is the paper's reduction: every end that all topic entities reach
    (the intersection of their neighbourhoods), however long the joins.

    With `fewest_steps`, of the groups that join the topics at an entity other than
    themselves, only those whose whole path (the group's chain and its joins) has the
    fewest steps are kept: PoG explores deeper only while no path connects the topic
    entities, and a longer join through a relation many entities share connects nearly
    anything (China's official language, left-to-right like a language written in the
    Arabic script). A join that ends at a topic entity itself (Israel -> continent -> Asia,
    both topics) answers nothing and sets no bound. Labelling a question from its gold
    answers leaves it off: the gold path need not be the shortest join.
    """
    groups = list(groups)
    if len(set(seeds)) < 2:
        return groups
    # For each seed: each reached entity -> the shortest chain that reached it.
    reach: dict[str, dict[str, Chain]] = {s: {s: ()} for s in seeds}
    for group in sorted(groups, key=lambda g: len(g.chain)):
        for entity in group.hops[-1]:
            reach[group.seed].setdefault(entity, group.chain)
    if source is not None:
        ends = list(dict.fromkeys(e for g in groups for e in g.hops[-1]))[:max_ends]
        for end, chains in _adjacent_seeds(source, ends, set(seeds)).items():
            for seed, chain in chains.items():
                reach[seed].setdefault(end, chain)
    joined: list[PathGroup] = []
    for group in groups:
        others = [s for s in dict.fromkeys(seeds) if s != group.seed]
        shared = set(group.hops[-1]).intersection(*(reach[o].keys() for o in others))
        if not shared:
            continue
        # One step from the seed, another topic is no end to join at: nothing lies between
        # them to answer, and it would leave out the neighbours of both ("which country is
        # next to both Bhutan and India": India reaches itself in no steps, China in one).
        # Further on, it is: the entities before it answer ("the countries of X that use *the Euro*").
        if len(group.chain) == 1:
            shared = shared - set(others) or shared
        # Only the ends the other topics reach most directly: at D_max every film of the
        # director is within a few hops of any actor, and the intersection cuts nothing.
        if shortest:
            lengths = {e: sum(len(reach[o][e]) for o in others) for e in shared}
            shared = {e for e in shared if lengths[e] == min(lengths.values())}
        first = min(shared)
        joins = {o: reach[o][first] for o in others}
        joined.append(PathGroup(group.seed, group.chain, _through(group.hops, shared), joins))
    if fewest_steps:
        topics = set(seeds)
        lengths = [_join_length(g) for g in joined]
        answering = [n for g, n in zip(joined, lengths, strict=True) if set(g.hops[-1]) - topics]
        if answering:
            least = min(answering)
            joined = [g for g, n in zip(joined, lengths, strict=True) if n <= least]
    return joined or groups


def _join_length(group: PathGroup) -> int:
    """The steps of a joined group's whole path: its own chain and every join."""
    return len(group.chain) + sum(len(chain) for chain in group.joins.values())


def connect(source: NeighborCache, seeds: Sequence[str], targets: Sequence[str], *, depth: int,
            max_frontier: int = 5_000, max_groups: int = 200) -> Exploration:
    """Paths of at most `depth` hops from the seeds to the targets, by a bidirectional
    search (PoG's phase 2, which joins the topic entities to the model's guesses): half
    the hops walked from the seeds, the rest from the targets, joined where the walks
    meet. Each walk reads its own side's neighbours, so a hub between the two whose
    neighbours are capped is still crossed: the target's own edges name it. At most
    `max_groups` groups, the shortest first, with the names both walks saw."""
    targets = [t for t in dict.fromkeys(targets) if t not in seeds]
    if not targets or not seeds:
        return Exploration([], {})
    ahead = (depth + 1) // 2
    # Hops are counted as phase 1 counts them: a step onto unnamed nodes (a CVT) and the
    # step on from them are one hop.
    forward = explore(source, seeds, depth=ahead, max_frontier=max_frontier)
    backward = explore(source, targets, depth=depth - ahead, max_frontier=max_frontier)
    meets: dict[str, list[PathGroup]] = defaultdict(list)  # entity -> the target-side groups that reach it
    for group in backward.groups:
        for entity in group.hops[-1]:
            meets[entity].append(group)
    wanted = set(targets)
    joined: dict[tuple[str, Chain], PathGroup] = {}
    for group in forward.groups:
        ends = set(group.hops[-1])
        if ends & wanted:
            _merge(joined, PathGroup(group.seed, group.chain, _through(group.hops, ends & wanted)))
        for back in {id(b): b for e in ends for b in meets.get(e, ())}.values():
            meeting = ends & set(back.hops[-1])
            chain = (*group.chain, *(Step(s.relation, not s.forward) for s in reversed(back.chain)))
            _merge(joined, PathGroup(group.seed, chain, _through(group.hops, meeting) + _reversed(back, meeting)))
    groups = sorted(joined.values(), key=lambda g: (len(g.chain), g.seed, g.chain))[:max_groups]
    return Exploration(groups, {**backward.names, **forward.names})


def _reversed(group: PathGroup, meeting: set[str]) -> list[dict[str, set[str]]]:
    """A target-side group's hops walked back from `meeting` to its seed (the target)."""
    hops, level = [], meeting
    for hop in reversed(group.hops):
        back: dict[str, set[str]] = defaultdict(set)
        for entity in level:
            for parent in hop.get(entity, ()):
                back[parent].add(entity)
        hops.append(dict(back))
        level = set(back)
    return hops


def _merge(groups: dict[tuple[str, Chain], PathGroup], group: PathGroup) -> None:
    """Add `group`, or merge its hops into the group of the same seed and chain."""
    known = groups.get(group.key)
    if known is None:
        groups[group.key] = group
        return
    for mine, theirs in zip(known.hops, group.hops, strict=True):
        for entity, parents in theirs.items():
            mine.setdefault(entity, set()).update(parents)


def _through(hops: list[dict[str, set[str]]], ends: set[str]) -> list[dict[str, set[str]]]:
    """The hops cut to the entities on some path to `ends`: graph reduction keeps only the
    edges on paths that meet ("Ron Howard <- directed_by <- {films} -> starred_actors ->
    Tom Hanks" keeps the films with Tom Hanks in them, not every film Ron Howard made)."""
    kept = [dict.fromkeys(ends)]
    for hop in reversed(hops[1:]):
        kept.insert(0, dict.fromkeys(p for e in kept[0] for p in hop[e]))
    return [{e: hop[e] & (set(kept[i - 1]) if i else hop[e]) for e in kept[i]} for i, hop in enumerate(hops)]


def _adjacent_seeds(source: NeighborCache, entities: Sequence[str], seeds: set[str]) -> dict[str, dict[str, Chain]]:
    """For each entity with an edge to a seed (directly, or through one unnamed CVT node):
    seed -> the chain walked from the seed to the entity.

    Read from the seed's side: its edges, then those of its unnamed neighbours. A capped
    hub's edges are read whole for it where there are fewer than the entities' side would
    read (the entities' capped edges): a party of a few thousand members on Freebase, read
    from 5,000 ends, their CVTs included, cost six seconds. Only a hub larger than that
    is read from the entities' side (an end's own cap could hide its edge to the hub)."""
    _, capped = source.neighbors(sorted(seeds))
    found: dict[str, dict[str, Chain]] = {}

    def add(walks: dict[str, dict[str, Chain]]) -> None:
        for seed, ends in walks.items():
            for end, chain in ends.items():
                found.setdefault(end, {}).setdefault(seed, chain)

    add(_walks_to(source, sorted(seeds - capped), set(entities)))
    far = set()
    bound = len(entities) * (source.limit_per_entity or 0)
    for hub in sorted(seeds & capped):
        whole = source.store.neighbors([hub], limit_per_entity=max(bound, 1), values=source.values)
        if hub in whole.truncated:
            far.add(hub)
        else:
            add(_walks_to(source, [hub], set(entities), whole.edges))
    if far:
        for entity, chains in _walks_to(source, entities, far).items():
            for hub, chain in chains.items():
                back = tuple(Step(step.relation, not step.forward) for step in reversed(chain))
                found.setdefault(entity, {}).setdefault(hub, back)
    return found


def _walks_to(source: NeighborCache, starts: Sequence[str], targets: set[str],
              edges: dict[str, list[Edge]] | None = None) -> dict[str, dict[str, Chain]]:
    """For each start with an edge to a target (directly, or through one unnamed CVT node):
    target -> the chain walked from the start to it, a direct edge first. The starts' own
    `edges` when already read, else their (capped) edges from `source`."""
    if edges is None:
        edges, _ = source.neighbors(starts)
    found: dict[str, dict[str, Chain]] = {}
    through: dict[str, list[tuple[str, Step]]] = defaultdict(list)  # CVT -> (start, step start->CVT)
    for start in starts:
        for edge in edges.get(start, ()):
            step = Step(edge.relation, edge.direction == "out")
            if edge.neighbor in targets:
                found.setdefault(start, {}).setdefault(edge.neighbor, (step,))
            elif edge.neighbor_name is None:
                through[edge.neighbor].append((start, step))
    if through:
        cvt_edges, _ = source.neighbors(list(through))
        for cvt, pairs in through.items():
            for edge in cvt_edges.get(cvt, ()):
                if edge.neighbor in targets:
                    onward = Step(edge.relation, edge.direction == "out")
                    for start, step in pairs:
                        if edge.neighbor != start:
                            found.setdefault(start, {}).setdefault(edge.neighbor, (step, onward))
    return found
