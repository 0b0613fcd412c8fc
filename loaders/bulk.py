"""Input files for the servers' own bulk loaders, for loads too big for `kgqa load`.

- Virtuoso: gzipped N-Triples chunks (exactly what `kgqa load` would insert, name index
  triples included) for `ld_dir(...)` + `rdf_loader_run()`.
- Neo4j: gzipped CSVs for `neo4j-admin database import full`, in our data model
  (`:Entity {id, name, name_norm}`, typed relationships, `:Literal` nodes).
Both stream with bounded memory: a few open files and one batch at a time.
"""

from __future__ import annotations

import csv
import gzip
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from kg_store import sparql_text
from kg_store.errors import InputError
from kg_store.ids import NORM_NAME_IRI, normalize_name
from kg_store.model import Attribute, LoadBatch, Triple
from loaders.load import parse_records
from loaders.records import Malformed, MalformedInput, Name, Skipped

TARGETS = ("virtuoso", "neo4j-admin")


@dataclass
class ExportReport:
    target: str
    out_dir: str
    files: list[str] = field(default_factory=list)
    triples: int = 0
    names: int = 0
    attributes: int = 0
    malformed: int = 0
    skipped: int = 0
    commands: list[str] = field(default_factory=list)


def _gz_text(path: Path) -> io.TextIOWrapper:
    return io.TextIOWrapper(gzip.open(path, "wb", compresslevel=3), encoding="utf-8", newline="")


def export_bulk(
    fmt: str,
    path: Path,
    out_dir: Path,
    target: str,
    schema_prefixes: tuple[str, ...],
    *,
    strict: bool = False,
    chunk_records: int = 5_000_000,
    on_bytes: Callable[[int], None] | None = None,
) -> ExportReport:
    if target not in TARGETS:
        raise InputError(f"unknown bulk target {target!r}: expected one of {', '.join(TARGETS)}")
    out_dir.mkdir(parents=True, exist_ok=True)
    report = ExportReport(target, str(out_dir))
    writer = _VirtuosoWriter(out_dir, chunk_records, report) if target == "virtuoso" else _Neo4jWriter(out_dir, report)
    try:
        for record in parse_records(fmt, path, schema_prefixes, on_bytes):
            if isinstance(record, Malformed):
                if strict:
                    raise MalformedInput(str(path), record.line_no, record.reason)
                report.malformed += 1
            elif isinstance(record, Skipped):
                report.skipped += 1
            else:
                writer.add(record)
    finally:
        writer.close()
    return report


class _VirtuosoWriter:
    def __init__(self, out_dir: Path, chunk_records: int, report: ExportReport) -> None:
        self.out_dir, self.chunk_records, self.report = out_dir, chunk_records, report
        self.batch, self.in_chunk, self.part = LoadBatch(), 0, 0
        self.file = self._next_file()

    def _next_file(self) -> io.TextIOWrapper:
        path = self.out_dir / f"kgqa-{self.part:05d}.nt.gz"
        self.part += 1
        self.report.files.append(str(path))
        return _gz_text(path)

    def add(self, record: Triple | Name | Attribute) -> None:
        if isinstance(record, Triple):
            self.batch.triples.append(record)
            self.report.triples += 1
        elif isinstance(record, Name):
            self.batch.names.append((record.entity, record.name))
            self.report.names += 1
        else:
            self.batch.attributes.append(record)
            self.report.attributes += 1
        if len(self.batch) >= 100_000:
            self._flush()

    def _flush(self) -> None:
        self.file.write(sparql_text.ntriples(self.batch))
        self.in_chunk += len(self.batch)
        self.batch = LoadBatch()
        if self.in_chunk >= self.chunk_records:
            self.file.close()
            self.file, self.in_chunk = self._next_file(), 0

    def close(self) -> None:
        self._flush()
        self.file.close()
        folder = self.out_dir.resolve()
        self.report.commands = [
            (f"isql-vt 1111 dba PASSWORD exec=\"ld_dir('{folder}', 'kgqa-*.nt.gz', 'urn:kgqa:freebase');"
             " rdf_loader_run(); checkpoint;\""),
            # the free-text index kgqa's name search reads (bif:contains); without it, search scans
            (f"isql-vt 1111 dba PASSWORD exec=\"DB.DBA.RDF_OBJ_FT_RULE_ADD(null, '{NORM_NAME_IRI}', 'kgqa_names');"
             " DB.DBA.VT_INC_INDEX_DB_DBA_RDF_OBJ(); checkpoint;\""),
            # the counts of the big entities' facts (a capped read looks its hubs up, not counts them)
            # and which relations reach an entity twice (one query, not two a relation)
            ('kgqa store settle --store "sparql+http://dba:PASSWORD@HOST:8890/sparql?graph=urn:kgqa:freebase'
             '&update=/sparql-auth"'),
            ("# the folder must be in virtuoso.ini DirsAllowed; then use "
             "sparql+http://HOST:8890/sparql?graph=urn:kgqa:freebase"),
        ]


