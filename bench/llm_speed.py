"""The embedded model's speed on this machine: prompt (prefill) and generation tokens per second.

    python bench/llm_speed.py --json [--model qwen-0.5b] [--prompt-tokens 256 1024 2048]
                              [--generate-tokens 64] [--repeats 3] [--threads N]

Loads the packaged GGUF in-process with llama-cpp-python, the library the embedded server
runs, and times llama.cpp itself: prompts of a fixed token length evaluated into an empty
context (nothing is reused between repeats), then a fixed number of single-token decode
steps, as generation does (without sampling, which costs well under a millisecond a token).
Most of the speed is decided when llama-cpp-python is compiled (the instruction sets chosen
with CMAKE_ARGS), so the build's own system info is printed with the figures.

Prints one JSON object per prompt length, then one for the build:
{"prompt_tokens", "prefill_tok_s", "generate_tok_s", "prefill_s", "generate_s"} (medians over
the repeats) and {"model", "llama_cpp", "threads", "system_info"}.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent.llm.local import MODELS, SERVER_CONTEXT, assemble, server_threads
from kgqa.settings import Settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default="qwen-0.5b", choices=sorted(MODELS))
    parser.add_argument("--prompt-tokens", type=int, nargs="+", default=[256, 1024, 2048])
    parser.add_argument("--generate-tokens", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=server_threads(),
                        help="as the embedded server uses: every core")
    parser.add_argument("--json", action="store_true", help="JSON lines only (the default output)")
    args = parser.parse_args()

    import llama_cpp

    if max(args.prompt_tokens) + args.generate_tokens > SERVER_CONTEXT:
        parser.error(f"prompt plus generated tokens must fit the server's context of {SERVER_CONTEXT}")
    weights = assemble(MODELS[args.model], Settings().data_dir / "models")
    llm = llama_cpp.Llama(model_path=str(weights), n_ctx=SERVER_CONTEXT, n_threads=args.threads,
                          n_threads_batch=args.threads, verbose=False)
    # Token ids from the middle of the vocabulary: real words and pieces; their meaning does
    # not change the arithmetic, and a fixed seed makes runs comparable.
    rng = random.Random(0)
    for length in args.prompt_tokens:
        prefill, generate = [], []
        for _ in range(args.repeats):
            tokens = [rng.randrange(1_000, 30_000) for _ in range(length + args.generate_tokens)]
            llm.reset()  # the next eval starts at position 0 and drops the old cache entries
            start = time.perf_counter()
            llm.eval(tokens[:length])
            prefill.append(time.perf_counter() - start)
            start = time.perf_counter()
            for token in tokens[length:]:
                llm.eval([token])
            generate.append(time.perf_counter() - start)
        prefill_s, generate_s = statistics.median(prefill), statistics.median(generate)
        row = {
            "prompt_tokens": length,
            "prefill_tok_s": round(length / prefill_s, 1),
            "generate_tok_s": round(args.generate_tokens / generate_s, 1),
            "prefill_s": round(prefill_s, 3),
            "generate_s": round(generate_s, 3),
        }
        print(json.dumps(row), flush=True)
    build = {
        "model": weights.name,
        "llama_cpp": llama_cpp.__version__,
        "threads": args.threads,
        "system_info": llama_cpp.llama_print_system_info().decode().strip(),
    }
    print(json.dumps(build))


if __name__ == "__main__":
    main()
