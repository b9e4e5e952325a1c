"""Demo threads: a post with its context, replies, feedback and sample(s), as JSONL lines.

:class:`Generator` holds the state of one run (seeded random sources, where pictures are
written, the lines collected); :func:`thread` makes one thread from it.  The calls on
the random sources happen in a fixed order, which is part of the demo's content.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from core.demo import drawing as dd
from core.demo import edits as de
from core.demo.content import Content, i2i, thread_content
from core.demo.screenshots import chat_screenshot, collage_screenshot
from core.demo.vocabulary import (
    CHATTER,
    CONTEXT,
    EDITS,
    FEEDBACK,
    FIRST,
    KEYWORDS,
    NAMES,
    NOUNS,
    POST_TEXT,
    RAW,
)

EPOCH_MS = 1288834974657  # X/Twitter snowflake epoch
Boxes = dict[str, list[tuple[int, int, int, int]]]
#: writes a picture as PNG at a path relative to the data set's folder
SavePng = Callable[..., None]  # (picture, relative path, **PNG save options)


@dataclass
class Pictures:
    """A sample's pictures as the post shows them and the sample refers to them."""

    images: list[tuple[str, str]] = field(default_factory=list)  # post: (ref, alt text)
    inputs: list[str] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    input_boxes: list[list[int]] = field(default_factory=list)
    output_boxes: list[list[int]] = field(default_factory=list)


class Generator:
    """State of one generation run: random sources, output, collected lines and truth."""

    def __init__(self, root: Path, seed: int, save_png: SavePng) -> None:
        self.root = root  # where the data set will be (paths in the truth point there)
        self.save_png = save_png
        self.rnd = random.Random(seed)
        self.np = np.random.default_rng(seed)
        self.authors = [f"@{a}_{b}" for a in FIRST for b in NAMES]
        self.rnd.shuffle(self.authors)
        self.authors = self.authors[:80]
        self.lines: list[dict[str, Any]] = []
        self.n_posts = 0
        self.refs: dict[str, Image.Image] = {}  # Benchmark sample id -> reference output
        self.boxes: dict[str, Boxes] = {}
        self.truth: dict[str, dict[str, list[Path]]] = {}

    def post(self, text: str, when: datetime, *, author: str | None = None,
             images: Sequence[tuple[str, str]] = (), keyword: str = "",
             big: bool = False) -> dict[str, Any]:
        """A post object; ``images`` are (relative path, alt text) pairs."""
        author = author or self.rnd.choice(self.authors)
        ms = int(when.timestamp() * 1000)
        pid = str(((ms - EPOCH_MS) << 22) | self.rnd.getrandbits(22))
        likes = int(self.np.lognormal(5.5 if big else 1.5, 1.3))
        self.n_posts += 1
        return {
            "id": pid, "text": text, "timestamp": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "keyword": keyword, "url": f"https://x.com/{author.lstrip('@')}/status/{pid}",
            "author": author, "image_urls": [{"url": u, "alt": alt} for u, alt in images],
            "replies_above": [], "replies_below": [],
            "engagement": {
                "likes": likes, "reposts": likes // int(self.np.integers(4, 20)),
                "bookmarks": likes // int(self.np.integers(3, 15)),
                "views": likes * int(self.np.integers(20, 90)) + int(self.np.integers(10, 400))},
        }

    def save(self, img: Image.Image, name: str) -> str:
        """Write a picture under images/ and return its relative reference."""
        self.save_png(img, f"images/{name}", compress_level=6)
        return f"images/{name}"

    def feedback(self, topic: str, tinted: bool, n: int) -> list[str]:
        """Up to ``n`` distinct replies on ``topic`` (the yellow tint first if ``tinted``)."""
        pool = self.rnd.sample(FEEDBACK[topic], len(FEEDBACK[topic]))
        if tinted:
            pool = [self.rnd.choice(FEEDBACK["yellow"]), *pool]
        return pool[:n]


def sample_line(sid: str, post_id: str, prompt: str, quality: str | None, split: str,
                feedback: list[dict[str, str]], pictures: Pictures, *, tags: list[str],
                screenshot: bool = False) -> dict[str, Any]:
    """A sample line (ADR 001 fields)."""
    return {"id": sid, "post_id": post_id, "prompt": prompt, "prompt_modified": False,
            "quality": quality, "split": split, "community_feedback": feedback,
            "input_images": list(pictures.inputs), "output_images": list(pictures.outputs),
            "is_screenshot": screenshot, "input_bboxs": list(pictures.input_boxes),
            "output_bboxs": list(pictures.output_boxes), "tags": tags}


