"""The demo project: a realistic data set drawn from a seed, imported through the real code.

- :mod:`core.demo.project` — :func:`create_demo_project` (what ``winnow demo`` and File →
  New Demo Project call) and :func:`demo_sources_dir`;
- :mod:`core.demo.sources` — the data set's files (:func:`generate_demo_sources`), built
  from :mod:`~core.demo.threads` (posts, replies, samples), :mod:`~core.demo.content`
  (prompts and pictures), :mod:`~core.demo.vocabulary`, :mod:`~core.demo.drawing`,
  :mod:`~core.demo.screenshots` and :mod:`~core.demo.edits`;
- :mod:`core.demo.photos` — photos for Anonymize (drawn in :mod:`~core.demo.photo_scenes`);
- :mod:`core.demo.ratings` — finished rating sessions answered by simulated raters.

The same seed gives the same project (``tests/test_demo_project.py`` pins it).
"""

from core.demo.project import create_demo_project, demo_sources_dir

__all__ = ["create_demo_project", "demo_sources_dir"]
