"""onnxruntime, imported one way: with its telemetry off before it starts (ADR 230).

The Linux and macOS wheels of onnxruntime 1.2x+ carry Microsoft's "1DS" telemetry: on
the first session they write a device identifier and an event store under
``~/.cache/Microsoft/DeveloperTools/.onnxruntime`` and upload process, model and
device events to ``mobile.events.data.microsoft.com``.  A tool that anonymizes photos
offline must not do that, so every Winnow module gets onnxruntime from
:func:`onnxruntime` here, which sets ``ORT_DISABLE_TELEMETRY=1`` (the runtime's full
opt-out: read once, when its environment is created) before the first import and turns
the runtime's telemetry events off after it (Windows' switch).
"""

from __future__ import annotations

import os
from typing import Any

#: the variables onnxruntime reads for its opt-out (the second is the spelling of
#: onnxruntime#29843); both set, whatever the user's environment says
OPT_OUT = {"ORT_DISABLE_TELEMETRY": "1", "ORT_TELEMETRY_DISABLED": "1"}


def onnxruntime() -> Any:
    """The onnxruntime module (typed Any, as its callers use it), its telemetry off;
    ImportError when it is not installed."""
    os.environ.update(OPT_OUT)
    import onnxruntime as ort

    off = getattr(ort, "disable_telemetry_events", None)
    if callable(off):
        off()
    return ort
