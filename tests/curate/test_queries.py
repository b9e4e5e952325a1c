"""Sample list queries: filters, full-text search over prompts / post text / feedback, sort."""

from __future__ import annotations

from core.curate.commands import SetField, SetTag, UndoStack, set_prompt
from core.curate.queries import distinct_tags, fetch_rows, next_unreviewed, ordered_ids
from core.selection import SampleFilter


def ids(project, **kw) -> list[str]:  # type: ignore[no-untyped-def]
    return ordered_ids(project, SampleFilter(**kw))


def test_filters_each_narrow_to_the_right_samples(curate_project) -> None:
    p = curate_project
    assert ids(p) == ["s1", "s2", "s3", "s4", "s5"]
    assert ids(p, quality=("Benchmark",)) == ["s1", "s3"]
    assert ids(p, quality=(None,)) == ["s2"]
    assert ids(p, quality=("Trash", None)) == ["s2", "s5"]
    assert ids(p, split="text-to-image") == ["s3", "s4", "s5"]
    assert ids(p, is_screenshot=True) == ["s2"]
    assert ids(p, tag="colour") == ["s1"]
    assert ids(p, modified=True) == []
    stack = UndoStack(p)
    stack.push(set_prompt("s4", "a unicorn with zebra stripes, photo"))
    stack.push(SetField(["s3"], "review_status", "reviewed"))
    assert ids(p, modified=True) == ["s4"]
    assert ids(p, modified=False) == ["s1", "s2", "s3", "s5"]
    assert ids(p, review_status="reviewed") == ["s3"]
    assert ids(p, review_status="unreviewed", quality=("Benchmark",)) == ["s1"]
    # the selection other workspaces take gives the same ids
    assert SampleFilter(modified=True).sample_ids(p) == ["s4"]


def test_full_text_search_covers_prompts_post_text_and_feedback(curate_project) -> None:
    p = curate_project
    assert ids(p, text="watercolor") == ["s2"]            # prompt
    assert ids(p, text="chat") == ["s2"]                  # post text only
    assert ids(p, text="yellowish") == ["s1"]             # feedback only
    # s4 by prompt, s5 by its post's text; s1 not: "zebra" is in a reply that is no feedback
    assert ids(p, text="zebra") == ["s4", "s5"]
    assert ids(p, text="stri") == ["s4"]                  # prefix match
    assert ids(p, text="soda can") == ["s3"]              # words AND-ed
    assert ids(p, text="soda watercolor") == []
    assert ids(p, text='"quoted" OR (weird') == []        # user text cannot break FTS syntax
    stack = UndoStack(p)
    stack.push(set_prompt("s5", "rant about gouache"))
    assert ids(p, text="gouache") == ["s5"]                # index follows edits
    assert ids(p, text="off topic") == ["s5"]              # original prompt still found


def test_feedback_index_follows_inserts_and_deletes(curate_project) -> None:
    p = curate_project
    with p.transaction() as conn:
        conn.execute("INSERT INTO feedback(sample_id, position, post_id, text) "
                     "VALUES ('s5', 0, NULL, 'marmalade sky')")
    assert ids(p, text="marmalade") == ["s5"]
    with p.transaction() as conn:
        conn.execute("DELETE FROM feedback WHERE sample_id = 's5'")
    assert ids(p, text="marmalade") == []


def test_sorting_by_every_column(curate_project) -> None:
    p = curate_project
    s = SampleFilter()
    assert ordered_ids(p, s, "id", descending=True) == ["s5", "s4", "s3", "s2", "s1"]
    assert ordered_ids(p, s, "prompt")[0] == "s4"  # "a unicorn…" first, case-insensitive
    assert ordered_ids(p, s, "quality") == ["s2", "s4", "s1", "s3", "s5"]
    assert ordered_ids(p, s, "n_inputs", descending=True)[:2] == ["s2", "s1"]
    assert ordered_ids(p, s, "n_outputs") == ["s5", "s1", "s2", "s3", "s4"]
    UndoStack(p).push(set_prompt("s3", "Design a soda can called FIZZ"))
    assert ordered_ids(p, s, "modified", descending=True)[0] == "s3"
    for key in ("split", "review_status"):
        assert sorted(ordered_ids(p, s, key)) == ["s1", "s2", "s3", "s4", "s5"]


def test_rows_show_counts_and_modified(curate_project) -> None:
    p = curate_project
    rows = fetch_rows(p, ["s1", "s2", "s5"])
    assert (rows["s1"].n_inputs, rows["s1"].n_outputs) == (1, 1)
    assert (rows["s2"].n_inputs, rows["s2"].n_outputs) == (1, 1)
    assert rows["s5"].quality == "Trash" and rows["s5"].split == "text-to-image"
    assert not rows["s1"].modified
    UndoStack(p).push(set_prompt("s1", "Make the cat green"))
    assert fetch_rows(p, ["s1"])["s1"].modified


def test_next_unreviewed_wraps_and_skips_reviewed(curate_project) -> None:
    p = curate_project
    order = ordered_ids(p, SampleFilter())
    UndoStack(p).push(SetField(["s2", "s3"], "review_status", "reviewed"))
    assert next_unreviewed(p, order, 0) == 3          # s1 -> s4 (s2, s3 reviewed)
    assert next_unreviewed(p, order, 4) == 0          # wraps from s5 to s1
    UndoStack(p).push(SetField(order, "review_status", "reviewed"))
    assert next_unreviewed(p, order, 0) is None
    assert next_unreviewed(p, [], 0) is None


def test_distinct_tags(curate_project) -> None:
    UndoStack(curate_project).push(SetTag(["s2"], "Zoo"))
    assert distinct_tags(curate_project) == ["colour", "fill-in-the-blank", "template", "Zoo"]


def test_search_document_follows_post_text_and_sample_changes(curate_project) -> None:
    p = curate_project
    assert ids(p, text="chat watercolor") == ["s2"]   # post text AND prompt, one document
    with p.transaction() as conn:
        conn.execute("UPDATE posts SET text = 'a quokka selfie' WHERE id = 'p2'")
    assert ids(p, text="quokka") == ["s2"] and ids(p, text="chat") == []
    with p.transaction() as conn:
        conn.execute("DELETE FROM samples WHERE id = 's2'")
    assert ids(p, text="quokka") == []
    n_docs = p.conn.execute("SELECT count(*) FROM sample_search").fetchone()[0]
    assert n_docs == p.counts()["samples"]
