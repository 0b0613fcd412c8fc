"""Every knob of the PoG agent, in one validated object (`Settings.pog`, `KGQA_POG__*`)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field, ModelWrapValidatorHandler, model_validator

from agent.optional_nodes.config import GRAPHRAG_FI_NAMES, GraphRAGFIConfig, PoolingConfig
from kg_store import GraphStore
from kg_store.paths import NeighborCache

# The paper's four pruning strategies.
Strategy = Literal["fuzzy", "fuzzy+precise", "fuzzy+branch", "fuzzy+branch+precise"]
STRATEGIES: tuple[str, ...] = Strategy.__args__  # type: ignore[attr-defined]


class ScoreWeights(BaseModel):
    """How fuzzy selection adds up a path's score (see agent/pog/scoring.py)."""

    question: float = Field(default=1.0, description="Embedding similarity of path and question.")
    indicator: float = Field(default=0.5, description="Embedding similarity of path and the LLM's indicator.")
    memory: float = Field(default=2.0, description="Path-memory vote for the path's relation sequence.")
    synthetic_memory: float = Field(default=0.3, description="The path-memory vote in place of `memory` when the "
                                    "memory is synthesised (kgqa memory synthesize): its written questions match a "
                                    "real one less surely than asked ones, so its vote joins the other terms rather "
                                    "than overriding them (the development KGs' tuning parts: 0.3 lost no set against "
                                    "0.4 and won Freebase possessive 2-hop; 0.2 lost five).")
    depth: float = Field(default=0.1, description="Bonus when the path's depth is the depth a path memory predicts.")
    length: float = Field(default=0.05, description="Penalty per hop beyond the first: a longer path must earn "
                          "its extra hops by a closer match (the embeddings alone favour longer paths).")
    unnamed: float = Field(default=0.2, description="Penalty per step whose relation the question does not name "
                           "(PathScorer.named): the embeddings favour paths that run on past the answer "
                           "(written_by, then starred_actors, for 'what did X write').")
    missing: float = Field(default=0.1, description="Penalty per word of the question that names a relation (of "
                           "those the candidate paths walk) when the path walks none it names: 'who directed the films "
                           "X acted in' is not answered by the films X acted in.")
    skipped: float = Field(default=0.1, description="Penalty per relational noun of the question that names no "
                           "relation ('the *neighbours* of') where another candidate walks this path's steps with an "
                           "unnamed one more that stands for it: 'what currencies do the neighbours of the country "
                           "with capital X use' is not the country's own currency.")
    first: float = Field(default=0.1, description="Penalty for a path whose first step is not the relation the "
                         "question names next to its topic, or as what the topic shares (paths.topic_relation): "
                         "sentence embeddings hardly see order, and 'the release years of the films that share "
                         "directors with X' matched release_year, back, directed_by as well as the right path.")
    way: float = Field(default=0.1, description="Penalty per step that walks a relation against the way the word "
                       "naming it reads it: an owner noun ('the *requirements* of X' are what X requires, not what "
                       "requires X; 'the *parts* of X' are `part_of` X), or the verb beside the topic ('the packages "
                       "that *require* X'): where a relation joins things of one kind, only the words' order tells "
                       "its direction.")
    synonym: float = Field(default=0.75, ge=0.0, le=1.0, description="How alike (cosine of the word embeddings) a "
                           "question word and a word of a relation must be for the word to name the relation, where "
                           "the letters do not ('wrote' names `written_by` at 0.89; 'films' is 0.64 from 'actors', "
                           "'directors' 0.58): the unnamed and missing terms' synonym test.")
    middle: float = Field(default=0.3, description="Penalty for a path whose last relation the question names only "
                          "in the topic's own phrase ('X 's country', 'the country where X is') while it asks for "
                          "something else ('what currency ...'): the path stops at the first link of the chain.")
    kind: float = Field(default=0.3, description="Penalty for a path whose last relation the question's asked words "
                        "name ('which countries ...', `country`) and that walks it backwards, to its heads; not where "
                        "the word order reads that way ('which unit ... is defined from the pint').")
    loop: float = Field(default=0.3, description="Penalty for a path that ends where it has been (its start, or "
                        "only entities of an earlier hop): its last steps return to the chain's middle.")
    value: float = Field(default=0.3, description="Penalty for a path none of whose ends is a number or a date when "
                         "the question asks for one ('how many ...', 'when ...', 'in what year ...'): it stops "
                         "before the value (a country for 'how many people live in X 's capital').")
    number: float = Field(default=0.1, description="Penalty for a path that passes through many entities where "
                          "the question names one ('the symbol of the *unit* the yard is defined from') and another "
                          "way along its relations passes through one: the metre, not the seven units defined "
                          "from the yard.")
    fit: float = Field(default=0.15, description="Bonus by how alike (sentence embeddings) the words that say what "
                       "the question asks for are to the names at the path's end ('which *elements* ...': Argon and "
                       "Helium, not Scotland): the graph's own names tell what kind of thing a path reaches. Weighed "
                       "so that it decides between paths the other terms score nearly alike.")
    back: float = Field(default=0.1, description="Penalty for a path that ends among its topic's siblings (it walks "
                        "its last relation back: the films that share X's director) when the question does not ask "
                        "for siblings ('also', 'same', 'share', 'co-'), or that never walks back when it does.")


