"""The dataset card ``README.md``: YAML front matter the Hub reads (configs with
data_files per split, dataset_info features and splits, licence) and a short body
(what the columns mean, how to load it, licence, a citation placeholder)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.interop import yaml_lite
from core.interop.features import Kind, hf_yaml
from core.interop.shards import SplitInfo

#: Licence identifiers the Hub knows that Winnow's licence fields are likely to hold.
HUB_LICENCES = ("apache-2.0", "mit", "cc0-1.0", "cc-by-4.0", "cc-by-sa-4.0", "cc-by-nc-4.0",
                "cc-by-nc-sa-4.0", "cc-by-nd-4.0", "cc-by-nc-nd-4.0", "cc-by-3.0",
                "cc-by-sa-3.0", "cc-by-2.0", "odc-by", "pddl", "other", "unknown")


def hub_licence(name: str | None) -> str:
    """The Hub's identifier for a licence name (``CC-BY-4.0`` → ``cc-by-4.0``), else other."""
    if not name or not name.strip():
        return "unknown"
    ident = name.strip().lower().replace(" ", "-")
    return ident if ident in HUB_LICENCES else "other"


@dataclass
class Card:
    """Everything the card says."""

    title: str
    summary: str
    columns: list[tuple[str, Kind, str]]  # name, kind, meaning
    splits: dict[str, SplitInfo]
    licence: str = "unknown"
    licence_note: str = ""
    task_categories: list[str] = field(default_factory=list)
    tags: list[str] = field(default_factory=list)


def _size_category(n: int) -> str:
    for limit, label in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"),
                         (1_000_000, "100K<n<1M")):
        if n < limit:
            return label
    return "n>1M"


def front_matter(card: Card) -> dict[str, Any]:
    """The YAML metadata as a dict (also what the tests compare against)."""
    total = sum(s.num_examples for s in card.splits.values())
    data: dict[str, Any] = {
        "pretty_name": card.title,
        "license": card.licence,
        "task_categories": card.task_categories,
        "tags": card.tags,
        "size_categories": [_size_category(total)],
        "configs": [{"config_name": "default", "data_files": [
            {"split": name, "path": f"data/{name}-*"} for name in card.splits]}],
        "dataset_info": {
            "features": [hf_yaml(name, kind) for name, kind, _ in card.columns],
            "splits": [{"name": s.name, "num_bytes": s.num_bytes,
                        "num_examples": s.num_examples} for s in card.splits.values()],
            "download_size": sum(s.num_bytes for s in card.splits.values()),
            "dataset_size": sum(s.num_bytes for s in card.splits.values()),
        },
    }
    if not card.task_categories:
        del data["task_categories"]
    return data


def render(card: Card) -> str:
    """The whole README.md."""
    rows = "\n".join(f"| `{name}` | {_kind_text(kind)} | {meaning} |"
                     for name, kind, meaning in card.columns)
    splits = "\n".join(f"| `{s.name}` | {s.num_examples} |" for s in card.splits.values())
    licence = f"`{card.licence}`" + (f". {card.licence_note}" if card.licence_note else "")
    first = next(iter(card.splits), "train")
    return (
        f"---\n{yaml_lite.dump(front_matter(card))}---\n\n"
        f"# {card.title}\n\n{card.summary}\n\n"
        f"## Splits\n\n| split | rows |\n|---|---|\n{splits}\n\n"
        f"## Columns\n\n| column | type | meaning |\n|---|---|---|\n{rows}\n\n"
        "## Loading\n\n```python\nfrom datasets import load_dataset\n\n"
        f'ds = load_dataset("path/to/this/folder")  # or the Hub id once uploaded\n'
        f'row = ds["{first}"][0]\n```\n\n'
        f"## Licence\n\n{licence}\n\n"
        "## Citation\n\nReplace this placeholder with the citation of your benchmark:\n\n"
        "```bibtex\n@misc{your_benchmark,\n  title  = {TODO: title},\n"
        "  author = {TODO: authors},\n  year   = {TODO},\n  note   = {TODO: URL}\n}\n```\n"
    )


def _kind_text(kind: Kind) -> str:
    if isinstance(kind, str):
        return kind
    tag, inner = kind
    if tag == "list":
        return f"list of {_kind_text(inner)}"
    return "{" + ", ".join(name for name, _ in inner) + "}"
