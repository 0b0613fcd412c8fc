"""bench/install_time.py reads the install's parts off a pip log."""

from __future__ import annotations

import importlib.util
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[1] / "bench" / "install_time.py"


def test_the_parts_of_an_install_are_read_off_its_pip_log(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("install_time", SCRIPT)
    install_time = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(install_time)
    log = tmp_path / "pip.log"
    log.write_text(
        "2026-11-27T21:14:13,682 Using pip 23.2.1\n"
        "2026-11-27T21:14:14,357   Installing collected packages: setuptools, packaging, wheel\n"  # a build env's
        "2026-11-27T21:14:44,702   Building editable for kgqa (pyproject.toml): started\n"
        "2026-11-27T21:14:44,891   Building wheel for llama-cpp-python (pyproject.toml): started\n"
        "2026-11-27T21:18:04,514   Building wheel for llama-cpp-python (pyproject.toml): finished with status 'done'\n"
        "2026-11-27T21:18:05,396 Installing collected packages: sqlite-vec, pytz\n"
        "2026-11-27T21:18:45,166 Successfully installed sqlite-vec pytz\n")
    assert install_time.parts(log) == {"total_s": 271.5, "resolve_download_s": 31.0, "llama_build_s": 199.6,
                                       "other_builds_s": 1.1, "install_s": 39.8}