Preset = Literal["small", "paper"]
# The knobs a preset owns, and what each preset sets them to unless a knob is given
# explicitly (in the settings, the environment or a flag: a given knob beats any preset,
# and a preset given later replaces only what no one gave). `small`: the routes measured to
# win with the 0.5B model (the field defaults). `paper`: PoG as the paper describes it (WWW
# '25, sections 4.1-4.4 and appendix A), for models that follow instructions and judge
# their own evidence (7B and up, hosted APIs): its fuzzy selection is embedding similarity
# alone (none of the small model's structural terms) and the model's pick of a kept path
# answers wherever that path ranks (a margin no two scores are apart by).
_PAPER_WEIGHTS = {"depth": 0.0, "length": 0.0, "unnamed": 0.0, "missing": 0.0, "skipped": 0.0, "first": 0.0, "way": 0.0,
                  "middle": 0.0, "kind": 0.0, "loop": 0.0, "back": 0.0, "value": 0.0, "number": 0.0,
                  "fit": 0.0}
PRESETS: dict[str, dict[str, object]] = {
    "small": {
        "analysis": "when_needed", "strategy": "fuzzy", "start_depth": "structure", "supplement_search": "path_ends",
        "expand_rounds": 1, "plan_in_prompts": False, "summary": "paths", "sufficiency": "structural",
        "reduction": "shortest", "final_answer": "best_path", "answer_margin": 0.05, "weights": {},
    },
    "paper": {
        "analysis": "always",
        "strategy": "fuzzy+precise",  # the paper's experiments (section 5)
        "start_depth": "model",  # from the predicted depth, one hop deeper while not sufficient
        "supplement_search": "linked",
        "expand_rounds": 2,
        "plan_in_prompts": True,
        "summary": "llm",
        "sufficiency": "llm",
        "reduction": "intersection",
        "final_answer": "llm",
        "answer_margin": 100.0,
        "weights": _PAPER_WEIGHTS,
    },
}


