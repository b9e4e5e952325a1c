"""The seven proposal kinds (ECHO §3.2-3.3, Appendix D, §6), their JSON schemas, and
the strict validation every answer passes before anything is written.

The schema goes to the server as ``response_format`` (structured outputs) where it
supports it, but Winnow never trusts that: :func:`validate` checks the answer itself
(types, enums, no unknown keys) and against the post it was about (images that exist,
boxes inside the image as sent, replies that exist, a prompt no longer than the text
it was extracted from).  Every problem is a :class:`InvalidProposal` whose message is
the reason stored with the failed proposal.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

KINDS = ("prompt", "roles", "screenshots", "fill-in", "quality", "feedback", "safety")
#: a short phrase per kind for menus and reports
KIND_TITLES = {
    "prompt": "Prompt extraction", "roles": "Image roles", "screenshots": "Screenshot boxes",
    "fill-in": "Fill-in-the-blank completions", "quality": "Quality label",
    "feedback": "Feedback success/failure + keyword", "safety": "Safety flag",
}
#: the sample fields each kind proposes (``feedback`` proposes one per reply)
KIND_FIELDS = {"prompt": ("prompt",), "roles": ("roles",), "screenshots": ("boxes",),
               "fill-in": ("prompt",), "quality": ("quality",), "feedback": ("feedback",),
               "safety": ("safety",)}
QUALITIES = ("Benchmark", "Analysis", "Trash")
ROLES = ("input", "output", "unused")
FEEDBACK_LABELS = ("success", "failure", "neutral")
#: MLCommons hazard categories (as Llama Guard 4 reports them), plus "other"
HAZARDS = ("violent crimes", "non-violent crimes", "sex-related crimes",
           "child sexual exploitation", "defamation", "specialized advice", "privacy",
           "intellectual property", "indiscriminate weapons", "hate", "suicide & self-harm",
           "sexual content", "elections", "code interpreter abuse", "minor depicted", "other")
MAX_KEYWORD_WORDS = 4
MAX_KEYWORD_CHARS = 40
MAX_RAW_CHARS = 200_000  # what is kept of a raw response


class InvalidProposal(ValueError):
    """The model's answer cannot be used; the message says why (stored as the reason)."""


@dataclass(frozen=True)
class ImageRef:
    """One image of a post as the model saw it."""

    index: int
    sha256: str | None
    ref: str | None
    width: int          # source pixels
    height: int
    sent_width: int     # pixels of the image as sent (downscaled)
    sent_height: int
    alt: str = ""

    @property
    def scale(self) -> float:
        """Source pixels per sent pixel."""
        return self.width / self.sent_width if self.sent_width else 1.0


@dataclass
class Subject:
    """What one request was about: the texts and images the model could see."""

    post_id: str
    text: str                                   # the post's own text
    context_text: str                           # everything the prompt may come from
    images: list[ImageRef] = field(default_factory=list)
    replies: dict[str, str] = field(default_factory=dict)   # reply id -> text
    screenshot_images: list[int] | None = None  # screenshots kind: which images


# -- JSON schemas ----------------------------------------------------------------------
def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {"type": "object", "properties": props,
            "required": list(props) if required is None else required,
            "additionalProperties": False}


_STR = {"type": "string"}
_BOX = {"type": "array", "items": {"type": "integer"}, "minItems": 4, "maxItems": 4}
SCHEMAS: dict[str, dict[str, Any]] = {
    "prompt": _obj({"has_prompt": {"type": "boolean"}, "prompt": _STR}),
    "roles": _obj({"images": {"type": "array", "items": _obj({
        "index": {"type": "integer"}, "role": {"type": "string", "enum": list(ROLES)},
        "is_screenshot": {"type": "boolean"}})}}),
    "screenshots": _obj({"screenshots": {"type": "array", "items": _obj({
        "image": {"type": "integer"}, "prompt": _STR,
        "boxes": {"type": "array", "items": _obj({
            "role": {"type": "string", "enum": ["input", "output"]}, "box": _BOX})}})}}),
    "fill-in": _obj({"is_template": {"type": "boolean"}, "completions": {
        "type": "array", "items": _obj({"reply_id": _STR, "completion": _STR,
                                        "prompt": _STR})}}),
    "quality": _obj({"quality": {"type": "string", "enum": list(QUALITIES)},
                     "reason": _STR}),
    "feedback": _obj({"feedback": {"type": "array", "items": _obj({
        "reply_id": _STR, "label": {"type": "string", "enum": list(FEEDBACK_LABELS)},
        "keyword": _STR})}}),
    "safety": _obj({"unsafe": {"type": "boolean"}, "categories": {
        "type": "array", "items": {"type": "string", "enum": list(HAZARDS)}}}),
}


