"""A realistic, self-contained demo data set generated deterministically from a seed.

:func:`generate_demo_sources` writes, under one folder:

- ``posts.jsonl`` — raw posts (with ``replies_above`` / ``replies_below`` reply posts)
  and post-processed samples, in the format of ADR 001, images referenced by
  relative paths ``images/<name>.png``;
- ``images/`` — small Pillow-drawn pictures (inputs, outputs, chat screenshots and
  before/after collages);
- ``outputs/<model>/<sample_id>.png`` — outputs of four fictitious models for every
  Benchmark sample, each with a recognisable systematic behaviour, plus one missing
  file and one file that matches no sample;
- ``truth/<sample_id>/{input,output}_<k>.png`` — the exact pictures pasted into each
  screenshot (what a crop with the true box must give back).

Nothing is read from outside the repository and nothing is fetched; the post
``url`` fields are never opened.
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from core import demo_drawing as dd
from core import demo_edits as de

MODELS = ["aurora-xl", "brushwork-2", "pixelforge", "lumen-edit"]
MODEL_BEHAVIOUR = {
    "aurora-xl": "adds a yellow tint",
    "brushwork-2": "blurs",
    "pixelforge": "posterises",
    "lumen-edit": "close to the reference output",
}
_MARKER = ".winnow-demo"
_EPOCH_MS = 1288834974657  # X/Twitter snowflake epoch
_START = datetime(2025, 3, 25, 17, 0, tzinfo=UTC)  # GPT-4o image generation launch

Boxes = dict[str, list[tuple[int, int, int, int]]]


@dataclass
class DemoSources:
    """Where the demo data set lies and what it contains."""

    root: Path
    posts_jsonl: Path
    outputs_dir: Path
    screenshot_boxes: dict[str, Boxes]
    models: list[str]
    n_posts: int
    n_samples: int
    screenshot_truth: dict[str, dict[str, list[Path]]] = field(default_factory=dict)
    missing_outputs: list[Path] = field(default_factory=list)
    extra_outputs: list[Path] = field(default_factory=list)


# -- vocabulary --------------------------------------------------------------------------

_FIRST = ["pixel", "ghibli", "render", "prompt", "neon", "latent", "diffuse", "sora", "brush", "retro",
          "pastel", "vibe", "glitch", "noisy", "crisp", "lofi", "moody", "sunny", "inky", "dream"]
_NAMES = ["pam", "gus", "rita", "pete", "nora", "leo", "dan", "sam", "kai", "mia", "theo", "ivy",
          "raj", "zoe", "max", "lena", "omar", "yuki", "bea", "finn"]
_KEYWORDS = ["gpt-4o image", "4o image gen", "chatgpt image", "nano banana", "image generation", "sora image"]
_NOUNS = {"cat": ["cat", "kitty", "cat Miso"], "portrait": ["dad", "girlfriend", "grandma", "selfie", "profile pic"],
          "house": ["house", "childhood home", "cabin"], "landscape": ["hiking photo", "vacation pic", "view"],
          "car": ["car", "first car", "old Beetle"], "can": ["soda can"]}
_STYLES = {"Studio Ghibli style": "cartoon", "watercolor": "watercolour", "pencil sketch": "sketch",
           "pixel art": "pixel", "photorealistic": None, "as a 1970s polaroid": "polaroid"}
_SIGNS = ["OPEN 24/7", "RAMEN", "LATE NIGHT TACOS", "KARAOKE", "NO VACANCY", "HOTEL ECHO"]
_POSTERS = ["GONE FISHING", "VISIT MARS", "SUMMER JAZZ 2025", "GRAND OPENING", "SAVE THE BEES"]
_BRANDS = ["NOVA COLA", "FIZZ POP", "LIME WAVE", "GOOD SODA"]
_CAPTIONS = ["monday mood", "me after one coffee", "it's giving main character", "touch grass"]

# edit id -> (scene kinds, prompt templates, tags, feedback topic)
_EDITS: dict[str, tuple[list[str], list[str], list[str], str]] = {
    "ghibli": (["cat", "portrait", "house", "landscape", "car"],
               ["Turn my {noun} into a Studio Ghibli character", "ghibli-fy this photo of my {noun} pls",
                "Make this look like a frame from a Studio Ghibli movie",
                "redraw my {noun} in the style of studio ghibli, soft colors"], ["ghibli", "style-transfer"], "style"),
    "polaroid": (["cat", "portrait", "house", "landscape", "car"],
                 ["make this photo look like a 1970s polaroid", "Make it look like an old instant photo from 1976"],
                 ["vintage"], "style"),
    "pixel": (["cat", "house", "car", "landscape"],
              ["Turn this into 16-bit pixel art", "make my {noun} a retro video game sprite"], ["pixel-art"], "style"),
    "sketch": (["cat", "portrait", "house", "car"],
               ["Redraw this as a pencil sketch", "turn this into a rough graphite drawing"], ["sketch"], "style"),
    "watercolour": (["landscape", "house", "cat"],
                    ["Paint this as a loose watercolor", "make it a watercolor painting on textured paper"],
                    ["style-transfer"], "style"),
    "recolour": (["car", "house", "cat"],
                 ["Change the colour of the {noun} to {colour}", "make the {noun} {colour}, keep everything else the same"],
                 ["edit", "colour"], "structure"),
    "night": (["house", "landscape"], ["Make it night time with the lights on", "same scene but at night"],
              ["edit", "lighting"], "structure"),
    "sunset": (["landscape", "house", "car"], ["change the sky to a sunset", "make it golden hour"],
               ["edit", "lighting"], "structure"),
    "snow": (["landscape", "house", "car"], ["make it winter, add snow everywhere", "Add snow to this picture"],
             ["edit", "weather"], "structure"),
    "hat": (["cat"], ["put a tiny wizard hat on my cat", "give my {noun} a wizard hat"], ["edit", "add-object"], "structure"),
    "glasses": (["portrait"], ["add round glasses to this portrait", "give my {noun} some glasses"],
                ["edit", "identity"], "identity"),
    "caption": (["cat", "portrait", "car"], ["Add a caption that says '{caption}'", "put '{caption}' on it in meme font"],
                ["text-rendering"], "text"),
    "relabel": (["can"], ["Change the label to say '{brand}' in the same font", "rebrand this can as '{brand}'"],
                ["text-rendering", "product"], "text"),
}
# (scene kind, template) for text-to-image prompts
_T2I = [
    ("sign", "A neon sign that says '{sign}' in a rainy alley"),
    ("sign", "neon lettering '{sign}' glowing on a brick wall at night, cinematic"),
    ("poster", "Make a vintage travel poster with the words '{poster}'"),
    ("poster", "A minimalist poster that says '{poster}'"),
    ("receipt", "a realistic photo of a coffee shop receipt with a total of ${amount}"),
    ("can", "product shot of a soda can called '{brand}' on a grey background"),
    ("landscape", "A cozy valley with rolling hills and pine trees, {style}"),
    ("cat", "A {colour} cat sitting on a windowsill, {style}"),
    ("house", "A small cottage with a dark roof, {style}"),
    ("car", "A {colour} vintage car parked on an empty road, {style}"),
    ("portrait", "Portrait of a woman with curly hair, {style}"),
]
_POST_TEXT = [
    'GPT-4o image gen is actually insane.\n\nPrompt: "{p}"', "{p} 🤯", "asked chatgpt: {p}\n\nresult 👇",
    'Prompt: "{p}"\n\n4o vs nano banana, which one wins?', 'ok the new image model is scary good. "{p}"',
    'Tried "{p}" and it nailed it first try', "day {n} of testing 4o image gen: {p}", "{p}\n\n(made with gpt-4o image)",
]
_CONTEXT = ["Drop your best GPT-4o image prompts 👇", "Show me what 4o does with your pet photos",
            "the ghibli trend has completely taken over my timeline", "has anyone tested the new image model on text yet?",
            "nano banana or 4o for edits? go"]
_CHATTER = ["what prompt did you use?", "🔥🔥🔥", "how long did it take to generate?", "is this on the free plan?",
            "bookmarked", "this trend is everywhere lol", "can you do mine?", "teach me your ways"]
_FEEDBACK = {
    "yellow": ["the yellow tint is back 😩", "why does everything from 4o look like it was dipped in tea",
               "love it but the piss filter is real", "colors are way warmer than the original"],
    "identity": ["it changed her face completely", "doesn't look like him at all anymore", "the eyes are different, uncanny"],
    "structure": ["composition is preserved perfectly", "it moved the door lol", "kept every detail, only changed what I asked",
                  "it added a second chimney??"],
    "text": ["text rendering is finally perfect", "spelling is wrong on the second line", "letters are crisp, this is wild",
             "it dropped a letter, look closely", "the font changed completely"],
    "receipt": ["the total doesn't add up 😂", "the prices don't sum to the total lol", "numbers are actually correct?!"],
    "style": ["this is the best ghibli one I've seen", "looks more like generic anime than ghibli",
              "the pixel art isn't even on a grid", "honestly beautiful"],
}
_TRASH = ["lol", "this is what it gave me 💀", "rate my ghibli pfp 1-10", "the ghibli trend needs to stop",
          "4o is so back"]
_RAW = ["is 4o image gen down for anyone else?", "image gen rate limits are brutal today",
        "unpopular opinion: the ghibli filter is overrated", "waiting for nano banana 2 like", "new pfp who dis"]
_TEMPLATES = [("Make me a poster that says ___", "poster", _POSTERS), ("Design a soda can called ___", "can", _BRANDS)]


# -- generator ---------------------------------------------------------------------------


class _Gen:
    """State of one generation run (random sources, output folder, collected lines)."""

    def __init__(self, root: Path, seed: int) -> None:
        self.root = root
        self.rnd = random.Random(seed)
        self.np = np.random.default_rng(seed)
        self.authors = [f"@{a}_{b}" for a in _FIRST for b in _NAMES]
        self.rnd.shuffle(self.authors)
        self.authors = self.authors[:80]
        self.lines: list[dict[str, Any]] = []
        self.n_posts = 0
        self.refs: dict[str, Image.Image] = {}  # Benchmark sample id -> reference output picture
        self.boxes: dict[str, Boxes] = {}
        self.truth: dict[str, dict[str, list[Path]]] = {}

    # -- posts -------------------------------------------------------------------------
    def post(self, text: str, when: datetime, *, author: str | None = None, images: Sequence[tuple[str, str]] = (),
             keyword: str = "", big: bool = False) -> dict[str, Any]:
        """A post object; ``images`` are (relative path, alt text) pairs."""
        author = author or self.rnd.choice(self.authors)
        ms = int(when.timestamp() * 1000)
        pid = str(((ms - _EPOCH_MS) << 22) | self.rnd.getrandbits(22))
        likes = int(self.np.lognormal(5.5 if big else 1.5, 1.3))
        self.n_posts += 1
        return {
            "id": pid, "text": text, "timestamp": when.strftime("%Y-%m-%dT%H:%M:%SZ"), "keyword": keyword,
            "url": f"https://x.com/{author.lstrip('@')}/status/{pid}", "author": author,
            "image_urls": [{"url": u, "alt": alt} for u, alt in images],
            "replies_above": [], "replies_below": [],
            "engagement": {"likes": likes, "reposts": likes // int(self.np.integers(4, 20)),
                           "bookmarks": likes // int(self.np.integers(3, 15)),
                           "views": likes * int(self.np.integers(20, 90)) + int(self.np.integers(10, 400))},
        }

    def save(self, img: Image.Image, name: str) -> str:
        """Write a picture under images/ and return its relative reference."""
        img.save(self.root / "images" / name, "PNG", compress_level=6)
        return f"images/{name}"

    # -- sample content ----------------------------------------------------------------
    def i2i(self, kind: str | None = None) -> tuple[str, list[Image.Image], list[Image.Image], str, str]:
        """(prompt, inputs, outputs, edit id, scene kind) for an image-to-image edit."""
        r = self.rnd
        edit = r.choice(list(_EDITS))
        kinds, templates, _, _ = _EDITS[edit]
        kind = kind if kind in kinds else r.choice(kinds)
        size = (384, 288) if kind in ("landscape", "car") else (320, 320)
        p = dd.random_params(kind, r, r.choice(_BRANDS) if kind == "can" else None)
        noun, colour = r.choice(_NOUNS[kind]), r.choice(["red", "blue", "green", "yellow", "purple", "orange"])
        fill = {"noun": noun, "colour": colour, "caption": r.choice(_CAPTIONS), "brand": r.choice(_BRANDS)}
        prompt = r.choice(templates).format(**fill)
        src = dd.draw_scene(p, size)
        q = dict(p)
        if edit == "recolour":
            q["fur" if kind == "cat" else "body"] = dd.COLOURS["ginger" if kind == "cat" and colour == "orange" else colour]
        elif edit == "night":
            q.update(time="night", lights=True)
        elif edit == "sunset":
            q["time"] = "sunset"
        elif edit in ("snow", "hat", "glasses"):
            q[edit] = True
        elif edit == "relabel":
            q["text"] = fill["brand"]
        filt = {"ghibli": de.cartoon, "polaroid": de.polaroid, "pixel": de.pixel_art, "sketch": de.sketch,
                "watercolour": de.watercolour}.get(edit)
        out = filt(src) if filt else de.caption(src, fill["caption"]) if edit == "caption" else dd.draw_scene(q, size)
        outputs = [out]
        if r.random() < 0.15:  # a second variation
            outputs.append(de.yellow_tint(out, 0.12) if r.random() < 0.5 else dd.draw_scene(q, size).transpose(Image.Transpose.FLIP_LEFT_RIGHT))
        return prompt, [src], outputs, edit, kind

    def t2i(self) -> tuple[str, list[Image.Image], list[Image.Image], str, str]:
        """(prompt, [], outputs, style id, scene kind) for a text-to-image prompt."""
        r = self.rnd
        kind, template = r.choice(_T2I)
        style = r.choice(list(_STYLES))
        fill = {"sign": r.choice(_SIGNS), "poster": r.choice(_POSTERS), "amount": f"{r.uniform(6, 80):.2f}",
                "brand": r.choice(_BRANDS), "style": style, "colour": r.choice(["red", "blue", "yellow", "green", "black"])}
        prompt = template.format(**fill)
        text = {"sign": fill["sign"], "poster": fill["poster"], "receipt": fill["amount"], "can": fill["brand"]}.get(kind)
        p = dd.random_params(kind, r, text)
        if kind == "car":
            p["body"] = dd.COLOURS[fill["colour"]]
        elif kind == "cat":
            p["fur"] = dd.COLOURS["grey" if fill["colour"] == "blue" else fill["colour"]]
        size = {"landscape": (384, 288), "car": (384, 288), "receipt": (288, 384)}.get(kind, (320, 320))
        img = dd.draw_scene(p, size)
        filt = _STYLES[style] if "{style}" in template else None
        out = de.FILTERS[filt](img) if filt else img
        outputs = [out]
        if r.random() < 0.12:
            outputs.append(dd.draw_scene(dd.random_params(kind, r, text), size))
        return prompt, [], outputs, filt or kind, kind

    def feedback(self, topic: str, tinted: bool, n: int) -> list[str]:
        """Up to ``n`` distinct feedback replies on ``topic`` (the yellow tint first if ``tinted``)."""
        pool = self.rnd.sample(_FEEDBACK[topic], len(_FEEDBACK[topic]))
        if tinted:
            pool = [self.rnd.choice(_FEEDBACK["yellow"]), *pool]
        return pool[:n]

    # -- one thread ----------------------------------------------------------------------
    def thread(self, t: int, when: datetime, *, processed: bool, screenshot: bool, template: bool) -> None:
        """Generate thread ``t`` (posts, its sample(s), its pictures) and queue its JSONL lines."""
        r = self.rnd
        tag = f"t{t:03d}"
        sid = f"demo-{t:03d}"
        above = []
        if r.random() < 0.3:
            for k in range(r.randint(1, 2)):
                above.append(self.post(r.choice(_CONTEXT), when - timedelta(hours=3 - k, minutes=r.randint(0, 50))))
        if not processed:
            text = r.choice(_RAW)
            images = []
            if r.random() < 0.5:
                pic = dd.draw_scene(dd.random_params(r.choice(["cat", "portrait", "landscape"]), r), (320, 320))
                images = [(self.save(de.cartoon(pic), f"{tag}_raw.png"), "")]
            main = self.post(text, when, images=images, keyword=r.choice(_KEYWORDS))
            main["replies_above"] = above
            main["replies_below"] = [self.post(r.choice(_CHATTER), when + timedelta(minutes=r.randint(2, 600)))
                                     for _ in range(r.randint(0, 3))]
            main["engagement"]["replies"] = len(main["replies_below"])
            self.lines.append(main)
            return
        quality = r.choices(["Benchmark", "Analysis", "Trash", None], weights=[45, 25, 15, 15])[0]
        if template:
            prompt_t, kind, words = _TEMPLATES[t % len(_TEMPLATES)]
            word = r.choice(words)
            out = dd.draw_scene(dd.random_params(kind, r, word), (320, 320))
            prompt, inputs, outputs, topic, kind = prompt_t, [], [out], "text", kind
            quality = "Benchmark"
        elif r.random() < 0.45:
            prompt, inputs, outputs, topic, kind = self.t2i()
        else:
            prompt, inputs, outputs, topic, kind = self.i2i()
        split = "image-to-image" if inputs else "text-to-image"
        fb_topic = (_EDITS[topic][3] if topic in _EDITS else "receipt" if kind == "receipt"
                    else "text" if kind in ("sign", "poster", "can") else "style")
        tinted = r.random() < 0.3 and not template
        if tinted:
            outputs[0] = de.yellow_tint(outputs[0])
        if quality == "Trash":
            prompt = r.choice(_TRASH)
            outputs[0] = de.caption(outputs[0], r.choice(_CAPTIONS), top=True)
        keyword = "ghibli" if topic in ("ghibli", "cartoon") else r.choice(_KEYWORDS)
        # pictures
        sample_in: list[str] = []
        sample_out: list[str] = []
        in_boxes: list[list[int]] = []
        out_boxes: list[list[int]] = []
        if screenshot:
            if r.random() < 0.7 or not inputs:
                shot, ib, ob = dd.chat_screenshot(prompt, inputs, outputs, r)
            else:
                shot, ib, ob = dd.collage_screenshot(inputs, outputs, r)
            ref = self.save(shot, f"{tag}_shot.png")
            images = [(ref, "screenshot")]
            sample_in, sample_out = ([ref] if ib else []), [ref]
            in_boxes, out_boxes = [list(b) for b in ib], [list(b) for b in ob]
            self.boxes[sid] = {"input": list(ib), "output": list(ob)}
            tdir = self.root / "truth" / sid
            tdir.mkdir(parents=True)
            self.truth[sid] = {"input": [], "output": []}
            for role, pics, bxs in (("input", inputs, ib), ("output", outputs, ob)):
                for k, (pic, b) in enumerate(zip(pics, bxs, strict=True)):
                    path = tdir / f"{role}_{k}.png"
                    pic.resize((b[2], b[3]), Image.Resampling.LANCZOS).save(path, "PNG", compress_level=6)
                    self.truth[sid][role].append(path)
        else:
            images = []
            for k, pic in enumerate(inputs):
                ref = self.save(pic, f"{tag}_in{k}.png")
                sample_in.append(ref)
                images.append((ref, r.choice(["", f"my {_NOUNS.get(kind, ['photo'])[0]}", "original"])))
            for k, pic in enumerate(outputs):
                ref = self.save(pic, f"{tag}_out{k}.png")
                sample_out.append(ref)
                images.append((ref, r.choice(["", "AI generated image", prompt[:60]])))
        # posts
        text = (r.choice(_POST_TEXT).format(p=prompt, n=r.randint(2, 30)) if quality != "Trash" else prompt)
        if template:
            text = f'PROMPT TEMPLATE 🧵\n\n"{prompt}"\n\nreply with yours, I\'ll run the best ones 👇'
        main = self.post(text, when, images=images, keyword=keyword, big=True)
        main["replies_above"] = above
        below: list[dict[str, Any]] = []
        minute = 0
        feedback: list[dict[str, str]] = []
        if template:
            minute += r.randint(3, 40)
            reply = self.post(prompt.replace("___", f"'{word}'"), when + timedelta(minutes=minute))
            below.append(reply)
            feedback.append({"post_id": reply["id"], "text": reply["text"]})
        n_fb = r.choice([0, 1, 1, 2, 3]) if quality != "Trash" else 0
        for ftext in self.feedback(fb_topic, tinted, n_fb):
            minute += r.randint(1, 90)
            reply = self.post(ftext, when + timedelta(minutes=minute))
            below.append(reply)
            feedback.append({"post_id": reply["id"], "text": ftext})
        for _ in range(r.randint(0, 2)):
            minute += r.randint(1, 120)
            q = self.post(r.choice(_CHATTER), when + timedelta(minutes=minute))
            below.append(q)
            if q["text"].startswith("what prompt") and r.random() < 0.7:  # the author answers in the thread
                a = self.post(f"{q['author']} it's in the post! \"{prompt[:80]}\"", when + timedelta(minutes=minute + 5),
                              author=main["author"])
                a["parent_id"] = q["id"]
                below.append(a)
        extra: dict[str, Any] | None = None
        if split == "image-to-image" and not screenshot and quality == "Benchmark" and r.random() < 0.25:
            # someone else runs the same prompt on their own picture: a second sample in the tree
            _, ins2, outs2, _, _ = self.i2i(kind)
            minute += r.randint(5, 200)
            refs2 = [self.save(ins2[0], f"{tag}_r_in0.png"), self.save(outs2[0], f"{tag}_r_out0.png")]
            reply = self.post(f"tried the same prompt on mine: {prompt}", when + timedelta(minutes=minute),
                              images=[(refs2[0], ""), (refs2[1], "")])
            below.append(reply)
            extra = self.sample(f"{sid}b", reply["id"], prompt, "Benchmark", split, [], [refs2[0]], [refs2[1]],
                                tags=["same-prompt"])
            self.refs[f"{sid}b"] = outs2[0]
        main["replies_below"] = below
        main["engagement"]["replies"] = len(below)
        tags = []
        if template:
            tags = ["template", "fill-in-the-blank"]
        elif r.random() < 0.45:
            tags = list(_EDITS[topic][2]) if topic in _EDITS else (["text-rendering"] if fb_topic in ("text", "receipt") else ["t2i"])
        if tinted and r.random() < 0.7:
            tags.append("color-shift")
        line = self.sample(sid, main["id"], prompt, quality, split, feedback, sample_in, sample_out, tags=tags,
                           screenshot=screenshot, in_boxes=in_boxes, out_boxes=out_boxes)
        if template:
            line["notes"] = f"template prompt; the reply {feedback[0]['post_id']} fills the blank"
        elif tinted and r.random() < 0.3:
            line["notes"] = "replies mention a colour shift"
        self.lines.append(main)
        self.lines.append(line)
        if extra:
            self.lines.append(extra)
        if quality == "Benchmark":
            self.refs[sid] = outputs[0]

    def sample(self, sid: str, post_id: str, prompt: str, quality: str | None, split: str,
               feedback: list[dict[str, str]], ins: list[str], outs: list[str], *, tags: list[str],
               screenshot: bool = False, in_boxes: Sequence[list[int]] = (), out_boxes: Sequence[list[int]] = ()
               ) -> dict[str, Any]:
        """A sample line (ADR 001 fields)."""
        return {"id": sid, "post_id": post_id, "prompt": prompt, "prompt_modified": False, "quality": quality,
                "split": split, "community_feedback": feedback, "input_images": list(ins),
                "output_images": list(outs), "is_screenshot": screenshot, "input_bboxs": list(in_boxes),
                "output_bboxs": list(out_boxes), "tags": tags}

    # -- model outputs -------------------------------------------------------------------
    def model_outputs(self, outputs_dir: Path) -> tuple[list[Path], list[Path]]:
        """Write outputs/<model>/<sample_id>.png for every Benchmark sample; return (missing, extra)."""
        behave = {"aurora-xl": lambda im: de.yellow_tint(im, 0.3), "brushwork-2": lambda im: de.blur(im, 2.5),
                  "pixelforge": lambda im: de.posterise(im, 2), "lumen-edit": de.near_copy}
        ids = sorted(self.refs)
        skip = (MODELS[2], self.rnd.choice(ids)) if ids else None
        missing: list[Path] = []
        for model in MODELS:
            (outputs_dir / model).mkdir(parents=True)
            for sid in ids:
                path = outputs_dir / model / f"{sid}.png"
                if (model, sid) == skip:
                    missing.append(path)
                    continue
                ref = self.refs[sid]
                ref = ref if max(ref.size) <= 320 else ref.resize((ref.width * 320 // max(ref.size), ref.height * 320 // max(ref.size)))
                behave[model](ref).save(path, "PNG", compress_level=6)
        extra = outputs_dir / MODELS[3] / "orphan-0001.png"
        dd.draw_scene(dd.random_params("landscape", self.rnd), (256, 256)).save(extra, "PNG")
        return missing, [extra]


def _prepare(root: Path) -> None:
    """Create ``root``; refuse to write into a non-empty folder that is not a previous demo."""
    root.mkdir(parents=True, exist_ok=True)
    if any(root.iterdir()):
        if not (root / _MARKER).exists():
            raise FileExistsError(f"{root} is not empty and does not hold a Winnow demo data set")
        for name in ("images", "outputs", "truth"):
            shutil.rmtree(root / name, ignore_errors=True)
        (root / "posts.jsonl").unlink(missing_ok=True)
    (root / _MARKER).write_text("generated by core.demo_sources\n", encoding="utf-8")
    (root / "images").mkdir()


def generate_demo_sources(root: Path, *, seed: int = 0, n_threads: int = 120) -> DemoSources:
    """Write the demo data set under ``root`` (deterministic for a given ``seed``) and describe it.

    ``root`` must be empty, absent, or a previous demo folder (which is regenerated).
    """
    if n_threads < 4:
        raise ValueError("n_threads must be at least 4")
    root = Path(root)
    _prepare(root)
    g = _Gen(root, seed)
    r = g.rnd
    raw = set(r.sample(range(n_threads), max(1, round(n_threads * 0.08))))
    rest = [t for t in range(n_threads) if t not in raw]
    templates = {rest[1], rest[len(rest) // 2]}
    eligible = [t for t in rest if t not in templates]
    shots = set(r.sample(eligible, max(1, round(n_threads * 0.16))))
    span = (datetime(2025, 9, 30, tzinfo=UTC) - _START).total_seconds()
    offsets = sorted(float(x) for x in g.np.uniform(0, span, n_threads))
    for t in range(n_threads):
        when = _START + timedelta(seconds=int(offsets[t]))
        g.thread(t, when, processed=t not in raw, screenshot=t in shots, template=t in templates)
    posts_jsonl = root / "posts.jsonl"
    with posts_jsonl.open("w", encoding="utf-8", newline="\n") as fh:
        for line in g.lines:
            fh.write(json.dumps(line, ensure_ascii=False) + "\n")
    outputs_dir = root / "outputs"
    missing, extra = g.model_outputs(outputs_dir)
    n_samples = sum(1 for line in g.lines if "prompt" in line)
    return DemoSources(root=root, posts_jsonl=posts_jsonl, outputs_dir=outputs_dir, screenshot_boxes=g.boxes,
                       models=list(MODELS), n_posts=g.n_posts, n_samples=n_samples, screenshot_truth=g.truth,
                       missing_outputs=missing, extra_outputs=extra)