class PoGConfig(BaseModel):
    preset: Preset = Field(default="small", description="small: the routes that win with a small local model; "
                           "paper: PoG as the paper describes it, for capable models. Sets every knob below that "
                           "it names unless that knob is given too (see docs/agent.md).")
    analysis: Literal["always", "when_needed"] = Field(
        default="when_needed", description="The question-analysis call (topic names, split questions, indicator, "
        "depth). when_needed: only when something reads it (no path memory, whose ranking stands in for the "
        "model's indicator; start_depth=model; the plan in the prompts; the LLM summary; the linked phase 2), or "
        "when no topic entity is given and the linker finds none in the question; the question itself is then "
        "the indicator. One call a question fewer. always: PoG's own, every question.")
    strategy: Strategy = "fuzzy"
    width: int = Field(default=3, ge=1, description="W: paths kept for the answer prompt.")
    max_depth: int = Field(default=3, ge=1, le=6, description="D_max: the deepest exploration, in hops.")
    fuzzy_keep: int = Field(default=80, ge=1, description="Paths kept by fuzzy (embedding) selection.")
    explore_beam: int = Field(default=80, ge=1, description="Paths extended further at each hop, best first.")
    precise_batch: int = Field(default=40, ge=2, description="Candidates shown per precise-selection call.")
    limit_per_entity: int = Field(default=100, ge=1, description="Hub cap: neighbours read per entity and direction.")
    hub_every_relation: bool = Field(
        default=True, description="A hub the cap cut also gets a few edges of each relation the cut left out: a "
        "country's first 100 edges can all be one relation, and the one a question asks about (its form of "
        "government) would not be walkable.")
    walk_values: bool = Field(
        default=True, description="A path may end at a literal attribute (a date, a population) as at an entity: an "
        "RDF graph keeps such values as literals, and 'when was X born' has no other answer. A store holding none "
        "(a table's facts) reads nothing more.")
    max_frontier: int = Field(default=5_000, ge=1, description="Entities expanded per hop at most.")
    names_per_set: int = Field(default=8, ge=1, description="Entity names shown per entity set in prompts (an answer "
                               "named from a set brings the rest of it; more names cost prompt tokens, not answers).")
    start_depth: Literal["structure", "model"] = Field(
        default="structure", description="Where phase 1 starts without a confident path memory: structure: at "
        "D_max, every depth at once, the paths' scores deciding (the 0.5B model's depth guess is wrong for most "
        "MetaQA 1-hop questions); model: PoG's own, the model's predicted depth, going deeper while unanswered.")
    supplement: bool = Field(default=True, description="Phase 2: paths to the LLM's own predicted answers.")
    supplement_search: Literal["path_ends", "linked"] = Field(
        default="path_ends", description="Phase 2's search. path_ends: the model's three guesses matched by name to "
        "the ends of paths within D_max of the topic entities; linked: the paper's, the guesses (with the model's "
        "reasoning chains, the new indicator) linked to graph entities and joined to the topic entities by a "
        "bidirectional search within D_max.")
    guess_link_similarity: float = Field(
        default=0.8, ge=0.0, le=1.0, description="The linked phase 2: how alike (cosine of the name embeddings) a "
        "guessed answer and a graph entity's name must be for the guess to link to it; a guess the graph lacks links "
        "to nothing rather than to whatever shares a word with it.")
    expand: bool = Field(default=True, description="Phase 3: one more hop from the kept paths' entities.")
    expand_rounds: int = Field(default=1, ge=1, le=4, description="Phase 3 repeats, one hop further from the last "
                               "round's kept paths, while the answer is not sufficient (the paper: until the depth "
                               "limit).")
    plan_in_prompts: bool = Field(default=False, description="The precise and branch selection prompts and the "
                                  "sufficiency prompt show the indicator and the split questions, as the paper's do.")
    reduction: Literal["shortest", "intersection"] = Field(
        default="shortest", description="Several topic entities: shortest keeps the ends the other topics reach by "
        "the shortest join, and only the paths that join the topics in the fewest steps (PoG deepens only while "
        "no path connects them); intersection (the paper's graph reduction) every end all of them reach within D_max.")
    final_answer: Literal["best_path", "llm"] = Field(
        default="best_path", description="When no path sufficed: best_path answers with the best phase-1 path's "
        "end; llm (the paper's) lets the model answer from the kept paths and its own knowledge, marked kg+llm.")
    summary: Literal["paths", "llm"] = Field(
        default="paths", description="paths: the answer prompt reads the kept paths; llm: PoG's summary prompt first.")
    sufficiency: Literal["structural", "llm"] = Field(
        default="structural", description="structural: an answer the LLM names must end a kept path; "
        "llm: PoG's own {Yes}/{No} judgement as well (for strong models).")
    answer_margin: float = Field(
        default=0.05, ge=0.0, description="The model's pick answers when its path scores within this of the best path "
        "so far; a pick further below gives way to the best path (tuned on MetaQA dev without a memory; 0, the best "
        "path always, lost on the packages and geo tuning parts and won on units 3hop-alt: "
        "results/2026-11-30/answer-margin-tried/).")
    path_memory: Path | None = Field(default=None, description="A path-memory file (kgqa memory build).")
    memory_k: int = Field(default=10, ge=1, description="Remembered questions that vote.")
    memory_confidence: float = Field(
        default=0.5, ge=0.0, le=1.0, description="Vote share from which the path memory is trusted: its depth is the "
        "predicted depth, and its best path answers even when the LLM names nothing at its end.")
    weights: ScoreWeights = Field(default_factory=ScoreWeights)
    pooling: PoolingConfig = Field(default_factory=PoolingConfig, description="Path pooling of the kept paths' facts "
                                   "before the answer (reselect_from does not apply: every kept fact is pooled).")
    pooled_facts: int = Field(default=30, ge=1, description="Facts the answer prompt shows when pooling is on.")
    graphrag_fi: GraphRAGFIConfig = Field(
        default_factory=GraphRAGFIConfig, validation_alias=GRAPHRAG_FI_NAMES, description="GraphRAG-FI: filter each "
        "phase's ranked paths (coarse, then the model's picks as High Priority Paths); integrate the answer with the "
        "model's own by token confidence.")
    explore_temperature: float = Field(default=0.4, ge=0.0, description="Analysis, selection and prediction calls.")
    answer_max_tokens: int = Field(default=96, ge=8)

    @model_validator(mode="wrap")
    @classmethod
    def _apply_preset(cls, data: object, handler: ModelWrapValidatorHandler[PoGConfig]) -> PoGConfig:
        """The preset's values under the knobs given explicitly (a given `weights` keeps
        the preset's other weights). Only the given knobs count as set, so that a preset
        laid over these settings later (a flag over the environment's) fills the rest."""
        if not isinstance(data, dict):
            return handler(data)
        preset = PRESETS[data.get("preset") if data.get("preset") in PRESETS else "small"]
        given = {("graphrag_fi" if k == "fi" else k): v for k, v in data.items()}  # `fi`: the earlier name
        given = {k: v for k, v in given.items() if k in cls.model_fields}
        weights = given.get("weights")
        merged = {**preset, **given}
        if isinstance(weights, dict):
            merged["weights"] = {**preset["weights"], **weights}  # type: ignore[dict-item]
        config = handler(merged)
        object.__setattr__(config, "__pydantic_fields_set__", set(given))
        if not isinstance(weights, ScoreWeights):  # the weights given one by one, or none
            object.__setattr__(config.weights, "__pydantic_fields_set__", set(weights or {}))
        return config

    def neighbour_cache(self, store: GraphStore) -> NeighborCache:
        """The walks the agent takes over `store`: its hub cap and hub fill. Benchmarks that
        reproduce the agent's reading build theirs here too, so they cannot drift from it."""
        return NeighborCache(store, limit_per_entity=self.limit_per_entity, every_relation=self.hub_every_relation,
                             values=self.walk_values)
