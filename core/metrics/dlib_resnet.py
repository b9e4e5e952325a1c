"""dlib's face-recognition ResNet (``dlib_face_recognition_resnet_model_v1.dat``) in torch.

The ``.dat`` file is dlib's own binary serialization of the network
``loss_metric<fc_no_bias<128, avg_pool_everything<alevel0<…alevel4<max_pool<relu<affine<
con<32,7,7,2,2, input_rgb_image_sized<150>>>>>>…>>>`` (dlib's
``examples/dnn_face_recognition_ex.cpp``).  :func:`read_layers` parses the file into a
flat list of layers (input first) without dlib; :func:`build_net` matches that list
against the network's block structure and returns an equivalent ``torch.nn.Module``
(test-time: ``affine_`` layers, folded into the convolutions before them).

Input: 150×150 RGB uint8 chips exactly as dlib aligns them
(``dlib.get_face_chips(img, shapes, size=150, padding=0.25)``); dlib's input layer maps
a pixel to ``(value − channel mean) / 256``.  Output: dlib's 128-d descriptor (not
normalised).  torch is imported only inside the functions that need it (ADR 068).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

CHIP_SIZE = 150
CHIP_PADDING = 0.25
#: float_details exponents dlib uses for inf, -inf and NaN
_SPECIAL_EXPONENTS = {32000: float("inf"), 32001: float("-inf"), 32002: float("nan")}


class DlibFormatError(ValueError):
    """The file is not the dlib network this module ports (or is damaged)."""


@dataclass
class Layer:
    """One layer of the parsed network, input side first.

    ``kind``: input, con, affine, relu, max_pool, avg_pool, add_prev, fc or ``mark`` (a
    tag or skip layer: dlib serializes both alike, without their ids).
    """

    kind: str
    attrs: dict[str, Any] = field(default_factory=dict)


class _Reader:
    """Sequential reader of dlib's serialization primitives (dlib/serialize.h)."""

    def __init__(self, data: bytes, path: str) -> None:
        self.data, self.pos, self.path = data, 0, path

    def fail(self, what: str) -> DlibFormatError:
        return DlibFormatError(f"{self.path}: not a dlib face-recognition ResNet file "
                               f"({what} at byte {self.pos})")

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise self.fail(f"unexpected end of file reading {n} bytes")
        out = self.data[self.pos:self.pos + n]
        self.pos += n
        return out

    def int_(self) -> int:
        """dlib's packed integer: a control byte (bit 7 = negative, low 4 bits = byte
        count) followed by that many little-endian magnitude bytes."""
        ctrl = self.take(1)[0]
        n = ctrl & 0x0F
        if n > 8 or ctrl & 0x70:
            self.pos -= 1
            raise self.fail(f"bad integer control byte 0x{ctrl:02x}")
        value = int.from_bytes(self.take(n), "little") if n else 0
        return -value if ctrl & 0x80 else value

    def float_(self) -> float:
        """dlib's float_details: packed int64 mantissa then packed int16 exponent."""
        if self.pos < len(self.data) and self.data[self.pos] & 0x70:
            raise self.fail("old ASCII float encoding (unsupported)")
        mantissa, exponent = self.int_(), self.int_()
        if exponent in _SPECIAL_EXPONENTS:
            return _SPECIAL_EXPONENTS[exponent]
        return float(np.ldexp(float(mantissa), exponent))

    def string(self) -> str:
        n = self.int_()
        if n > 256:
            raise self.fail(f"implausible string length {n}")
        return self.take(n).decode("latin-1")

    def peek_string(self) -> str | None:
        """The string at the current position, if one plausibly starts here (no advance)."""
        pos = self.pos
        try:
            s = self.string()
        except DlibFormatError:
            s = None
        self.pos = pos
        return s if s and s.isprintable() else None

    def bool_(self) -> bool:
        ch = self.take(1)
        if ch not in (b"0", b"1"):
            self.pos -= 1
            raise self.fail(f"bad bool byte {ch!r}")
        return ch == b"1"

    def version(self, expected: set[int], what: str) -> int:
        v = self.int_()
        if v not in expected:
            raise self.fail(f"unexpected {what} version {v}")
        return v

    def tensor(self) -> np.ndarray:
        """resizable_tensor v2: n, k, nr, nc then raw little-endian float32 values."""
        self.version({2}, "tensor")
        shape = tuple(self.int_() for _ in range(4))
        if min(shape) < 0:
            raise self.fail(f"negative tensor shape {shape}")
        count = int(np.prod(shape))
        return np.frombuffer(self.take(4 * count), "<f4").astype(np.float32).reshape(shape)

    def alias(self) -> tuple[int, int, int, int]:
        self.version({1}, "alias_tensor")
        return self.int_(), self.int_(), self.int_(), self.int_()


