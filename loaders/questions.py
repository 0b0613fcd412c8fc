"""Question sets -> one `Question` model, gold answers kept apart.

Agents receive `Question` objects only; `Gold` lives in a separate mapping that the
evaluation harness reads after the agent has answered. Readers: MetaQA QA files,
PoG/ToG JSON (cwq, WebQSP, WebQuestions, SimpleQA, GrailQA) and RoG JSONL.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections import Counter
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path

from kg_store.errors import InputError
from loaders.records import MalformedInput
from loaders.textio import iter_lines

QUESTION_FORMATS = ("metaqa", "pog", "webqsp", "rog")


@dataclass(frozen=True, slots=True)
class TopicEntity:
    id: str
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Question:
    """What an agent may see."""

    id: str
    text: str
    topic_entities: tuple[TopicEntity, ...] = ()
    # Benchmark-provided labels that are not answers (MetaQA hops, CWQ compositionality).
    meta: dict[str, str] = field(default_factory=dict, hash=False, compare=False)


@dataclass(frozen=True, slots=True)
class Gold:
    """What only the scorer may see."""

    question_id: str
    answers: tuple[str, ...]


@dataclass(slots=True)
class QuestionSet:
    questions: list[Question]
    gold: dict[str, Gold]
    source: str

    def __len__(self) -> int:
        return len(self.questions)


_BRACKETS = re.compile(r"\[([^\[\]]+)\]")
_NOT_GROUP_CHARS = re.compile(r"[^a-z0-9 ]+")


def question_group(question: Question) -> str:
    """The question's group of near-twins: its text lowercased, letters, digits and
    spaces only; for a CWQ question, that of the WebQSP question it was built from.
    WebQSP re-annotates WebQuestions (146 dev questions word for word the same) and every
    CWQ question composes or constrains a WebQSP one: whatever was learnt from one member
    of a group must not be used on another (leave-one-group-out, `memory build --exclude`)."""
    text = question.meta.get("webqsp_question") or question.text
    return " ".join(_NOT_GROUP_CHARS.sub(" ", text.lower()).split())


# The development protocol's split (docs/evaluation.md): a question belongs to the tuning
# part or the report part by a hash of its template. Fixed here for good: changing the salt
# would move questions whose traces were read into the reported part.
SPLIT_PARTS = ("tune", "report")
_SPLIT_SALT = b"kgqa-dev-split-1:"


def split_key(question: Question) -> str:
    """What decides a question's part: its group (`question_group`) with the topic
    entities' names masked, so that a template and all its near-twins fall on one side
    ("what movies did x direct" whoever X is; a CWQ question with its WebQSP base)."""
    key = f" {question_group(question)} "
    for topic in question.topic_entities:
        name = question_group(Question("", topic.name or "")) if topic.name else ""
        if name:
            key = key.replace(f" {name} ", " x ")
    return " ".join(key.split())


def split_part(question: Question) -> str:
    """'tune' (read its traces, iterate on it) or 'report' (the figures the docs give),
    about half and half, the same on every machine and for every run."""
    digest = hashlib.sha256(_SPLIT_SALT + split_key(question).encode("utf-8")).digest()
    return SPLIT_PARTS[digest[0] & 1]


def read_metaqa(path: Path) -> QuestionSet:
    """`question<TAB>answer1|answer2`, the topic entity in [brackets]. Ids: `<file stem>:<line>`."""
    hops = re.search(r"(\d)hop", path.name)
    questions, gold = [], {}
    for line_no, line in iter_lines(path):
        if not line.strip():
            continue
        text, sep, answers = line.partition("\t")
        topics = _BRACKETS.findall(text)
        if not sep or not topics:
            raise MalformedInput(str(path), line_no, "expected 'question with [topic]<TAB>answer|answer'")
        qid = f"{path.stem}:{line_no}"
        meta = {"hops": hops.group(1)} if hops else {}
        questions.append(Question(qid, _BRACKETS.sub(r"\1", text).strip(), tuple(TopicEntity(t, t) for t in topics), meta))
        gold[qid] = Gold(qid, tuple(a.strip() for a in answers.split("|") if a.strip()))
    return QuestionSet(questions, gold, str(path))


_ID_KEYS = ("ID", "QuestionId", "qid", "id", "question_id")
_TEXT_KEYS = ("question", "RawQuestion", "ProcessedQuestion", "machine_question")
# webqsp_question: the WebQSP question a CWQ question was built from (its group, below).
_META_KEYS = ("compositionality_type", "function", "level", "num_edge", "webqsp_question")


def _answer_names(record: dict) -> list[str]:
    """Gold answers in any of the PoG/ToG shapes: a string, a list of strings, a list of
    GrailQA dicts, `answers`, or WebQSP's Parses[].Answers[]."""
    raw = record.get("answer", record.get("answers"))
    if raw is None and "Parses" in record:
        raw = [a for p in record["Parses"] for a in p.get("Answers", [])]
    if raw is None:
        return []
    items = raw if isinstance(raw, list) else [raw]
    names: list[str] = []
    for item in items:
        if isinstance(item, dict):
            value = item.get("entity_name") or item.get("EntityName") or item.get("answer_argument") or item.get("AnswerArgument")
        else:
            value = item
        if value is not None and str(value).strip() and str(value) not in names:
            names.append(str(value).strip())
    return names


