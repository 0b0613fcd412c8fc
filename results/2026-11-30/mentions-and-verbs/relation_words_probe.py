"""Can the shipped 0.5B model say how people phrase a relation, from one example fact? If it
could, its phrasings ("is defined from", "is abbreviated as") would name relations whose names
do not show those verbs. Each fact is asked once, temperature 0, two worked examples in the
prompt; the reply is printed as it came (`relation-words-probe.txt`).

    python results/2026-11-30/mentions-and-verbs/relation_words_probe.py \
        > results/2026-11-30/mentions-and-verbs/relation-words-probe.txt
"""

from llama_cpp import Llama

from agent.llm.local import MODELS, assemble
from agent.settings import Settings

SYSTEM = ("Each fact of a knowledge graph links a subject to an object by a relation. List three different ways "
          "people say this relation in questions: verbs or short phrases, comma-separated. Reply with the "
          "phrases only.")
EXAMPLES = [("Forrest Gump | directed by | Robert Zemeckis", "directed by, made by, filmed by"),
            ("Paris | location country | France", "is in, located in, belongs to")]
FACTS = ["debye | reference unit | coulomb", "yard | reference unit | meter", "meter | symbol | m",
         "newton | quantity kind | Force", "foot | unit group | US customary length", "CGS | base unit | centimeter",
         "Latvian | script | Latin script", "numpy | requires | python", "Argon | discovered by | William Ramsay"]


def main() -> None:
    weights = assemble(MODELS["qwen-0.5b"], Settings().data_dir / "models")  # the shipped model
    model = Llama(model_path=str(weights), n_ctx=1024, n_threads=2, verbose=False)
    for fact in FACTS:
        messages = [{"role": "system", "content": SYSTEM}]
        for question, answer in EXAMPLES:
            messages += [{"role": "user", "content": f"Fact: {question}"}, {"role": "assistant", "content": answer}]
        messages.append({"role": "user", "content": f"Fact: {fact}"})
        reply = model.create_chat_completion(messages=messages, temperature=0.0, max_tokens=30)
        print(f"{fact} => {reply['choices'][0]['message']['content']}")


if __name__ == "__main__":
    main()