def schema_text(kind: str) -> str:
    """The JSON schema of ``kind`` as compact text (for templates that quote it)."""
    return json.dumps(SCHEMAS[kind], separators=(",", ":"))


# -- parsing -------------------------------------------------------------------------------
_FENCE = re.compile(r"^\s*```(?:json)?\s*(.*?)\s*```\s*$", re.S)


def parse_json(text: str) -> dict[str, Any]:
    """The JSON object in an answer (a ```json fence around it is tolerated)."""
    m = _FENCE.match(text)
    body = m.group(1) if m else text.strip()
    try:
        value = json.loads(body)
    except json.JSONDecodeError as exc:
        raise InvalidProposal(f"the answer is not JSON ({exc.msg} at character "
                              f"{exc.pos}): {_snippet(text)!r}") from None
    except (ValueError, RecursionError) as exc:  # a 5,000-digit number, deep nesting
        raise InvalidProposal(f"the answer is not usable JSON ({exc}): "
                              f"{_snippet(text)!r}") from None
    if not isinstance(value, dict):
        raise InvalidProposal(f"the answer is JSON but not an object: {_snippet(text)!r}")
    return value


def _snippet(text: str, n: int = 120) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[:n] + "…"


def check_schema(value: Any, schema: dict[str, Any], path: str = "") -> None:
    """Strict check of ``value`` against the subset of JSON Schema used in :data:`SCHEMAS`."""
    where = path or "the answer"
    t = schema.get("type")
    if t == "object":
        if not isinstance(value, dict):
            raise InvalidProposal(f"{where} must be an object")
        props = schema["properties"]
        extra = sorted(set(value) - set(props))
        if extra:
            raise InvalidProposal(f"{where} has unknown field(s) {', '.join(extra)}")
        for key in schema.get("required", ()):
            if key not in value:
                raise InvalidProposal(f"{where} lacks the field '{key}'")
        for key, sub in props.items():
            if key in value:
                check_schema(value[key], sub, f"{path}.{key}" if path else key)
    elif t == "array":
        if not isinstance(value, list):
            raise InvalidProposal(f"{where} must be a list")
        lo, hi = schema.get("minItems"), schema.get("maxItems")
        if (lo is not None and len(value) < lo) or (hi is not None and len(value) > hi):
            raise InvalidProposal(f"{where} must have {lo} items, not {len(value)}")
        for k, item in enumerate(value):
            check_schema(item, schema["items"], f"{where}[{k}]")
    elif t == "string":
        if not isinstance(value, str):
            raise InvalidProposal(f"{where} must be text")
        if "enum" in schema and value not in schema["enum"]:
            raise InvalidProposal(f"{where} must be one of {', '.join(schema['enum'])}, "
                                  f"not {_snippet(value, 40)!r}")
    elif t == "integer":
        if isinstance(value, bool) or not isinstance(value, int):
            raise InvalidProposal(f"{where} must be a whole number")
    elif t == "boolean" and not isinstance(value, bool):
        raise InvalidProposal(f"{where} must be true or false")


def validate(kind: str, text: str, subject: Subject) -> dict[str, Any]:
    """The validated value of an answer of ``kind`` about ``subject``."""
    value = parse_json(text)
    check_schema(value, SCHEMAS[kind])
    return _CHECKS[kind](value, subject)


def _check_prompt(v: dict[str, Any], s: Subject) -> dict[str, Any]:
    prompt = v["prompt"].strip()
    if v["has_prompt"] and not prompt:
        raise InvalidProposal("has_prompt is true but the prompt is empty")
    limit = len(s.context_text)
    if len(prompt) > limit:
        raise InvalidProposal(f"the prompt ({len(prompt):,} characters) is longer than the "
                              f"post and thread it was extracted from ({limit:,})")
    return {"has_prompt": v["has_prompt"], "prompt": prompt if v["has_prompt"] else ""}


def _image(s: Subject, index: int, what: str) -> ImageRef:
    if not 0 <= index < len(s.images):
        n = len(s.images)
        raise InvalidProposal(f"{what} names image {index}, but the post has "
                              + (f"images 0–{n - 1}" if n else "no images"))
    return s.images[index]


def _check_roles(v: dict[str, Any], s: Subject) -> dict[str, Any]:
    seen: set[int] = set()
    out = []
    for item in v["images"]:
        _image(s, item["index"], "a role")
        if item["index"] in seen:
            raise InvalidProposal(f"image {item['index']} has two roles")
        seen.add(item["index"])
        out.append(dict(item))
    out.sort(key=lambda r: r["index"])
    return {"images": out}


