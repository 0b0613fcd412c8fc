"""What an answer claims about its evidence is true: an answer marked as the graph's
(`kg`, `kg+llm`) is held by the path marked as its evidence, a name no path holds is the
model's own (`llm`), and a fallback says so. Each answer names the rule that gave it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import get_args

import pytest

from agent.asking import answer_question
from agent.embeddings import Embedder
from agent.pipelines.pog import PoGPipeline
from agent.pog.answering import held_by_its_path
from agent.pog.config import PoGConfig
from agent.pog.context import PoGContext
from agent.pog.state import ANSWER_REASONS, AnswerReason, PathCandidate
from loaders.questions import Question, TopicEntity
from tests.pog_fixture import analysis, film_store, scripted
from tests.scripted_endpoint import completion

INVENTED = "Orson Welles"  # in no fact of the film fixture
PRESETS = ["small", "paper"]


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


@pytest.fixture
def kb(tmp_path: Path) -> Path:
    """Seven facts about films: the issue's KG."""
    path = tmp_path / "kb.txt"
    path.write_text("Splash|directed_by|Ron Howard\nSplash|release_year|1984\nSplash|starred_actors|Tom Hanks\n"
                    "Big|directed_by|Penny Marshall\nBig|release_year|1988\nBig|starred_actors|Tom Hanks\n"
                    "Cocoon|directed_by|Ron Howard\n")
    return path


def inventing_model(**more: str):
    """A model that names someone absent from the graph and says the evidence suffices."""
    replies = {"analyse": analysis(1, "Splash -> release year -> answer", ("Splash",)), "answer": f"ans: {INVENTED}",
               "judged": json.dumps({"sufficient": True, "answers": [INVENTED]}), "knowledge": f"ans: {INVENTED}",
               "io": INVENTED, "select": "1", "branch": "1", "summarise": "Splash was released in 1984.",
               "predict": f"ans: {INVENTED}", "supplement": json.dumps({"answers": [INVENTED], "chains": []})}
    return scripted(**{**replies, **more})


def holds(path: dict, answer: str) -> bool:
    return any(answer == e["name"] for seq in path["evidence"] for e in seq) or \
        any(answer == e["name"] for e in path["ends"]) or answer in path["text"]


def assert_claims_true(turn: dict) -> None:
    """The answer's claim about its evidence, read as a user reads `kgqa ask --json`."""
    marked = [p for p in turn["paths"] if p["answer"]]
    if turn["source"] in ("kg", "kg+llm"):
        assert len(marked) == 1 and all(holds(marked[0], a) for a in turn["answers"]), turn
    else:
        assert turn["source"] == "llm" and not marked, turn
    assert INVENTED not in turn["answers"] or turn["source"] == "llm"
    assert turn["answer_reason"] in ANSWER_REASONS and turn["why"] == ANSWER_REASONS[turn["answer_reason"]][1]


@pytest.mark.parametrize("preset", PRESETS)
def test_a_name_no_path_holds_is_never_labelled_as_the_graphs(embedder: Embedder, preset: str) -> None:
    """`kgqa ask "what year was [Splash] released" --preset paper` against a model that
    always names "Orson Welles" and calls the paths sufficient answered "from the knowledge
    graph", marking `Splash -> directed_by -> Ron Howard` as the evidence."""
    context = PoGContext(film_store(), inventing_model(), embedder, PoGConfig(preset=preset))
    turn = answer_question(context, "what year was Splash released", [{"id": "Splash", "name": "Splash"}])
    assert_claims_true(dict(turn))
    if preset == "paper":  # it judged the paths sufficient: its own answer, shown as such
        assert (turn["answers"], turn["source"], turn["decided_by"]) == ([INVENTED], "llm", "model")
    else:  # it is never believed: no path was sufficient, and the best path answers as a fallback
        assert INVENTED not in turn["answers"] and turn["source"] == "kg"
        assert (turn["sufficient"], turn["decided_by"]) == (False, "fallback")


@pytest.mark.parametrize("preset", PRESETS)
def test_results_rows_carry_the_reason_and_the_judgement(embedder: Embedder, preset: str) -> None:
    pipeline = PoGPipeline(PoGContext(film_store(), inventing_model(), embedder, PoGConfig(preset=preset)))
    result = pipeline.answer(Question("q1", "what year was Splash released", (TopicEntity("Splash", "Splash"),)))
    details = result.details
    assert details["answer_reason"] in ANSWER_REASONS and isinstance(details["sufficient"], bool)
    assert details["decided_by"] == ANSWER_REASONS[details["answer_reason"]][0]
    assert INVENTED not in result.predictions or details["source"] == "llm"


