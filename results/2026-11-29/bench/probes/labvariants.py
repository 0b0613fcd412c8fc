import re

NAME = re.compile(r" OPTIONAL \{ \?x <[^>]+> \?n FILTER\(lang\(\?n\) = 'en' \|\| lang\(\?n\) = ''\) \}")
def noname(q): return NAME.sub("", q)
def pair_by_entity(q):
    m = re.search(r"VALUES \(\?s \?r\) \{ (.*?) \} (.*?) OPTIONAL", q)
    pairs = re.findall(r"\((<[^>]+>) (<[^>]+>)\)", m.group(1))
    by = {}
    for s, r in pairs: by.setdefault(s, []).append(r)
    pattern = m.group(2)
    parts = [f"{{ VALUES ?s {{ {s} }} VALUES ?r {{ {' '.join(rs)} }} {pattern} }}" for s, rs in by.items()]
    return q[:m.start()] + " UNION ".join(parts) + q[m.end() - len(" OPTIONAL"):]
def pair_values_after(q):
    m = re.search(r"(VALUES \(\?s \?r\) \{ .*? \}) (.*?) OPTIONAL", q)
    return q[:m.start()] + m.group(2) + " " + m.group(1) + q[m.end() - len(" OPTIONAL"):]
def pair_filter_in(q):
    m = re.search(r"VALUES \(\?s \?r\) \{ (.*?) \} (.*?) OPTIONAL", q)
    pairs = re.findall(r"\((<[^>]+>) (<[^>]+>)\)", m.group(1))
    ss = sorted({s for s, _ in pairs}); rs = sorted({r for _, r in pairs})
    return q[:m.start()] + f"VALUES ?s {{ {' '.join(ss)} }} VALUES ?r {{ {' '.join(rs)} }} {m.group(2)}" + q[m.end() - len(" OPTIONAL"):]
def pair_by_relation(q):
    m = re.search(r"VALUES \(\?s \?r\) \{ (.*?) \} (.*?) OPTIONAL", q)
    pairs = re.findall(r"\((<[^>]+>) (<[^>]+>)\)", m.group(1))
    by = {}
    for s_, r in pairs: by.setdefault(r, []).append(s_)
    parts = [f"{{ VALUES ?r {{ {r} }} VALUES ?s {{ {' '.join(ss)} }} {m.group(2)} }}" for r, ss in by.items()]
    return q[:m.start()] + " UNION ".join(parts) + q[m.end() - len(" OPTIONAL"):]
def pair_bound_first(q):
    # the pairs as a sub-select that binds ?s ?r before the pattern
    m = re.search(r"(VALUES \(\?s \?r\) \{ .*? \}) (.*?) OPTIONAL", q)
    return q[:m.start()] + "{ SELECT ?s ?r WHERE { " + m.group(1) + " } } " + m.group(2) + q[m.end() - len(" OPTIONAL"):]
VARIANTS = {
    "pair edges": {"as is": lambda q: q, "by entity": pair_by_entity},
    "edges": {"as is": lambda q: q, "no name": noname},
    "capped edges": {"as is": lambda q: q, "no name": noname},
    "edge counts": {"as is": lambda q: q},
    "relation degrees": {"as is": lambda q: q},
}
