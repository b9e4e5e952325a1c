"""Curating as a team (issue #20): curator packages, merges with conflicts, agreement.

- :mod:`core.teamwork.split` writes one package per curator (ADR 130);
- :mod:`core.teamwork.package` is the package's format and tamper evidence (ADR 131);
- :mod:`core.teamwork.merge` brings the edits back field by field (ADR 132);
- :mod:`core.teamwork.conflicts` lists and resolves what a merge did not write (ADR 133);
- :mod:`core.teamwork.agreement` measures agreement on the overlap (ADR 134).
"""

#: the share of samples given to two curators when none is asked for (Curate → Share
#: Work… and ``winnow curate split`` alike); with one curator there is no overlap
DEFAULT_OVERLAP = 0.1