def test_a_judged_value_is_the_graphs_only_where_a_path_shows_it(embedder: Embedder) -> None:
    """The paper's sufficiency: the model reads a value off the paths ("1984"): the path that
    shows it is the evidence, not the best path."""
    llm = inventing_model(judged=json.dumps({"sufficient": True, "answers": ["1984"]}))
    context = PoGContext(film_store(), llm, embedder, PoGConfig(preset="paper"))
    turn = answer_question(context, "what year was Splash released", [{"id": "Splash", "name": "Splash"}])
    assert turn["answers"] == ["1984"] and turn["source"] == "kg" and turn["sufficient"]
    marked = next(p for p in turn["paths"] if p["answer"])
    assert "release_year" in marked["text"] and marked["ends"][0]["name"] == "1984"


def test_every_reason_has_a_decider_and_a_sentence() -> None:
    assert set(ANSWER_REASONS) == set(get_args(AnswerReason))
    assert {by for by, _ in ANSWER_REASONS.values()} == {"model", "memory", "structure", "fallback"}


def test_an_answer_its_path_does_not_hold_is_relabelled_as_the_models() -> None:
    path = PathCandidate(seed="Splash", steps=[("directed_by", True)], hops=[["Ron Howard"]],
                         text="Splash -> directed_by -> Ron Howard", phase="topic")
    names = {"Ron Howard": "Ron Howard", "Splash": None}
    claimed = {"source": "kg", "answers": [INVENTED], "answer_entities": [], "answer_path": path,
               "answer_reason": "judged_value"}
    assert held_by_its_path(claimed, names) == {"source": "llm", "answers": [INVENTED], "answer_entities": [],
                                                "answer_path": None, "answer_reason": "model_knowledge"}
    held = {**claimed, "answers": ["Ron Howard"], "answer_entities": ["Ron Howard"]}
    assert held_by_its_path(held, names) == held


def test_a_name_that_is_all_articles_is_held_by_its_path() -> None:
    """"A", the ampere's symbol, is a name: an answer "A" that its path ends at stays the
    graph's (it normalised to nothing, and was relabelled as the model's own)."""
    path = PathCandidate(seed="ampere", steps=[("symbol", True)], hops=[["A"]], text="ampere -> symbol -> A",
                         phase="topic")
    held = {"source": "kg", "answers": ["A"], "answer_entities": ["A"], "answer_path": path,
            "answer_reason": "named_path_end"}
    assert held_by_its_path(held, {"A": "A", "ampere": "ampere"}) == held


@pytest.mark.parametrize("preset", PRESETS)
def test_kgqa_ask_json_tells_the_truth_about_an_invented_name(kb: Path, tmp_path: Path, endpoint, preset: str) -> None:
    from tests.test_cli import invoke

    state, url = endpoint

    def reply(request: dict) -> tuple[int, dict]:
        if request.get("response_format"):  # analysis, the judged answer: JSON
            schema = json.dumps(request["response_format"])
            text = json.dumps({"sufficient": True, "answers": [INVENTED]}) if "sufficient" in schema else \
                json.dumps({"topic_entities": ["Splash"], "split_questions": [], "indicator": "", "depth": 1})
            return 200, completion(text)
        return 200, completion(f"ans: {INVENTED}")

    state.default = reply
    store = f"oxigraph:{tmp_path / 'store'}"
    assert invoke("load", "-f", "metaqa", str(kb), "--store", store).exit_code == 0
    env = {"KGQA_LLM_BASE_URL": url, "KGQA_LLM_MODEL": "scripted", "KGQA_DATA_DIR": str(tmp_path / "data"),
           "KGQA_LLM_CACHE": "false"}
    result = invoke("ask", "what year was [Splash] released", "--store", store, "--preset", preset, "--json", env=env)
    assert result.exit_code == 0, result.output
    turn = json.loads(result.stdout)
    assert_claims_true(turn)
    shown = invoke("ask", "what year was [Splash] released", "--store", store, "--preset", preset, env=env)
    assert shown.exit_code == 0 and turn["why"] in shown.output.replace("\n", " ")


@pytest.mark.parametrize("preset", PRESETS)
def test_chat_and_serve_tell_the_truth_about_an_invented_name(tmp_path: Path, embedder: Embedder,
                                                              preset: str) -> None:
    from fastapi.testclient import TestClient

    from agent.chat.context import ChatContext
    from agent.chat.graph import build_chat_graph
    from kgqa.web.app import create_app

    context = ChatContext(PoGContext(film_store(), inventing_model(), embedder, PoGConfig(preset=preset)),
                          trace_dir=tmp_path / "traces")
    graph = build_chat_graph()
    state = graph.invoke({"message": "what year was Splash released"}, {"configurable": {"thread_id": "t"}},
                         context=context)
    assert_claims_true(state["turns"][-1])
    served = TestClient(create_app(graph, context, allowed_hosts=["testserver"])).post("/api/ask", json={"question": "what year was Splash released"})
    assert served.status_code == 200
    body = served.json()
    assert INVENTED not in body["answers"] or body["source"] == "llm"
    assert body["why"] and ("sufficient" in body and "decided_by" in body)
