"""Ask the embedded 0.5B model for everyday synonyms of each relation of some development
KGs, from three example facts: python glosses.py languages units geo packages (from the
repository root). Printed one relation a line: glosses.txt."""
import collections
import csv
import random
import sys

from agent.assembly.models import open_llm
from agent.settings import Settings

SYSTEM = ("Say what a relation of a knowledge graph means in other everyday words: "
          "a comma-separated list of up to four short synonyms.")
SHOTS = [
    {"role": "user", "content": "Relation: directed by\nFacts: Forrest Gump | directed by | Robert Zemeckis; "
                                "Big | directed by | Penny Marshall"},
    {"role": "assistant", "content": "director, filmmaker, made by"},
    {"role": "user", "content": "Relation: location country\nFacts: Paris | location country | France; "
                                "Kyoto | location country | Japan"},
    {"role": "assistant", "content": "country, nation, situated in, lies in"},
]

with open_llm(Settings()) as llm:
    for kg in sys.argv[1:]:
        pairs = collections.defaultdict(list)
        with open(f"bench/devkgs/{kg}/kb.tsv") as table:
            for row in csv.reader(table, delimiter="\t"):
                if len(row) == 3:
                    pairs[row[1]].append((row[0], row[2]))
        for relation, facts in sorted(pairs.items()):
            random.seed(0)
            words = relation.replace("_", " ")
            shown = "; ".join(f"{h} | {words} | {t}" for h, t in random.sample(facts, min(3, len(facts))))
            reply = llm.chat([{"role": "system", "content": SYSTEM}, *SHOTS,
                              {"role": "user", "content": f"Relation: {words}\nFacts: {shown}"}],
                             temperature=0.0, max_tokens=30).text
            print(kg, relation, "=>", " / ".join(line.strip() for line in reply.splitlines() if line.strip()))