def _details(r: _Reader) -> Layer:
    """One layer's own parameters (dlib/dnn/layers.h ``serialize`` of each ``*_``)."""
    name = r.string()
    if name in ("con_4", "con_5"):
        params = r.tensor().ravel()
        num_filters = r.int_()
        nr, nc, sy, sx, py, px = (r.int_() for _ in range(6))
        filters, biases = r.alias(), r.alias()
        for _ in range(4):
            r.float_()  # learning-rate / weight-decay multipliers
        use_bias = r.bool_() if name == "con_5" else True
        n_w = int(np.prod(filters))
        if filters[0] != num_filters or filters[2:] != (nr, nc) or n_w > params.size:
            raise r.fail(f"inconsistent convolution shapes {filters} / {num_filters}×{nr}×{nc}")
        bias = params[n_w:n_w + num_filters] if use_bias and np.prod(biases) else None
        return Layer("con", {"weight": params[:n_w].reshape(filters), "bias": bias,
                             "stride": (sy, sx), "padding": (py, px)})
    if name == "affine_":
        params = r.tensor().ravel()
        gamma, beta = r.alias(), r.alias()
        mode = r.int_()
        n = int(np.prod(gamma))
        if mode != 0 or int(np.prod(beta)) != n or params.size != 2 * n:
            raise r.fail(f"unsupported affine layer (mode {mode}, {params.size} params)")
        return Layer("affine", {"gamma": params[:n], "beta": params[n:]})
    if name in ("relu_", "add_prev_"):
        return Layer(name[:-1])
    if name in ("max_pool_2", "avg_pool_2"):
        nr, nc, sy, sx, py, px = (r.int_() for _ in range(6))
        return Layer(name[:-2], {"size": (nr, nc), "stride": (sy, sx), "padding": (py, px)})
    if name == "fc_2":
        n_out, n_in = r.int_(), r.int_()
        params = r.tensor().ravel()
        weights, _biases = r.alias(), r.alias()
        bias_mode = r.int_()
        for _ in range(4):
            r.float_()
        if bias_mode != 1 or weights[:2] != (n_in, n_out) or params.size != n_in * n_out:
            raise r.fail(f"unsupported fc layer ({n_in}→{n_out}, bias mode {bias_mode})")
        return Layer("fc", {"weight": params.reshape(n_in, n_out).T.copy()})
    raise r.fail(f"unsupported layer type {name!r}")


def _input_layer(r: _Reader) -> Layer:
    name = r.string()
    if name != "input_rgb_image_sized":
        raise r.fail(f"unsupported input layer {name!r}")
    mean = [r.float_() for _ in range(3)]
    nr, nc = r.int_(), r.int_()
    if (nr, nc) != (CHIP_SIZE, CHIP_SIZE):
        raise r.fail(f"input size {nr}×{nc}, expected {CHIP_SIZE}×{CHIP_SIZE}")
    return Layer("input", {"mean": np.asarray(mean, np.float32)})


