"""Relation-path exploration over a store: clustering, backtracking, CVTs, hubs, joins."""

from __future__ import annotations

from kg_store import Attribute, LoadBatch, Triple
from kg_store.memory import MemoryStore
from kg_store.model import is_value_node, value_node
from kg_store.paths import NeighborCache, Step, _adjacent_seeds, explore, join_topics
from tests.pog_fixture import HUB_FILMS, film_store, store_of


def groups_by_chain(exploration, seed: str) -> dict[tuple, list[str]]:
    return {tuple((s.relation, s.forward) for s in g.chain): g.ends for g in exploration.groups if g.seed == seed}


def test_parallel_edges_become_one_group_with_an_entity_set() -> None:
    walk = explore(NeighborCache(film_store()), ["Tom Hanks"], depth=2)
    chains = groups_by_chain(walk, "Tom Hanks")
    assert chains[(("starred_actors", False),)] == ["Apollo 13", "Big", "Splash"]
    assert chains[(("starred_actors", False), ("directed_by", True))] == ["Penny Marshall", "Ron Howard"]
    # co-stars: never Tom Hanks himself (that is walking back along the edge just taken)
    assert chains[(("starred_actors", False), ("starred_actors", True))] == ["Daryl Hannah", "Elizabeth Perkins",
                                                                           "Kevin Bacon"]


def test_a_path_may_return_to_an_entity_by_another_relation() -> None:
    store = MemoryStore()
    store.write(LoadBatch(triples=[Triple("Film A", "directed_by", "Ann"), Triple("Film B", "directed_by", "Ann"),
                                   Triple("Film B", "written_by", "Ann")],
                          names=[("Film A", "Film A"), ("Film B", "Film B"), ("Ann", "Ann")]))
    walk = explore(NeighborCache(store), ["Film A"], depth=3)
    chains = groups_by_chain(walk, "Film A")
    # "who wrote the films directed by the director of Film A": Ann herself
    assert chains[(("directed_by", True), ("directed_by", False), ("written_by", True))] == ["Ann"]
    # ... but not back along the edge it came by
    assert (("directed_by", True), ("directed_by", False), ("directed_by", True)) not in chains


def test_a_sibling_walk_after_another_relation_keeps_the_entity_it_came_from() -> None:
    """"the elements discovered by the discoverer of Tl's element": Thallium itself, when
    William Crookes discovered nothing else (MetaQA's gold keeps the middle entity too)."""
    store = MemoryStore()
    store.write(LoadBatch(triples=[Triple("Thallium", "symbol", "Tl"), Triple("Thallium", "discovered_by", "Crookes"),
                                   Triple("Helium", "discovered_by", "Ramsay"), Triple("Neon", "discovered_by", "Ramsay"),
                                   Triple("Neon", "symbol", "Ne")],
                          names=[(e, e) for e in ("Thallium", "Tl", "Crookes", "Helium", "Neon", "Ne", "Ramsay")]))
    walk = explore(NeighborCache(store), ["Tl", "Ne"], depth=3)
    siblings = (("symbol", False), ("discovered_by", True), ("discovered_by", False))
    assert groups_by_chain(walk, "Tl")[siblings] == ["Thallium"]
    assert groups_by_chain(walk, "Ne")[siblings] == ["Helium", "Neon"]


def test_no_walk_back_along_a_relation_that_reaches_every_entity_once() -> None:
    """A city is the capital of one country: walking `capital` back from Hanoi finds Vietnam
    again, never a sibling, so "Ho Chi Minh City's country's capital's country" is no path."""
    store = MemoryStore()
    store.write(LoadBatch(triples=[Triple("Ho Chi Minh City", "country", "Vietnam"), Triple("Vietnam", "capital", "Hanoi"),
                                   Triple("Hue", "country", "Vietnam"), Triple("Laos", "capital", "Vientiane")],
                          names=[(e, e) for e in ("Ho Chi Minh City", "Vietnam", "Hanoi", "Hue", "Laos", "Vientiane")]))
    chains = groups_by_chain(explore(NeighborCache(store), ["Ho Chi Minh City"], depth=3), "Ho Chi Minh City")
    assert chains[(("country", True), ("capital", True))] == ["Hanoi"]
    assert (("country", True), ("capital", True), ("capital", False)) not in chains


