"""The analysis layer behind the Analyze workspace (Qt-free).

* :mod:`core.analysis.sources` — the registry of analysable data sets (CSV files the
  user opens, and data sets that project providers offer: rating sessions, metric and
  judge results, see :mod:`core.analysis.project_sources`); :mod:`core.analysis.datasets`
  holds the :class:`DataSet` type and the provider registry both of them use;
* :mod:`core.analysis.report` — everything the workspace shows, computed from a data
  set by calling :mod:`core.stats`, as plain dataclasses; :func:`export_html`;
* :mod:`core.analysis.plots` — matplotlib figure builders (no pyplot state).
"""