# -- one thread ----------------------------------------------------------------------------


def thread(g: Generator, t: int, when: datetime, *, processed: bool, screenshot: bool,
           template: bool) -> None:
    """Generate thread ``t`` (posts, its sample(s), its pictures) and queue its lines."""
    tag, sid = f"t{t:03d}", f"demo-{t:03d}"
    above = _context_posts(g, when)
    if not processed:
        g.lines.append(_raw_thread(g, tag, when, above))
        return
    c = thread_content(g.rnd, t, template)
    keyword = "ghibli" if c.topic in ("ghibli", "cartoon") else g.rnd.choice(KEYWORDS)
    pictures = _screenshot(g, sid, tag, c) if screenshot else _separate_pictures(g, tag, c)
    main = _main_post(g, c, pictures, when, keyword, template)
    main["replies_above"] = above
    below, feedback, minute = _replies(g, c, main, when, template)
    extra = None
    if c.split == "image-to-image" and not screenshot and c.quality == "Benchmark" \
            and g.rnd.random() < 0.25:
        reply, extra = _same_prompt_elsewhere(g, c, sid, tag, when, minute)
        below.append(reply)
    main["replies_below"] = below
    main["engagement"]["replies"] = len(below)
    line = sample_line(sid, main["id"], c.prompt, c.quality, c.split, feedback, pictures,
                       tags=_tags(g.rnd, c, template), screenshot=screenshot)
    if template:
        line["notes"] = f"template prompt; the reply {feedback[0]['post_id']} fills the blank"
    elif c.tinted and g.rnd.random() < 0.3:
        line["notes"] = "replies mention a colour shift"
    g.lines.extend([main, line, *([extra] if extra else [])])
    if c.quality == "Benchmark":
        g.refs[sid] = c.outputs[0]


def _context_posts(g: Generator, when: datetime) -> list[dict[str, Any]]:
    """Posts above the thread's main post (what it replies to), for some threads."""
    r = g.rnd
    above = []
    if r.random() < 0.3:
        for k in range(r.randint(1, 2)):
            above.append(g.post(r.choice(CONTEXT),
                                when - timedelta(hours=3 - k, minutes=r.randint(0, 50))))
    return above


def _raw_thread(g: Generator, tag: str, when: datetime,
                above: list[dict[str, Any]]) -> dict[str, Any]:
    """A post nobody has processed yet (chatter, sometimes a picture), with its replies."""
    r = g.rnd
    text = r.choice(RAW)
    images = []
    if r.random() < 0.5:
        pic = dd.draw_scene(dd.random_params(r.choice(["cat", "portrait", "landscape"]), r),
                            (320, 320))
        images = [(g.save(de.cartoon(pic), f"{tag}_raw.png"), "")]
    main = g.post(text, when, images=images, keyword=r.choice(KEYWORDS))
    main["replies_above"] = above
    main["replies_below"] = [g.post(r.choice(CHATTER),
                                    when + timedelta(minutes=r.randint(2, 600)))
                             for _ in range(r.randint(0, 3))]
    main["engagement"]["replies"] = len(main["replies_below"])
    return main


def _screenshot(g: Generator, sid: str, tag: str, c: Content) -> Pictures:
    """One screenshot holding the inputs and outputs, their boxes, and the exact
    pictures pasted into it (``truth/<sid>/``)."""
    r = g.rnd
    if r.random() < 0.7 or not c.inputs:
        shot, ib, ob = chat_screenshot(c.prompt, c.inputs, c.outputs, r)
    else:
        shot, ib, ob = collage_screenshot(c.inputs, c.outputs, r)
    ref = g.save(shot, f"{tag}_shot.png")
    g.boxes[sid] = {"input": list(ib), "output": list(ob)}
    g.truth[sid] = {"input": [], "output": []}
    for role, pics, bxs in (("input", c.inputs, ib), ("output", c.outputs, ob)):
        for k, (pic, b) in enumerate(zip(pics, bxs, strict=True)):
            rel = f"truth/{sid}/{role}_{k}.png"
            g.save_png(pic.resize((b[2], b[3]), Image.Resampling.LANCZOS), rel, compress_level=6)
            g.truth[sid][role].append(g.root / rel)
    return Pictures(images=[(ref, "screenshot")], inputs=[ref] if ib else [], outputs=[ref],
                    input_boxes=[list(b) for b in ib], output_boxes=[list(b) for b in ob])