def test_a_step_that_reaches_only_the_seed_passes_through_it() -> None:
    """"how many people live in the capital of the country where Tokyo is": Tokyo's own
    population, through Tokyo; where a step reaches others too, the seed is left out of
    them (the films that share a director with X are X's siblings, not X)."""
    store = MemoryStore()
    store.write(LoadBatch(triples=[Triple("Tokyo", "country", "Japan"), Triple("Osaka", "country", "Japan"),
                                   Triple("Japan", "capital", "Tokyo"), Triple("Tokyo", "population", "9,733,276"),
                                   Triple("Osaka", "population", "2,691,000"), Triple("Francium", "discovered_by", "Perey"),
                                   Triple("Francium", "symbol", "Fr"), Triple("Helium", "discovered_by", "Ramsay"),
                                   Triple("Neon", "discovered_by", "Ramsay"), Triple("Curacao", "capital", "Willemstad"),
                                   Triple("Netherlands Antilles", "capital", "Willemstad")],
                          names=[(e, e) for e in ("Tokyo", "Osaka", "Japan", "9,733,276", "2,691,000", "Francium",
                                                  "Perey", "Fr", "Helium", "Neon", "Ramsay")]))
    tokyo = groups_by_chain(explore(NeighborCache(store), ["Tokyo", "Osaka"], depth=3), "Tokyo")
    assert tokyo[(("country", True), ("capital", True))] == ["Tokyo"]
    assert tokyo[(("country", True), ("capital", True), ("population", True))] == ["9,733,276"]
    assert tokyo[(("country", True), ("country", False))] == ["Osaka"]  # the seed left out beside Osaka
    # a sibling walk that finds only the seed: "the symbols of the elements discovered by
    # the discoverer of Francium" (Perey discovered nothing else; Ramsay two elements, so
    # `discovered_by` can be walked back to siblings)
    francium = groups_by_chain(explore(NeighborCache(store), ["Francium"], depth=3), "Francium")
    assert francium[(("discovered_by", True), ("discovered_by", False), ("symbol", True))] == ["Fr"]
    # never back along the edge that reached the seed, even where the relation reaches an
    # entity twice (Willemstad is the capital of two countries)
    assert (("country", True), ("capital", True), ("capital", False)) not in tokyo


def test_a_cvt_linking_back_to_the_seed_is_no_way_through_it() -> None:
    """Freebase links a CVT back to the seed (a performance's actor): that is the seed's own
    fact again, so no chain passes through the seed that way."""
    store = film_store()
    store.write(LoadBatch(triples=[Triple("m.cvt1", "film.performance.actor", "m.hanks")]))
    chains = groups_by_chain(explore(NeighborCache(store), ["m.hanks"], depth=2), "m.hanks")
    assert chains[(("film.actor.film", True), ("film.performance.film", True))] == ["m.castaway", "m.gump"]
    assert not any(("film.performance.actor", True) in chain for chain in chains)


def test_concrete_paths_are_rebuilt_from_a_group() -> None:
    walk = explore(NeighborCache(film_store()), ["Tom Hanks"], depth=2)
    group = next(g for g in walk.groups if g.chain == (Step("starred_actors", False), Step("directed_by", True)))
    assert sorted(group.concrete_paths("Ron Howard")) == [["Tom Hanks", "Apollo 13", "Ron Howard"],
                                                         ["Tom Hanks", "Splash", "Ron Howard"]]


def test_unnamed_cvt_nodes_are_walked_through_within_one_hop() -> None:
    walk = explore(NeighborCache(film_store()), ["m.hanks"], depth=1)
    chains = groups_by_chain(walk, "m.hanks")
    assert chains[(("film.actor.film", True), ("film.performance.film", True))] == ["m.castaway", "m.gump"]
    assert chains[(("film.actor.film", True), ("film.performance.character", True))] == ["m.forrest"]
    assert not any(len(c) == 1 for c in chains)  # no path stops at a CVT
    deeper = groups_by_chain(explore(NeighborCache(film_store()), ["m.hanks"], depth=2), "m.hanks")
    assert deeper[(("film.actor.film", True), ("film.performance.film", True),
                   ("film.film.directed_by", True))] == ["m.zemeckis"]


def test_hubs_are_capped_and_reported() -> None:
    cache = NeighborCache(film_store(), limit_per_entity=20)
    walk = explore(cache, ["Big"], depth=2)
    assert "Comedy" in walk.capped_entities
    chains = groups_by_chain(walk, "Big")
    assert len(chains[(("has_genre", True), ("has_genre", False))]) <= 20 < HUB_FILMS


def test_the_cache_reads_each_entity_from_the_store_once() -> None:
    cache = NeighborCache(film_store())
    explore(cache, ["Tom Hanks"], depth=2)
    reads = cache.store_reads
    explore(cache, ["Tom Hanks"], depth=2)
    assert cache.store_reads == reads
    explore(cache, ["Tom Hanks"], depth=3)
    assert cache.store_reads > reads


