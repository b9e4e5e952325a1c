"""Helpers of the arena vote-file tests: battles, writing them, running ``winnow stats``."""

from __future__ import annotations

import json
from pathlib import Path

from app.cli import run_cli


def battle(a: str, b: str, winner: str, **extra) -> dict:
    return {"model_a": a, "model_b": b, "winner": winner, **extra}


def write_json(path: Path, records: list, indent: int | None = 2) -> Path:
    path.write_text(json.dumps(records, indent=indent), encoding="utf-8")
    return path


def write_jsonl(path: Path, records: list) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


BASIC = [
    battle("x", "y", "model_a"),
    battle("y", "z", "model_b"),
    battle("z", "x", "tie"),
    battle("x", "z", "tie (bothbad)"),
    battle("y", "x", "model_a"),
]


def cli(capsys, *argv: str) -> tuple[int, dict | None, str]:
    code = run_cli(["stats", *argv])
    out = capsys.readouterr()
    return code, json.loads(out.out) if code == 0 else None, out.err