def read_layers(path: str | Path) -> list[Layer]:
    """Parse a dlib ``loss_metric`` network file into its layers, input first.

    Raises :class:`DlibFormatError` naming the file when the bytes are not what this
    module understands (another layer type, a truncated file, trailing bytes).
    """
    path = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise DlibFormatError(f"{path}: cannot read the dlib network file ({exc})") from exc
    r = _Reader(data, path)
    r.version({1}, "add_loss_layer")
    loss = r.string()
    if loss == "loss_metric_2":
        r.float_(), r.float_()  # margin, distance threshold (training only)
    elif loss != "loss_metric_":
        raise r.fail(f"unsupported loss layer {loss!r}")
    # The nesting is written outside-in: every wrapper's version first, down to the
    # layer that sits on the input; each add_layer's own data follows on the way out.
    wrappers: list[int] = []
    while True:
        v = r.int_()
        following = r.peek_string()
        if following is not None and following.startswith("input"):
            if v not in (2, 3):
                raise r.fail(f"unexpected input add_layer version {v}")
            layers = [_input_layer(r), _details(r)]
            r.bool_(), r.bool_(), r.bool_()
            r.tensor(), r.tensor(), r.tensor()  # x_grad, cached_output, grad_final
            if v == 3:
                r.int_()  # sample_expansion_factor
            break
        if v not in (1, 2):
            raise r.fail(f"unexpected layer version {v}")
        wrappers.append(v)
        if len(wrappers) > 10_000:
            raise r.fail("implausibly deep network")
    for v in reversed(wrappers):
        if v == 1:  # add_tag_layer / add_skip_layer: nothing after the subnetwork
            layers.append(Layer("mark"))
            continue
        layers.append(_details(r))
        r.bool_(), r.bool_(), r.bool_()
        r.tensor(), r.tensor(), r.tensor()  # x_grad, cached_output, params_grad
    if r.pos != len(data):
        raise r.fail(f"{len(data) - r.pos} unexpected trailing bytes")
    return layers


# -- the network's structure ----------------------------------------------------------------

_STEM = ("input", "con", "affine", "relu", "max_pool")
_RESIDUAL = ("mark", "con", "affine", "relu", "con", "affine", "add_prev", "relu")
_RESIDUAL_DOWN = ("mark", "con", "affine", "relu", "con", "affine", "mark", "mark",
                  "avg_pool", "add_prev", "relu")
_HEAD = ("avg_pool", "fc")


@dataclass
class NetSpec:
    """The parsed network grouped into stem, residual blocks and head (numpy weights)."""

    mean: np.ndarray
    stem: list[Layer]
    blocks: list[tuple[bool, list[Layer]]]  # (downsampling, layers of the block)
    head: list[Layer]


def structure(layers: list[Layer], path: str = "dlib network") -> NetSpec:
    """Match the layer list against dlib's face-recognition ResNet structure."""
    kinds = tuple(layer.kind for layer in layers)

    def fail(at: int, what: str) -> DlibFormatError:
        return DlibFormatError(f"{path}: layer {at} ({kinds[at] if at < len(kinds) else 'end'})"
                               f" does not fit dlib's face-recognition ResNet: {what}")

    if kinds[:len(_STEM)] != _STEM:
        raise fail(0, f"expected the stem {'/'.join(_STEM)}")
    i, blocks = len(_STEM), []
    while i < len(kinds) - len(_HEAD):
        for pattern, down in ((_RESIDUAL_DOWN, True), (_RESIDUAL, False)):
            if kinds[i:i + len(pattern)] == pattern:
                blocks.append((down, layers[i:i + len(pattern)]))
                i += len(pattern)
                break
        else:
            raise fail(i, "expected a residual block")
    if kinds[i:] != _HEAD:
        raise fail(i, "expected avg_pool_everything then fc_no_bias")
    pool = layers[i].attrs
    if pool["size"] != (0, 0) or pool["stride"] != (1, 1):
        raise fail(i, "the final pooling must average everything")
    if not blocks:
        raise fail(len(_STEM), "no residual blocks")
    return NetSpec(layers[0].attrs["mean"], layers[1:len(_STEM)], blocks, layers[i:])


def _fold(conv: Layer, affine: Layer) -> tuple[np.ndarray, np.ndarray]:
    """A convolution followed by ``x·γ + β`` as one convolution (weights in float64)."""
    w = conv.attrs["weight"].astype(np.float64)
    b = conv.attrs["bias"]
    b = np.zeros(w.shape[0]) if b is None else b.astype(np.float64)
    g = affine.attrs["gamma"].astype(np.float64)
    if g.size != w.shape[0]:
        raise DlibFormatError(f"affine layer of {g.size} channels after a "
                              f"{w.shape[0]}-filter convolution")
    wf = (w * g[:, None, None, None]).astype(np.float32)
    bf = (b * g + affine.attrs["beta"]).astype(np.float32)
    return wf, bf


def build_net(path: str | Path) -> Any:
    """Load ``path`` as an eval-mode ``torch.nn.Module`` mapping uint8 chips to descriptors.

    The module takes ``(n, 150, 150, 3)`` uint8 RGB (a tensor or numpy array) and
    returns ``(n, 128)`` float32 descriptors equal to dlib's ``compute_face_descriptor``.
    """
    spec = structure(read_layers(path), str(path))
    return _torch_module(spec)