def _check_screenshots(v: dict[str, Any], s: Subject) -> dict[str, Any]:
    out = []
    allowed = s.screenshot_images
    for shot in v["screenshots"]:
        img = _image(s, shot["image"], "a screenshot")
        if allowed is not None and shot["image"] not in allowed:
            raise InvalidProposal(f"image {shot['image']} was not sent as a screenshot")
        boxes = []
        for k, b in enumerate(shot["boxes"]):
            x, y, w, h = b["box"]
            if w <= 0 or h <= 0:
                raise InvalidProposal(f"box {k} on image {img.index} has no area ({w}×{h})")
            if x < 0 or y < 0 or x + w > img.sent_width or y + h > img.sent_height:
                raise InvalidProposal(
                    f"box {k} [{x}, {y}, {w}, {h}] lies outside image {img.index} "
                    f"({img.sent_width}×{img.sent_height} as sent)")
            boxes.append({"role": b["role"], "box": [x, y, w, h]})
        prompt = shot["prompt"].strip()
        if len(prompt) > 20_000:
            raise InvalidProposal(f"the prompt read from image {img.index} is implausibly "
                                  f"long ({len(prompt):,} characters)")
        out.append({"image": img.index, "prompt": prompt, "boxes": boxes})
    return {"screenshots": out}


def _check_reply(s: Subject, reply_id: str, what: str) -> None:
    if reply_id not in s.replies:
        raise InvalidProposal(f"{what} names reply {_snippet(reply_id, 40)!r}, which is not "
                              "a reply of this post")


def _check_fill(v: dict[str, Any], s: Subject) -> dict[str, Any]:
    out = []
    seen: set[str] = set()
    for c in v["completions"] if v["is_template"] else []:
        _check_reply(s, c["reply_id"], "a completion")
        if c["reply_id"] in seen:
            raise InvalidProposal(f"reply {c['reply_id']!r} is completed twice")
        seen.add(c["reply_id"])
        prompt = c["prompt"].strip()
        if not prompt:
            raise InvalidProposal(f"the completion from reply {c['reply_id']!r} has an "
                                  "empty prompt")
        limit = len(s.context_text) + len(s.replies[c["reply_id"]])
        if len(prompt) > limit:
            raise InvalidProposal(f"the prompt completed from reply {c['reply_id']!r} "
                                  f"({len(prompt):,} characters) is longer than the template "
                                  f"and reply together ({limit:,})")
        out.append({"reply_id": c["reply_id"], "completion": c["completion"].strip(),
                    "prompt": prompt})
    return {"is_template": v["is_template"], "completions": out}


def _check_quality(v: dict[str, Any], s: Subject) -> dict[str, Any]:
    return {"quality": v["quality"], "reason": v["reason"].strip()[:2000]}


def clean_keyword(keyword: str) -> str:
    """A failure keyword as stored: trimmed, lower case, single spaces."""
    return " ".join(keyword.strip().strip(".\"'").lower().split())


def _check_feedback(v: dict[str, Any], s: Subject) -> dict[str, Any]:
    out = []
    seen: set[str] = set()
    for item in v["feedback"]:
        _check_reply(s, item["reply_id"], "a feedback label")
        if item["reply_id"] in seen:
            raise InvalidProposal(f"reply {item['reply_id']!r} is labelled twice")
        seen.add(item["reply_id"])
        keyword = clean_keyword(item["keyword"])
        if item["label"] == "failure":
            if not keyword:
                raise InvalidProposal(f"reply {item['reply_id']!r} is a failure without a "
                                      "keyword")
            if len(keyword.split()) > MAX_KEYWORD_WORDS or len(keyword) > MAX_KEYWORD_CHARS:
                raise InvalidProposal(f"the failure keyword of reply {item['reply_id']!r} "
                                      f"is not short: {_snippet(keyword, 50)!r}")
        else:
            keyword = ""
        out.append({"reply_id": item["reply_id"], "label": item["label"], "keyword": keyword})
    return {"feedback": out}


def _check_safety(v: dict[str, Any], s: Subject) -> dict[str, Any]:
    cats = sorted(set(v["categories"])) if v["unsafe"] else []
    return {"unsafe": v["unsafe"], "categories": cats}


_CHECKS = {"prompt": _check_prompt, "roles": _check_roles, "screenshots": _check_screenshots,
           "fill-in": _check_fill, "quality": _check_quality, "feedback": _check_feedback,
           "safety": _check_safety}


def parse_kinds(text: str) -> tuple[str, ...]:
    """``"prompt,roles"`` → the kinds, in pipeline order; ValueError naming a bad one."""
    names = [t.strip() for t in text.split(",") if t.strip()]
    aliases = {"fill": "fill-in", "fillin": "fill-in", "fill_in": "fill-in",
               "screenshot": "screenshots", "role": "roles"}
    out = []
    for name in names:
        name = aliases.get(name.lower(), name.lower())
        if name not in KINDS:
            raise ValueError(f"unknown proposal kind {name!r}; choose from {', '.join(KINDS)}")
        out.append(name)
    if not out:
        raise ValueError("no proposal kind given")
    return tuple(k for k in KINDS if k in out)
