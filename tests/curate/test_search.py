"""Curate search (ADR 032): ids, authors, emoji; the m009 document and its triggers; the
cached list query gives exactly what the plain SQL query gives."""

from __future__ import annotations

import random
import sqlite3
from pathlib import Path

import pytest

from core.curate.commands import SetField, UndoStack
from core.curate.queries import COLUMN_KEYS, SampleLister, ordered_ids
from core.curate.search import parse
from core.selection import SampleFilter
from core.store import Project, now_iso
from core.store.project import APPLICATION_ID
from core.store.schema import MIGRATIONS, SCHEMA_VERSION

POSTS = [  # id, author, keyword, text
    ("p1", "@user42", "cats", "my cat is amazing🔥 look"),
    ("p2", "@user420", None, "❤️ love this render"),
    ("p3", "@dana", "tint", "thumbs 👍🏽 up, C++ fans"),
    ("p4", "@eve", None, "a family 👨‍👩‍👧 portrait in the rain"),
]
SAMPLES = [  # id, post, prompt, feedback
    ("s00042", "p1", "make the cat orange", ["the orange looks yellowish"]),
    ("s00420", "p2", "a red heart in neon", []),
    ("demo-005", "p3", "turn the thumb blue", ["✓ nice", "© 2024 whoever"]),
    ("s7", "p4", "watercolor family portrait", []),
]


def _insert(conn: sqlite3.Connection) -> None:
    stamp = now_iso()
    for pid, author, keyword, text in POSTS:
        conn.execute("INSERT INTO posts(id, text, author, keyword, imported_at) "
                     "VALUES (?, ?, ?, ?, ?)", (pid, text, author, keyword, stamp))
    for sid, pid, prompt, feedback in SAMPLES:
        conn.execute("INSERT INTO samples(id, post_id, prompt, original_prompt, created_at, "
                     "modified_at) VALUES (?, ?, ?, ?, ?, ?)", (sid, pid, prompt, prompt,
                                                               stamp, stamp))
        for k, text in enumerate(feedback):
            conn.execute("INSERT INTO feedback(sample_id, position, text) VALUES (?, ?, ?)",
                         (sid, k, text))


@pytest.fixture
def searchable(project: Project) -> Project:
    with project.transaction() as conn:
        _insert(conn)
    return project


def found(project: Project, text: str) -> list[str]:
    return ordered_ids(project, SampleFilter(text=text))


@pytest.mark.parametrize("text, expected", [
    ("s00042", ["s00042"]),                    # a sample by its id
    ("demo-005", ["demo-005"]),                # ids with punctuation
    ("@user42", ["s00042", "s00420"]),         # an author (prefix: @user420 too)
    ("user42", ["s00042", "s00420"]),          # without the @
    ("p3", ["demo-005"]),                      # by the post's id
    ("cats", ["s00042"]),                      # by the post's keyword
    ("🔥", ["s00042"]),                        # an emoji glued to a word
    ("amazing🔥", ["s00042"]),
    ("❤", ["s00420"]), ("❤️", ["s00420"]),      # with or without the emoji selector
    ("👍", ["demo-005"]),                      # the plain thumb finds the skin-toned one
    ("👍🏽", ["demo-005"]), ("👍🏻", []),          # but a different tone does not
    ("👨‍👩‍👧", ["s7"]),                             # a ZWJ family, as one symbol
    ("©", ["demo-005"]), ("✓ nice", ["demo-005"]),  # symbols in feedback
    ("cat 🔥", ["s00042"]), ("rain 🔥", []),     # words and symbols are AND-ed
    ("yellowish orange", ["s00042"]),          # prompt + feedback in one document
    ("-", ["demo-005", "s00042", "s00420", "s7"]),  # nothing searchable: no filter
])
def test_search_finds(searchable: Project, text: str, expected: list[str]) -> None:
    assert found(searchable, text) == expected
    assert SampleFilter(text=text).sample_ids(searchable) == expected  # other workspaces


UNSPACED = [  # id, post text, prompt: scripts written without spaces between words
    ("zh", "帮我把这张图里的猫变成蓝色", "把这只猫变成蓝色的"),
    ("ja", "猫がソファの上で寝ている写真", "ソファを赤くして"),
    ("th", "ช่วยเปลี่ยนแมวให้เป็นสีฟ้า", "สร้างภาพแมวสีฟ้า"),
    ("de", "Straßenbahn im Regen", "eine Straßenbahn im Schnee"),
]