def _separate_pictures(g: Generator, tag: str, c: Content) -> Pictures:
    """Inputs and outputs as separate pictures of the post, with alt texts."""
    r = g.rnd
    pics = Pictures()
    for k, pic in enumerate(c.inputs):
        ref = g.save(pic, f"{tag}_in{k}.png")
        pics.inputs.append(ref)
        pics.images.append((ref, r.choice(["", f"my {NOUNS.get(c.kind, ['photo'])[0]}",
                                           "original"])))
    for k, pic in enumerate(c.outputs):
        ref = g.save(pic, f"{tag}_out{k}.png")
        pics.outputs.append(ref)
        pics.images.append((ref, r.choice(["", "AI generated image", c.prompt[:60]])))
    return pics


def _main_post(g: Generator, c: Content, pictures: Pictures, when: datetime, keyword: str,
               template: bool) -> dict[str, Any]:
    r = g.rnd
    text = (r.choice(POST_TEXT).format(p=c.prompt, n=r.randint(2, 30))
            if c.quality != "Trash" else c.prompt)
    if template:
        text = (f'PROMPT TEMPLATE 🧵\n\n"{c.prompt}"\n\nreply with yours, '
                "I'll run the best ones 👇")
    return g.post(text, when, images=pictures.images, keyword=keyword, big=True)


def _replies(g: Generator, c: Content, main: dict[str, Any], when: datetime, template: bool
             ) -> tuple[list[dict[str, Any]], list[dict[str, str]], int]:
    """(replies below the main post, the sample's community feedback, last minute used)."""
    r = g.rnd
    below: list[dict[str, Any]] = []
    feedback: list[dict[str, str]] = []
    minute = 0
    if template:  # the reply that fills the blank
        minute += r.randint(3, 40)
        reply = g.post(c.prompt.replace("___", f"'{c.word}'"), when + timedelta(minutes=minute))
        below.append(reply)
        feedback.append({"post_id": reply["id"], "text": reply["text"]})
    n_fb = r.choice([0, 1, 1, 2, 3]) if c.quality != "Trash" else 0
    for ftext in g.feedback(c.feedback_topic, c.tinted, n_fb):
        minute += r.randint(1, 90)
        reply = g.post(ftext, when + timedelta(minutes=minute))
        below.append(reply)
        feedback.append({"post_id": reply["id"], "text": ftext})
    for _ in range(r.randint(0, 2)):
        minute += r.randint(1, 120)
        q = g.post(r.choice(CHATTER), when + timedelta(minutes=minute))
        below.append(q)
        if q["text"].startswith("what prompt") and r.random() < 0.7:  # the author answers
            a = g.post(f"{q['author']} it's in the post! \"{c.prompt[:80]}\"",
                       when + timedelta(minutes=minute + 5), author=main["author"])
            a["parent_id"] = q["id"]
            below.append(a)
    return below, feedback, minute


def _same_prompt_elsewhere(g: Generator, c: Content, sid: str, tag: str, when: datetime,
                           minute: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """Someone else runs the same prompt on their own picture: (their reply, a second
    sample ``<sid>b`` in the tree)."""
    r = g.rnd
    other = i2i(r, c.kind)
    minute += r.randint(5, 200)
    refs = [g.save(other.inputs[0], f"{tag}_r_in0.png"),
            g.save(other.outputs[0], f"{tag}_r_out0.png")]
    reply = g.post(f"tried the same prompt on mine: {c.prompt}", when + timedelta(minutes=minute),
                   images=[(refs[0], ""), (refs[1], "")])
    line = sample_line(f"{sid}b", reply["id"], c.prompt, "Benchmark", c.split, [],
                       Pictures(inputs=[refs[0]], outputs=[refs[1]]), tags=["same-prompt"])
    g.refs[f"{sid}b"] = other.outputs[0]
    return reply, line


def _tags(r: random.Random, c: Content, template: bool) -> list[str]:
    tags: list[str] = []
    if template:
        tags = ["template", "fill-in-the-blank"]
    elif r.random() < 0.45:
        if c.topic in EDITS:
            tags = list(EDITS[c.topic][2])
        else:
            tags = ["text-rendering"] if c.feedback_topic in ("text", "receipt") else ["t2i"]
    if c.tinted and r.random() < 0.7:
        tags.append("color-shift")
    return tags
