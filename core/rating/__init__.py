"""Offline expert rating sessions (SPEC §5): design, session files, merge, results.

Qt-free.  ``design`` plans a seeded session, ``sessions`` records it in the project and
writes one ``*.winnow-session`` file per rater, ``session_file`` is what the rater
view uses, ``merge`` brings the returned files back, ``results`` summarises raters
and exports the CSV inputs of ``winnow stats``.
"""