@pytest.fixture
def unspaced(project: Project) -> Project:
    stamp = now_iso()
    with project.transaction() as conn:
        for sid, text, prompt in UNSPACED:
            conn.execute("INSERT INTO posts(id, text, imported_at) VALUES (?, ?, ?)",
                         ("p" + sid, text, stamp))
            conn.execute("INSERT INTO samples(id, post_id, prompt, original_prompt, "
                         "created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?)",
                         (sid, "p" + sid, prompt, prompt, stamp, stamp))
    return project


@pytest.mark.parametrize("text, expected", [
    ("猫", ["ja", "zh"]),                      # one character inside a run of Chinese
    ("变成蓝色", ["zh"]), ("这只猫", ["zh"]),   # the middle of a sentence
    ("ソファ", ["ja"]), ("寝ている", ["ja"]),    # katakana, kanji with hiragana
    ("猫 ソファ", ["ja"]), ("猫 Regen", []),    # words are AND-ed, as elsewhere
    ("猫、ソファ", ["ja"]),                     # ideographic punctuation separates words
    ("แมว", ["th"]), ("สีฟ้า", ["th"]),          # Thai
    ("Straßenbahn", ["de"]), ("regen", ["de"]),  # spaced scripts keep word prefixes
    ("狗", []),
])
def test_search_finds_words_in_scripts_without_spaces(unspaced: Project, text: str,
                                                      expected: list[str]) -> None:
    assert found(unspaced, text) == expected


def test_proposals_find_posts_in_scripts_without_spaces(unspaced: Project) -> None:
    from core.propose.posts import post_ids
    from core.propose.store import select_posts

    assert select_posts(unspaced, "猫") == ["pja", "pzh"]
    assert select_posts(unspaced, "แมว Regen") == []
    assert post_ids(unspaced, "replies", "ソファ") == ["pja"]


def test_single_letters_are_whole_words_not_every_prefix(searchable: Project) -> None:
    assert parse("a").match() == '"a"'
    assert parse("ab").match() == '"ab"*'
    assert found(searchable, "a") == ["s00420", "s7"]  # "a red heart", "a family"
    assert found(searchable, "C++") == ["demo-005"]    # the letter "c" as a word


def test_typed_fts_syntax_is_only_text(searchable: Project) -> None:
    for text in ['"unclosed', "NEAR(cat", "cat OR dog", "^x", "col:cat", "*", "AND"]:
        found(searchable, text)  # never an FTS5 syntax error


def test_document_follows_authors_posts_and_feedback(searchable: Project) -> None:
    p = searchable
    with p.transaction() as conn:  # a post's author is corrected
        conn.execute("UPDATE posts SET author = '@zoe' WHERE id = 'p4'")
    assert found(p, "@zoe") == ["s7"] and found(p, "@eve") == []
    p.conn.execute("PRAGMA foreign_keys = OFF")  # as in the sqlite3 shell, by default
    with p.transaction() as conn:  # a sample whose post comes later
        conn.execute("INSERT INTO samples(id, post_id, prompt, original_prompt, created_at, "
                     "modified_at) VALUES ('late', 'p9', 'x', 'x', 'now', 'now')")
        conn.execute("INSERT INTO posts(id, text, author, imported_at) "
                     "VALUES ('p9', 'quince jam', '@yuri', 'now')")
    p.conn.execute("PRAGMA foreign_keys = ON")
    assert found(p, "@yuri") == ["late"] and found(p, "quince") == ["late"]
    with p.transaction() as conn:  # a sample moves to another post
        conn.execute("UPDATE samples SET post_id = 'p1' WHERE id = 'late'")
    assert found(p, "@yuri") == [] and found(p, "late user42") == ["late"]
    with p.transaction() as conn:  # feedback moved between samples leaves neither stale
        conn.execute("UPDATE feedback SET sample_id = 's7' WHERE sample_id = 's00042'")
    assert found(p, "yellowish") == ["s7"]


