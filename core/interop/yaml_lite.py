"""A tiny YAML emitter for dataset-card front matter (no PyYAML in the base install).

Strings are written as JSON strings, which are valid YAML double-quoted scalars, so no
value can break out of its field whatever it contains.
"""

from __future__ import annotations

import json
from typing import Any


def dump(value: Any, indent: int = 0) -> str:
    """YAML block text for nested dicts, lists and scalars."""
    return "".join(line + "\n" for line in _lines(value, indent))


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    return json.dumps(str(value), ensure_ascii=False)


def _key(name: str) -> str:
    plain = name.replace("_", "").replace("-", "").isalnum()
    return name if plain else json.dumps(name, ensure_ascii=False)


def _lines(value: Any, indent: int) -> list[str]:
    pad = " " * indent
    out: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            if isinstance(item, dict | list) and item:
                out.append(f"{pad}{_key(key)}:")
                out.extend(_lines(item, indent + (0 if isinstance(item, list) else 2)))
            else:
                empty = "{}" if isinstance(item, dict) else "[]" if isinstance(item, list) else ""
                out.append(f"{pad}{_key(key)}: {empty or _scalar(item)}")
        return out
    if isinstance(value, list):
        for item in value:
            if isinstance(item, dict | list) and item:
                sub = _lines(item, indent + 2)
                out.append(f"{pad}- {sub[0].lstrip()}")
                out.extend(sub[1:])
            else:
                out.append(f"{pad}- {_scalar(item)}")
        return out
    return [pad + _scalar(value)]
