"""Reading the project's own files: YAML configs, and a file's version for caches (keyed by (path, version), a
cache notices a file that changed)."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

# libyaml's parser when PyYAML was built with it: the same documents, about ten times faster (the tables
# read every model config of the paper profile)
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def read_yaml(path: str | Path) -> Any:
    """A YAML file as yaml.safe_load reads it (yaml.YAMLError when it is not valid YAML)."""
    return yaml.load(Path(path).read_text(encoding="utf-8"), Loader=_LOADER)


def file_version(path: str | Path) -> tuple[int, int] | None:
    """Size and modification time in nanoseconds; None for a file that is not there."""
    try:
        st = Path(path).stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns
