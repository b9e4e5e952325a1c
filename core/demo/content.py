"""What one demo sample shows: its prompt, input and output pictures, label and topic.

Each function draws from the generator's ``random.Random`` in a fixed order; that order
is part of the demo's content (the same seed must give the same data set), so a change
here changes every sample after it.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from PIL import Image

from core.demo import drawing as dd
from core.demo import edits as de
from core.demo.vocabulary import (
    BRANDS,
    CAPTIONS,
    EDITS,
    NOUNS,
    POSTERS,
    SIGNS,
    STYLES,
    T2I,
    TEMPLATES,
    TRASH,
)

_FILTERS = {"ghibli": de.cartoon, "polaroid": de.polaroid, "pixel": de.pixel_art,
            "sketch": de.sketch, "watercolour": de.watercolour}


@dataclass
class Content:
    """A sample's content before it is laid out in posts and pictures."""

    prompt: str
    inputs: list[Image.Image]
    outputs: list[Image.Image]
    topic: str  # edit id, style id or scene kind
    kind: str  # scene kind
    word: str = ""  # a template's blank, filled by a reply
    quality: str | None = None
    tinted: bool = False  # the first output got the yellow tint replies complain about

    @property
    def split(self) -> str:
        return "image-to-image" if self.inputs else "text-to-image"

    @property
    def feedback_topic(self) -> str:
        """Which replies fit (a key of ``vocabulary.FEEDBACK``)."""
        if self.topic in EDITS:
            return EDITS[self.topic][3]
        if self.kind == "receipt":
            return "receipt"
        return "text" if self.kind in ("sign", "poster", "can") else "style"


def _edited_params(edit: str, kind: str, p: dd.Params, colour: str, brand: str) -> dd.Params:
    """The scene parameters after ``edit`` (for edits that redraw the scene)."""
    q = dict(p)
    if edit == "recolour":
        key = "fur" if kind == "cat" else "body"
        q[key] = dd.COLOURS["ginger" if kind == "cat" and colour == "orange" else colour]
    elif edit == "night":
        q.update(time="night", lights=True)
    elif edit == "sunset":
        q["time"] = "sunset"
    elif edit in ("snow", "hat", "glasses"):
        q[edit] = True
    elif edit == "relabel":
        q["text"] = brand
    return q


def i2i(r: random.Random, kind: str | None = None) -> Content:
    """An image-to-image edit of a drawn scene (of ``kind`` when the edit allows it)."""
    edit = r.choice(list(EDITS))
    kinds, templates, _, _ = EDITS[edit]
    kind = kind if kind in kinds else r.choice(kinds)
    size = (384, 288) if kind in ("landscape", "car") else (320, 320)
    p = dd.random_params(kind, r, r.choice(BRANDS) if kind == "can" else None)
    noun = r.choice(NOUNS[kind])
    colour = r.choice(["red", "blue", "green", "yellow", "purple", "orange"])
    fill = {"noun": noun, "colour": colour, "caption": r.choice(CAPTIONS),
            "brand": r.choice(BRANDS)}
    prompt = r.choice(templates).format(**fill)
    src = dd.draw_scene(p, size)
    q = _edited_params(edit, kind, p, colour, fill["brand"])
    filt = _FILTERS.get(edit)
    if filt:
        out = filt(src)
    else:
        out = de.caption(src, fill["caption"]) if edit == "caption" else dd.draw_scene(q, size)
    outputs = [out]
    if r.random() < 0.15:  # a second variation
        outputs.append(de.yellow_tint(out, 0.12) if r.random() < 0.5 else
                       dd.draw_scene(q, size).transpose(Image.Transpose.FLIP_LEFT_RIGHT))
    return Content(prompt, [src], outputs, edit, kind)


def t2i(r: random.Random) -> Content:
    """A text-to-image prompt and the picture(s) a model made of it."""
    kind, template = r.choice(T2I)
    style = r.choice(list(STYLES))
    fill = {"sign": r.choice(SIGNS), "poster": r.choice(POSTERS),
            "amount": f"{r.uniform(6, 80):.2f}", "brand": r.choice(BRANDS), "style": style,
            "colour": r.choice(["red", "blue", "yellow", "green", "black"])}
    prompt = template.format(**fill)
    text = {"sign": fill["sign"], "poster": fill["poster"], "receipt": fill["amount"],
            "can": fill["brand"]}.get(kind)
    p = dd.random_params(kind, r, text)
    if kind == "car":
        p["body"] = dd.COLOURS[fill["colour"]]
    elif kind == "cat":
        p["fur"] = dd.COLOURS["grey" if fill["colour"] == "blue" else fill["colour"]]
    size = {"landscape": (384, 288), "car": (384, 288), "receipt": (288, 384)}.get(kind,
                                                                                  (320, 320))
    img = dd.draw_scene(p, size)
    filt = STYLES[style] if "{style}" in template else None
    outputs = [de.FILTERS[filt](img) if filt else img]
    if r.random() < 0.12:
        outputs.append(dd.draw_scene(dd.random_params(kind, r, text), size))
    return Content(prompt, [], outputs, filt or kind, kind)


def template(r: random.Random, t: int) -> Content:
    """A fill-in-the-blank template prompt (thread ``t``) with the picture of one answer."""
    prompt, kind, words = TEMPLATES[t % len(TEMPLATES)]
    word = r.choice(words)
    out = dd.draw_scene(dd.random_params(kind, r, word), (320, 320))
    return Content(prompt, [], [out], "text", kind, word=word)


def thread_content(r: random.Random, t: int, is_template: bool) -> Content:
    """The content of processed thread ``t``: label, prompt and pictures, with the yellow
    tint and a Trash sample's meme caption already applied."""
    quality = r.choices(["Benchmark", "Analysis", "Trash", None], weights=[45, 25, 15, 15])[0]
    if is_template:
        content, quality = template(r, t), "Benchmark"
    elif r.random() < 0.45:
        content = t2i(r)
    else:
        content = i2i(r)
    content.quality = quality
    content.tinted = r.random() < 0.3 and not is_template
    if content.tinted:
        content.outputs[0] = de.yellow_tint(content.outputs[0])
    if quality == "Trash":
        content.prompt = r.choice(TRASH)
        content.outputs[0] = de.caption(content.outputs[0], r.choice(CAPTIONS), top=True)
    return content
