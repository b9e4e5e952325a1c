"""Offline expert rating sessions (SPEC §5): design, session files, merge, results.

Qt-free.  ``design`` plans a seeded session, ``sessions`` records it in the project and
writes one ``*.winnow-session`` file per rater (``session_images`` and ``images`` make
its blind images, ``file_build`` the file), ``session_file`` is what the rater view
uses, ``integrity`` holds the keys and MACs that make the files tamper-evident,
``returned`` reads a file that came back, ``merge`` brings it into the project,
``audit`` checks a file as a curious rater would attack it, ``results`` summarises
raters and exports the CSV inputs of ``winnow stats``.
"""
