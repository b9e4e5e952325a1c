"""Metrics on selections (SPEC §7): a registry of metrics, a runner, VLM judges.

Qt-free.  torch, transformers, dlib, onnxruntime and rapidocr are imported only
inside the functions that need them, so importing this package stays light.

* :mod:`core.metrics.registry` — every metric by name (``get``, ``all_metrics``)
* :mod:`core.metrics.runner` — ``run_metrics`` (project, cached) and ``evaluate`` (pairs)
* :mod:`core.metrics.worker` — the model thread that owns models and the device
* :mod:`core.metrics.judge_client` — OpenAI-compatible chat-completions client
* :mod:`core.metrics.store` — results table, CSV export; :mod:`core.metrics.summary`
"""