def _torch_module(spec: NetSpec) -> Any:
    import torch
    import torch.nn.functional as F

    class DlibFaceResNet(torch.nn.Module):
        """dlib's face ResNet; see :mod:`core.metrics.dlib_resnet`."""

        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("mean", torch.from_numpy(spec.mean).view(1, 3, 1, 1))
            self.register_buffer("fc", torch.from_numpy(spec.head[1].attrs["weight"]))
            self.geometry: dict[str, tuple[tuple[int, int], tuple[int, int]]] = {}
            c, a, _relu, pool = spec.stem
            self._add_conv("stem", c, a)
            self.stem_pool = pool.attrs
            self.pools: list[dict[str, Any] | None] = []
            for k, (down, ls) in enumerate(spec.blocks):
                self._add_conv(f"b{k}c1", ls[1], ls[2])
                self._add_conv(f"b{k}c2", ls[4], ls[5])
                self.pools.append(ls[8].attrs if down else None)
            self.eval()

        def _add_conv(self, name: str, conv: Layer, affine: Layer) -> None:
            w, b = _fold(conv, affine)
            # channels-last: the permuted uint8 chips already are; oneDNN runs it ~1.3× faster
            self.register_buffer(f"{name}_w", torch.from_numpy(w).contiguous(
                memory_format=torch.channels_last))
            self.register_buffer(f"{name}_b", torch.from_numpy(b))
            self.geometry[name] = (conv.attrs["stride"], conv.attrs["padding"])

        def _conv(self, x: Any, name: str) -> Any:
            stride, padding = self.geometry[name]
            return F.conv2d(x, getattr(self, f"{name}_w"), getattr(self, f"{name}_b"),
                            stride=stride, padding=padding)

        def forward(self, chips: Any) -> Any:
            x = torch.as_tensor(chips).to(self.mean.device)
            if x.dtype != torch.uint8 or x.dim() != 4 or tuple(x.shape[1:]) != (150, 150, 3):
                raise ValueError("expected (n, 150, 150, 3) uint8 RGB face chips, got "
                                 f"{tuple(x.shape)} {x.dtype}")
            x = (x.permute(0, 3, 1, 2).float() - self.mean) / 256.0
            x = F.relu(self._conv(x, "stem"))
            p = self.stem_pool
            x = F.max_pool2d(x, p["size"], p["stride"], p["padding"])
            for k, pool in enumerate(self.pools):
                y = self._conv(F.relu(self._conv(x, f"b{k}c1")), f"b{k}c2")
                if pool is not None:
                    x = F.avg_pool2d(x, pool["size"], pool["stride"], pool["padding"])
                x = F.relu(_add_padded(y, x))
            return x.mean(dim=(2, 3)) @ self.fc.T

    return DlibFaceResNet()


def embed_chips(net: Any, chips: np.ndarray, chunk: int = 64) -> np.ndarray:
    """``(n, 128)`` float32 descriptors of ``(n, 150, 150, 3)`` uint8 chips, ``chunk`` at a time.

    On CUDA, TF32 is switched off for the pass (restored after): it would move the
    descriptors by ~1e-3, and they must stay dlib's.
    """
    import torch

    if len(chips) == 0:
        return np.zeros((0, 128), np.float32)
    cuda = net.mean.device.type == "cuda"
    saved = (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    try:
        if cuda:
            torch.backends.cuda.matmul.allow_tf32 = torch.backends.cudnn.allow_tf32 = False
        with torch.inference_mode():
            out = [net(chips[i:i + chunk]).float().cpu().numpy()
                   for i in range(0, len(chips), max(1, chunk))]
    finally:
        torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32 = saved
    return np.concatenate(out)


def _add_padded(a: Any, b: Any) -> Any:
    """dlib's ``add_prev``: tensors of different shapes add as if zero-padded to the max
    of each dimension (channels, rows, columns), aligned at index 0."""
    if a.shape == b.shape:
        return a + b
    import torch.nn.functional as F

    c, h, w = (max(a.shape[d], b.shape[d]) for d in (1, 2, 3))

    def pad(t: Any) -> Any:
        return F.pad(t, (0, w - t.shape[3], 0, h - t.shape[2], 0, c - t.shape[1]))

    return pad(a) + pad(b)

