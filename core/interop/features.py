"""Column types described once, rendered three ways: Arrow (the parquet schema),
Hugging Face ``Features`` JSON (parquet metadata) and the dataset card's YAML.

A kind is a string (``"string"``, ``"bool"``, ``"int32"``, ``"int64"``, ``"float64"``,
``"image"``) or a tuple ``("list", kind)`` / ``("struct", ((name, kind), ...))``.  The
JSON and YAML use the long-standing ``Sequence`` spellings, which ``datasets`` 2.x to
5.x all read (the newer ``List`` spelling is not understood by 2.x/3.x).
"""

from __future__ import annotations

from typing import Any

from core.interop.deps import require_pyarrow

Kind = Any
SCALARS = ("string", "bool", "int32", "int64", "float64")


def seq(kind: Kind) -> tuple[str, Kind]:
    """A list of ``kind``."""
    return ("list", kind)


def struct(*fields: tuple[str, Kind]) -> tuple[str, tuple[tuple[str, Kind], ...]]:
    """A record with named fields."""
    return ("struct", tuple(fields))


def arrow_type(kind: Kind) -> Any:
    """The Arrow type that ``datasets`` uses for ``kind`` (an image is ``{bytes, path}``)."""
    pa, _ = require_pyarrow()
    if kind == "image":
        return pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    if isinstance(kind, str):
        return {"string": pa.string(), "bool": pa.bool_(), "int32": pa.int32(),
                "int64": pa.int64(), "float64": pa.float64()}[kind]
    tag, inner = kind
    if tag == "list":
        return pa.list_(arrow_type(inner))
    return pa.struct([(name, arrow_type(k)) for name, k in inner])


def arrow_schema(columns: list[tuple[str, Kind]]) -> Any:
    """The parquet schema, with the ``huggingface`` features metadata ``datasets`` reads."""
    import json

    pa, _ = require_pyarrow()
    meta = {"info": {"features": {name: hf_json(kind) for name, kind in columns}}}
    return pa.schema([(name, arrow_type(kind)) for name, kind in columns],
                     metadata={"huggingface": json.dumps(meta)})


def hf_json(kind: Kind) -> Any:
    """``datasets.Features`` JSON of ``kind`` (``Features.from_dict`` reads it)."""
    if kind == "image":
        return {"_type": "Image"}
    if isinstance(kind, str):
        return {"dtype": kind, "_type": "Value"}
    tag, inner = kind
    if tag == "struct":
        return {name: hf_json(k) for name, k in inner}
    if isinstance(inner, tuple) and inner[0] == "struct":
        return [hf_json(inner)]  # a list of records: the list-literal spelling
    return {"feature": hf_json(inner), "_type": "Sequence"}


def hf_yaml(name: str, kind: Kind) -> dict[str, Any]:
    """One entry of the card's ``dataset_info.features`` list."""
    return {"name": name, **_yaml_body(kind)}


def _yaml_body(kind: Kind) -> dict[str, Any]:
    if kind == "image":
        return {"dtype": "image"}
    if isinstance(kind, str):
        return {"dtype": kind}
    tag, inner = kind
    if tag == "struct":
        return {"struct": [hf_yaml(n, k) for n, k in inner]}
    if isinstance(inner, tuple) and inner[0] == "struct":
        return {"list": [hf_yaml(n, k) for n, k in inner[1]]}
    return {"sequence": _yaml_inner(inner)}


def _yaml_inner(kind: Kind) -> Any:
    body = _yaml_body(kind)
    return body["dtype"] if set(body) == {"dtype"} else body