def test_a_literal_value_ends_a_path_and_is_never_read_from_the_store() -> None:
    store = MemoryStore()
    store.write(LoadBatch(triples=[Triple("Ada", "born_in", "London"), Triple("Byron", "born_in", "London")],
                          names=[("Ada", "Ada"), ("London", "London"), ("Byron", "Byron")],
                          attributes=[Attribute("Ada", "birth_date", "1815"), Attribute("London", "population", "9m"),
                                      Attribute("Byron", "birth_date", "1788")]))
    asked: list[str] = []
    read = store.neighbors
    store.neighbors = lambda ids, **kw: asked.extend(ids) or read(ids, **kw)  # type: ignore[method-assign]
    cache = NeighborCache(store, values=True)
    walk = explore(cache, ["Ada"], depth=3)
    chains = groups_by_chain(walk, "Ada")
    assert chains[(("birth_date", True),)] == [value_node("1815")] and walk.name(value_node("1815")) == "1815"
    assert chains[(("born_in", True), ("population", True))] == [value_node("9m")]
    assert chains[(("born_in", True), ("born_in", False), ("birth_date", True))] == [value_node("1788")]
    assert not any(is_value_node(i) for i in asked)  # a value has no edges: nothing is asked about it
    assert all(not is_value_node(e) for g in walk.groups for hop in g.hops[:-1] for e in hop)  # nor walked on from
    assert cache.names([value_node("9m"), "Ada"]) == {value_node("9m"): "9m", "Ada": "Ada"}
    assert not any(is_value_node(e) for g in explore(NeighborCache(store), ["Ada"], depth=2).groups for e in g.ends)


def test_a_walk_may_start_at_a_value_and_reaches_the_entities_holding_it() -> None:
    store = MemoryStore()
    store.write(LoadBatch(triples=[Triple("Ta", "discovered_by", "Ekeberg")], names=[("Ta", "Tantalum"), ("Ekeberg", "Ekeberg")],
                          attributes=[Attribute("Ta", "symbol", "Ta"), Attribute("Ta", "atomic_number", "73")]))
    walk = explore(NeighborCache(store, values=True), [value_node("Ta")], depth=2)
    chains = groups_by_chain(walk, value_node("Ta"))
    assert chains[(("symbol", False),)] == ["Ta"] and walk.name("Ta") == "Tantalum"
    assert chains[(("symbol", False), ("discovered_by", True))] == ["Ekeberg"]
    assert chains[(("symbol", False), ("atomic_number", True))] == [value_node("73")]


def test_a_beam_limits_which_groups_are_extended() -> None:
    kept_per_hop = []

    def beam(groups, names):
        kept = [g for g in groups if g.chain[-1].relation == "starred_actors"]
        kept_per_hop.append(len(kept))
        return kept

    walk = explore(NeighborCache(film_store()), ["Tom Hanks"], depth=2, beam=beam)
    second_hop = [g for g in walk.groups if len(g.chain) == 2]
    assert second_hop and all(g.chain[0].relation == "starred_actors" for g in second_hop)
    # every first-hop group is still returned, extended or not
    assert {g.chain[0].relation for g in walk.groups} == {"starred_actors"}


def test_a_frontier_over_its_cap_is_cut_and_flagged() -> None:
    walk = explore(NeighborCache(film_store()), ["Comedy"], depth=2, max_frontier=10)
    assert walk.truncated


def test_several_topic_entities_keep_only_where_their_walks_meet() -> None:
    walk = explore(NeighborCache(film_store()), ["Tom Hanks", "Ron Howard"], depth=1)
    joined = join_topics(walk.groups, ["Tom Hanks", "Ron Howard"])
    by_seed = {(g.seed, g.chain): g for g in joined}
    films_with_hanks = by_seed[("Tom Hanks", (Step("starred_actors", False),))]
    assert films_with_hanks.ends == ["Apollo 13", "Splash"]  # the films Ron Howard directed too
    assert films_with_hanks.joins == {"Ron Howard": (Step("directed_by", False),)}
    assert all(g.chain[0].relation in ("starred_actors", "directed_by") for g in joined)


