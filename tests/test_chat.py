"""Conversations: follow-up references, threads that persist and resume, and the
terminal session (commands, progress, Ctrl-C)."""

from __future__ import annotations

import pytest
from rich.console import Console

from agent.chat.references import resolve_references
from agent.embeddings import Embedder
from agent.llm import FakeLLM
from kg_store.model import value_node
from kgqa.cli.chat import ChatSession
from kgqa.settings import Settings
from tests.chat_fixture import film_chat, film_chat_model

BIG = {"id": "Big", "name": "Big"}
PENNY = {"id": "Penny Marshall", "name": "Penny Marshall"}
WHO_DIRECTED_BIG = {"resolved": "who directed Big", "answer_entities": [PENNY], "topics": [BIG]}
HANKS_FILMS = {"resolved": "what films did Tom Hanks act in", "topics": [{"id": "Tom Hanks", "name": "Tom Hanks"}],
               "answer_entities": [BIG, {"id": "Splash", "name": "Splash"}]}


@pytest.fixture(scope="module")
def embedder() -> Embedder:
    return Embedder()


@pytest.mark.parametrize(("previous", "message", "question", "topic"), [
    (WHO_DIRECTED_BIG, "and where was she born?", "where was Penny Marshall born?", "Penny Marshall"),
    (WHO_DIRECTED_BIG, "when was it released?", "when was Big released?", "Big"),  # "it": the film, not the person
    (WHO_DIRECTED_BIG, "what are her films", "what are Penny Marshall's films", "Penny Marshall"),
    (WHO_DIRECTED_BIG, "who married her?", "who married Penny Marshall?", "Penny Marshall"),
    (WHO_DIRECTED_BIG, "what genre is that film", "what genre is Big", "Big"),
    (HANKS_FILMS, "when was he born?", "when was Tom Hanks born?", "Tom Hanks"),  # several answers: the topic
    (HANKS_FILMS, "who directed them?", "who directed the answers to “what films did Tom Hanks act in”?", "Tom Hanks"),
])
def test_a_reference_resolves_to_an_entity_of_the_previous_turn(previous, message, question, topic) -> None:
    resolution = resolve_references(message, [previous])
    assert resolution.question == question
    assert [t["id"] for t in resolution.topics] == [topic]


def test_a_literal_answer_is_no_referent_the_topic_is() -> None:
    # "when was Big released" answered by a literal year: "it" is still the film
    released = {"resolved": "when was Big released", "topics": [BIG],
                "answer_entities": [{"id": value_node("1988"), "name": "1988"}]}
    resolution = resolve_references("who directed it?", [released])
    assert resolution.question == "who directed Big?" and [t["id"] for t in resolution.topics] == ["Big"]


def test_an_elliptical_follow_up_reuses_the_previous_question() -> None:
    resolution = resolve_references("and Splash?", [WHO_DIRECTED_BIG])
    assert resolution.question == "who directed Splash" and resolution.topics == []  # linked by name


def test_a_question_without_references_or_history_is_left_alone() -> None:
    assert resolve_references("who directed Splash", [WHO_DIRECTED_BIG]).question == "who directed Splash"
    assert resolve_references("and where was he born?", []).topics == []


def test_a_follow_up_is_answered_about_the_earlier_turns_entity_and_the_thread_resumes(tmp_path, embedder) -> None:
    graph, context = film_chat(tmp_path, embedder=embedder)
    thread = {"configurable": {"thread_id": "t1"}}
    graph.invoke({"message": "who directed Big"}, thread, context=context)
    graph.invoke({"message": "when was it released?"}, thread, context=context)
    # a new process: a new connection to the same database
    resumed, context = film_chat(tmp_path, embedder=embedder)
    turns = resumed.get_state(thread).values["turns"]
    assert [t["answers"] for t in turns] == [["Penny Marshall"], ["1988"]]
    assert turns[1]["resolved"] == "when was Big released?" and turns[1]["topics"] == [BIG]
    assert turns[1]["paths"][0]["text"] == "Big -> release_year -> 1988"
    assert (tmp_path / "traces" / f"{turns[1]['trace_id']}.json").is_file()
    resumed.invoke({"message": "and Splash?"}, thread, context=context)  # the resumed thread reads earlier turns
    last = resumed.get_state(thread).values["turns"][-1]
    assert last["resolved"] == "when was Splash released?" and last["topics"] == [{"id": "Splash", "name": "Splash"}]
    assert last["answers"] == ["1984"]
    assert resumed.get_state({"configurable": {"thread_id": "other"}}).values == {}


def session(tmp_path, embedder, llm: FakeLLM | None = None) -> tuple[ChatSession, Console]:
    graph, context = film_chat(tmp_path, llm, embedder)
    screen = Console(record=True, width=200)
    return ChatSession(graph, context, Settings(data_dir=tmp_path), "s1", screen=screen), screen


def feed(*lines: str | type[BaseException]):
    queue = list(lines)

    def read() -> str:
        if not queue:
            raise EOFError
        line = queue.pop(0)
        if isinstance(line, type):
            raise line()
        return line

    return read


def test_the_terminal_session_streams_nodes_answers_and_runs_its_commands(tmp_path, embedder) -> None:
    chat, screen = session(tmp_path, embedder)
    chat.loop(feed("who directed Big", "when was it released?", "/paths", "/trace", "/config", "/help", "/new",
                   "/paths", "/quit", "never read"))
    shown = screen.export_text()
    assert "· analyse_question" in shown and "· prune_paths" in shown  # node progress as it runs
    assert "Answer: Penny Marshall" in shown and "→ when was Big released?" in shown and "Answer: 1988" in shown
    assert shown.count("Big -> release_year -> 1988") >= 2  # the answer, then /paths
    assert "LLM calls (2)" in shown and "s1-2.json" in shown  # /trace: the tree and the file
    assert '"strategy": "fuzzy"' in shown and "/paths   the evidence paths" in shown
    assert "new thread" in shown and "no answer yet in this thread" in shown  # /new starts empty


def test_ctrl_c_stops_the_turn_not_the_session(tmp_path, embedder) -> None:
    model = film_chat_model()
    interrupted = {"done": False}

    def reply(messages):
        if not interrupted["done"]:
            interrupted["done"] = True
            raise KeyboardInterrupt
        return model._script(messages)

    chat, screen = session(tmp_path, embedder, FakeLLM(reply))
    chat.loop(feed("who directed Big", KeyboardInterrupt, "who directed Big"))
    shown = screen.export_text()
    assert "turn interrupted" in shown and "/quit or Ctrl-D" in shown
    assert [t["answers"] for t in chat.turns()] == [["Penny Marshall"]]  # only the finished turn is kept
