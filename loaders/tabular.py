"""Line-per-fact formats: MetaQA `kb.txt`, generic head/relation/tail TSV, FB15k-237."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

from kg_store.model import Triple
from loaders.records import Malformed, MalformedInput, Name, Record, Skipped, id_problem
from loaders.textio import iter_lines

# Ids that are Freebase machine ids get no name of their own (they are CVTs or unnamed).
_MID = re.compile(r"[mg]\.[0-9a-z_]+")


class NameOnce:
    """Emits a Name the first time an id is seen. The memory is capped: past the cap the
    set is cleared and names are re-emitted, which the idempotent stores absorb."""

    def __init__(self, cap: int = 2_000_000) -> None:
        self.seen: set[str] = set()
        self.cap = cap

    def __call__(self, entity: str) -> Iterator[Name]:
        if entity in self.seen or _MID.fullmatch(entity):
            return
        if len(self.seen) >= self.cap:
            self.seen.clear()
        self.seen.add(entity)
        yield Name(entity, entity)

    def fact(self, head: str, relation: str, tail: str, schema_prefixes: tuple[str, ...]) -> Iterator[Record]:
        """A fact whose ids are names: the names first (once), then the fact; or a skip."""
        if relation.startswith(schema_prefixes):
            yield Skipped("schema relation")
            return
        yield from self(head)
        yield from self(tail)
        yield Triple(head, relation, tail)


def _split_rows(
    path: Path, sep: str, on_bytes: Callable[[int], None] | None
) -> Iterator[tuple[int, list[str]] | Malformed]:
    for line_no, line in iter_lines(path, on_bytes):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split(sep)]
        if len(parts) != 3 or not all(parts):
            yield Malformed(line_no, f"expected head{sep}relation{sep}tail, got {len(parts)} field(s)")
            continue
        problem = id_problem(*parts)
        if problem:
            yield Malformed(line_no, problem)
            continue
        yield line_no, parts


def parse_name_triples(
    path: Path, schema_prefixes: tuple[str, ...], on_bytes: Callable[[int], None] | None = None, *, sep: str
) -> Iterator[Record]:
    """MetaQA (`|`) and generic TSV: ids are names, so each entity is named by its id."""
    name_once = NameOnce()
    for row in _split_rows(path, sep, on_bytes):
        if isinstance(row, Malformed):
            yield row
            continue
        _, (head, relation, tail) = row
        yield from name_once.fact(head, relation, tail, schema_prefixes)


FB15K_SPLITS = ("train.txt", "valid.txt", "test.txt")


def fb15k_id(raw: str) -> str:
    """`/m/027rn` -> `m.027rn`."""
    return raw.strip("/").replace("/", ".")


def fb15k_relation(raw: str) -> str:
    """`/people/person/nationality` -> `people.person.nationality`; FB15k-237's CVT-joined
    `/a/b/c./d/e/f` -> `a.b.c/d.e.f` (one relation through an unnamed node)."""
    return "/".join(fb15k_id(part) for part in raw.split("./"))


def fb15k_files(path: Path) -> tuple[list[Path], Path | None]:
    """A FB15k-237 folder (all splits) or one split file; entity2text.txt beside it."""
    folder = path if path.is_dir() else path.parent
    splits = [folder / s for s in FB15K_SPLITS if (folder / s).exists()] if path.is_dir() else [path]
    if not splits:
        raise MalformedInput(str(path), 0, f"no FB15k-237 split ({', '.join(FB15K_SPLITS)}) found")
    names = folder / "entity2text.txt"
    return splits, names if names.exists() else None


def parse_fb15k237(
    path: Path, schema_prefixes: tuple[str, ...], on_bytes: Callable[[int], None] | None = None
) -> Iterator[Record]:
    splits, names_file = fb15k_files(path)
    if names_file is not None:
        for line_no, line in iter_lines(names_file, on_bytes):
            entity, sep, name = line.partition("\t")
            if not sep or not entity.startswith("/") or not name.strip():
                yield Malformed(line_no, f"{names_file.name}: expected /m/id<TAB>name")
                continue
            problem = id_problem(fb15k_id(entity))
            if problem:
                yield Malformed(line_no, f"{names_file.name}: {problem}")
                continue
            yield Name(fb15k_id(entity), name.strip())
    for split in splits:
        for row in _split_rows(split, "\t", on_bytes):
            if isinstance(row, Malformed):
                yield Malformed(row.line_no, f"{split.name}: {row.reason}")
                continue
            _, (head, relation, tail) = row
            relation = fb15k_relation(relation)
            if relation.startswith(schema_prefixes):
                yield Skipped("schema relation")
                continue
            yield Triple(fb15k_id(head), relation, fb15k_id(tail))


def fb15k_total_bytes(path: Path) -> int:
    splits, names = fb15k_files(path)
    return sum(p.stat().st_size for p in splits) + (names.stat().st_size if names else 0)