def test_topic_entities_joined_in_fewest_steps_win_over_longer_joins() -> None:
    """"which language written in the Arabic script comes from China": Uyghur joins the two
    topics in two steps; China's official language joins them too, in three, through the
    script of another language of China. A direct edge between the topics answers nothing
    and bounds nothing."""
    from kg_store import LoadBatch, Triple
    from kg_store.memory import MemoryStore

    store = MemoryStore()
    store.write(LoadBatch(
        triples=[Triple("Uyghur", "home_country", "China"), Triple("Uyghur", "script", "Arabic script"),
                 Triple("China", "official_language", "Chinese"), Triple("Chinese", "home_country", "China"),
                 Triple("Chinese", "writing_direction", "left-to-right"),
                 Triple("Kazakh", "writing_direction", "left-to-right"), Triple("Kazakh", "script", "Arabic script"),
                 Triple("China", "script_used", "Arabic script")],
        names=[(e, e) for e in ["Uyghur", "China", "Arabic script", "Chinese", "Kazakh", "left-to-right"]]))
    seeds = ["China", "Arabic script"]
    walk = explore(NeighborCache(store), seeds, depth=2)
    joined = {(g.seed, g.chain): g for g in join_topics(walk.groups, seeds, fewest_steps=True)}
    assert joined[("China", (Step("home_country", False),))].ends == ["Uyghur"]
    assert ("China", (Step("official_language", True),)) not in joined  # Chinese joins in 3 steps
    assert ("China", (Step("script_used", True),)) in joined  # ends at the other topic: no bound
    labelling = {(g.seed, g.chain) for g in join_topics(walk.groups, seeds)}  # a gold path may be longer
    assert ("China", (Step("official_language", True),)) in labelling
    every = {(g.seed, g.chain) for g in join_topics(walk.groups, seeds, shortest=False)}
    assert ("China", (Step("official_language", True), Step("writing_direction", True))) in every


def test_a_step_to_the_other_topic_joins_at_their_common_neighbours_instead() -> None:
    """"which country is next to both Bhutan and India": Bhutan's neighbours are India and
    China, and India reaches itself in no steps; joined there, the path named no answer.
    Two steps on, the other topic is where the path joins it: "which country uses the Euro
    and has French as an official language" ends at the Euro, and the countries answer."""
    store = store_of([("Bhutan", "borders", "India"), ("Bhutan", "borders", "China"), ("India", "borders", "China"),
                      ("India", "borders", "Nepal"), ("France", "official_language", "French"),
                      ("France", "currency", "Euro"), ("Chad", "official_language", "French"),
                      ("Chad", "currency", "CFA franc"), ("Spain", "currency", "Euro")])
    seeds = ["Bhutan", "India"]
    joined = {(g.seed, g.chain): g for g in join_topics(explore(NeighborCache(store), seeds, depth=1).groups, seeds)}
    neighbours = joined[("Bhutan", (Step("borders", True),))]
    assert neighbours.ends == ["China"] and neighbours.joins == {"India": (Step("borders", True),)}
    seeds = ["French", "Euro"]
    joined = {(g.seed, g.chain): g for g in join_topics(explore(NeighborCache(store), seeds, depth=2).groups, seeds)}
    assert joined[("French", (Step("official_language", False), Step("currency", True)))].ends == ["Euro"]
    assert joined[("French", (Step("official_language", False),))].ends == ["France"]


def test_topic_entities_that_never_meet_are_left_as_they_are() -> None:
    walk = explore(NeighborCache(film_store()), ["Tom Hanks", "Lonely Entity"], depth=1)
    assert join_topics(walk.groups, ["Tom Hanks", "Lonely Entity"]) == walk.groups


def test_a_hub_topic_still_cuts_through_the_candidates_own_edges() -> None:
    """"which comedies did Tom Hanks star in": Comedy is a hub whose walk is capped before
    it reaches Big; Big's own edge to Comedy joins them (directly, or through a CVT)."""
    from kg_store import LoadBatch, Triple
    from kg_store.memory import MemoryStore

    store = MemoryStore()
    store.write(LoadBatch(
        triples=[*(Triple(f"Other {i}", "has_genre", "Comedy") for i in range(50)),
                 Triple("Big", "has_genre", "Comedy"), Triple("Big", "starred_actors", "Tom Hanks"),
                 Triple("Apollo 13", "starred_actors", "Tom Hanks"), Triple("Apollo 13", "has_genre", "Drama"),
                 Triple("Splash", "starred_actors", "Tom Hanks"), Triple("Splash", "genre_cvt", "m.cvt"),
                 Triple("m.cvt", "genre", "Comedy")],
        names=[(e, e) for e in ["Big", "Apollo 13", "Splash", "Tom Hanks", "Comedy", "Drama",
                                *(f"Other {i}" for i in range(50))]]))
    cache = NeighborCache(store, limit_per_entity=10)
    seeds = ["Tom Hanks", "Comedy"]
    walk = explore(cache, seeds, depth=1)
    assert join_topics(walk.groups, seeds) == walk.groups  # the capped walks never meet: nothing cut
    joined = {(g.seed, g.chain): g for g in join_topics(walk.groups, seeds, cache)}
    films = joined[("Tom Hanks", (Step("starred_actors", False),))]
    assert films.ends == ["Big"]  # joined by its own edge; Splash's join, through a CVT, is longer
    assert films.joins == {"Comedy": (Step("has_genre", False),)}
    assert _adjacent_seeds(cache, ["Splash", "Apollo 13"], {"Comedy"}) == {
        "Splash": {"Comedy": (Step("genre", False), Step("genre_cvt", False))}}


