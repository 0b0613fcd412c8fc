"""The settings object lives in the library (`agent.settings`); the command line reads it
from here and only assembles it (flags on top of KGQA_* variables)."""

from agent.settings import Settings, default_data_dir

__all__ = ["Settings", "default_data_dir"]
