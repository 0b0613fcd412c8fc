"""usage: python paraphrase_probe.py STORES

The embedded 0.5B model asked, once per relation of four development KGs, for three other
ways to say it (one example fact each): whether it could name relations in the words
questions use. It echoes the names or gives verbs any relation fits."""
import sys

sys.path.insert(0, str(__import__('pathlib').Path(__file__).resolve().parents[3]))
from agent.assembly.models import open_llm
from agent.settings import Settings
from kg_store import open_store

S = sys.argv[1]  # the development stores (bench/devkgs/evaluate.py --stores)
prompt_sys = ("Each line is a fact of a knowledge graph: head | relation | tail. Write three other everyday ways to say "
              "the relation, as verbs or verb phrases that fit between the head and the tail, none using the relation's own words. "
              "Reply with the three, separated by commas.")
shots = [("Forrest Gump | directed by | Robert Zemeckis", "made by, filmed by, helmed by"),
         ("Paris | location country | France", "lies in, is situated in, belongs to")]
def ask(llm, fact):
    msgs = [{"role": "system", "content": prompt_sys}]
    for f, a in shots:
        msgs += [{"role": "user", "content": f}, {"role": "assistant", "content": a}]
    msgs.append({"role": "user", "content": fact})
    return llm.chat(msgs, temperature=0.0, max_tokens=40).text.strip()
with open_llm(Settings()) as llm:
    for kg in ['packages', 'languages', 'elements', 'geo']:
        with open_store(f'oxigraph:{S}/{kg}', read_only=True) as st:
            rels = sorted(st.relation_counts())
            for r in rels:
                ents = st.entities_with(r, 'out', limit=1)
                if not ents: continue
                hood = st.neighbors(ents[:1], direction='out', relations=[r], limit_per_entity=1)
                e = hood.edges[ents[0]][0]
                nm = st.names([ents[0], e.neighbor])
                fact = f"{nm[ents[0]]} | {r.replace('_',' ')} | {nm[e.neighbor]}"
                print(kg, '|', fact, '=>', ask(llm, fact), flush=True)