def test_a_version_7_project_is_migrated_and_searchable(tmp_path: Path) -> None:
    path = tmp_path / "v7.winnow"
    conn = sqlite3.connect(path, isolation_level=None)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    for migration in MIGRATIONS[:7]:
        migration(conn)
    conn.execute("PRAGMA user_version = 7")
    _insert(conn)
    assert conn.execute("SELECT count(*) FROM sample_search WHERE sample_search MATCH 'user42'"
                        ).fetchone()[0] == 0  # the old document has no authors
    conn.close()
    with Project.open(path, readonly=True) as p:  # not migrated: searching still works
        assert found(p, "🔥 cat") == ["s00042"] and found(p, "yellowish") == ["s00042"]
        assert SampleLister(p).ordered_ids(SampleFilter(text="❤")) == ["s00420"]
    with Project.open(path) as p:
        assert p.schema_version == SCHEMA_VERSION
        assert found(p, "@user42") == ["s00042", "s00420"]
        assert found(p, "s7") == ["s7"]
        assert found(p, "yellowish") == ["s00042"]
        rows = p.conn.execute("SELECT count(*) FROM sample_search").fetchone()[0]
        assert rows == len(SAMPLES)


def _random_project(project: Project, n: int = 300) -> None:
    words = ["cat", "dog", "tint", "neon", "rain", "snow", "cake", "gold", "✨", "🔥", "c++",
             "ab", "abc", "abd"]
    rng = random.Random(3)
    stamp = now_iso()
    with project.transaction() as conn:
        for k in range(n):
            conn.execute("INSERT INTO posts(id, text, author, imported_at) VALUES (?, ?, ?, ?)",
                         (f"p{k}", " ".join(rng.choices(words, k=6)), f"@u{k % 17}", stamp))
            prompt = " ".join(rng.choices(words, k=4))
            conn.execute(
                "INSERT INTO samples(id, post_id, prompt, original_prompt, quality, split, "
                "review_status, created_at, modified_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (f"x{rng.randrange(10**6):06d}-{k}", f"p{k}", prompt, prompt,
                 rng.choice(["Benchmark", "Analysis", "Trash", None]),
                 rng.choice(["text-to-image", "image-to-image", None]),
                 rng.choice(["reviewed", "unreviewed"]), stamp, stamp))


def test_cached_lister_equals_the_plain_query_for_any_filter_and_sort(project: Project) -> None:
    _random_project(project)
    lister = SampleLister(project)
    rng = random.Random(5)
    texts = ["", "cat", "ca", "c", "cat dog", "🔥", "✨ neon", "@u3", "x0", "zzz", "ab"]
    for _ in range(80):
        selection = SampleFilter(
            quality=rng.choice([(), ("Benchmark",), (None,), ("Trash", None)]),
            review_status=rng.choice([None, "reviewed"]),
            split=rng.choice([None, "image-to-image"]), text=rng.choice(texts))
        sort = rng.choice(COLUMN_KEYS)
        descending = rng.random() < 0.5
        assert (lister.ordered_ids(selection, sort, descending)
                == ordered_ids(project, selection, sort, descending)), (selection, sort)


def test_cached_lister_sees_edits_here_and_from_another_connection(project: Project) -> None:
    _random_project(project, 60)
    lister = SampleLister(project)
    trash = SampleFilter(quality=("Trash",), text="cat")
    first = lister.ordered_ids(trash)
    some = ordered_ids(project, SampleFilter(text="cat"))[:5]
    UndoStack(project).push(SetField(some, "quality", "Trash"))  # this connection
    assert lister.ordered_ids(trash) == ordered_ids(project, trash)
    assert set(some) <= set(lister.ordered_ids(trash)) and first != lister.ordered_ids(trash)
    view = project.worker_view()  # another connection (a background job)
    try:
        with view.transaction() as conn:
            conn.execute("UPDATE samples SET quality = 'Benchmark' WHERE id = ?", (some[0],))
    finally:
        view.close()
    assert some[0] not in lister.ordered_ids(trash)
    assert lister.ordered_ids(trash) == ordered_ids(project, trash)


def test_a_sample_with_a_huge_rowid_set_by_hand_is_still_found(project: Project) -> None:
    _random_project(project, 20)
    with project.transaction() as conn:  # as someone might with the sqlite3 shell
        conn.execute("INSERT INTO samples(rowid, id, prompt, original_prompt, created_at, "
                     "modified_at) VALUES (9000000000000000000, 'far', 'quokka', 'quokka', "
                     "'now', 'now')")
    lister = SampleLister(project)
    assert lister.ordered_ids(SampleFilter(text="quokka")) == ["far"]
    assert lister.ordered_ids(SampleFilter(text="cat")) == ordered_ids(
        project, SampleFilter(text="cat"))