def test_a_relation_reads_as_words_freebase_or_any_rdf() -> None:
    from kg_store.ids import relation_words

    assert relation_words("film.film.directed_by") == "film directed by"
    assert relation_words("http://www.w3.org/2000/01/rdf-schema#subClassOf") == "sub class of"
    assert relation_words("https://schema.org/isPartOf") == "is part of"
    assert relation_words("http://xmlns.com/foaf/0.1/based_near") == "based near"
    # Loaded from a table, a relation keeps the name its source gave it: a prefixed name's
    # prefix is no word of it, and camel case splits as an IRI's does.
    assert relation_words("dbo:birthPlace") == relation_words("birthPlace") == "birth place"
    assert relation_words("schema:author") == "author"
    assert relation_words("hasCapital") == "has capital"
    assert relation_words("has_tags") == "has tags" and relation_words("capital_of") == "capital of"
    from agent.pog.candidates import relation_naming_words

    # Neo4j's convention for relationship types, and Pascal case: the same naming words.
    assert relation_naming_words("HOME_COUNTRY") == relation_naming_words("HomeCountry") == ["home", "country"]


def test_a_join_to_a_topic_that_is_no_hub_is_read_from_the_topic_s_own_edges() -> None:
    """The ends' side read thousands of ends and their CVTs a Freebase question, and an end
    that is itself a hub could have its edge to the topic cut by its own cap."""
    store = MemoryStore()
    store.write(LoadBatch(
        triples=[*(Triple("Big", "has_tags", f"tag {i}") for i in range(30)), Triple("Big", "directed_by", "Penny Marshall"),
                 Triple("Splash", "release_cvt", "m.cvt"), Triple("m.cvt", "released_by", "Penny Marshall")],
        names=[(e, e) for e in ["Big", "Splash", "Penny Marshall", *(f"tag {i}" for i in range(30))]]))
    cache = NeighborCache(store, limit_per_entity=10)
    assert _adjacent_seeds(cache, ["Big", "Splash"], {"Penny Marshall"}) == {
        "Big": {"Penny Marshall": (Step("directed_by", False),)},
        "Splash": {"Penny Marshall": (Step("released_by", False), Step("release_cvt", False))}}
    assert cache.store_reads == 2  # Penny Marshall and her CVT; neither film's 31 edges


def test_a_hub_topic_smaller_than_the_ends_side_is_read_whole_from_its_own_side() -> None:
    """A party of a few thousand members, joined to 5,000 path ends: its own edges (and its
    CVTs') are fewer than the ends' capped edges, and no end's cap can hide its edge to it."""
    store = MemoryStore()
    store.write(LoadBatch(
        triples=[*(Triple(f"Other {i}", "has_genre", "Comedy") for i in range(11)),
                 *(Triple("Big", "has_tags", f"tag {i}") for i in range(30)), Triple("Big", "has_genre", "Comedy"),
                 Triple("Splash", "genre_cvt", "m.cvt"), Triple("m.cvt", "genre", "Comedy")],
        names=[(e, e) for e in ["Big", "Splash", "Comedy", *(f"Other {i}" for i in range(11)),
                                *(f"tag {i}" for i in range(30))]]))
    cache = NeighborCache(store, limit_per_entity=10)
    assert cache.neighbors(["Comedy"])[1] == {"Comedy"}  # a capped hub of 13 edges
    ends = ["Big", "Splash", "Apollo 13"]  # the ends' side would read up to 30 edges
    assert _adjacent_seeds(cache, ends, {"Comedy"}) == {
        "Big": {"Comedy": (Step("has_genre", False),)},
        "Splash": {"Comedy": (Step("genre", False), Step("genre_cvt", False))}}
    assert cache.store_reads == 2  # Comedy (capped, for its walk) and its CVT: none of the ends
