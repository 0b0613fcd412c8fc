"""The OpenAI-compatible client is built on the model's start-up thread while the main
thread goes on importing; a half-imported `httpx` there once made `kgqa eval` fail to start."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path


def test_the_client_waits_for_another_threads_import_of_httpx(tmp_path: Path) -> None:
    # A stand-in httpx that takes a second to import: the real one is imported by the
    # time any test runs, so only a fresh process can catch a thread in the middle of it.
    (tmp_path / "httpx.py").write_text("import time\ntime.sleep(1.0)\nclass URL:\n    pass\n", encoding="utf-8")
    script = textwrap.dedent(f"""
        import sys, threading, time
        sys.path.insert(0, {str(tmp_path)!r})
        from agent.llm.openai_compat import OpenAICompatibleClient
        importer = threading.Thread(target=__import__, args=("httpx",))
        importer.start()
        time.sleep(0.3)  # the other thread is inside httpx's import now
        OpenAICompatibleClient("http://127.0.0.1:9/v1", "a-model")
        importer.join()
        print("built")
    """)
    done = subprocess.run([sys.executable, "-c", script], check=False, capture_output=True, text=True, timeout=120,
                          cwd=Path(__file__).resolve().parents[1])
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "built"