class _Neo4jWriter:
    """Named entities go to their own node file, listed first at import, so that with
    --skip-duplicate-nodes the row that carries the name is the one kept."""

    SEEN_CAP = 5_000_000

    def __init__(self, out_dir: Path, report: ExportReport) -> None:
        self.report = report
        self.paths = {
            "named": out_dir / "entities-named.csv.gz",
            "other": out_dir / "entities-other.csv.gz",
            "literals": out_dir / "literals.csv.gz",
            "relationships": out_dir / "relationships.csv.gz",
        }
        headers = {
            "named": ["id:ID(Entity)", "name", "name_norm", ":LABEL"],
            "other": ["id:ID(Entity)", ":LABEL"],
            "literals": ["key:ID(Literal)", "value", "lang", "datatype", ":LABEL"],
            "relationships": [":START_ID(Entity)", ":END_ID(Entity)", ":TYPE"],
        }
        self.files = {k: _gz_text(p) for k, p in self.paths.items()}
        self.csv = {k: csv.writer(f) for k, f in self.files.items()}
        for key, header in headers.items():
            self.csv[key].writerow(header)
        self.literal_edges_path = out_dir / "literal-edges.csv.gz"
        self.literal_edges_file = _gz_text(self.literal_edges_path)
        self.literal_edges = csv.writer(self.literal_edges_file)
        self.literal_edges.writerow([":START_ID(Entity)", ":END_ID(Literal)", ":TYPE"])
        # Bounded memory: a cleared-when-full set only trims duplicate node rows.
        self.seen: set[str] = set()

    def _node(self, entity: str) -> None:
        if entity not in self.seen:
            if len(self.seen) >= self.SEEN_CAP:
                self.seen.clear()
            self.seen.add(entity)
            self.csv["other"].writerow([entity, "Entity"])

    def add(self, record: Triple | Name | Attribute) -> None:
        if isinstance(record, Triple):
            self._node(record.head)
            self._node(record.tail)
            self.csv["relationships"].writerow([record.head, record.tail, record.relation])
            self.report.triples += 1
        elif isinstance(record, Name):
            self.csv["named"].writerow([record.entity, record.name, normalize_name(record.name), "Entity"])
            self.report.names += 1
        else:
            key = record.key
            self._node(record.subject)
            self.csv["literals"].writerow([key, record.value, record.lang or "", record.datatype or "", "Literal"])
            self.literal_edges.writerow([record.subject, key, record.relation])
            self.report.attributes += 1

    def close(self) -> None:
        for f in [*self.files.values(), self.literal_edges_file]:
            f.close()
        p = {k: v.resolve() for k, v in self.paths.items()}
        self.report.files = [str(v) for v in p.values()] + [str(self.literal_edges_path.resolve())]
        self.report.commands = [
            ("neo4j-admin database import full neo4j --overwrite-destination "
             f"--nodes={p['named']} --nodes={p['other']} --nodes={p['literals']} "
             f"--relationships={p['relationships']} --relationships={self.literal_edges_path.resolve()} "
             "--skip-duplicate-nodes=true --skip-bad-relationships=true --multiline-fields=true"),
            "# then start Neo4j; `kgqa store stats --store bolt://...` creates the indexes on first connect",
        ]