def read_pog_json(path: Path) -> QuestionSet:
    """PoG/ToG releases: a JSON list of objects with `topic_entity` as {mid: name}."""
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MalformedInput(str(path), getattr(exc, "lineno", 0), f"not JSON: {exc}") from exc
    if not isinstance(records, list):
        raise MalformedInput(str(path), 1, "expected a JSON list of question objects")
    questions, gold = [], {}
    for index, record in enumerate(records):
        text = next((record[k] for k in _TEXT_KEYS if isinstance(record, dict) and record.get(k)), None)
        if text is None:
            raise MalformedInput(str(path), 0, f"question #{index} has none of the keys {', '.join(_TEXT_KEYS)}")
        qid = str(next((record[k] for k in _ID_KEYS if record.get(k) is not None), f"{path.stem}:{index}"))
        topics = record.get("topic_entity") or {}
        if not isinstance(topics, dict):
            raise MalformedInput(str(path), 0, f"question {qid}: topic_entity must be an object {{mid: name}}")
        meta = {k: str(record[k]) for k in _META_KEYS if k in record}
        questions.append(Question(qid, str(text).strip(), tuple(TopicEntity(m, n) for m, n in topics.items()), meta))
        gold[qid] = Gold(qid, tuple(_answer_names(record)))
    return QuestionSet(questions, gold, str(path))


def read_rog_jsonl(path: Path) -> QuestionSet:
    """RoG / GNN-RAG JSONL: `id, question, answer, q_entity` (names, linked by the pipeline)."""
    questions, gold = [], {}
    for line_no, line in iter_lines(path):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            qid, text = str(record["id"]), str(record["question"])
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise MalformedInput(str(path), line_no, f"not a RoG question object ({exc.__class__.__name__})") from exc
        topics = tuple(TopicEntity(e, e) for e in _as_list(record.get("q_entity")))
        questions.append(Question(qid, text.strip(), topics))
        gold[qid] = Gold(qid, tuple(_as_list(record.get("answer"))))
    return QuestionSet(questions, gold, str(path))


def _as_list(value: object) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


READERS = {"metaqa": read_metaqa, "pog": read_pog_json, "webqsp": read_pog_json, "rog": read_rog_jsonl}
_FORMAT_BY_SUFFIX = {".txt": "metaqa", ".json": "pog", ".jsonl": "rog"}


def guess_format(path: Path) -> str:
    """The question format a file's suffix says (MetaQA .txt, PoG/WebQSP .json, RoG .jsonl)."""
    if path.suffix not in _FORMAT_BY_SUFFIX:
        raise InputError(f"cannot tell the question format of {path} from its suffix: "
                         f"expected one of {', '.join(_FORMAT_BY_SUFFIX)}")
    return _FORMAT_BY_SUFFIX[path.suffix]


def read_questions(path: Path, fmt: str) -> QuestionSet:
    if fmt not in READERS:
        raise InputError(f"unknown question format {fmt!r}: expected one of {', '.join(QUESTION_FORMATS)}")
    if not path.is_file():
        raise FileNotFoundError(f"no such question file: {path}")
    questions = READERS[fmt](path)
    counts = Counter(q.id for q in questions.questions)
    duplicated = [question_id for question_id, count in counts.items() if count > 1]
    if duplicated:  # both would be scored against one gold, and their traces would collide
        shown = ", ".join(repr(d) for d in duplicated[:5]) + (f" and {len(duplicated) - 5} more" if len(duplicated) > 5 else "")
        raise InputError(f"{path}: question ids must be unique; {shown} "
                         f"{'is' if len(duplicated) == 1 else 'are'} used more than once")
    return questions


def select(questions: QuestionSet, *, limit: int | None = None, sample: int | None = None, seed: int = 0,
           exclude: Collection[str] = frozenset(), shard: tuple[int, int] | None = None,
           part: str | None = None) -> list[Question]:
    """A fixed-seed sample and/or the first `limit` questions, in file order; questions
    whose id is in `exclude`, or that are not in the development split's `part` ('tune'
    or 'report', `split_part`), are removed before sampling.
    `shard=(i, n)` keeps every n-th of those from the i-th on (1-based): n processes with
    shards 1..n answer the selection together, each question once."""
    chosen = [q for q in questions.questions if q.id not in exclude and (part is None or split_part(q) == part)]
    if sample is not None and sample < len(chosen):
        keep = set(random.Random(seed).sample(range(len(chosen)), sample))
        chosen = [q for i, q in enumerate(chosen) if i in keep]
    if limit is not None:
        chosen = chosen[:limit]
    if shard is not None:
        index, count = shard
        chosen = chosen[index - 1 :: count]
    return chosen
