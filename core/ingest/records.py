"""Parse and validate JSON Lines records (posts and samples) into plain dataclasses.

The accepted shapes are documented in ``docs/adr/001-jsonl-import-format.md``.
Every problem raises :class:`RecordError` with the path of the offending field, so
the importer can say "line 12: replies_below[2].text must be a string"; the typed
getters of single fields live in :mod:`core.ingest.record_fields` (ADR 227).
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from core.ingest.record_fields import (
    MAX_TEXT,
    RecordError,
    bool_field,
    id_field,
    list_field,
    text_field,
    timestamp_field,
    type_name,
)
from core.visible_text import visible

QUALITIES = ("Benchmark", "Analysis", "Trash")
SPLITS = {"text-to-image": "text-to-image", "t2i": "text-to-image",
          "image-to-image": "image-to-image", "i2i": "image-to-image"}
MAX_COORD = 2**31 - 1  # pixels: larger box values cannot be a place in any image
MAX_IMAGE_INDEX = 100_000  # an index into a post's image_urls
#: Keys of a post object that are not its fields: its id and the replies it carries as
#: context (stored as posts of their own).  Copies of a post are compared on the rest
#: (ADR 182).
CONTEXT_KEYS = frozenset({"id", "replies_above", "replies_below"})


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise RecordError(f"the number {text[:40]} is too large")
    return value


def _parse_constant(name: str) -> float:
    raise RecordError(f"{name} is not a JSON value")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """An object whose keys are all different: with ``{"id": "a", "id": "b"}`` JSON
    readers disagree on which value counts, so such a line is refused (ADR 166)."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        twice = ""
        for key, _value in pairs:
            if key in seen:
                twice = key
                break
            seen.add(key)
        raise RecordError(f"key '{shown_id(twice)}' appears twice in one object (readers "
                          "disagree on which value counts; keep one)")
    return obj


_DECODER = json.JSONDecoder(parse_float=_parse_float, parse_constant=_parse_constant,
                            object_pairs_hook=_object)


def loads(text: str | bytes) -> Any:
    """Strict JSON: no NaN/Infinity, finite floats, integers of at most 4,300 digits.

    Raises :class:`RecordError` for those, ``json.JSONDecodeError`` for malformed text.
    """
    if isinstance(text, bytes):
        text = text.decode("utf-8")
    try:
        return _DECODER.decode(text)
    except json.JSONDecodeError:
        raise
    except ValueError as exc:  # Python's limit on digits in an integer
        if "digits" in str(exc):
            raise RecordError(f"a number with more than {sys.get_int_max_str_digits():,} "
                              "digits") from None
        raise


@dataclass
class PostRecord:
    """One post (a main post or a reply), ready to be written."""

    id: str
    text: str
    parent_id: str | None = None
    timestamp: str | None = None
    keyword: str | None = None
    url: str | None = None
    author: str | None = None
    engagement: dict[str, Any] | None = None
    images: list[tuple[str, str]] = field(default_factory=list)  # (url or path, alt)
    raw_text: str = ""  # canonical JSON of the post object (stored; hashed)
    raw_hash: str = ""
    fields: frozenset[str] = frozenset()  # the object's keys less CONTEXT_KEYS (ADR 182)


@dataclass
class BoxRef:
    """A crop box ``(x, y, w, h)`` on image ``image`` of the same role list."""

    image: int
    box: tuple[int, int, int, int]


@dataclass
class SampleRecord:
    """One processed sample (ECHO's post-processed fields)."""

    id: str
    post_id: str | None
    prompt: str
    prompt_edited: str | None
    quality: str | None
    split: str | None
    is_screenshot: bool
    inputs: list[str | int]
    outputs: list[str | int]
    input_boxes: list[BoxRef]
    output_boxes: list[BoxRef]
    feedback: list[tuple[str | None, str]]
    tags: list[str]
    notes: str
    raw_text: str  # canonical JSON of the line (stored; hashed)
    raw_hash: str
    posts: list[PostRecord] = field(default_factory=list)  # embedded post and its replies
    #: the line's own raw post fields (Winnow's export, ADR 194), parsed by
    #: :func:`flat_post_records` only when the post is neither in the project nor the file
    flat_post: dict[str, Any] | None = None


_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":"))
#: The C encoder behind ``_CANONICAL.encode``, made once instead of once per call (a
#: quarter of the encoding time).  No circular-reference bookkeeping: the values come
#: from the JSON parser and cannot contain themselves.
_MAKE_C_ENCODER = getattr(json.encoder, "c_make_encoder", None)  # not in typeshed
_C_CANONICAL = None if _MAKE_C_ENCODER is None else _MAKE_C_ENCODER(
    None, _CANONICAL.default, json.encoder.encode_basestring, None, ":", ",", True, False, True)


def canonical_json(obj: Any) -> str:
    """Canonical JSON text of a value parsed from JSON (sorted keys, no whitespace).

    The same text as ``json.dumps(obj, sort_keys=True, ensure_ascii=False,
    separators=(",", ":"))`` (``raw_hash`` depends on it, ADR 001).
    """
    if _C_CANONICAL is None:  # a Python without the C accelerator
        return _CANONICAL.encode(obj)
    return "".join(_C_CANONICAL(obj, 0))


def canonical_hash(obj: Any) -> str:
    """Stable hash of a JSON value (key order and whitespace do not matter)."""
    return _sha1(canonical_json(obj))


def _sha1(text: str) -> str:
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = text[exc.start]
        raise RecordError(f"text contains \\u{ord(bad):04x}, half of a UTF-16 surrogate pair, "
                          "which is not a character") from None
    return hashlib.sha1(data).hexdigest()


_SHOWN_ID_CHARS = 80


def shown_id(ident: str) -> str:
    """An id as a report line shows it: control characters escaped (``\\x00``, ``\\n``),
    invisible and direction characters spelt out (ADR 160), cut after 80 characters
    with its length said.  The stored id keeps its exact text (ADR 166)."""
    text = ident[:_SHOWN_ID_CHARS]
    if not text.isprintable() or not text.isascii():
        text = "".join(repr(c)[1:-1] if unicodedata.category(c) == "Cc" else c for c in text)
        text = visible(text)
    if len(ident) > _SHOWN_ID_CHARS:
        text += f"… ({len(ident):,} characters)"
    return text


def unicode_form(text: str) -> str:
    """Which Unicode normal form ``text`` is written in (``NFC``, ``NFD``), for a message."""
    return next((f for f in ("NFC", "NFD") if unicodedata.is_normalized(f, text)),
                "mixed forms")


def is_sample(obj: dict[str, Any]) -> bool:
    """A line is a sample when it carries a ``prompt``; otherwise it is a raw post."""
    return "prompt" in obj


# -- posts --------------------------------------------------------------------------------
def _post_id(obj: dict[str, Any], path: str, reply: bool = False) -> str:
    explicit = id_field(obj, "id", path) or (id_field(obj, "post_id", path) if reply else None)
    if explicit:  # a reply may name itself by post_id, as Winnow's export writes it
        return explicit
    url = text_field(obj, "url", path)
    if url:
        return url
    basis = [obj.get("author"), obj.get("timestamp"), obj.get("text")]
    return "h:" + canonical_hash(basis)[:16]


def _images(obj: dict[str, Any], path: str) -> list[tuple[str, str]]:
    images: list[tuple[str, str]] = []
    for k, item in enumerate(list_field(obj, "image_urls", path)):
        where = f"{path}image_urls[{k}]"
        if isinstance(item, str):
            images.append((item, ""))
        elif isinstance(item, dict):
            url = text_field(item, "url", where + ".", required=True) or ""
            alt = text_field(item, "alt", where + ".", default="") or ""
            images.append((url, alt))
        else:
            raise RecordError(f"'{where}' must be a URL string or an object with 'url'")
        if not images[-1][0].strip():
            raise RecordError(f"'{where}' has an empty URL")
    return images


def parse_post(obj: Any, path: str = "", parent_id: str | None = None,
               reply: bool = False) -> list[PostRecord]:
    """Parse a post object and its ``replies_above``/``replies_below`` into records.

    The first record returned is the post itself; the others are its context.  A reply
    without an ``id`` takes its ``post_id`` (Winnow's export, ADR 030), else its URL.
    """
    if isinstance(obj, str):  # a text-only reply
        obj = {"text": obj}
    if not isinstance(obj, dict):
        raise RecordError(f"'{path.rstrip('.') or 'line'}' must be an object, "
                          f"got {type_name(obj)}")
    text = text_field(obj, "text", path, required=True) or ""
    engagement = obj.get("engagement")
    if engagement is not None and not isinstance(engagement, dict):
        raise RecordError(f"field '{path}engagement' must be an object, "
                          f"got {type_name(engagement)}")
    post = PostRecord(
        id=_post_id(obj, path, reply),
        text=text,
        parent_id=id_field(obj, "parent_id", path) or parent_id,
        timestamp=timestamp_field(obj, path),
        keyword=text_field(obj, "keyword", path),
        url=text_field(obj, "url", path),
        author=text_field(obj, "author", path),
        engagement=engagement,
        images=_images(obj, path),
    )
    post.raw_text = canonical_json(obj)
    post.raw_hash = _sha1(post.raw_text)
    post.fields = frozenset(obj.keys() - CONTEXT_KEYS)
    context: list[PostRecord] = []
    previous: str | None = None
    for k, item in enumerate(list_field(obj, "replies_above", path)):
        above = parse_post(item, f"{path}replies_above[{k}].", parent_id=previous, reply=True)
        context.extend(above)
        previous = above[0].id
    if previous is not None and not id_field(obj, "parent_id", path):
        post.parent_id = previous
    for k, item in enumerate(list_field(obj, "replies_below", path)):
        context.extend(parse_post(item, f"{path}replies_below[{k}].", parent_id=post.id,
                                  reply=True))
    return [post, *context]


# -- samples ------------------------------------------------------------------------------
def _refs(obj: dict[str, Any], key: str) -> list[str | int]:
    refs: list[str | int] = []
    for k, item in enumerate(list_field(obj, key, "")):
        if isinstance(item, bool) or not isinstance(item, str | int):
            raise RecordError(f"'{key}[{k}]' must be a URL, a path or an image index, "
                              f"got {type_name(item)}")
        if isinstance(item, str) and not item.strip():
            raise RecordError(f"'{key}[{k}]' is empty")
        if isinstance(item, int) and not 0 <= item <= MAX_IMAGE_INDEX:
            raise RecordError(f"'{key}[{k}]' is image index {item:.6g}, which is not between "
                              f"0 and {MAX_IMAGE_INDEX:,}")
        if isinstance(item, str) and len(item) > MAX_TEXT:
            raise RecordError(f"'{key}[{k}]' is too long ({len(item):,} characters)")
        refs.append(item)
    return refs


def _box(value: Any, where: str) -> tuple[int, int, int, int]:
    if (not isinstance(value, list) or len(value) != 4
            or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)):
        raise RecordError(f"'{where}' must be [x, y, width, height] in pixels")
    if not all(math.isfinite(v) and -MAX_COORD <= v <= MAX_COORD for v in value):
        raise RecordError(f"'{where}' has a value that is not a pixel position "
                          f"(at most {MAX_COORD:,})")
    x, y, w, h = (int(round(v)) for v in value)
    if w <= 0 or h <= 0 or x < 0 or y < 0:
        raise RecordError(f"'{where}' must have x, y ≥ 0 and a positive size, got {value}")
    return x, y, w, h


def _boxes(obj: dict[str, Any], key: str, n_images: int) -> list[BoxRef]:
    boxes: list[BoxRef] = []
    for k, item in enumerate(list_field(obj, key, "")):
        where = f"{key}[{k}]"
        if item is None:  # image k has no box (what Winnow's own export writes)
            continue
        if isinstance(item, dict):
            image = item.get("image", 0)
            if (isinstance(image, bool) or not isinstance(image, int)
                    or not 0 <= image <= MAX_IMAGE_INDEX):
                raise RecordError(f"'{where}.image' must be an image index")
            boxes.append(BoxRef(image, _box(item.get("box"), where + ".box")))
        else:
            boxes.append(BoxRef(k if k < n_images else 0, _box(item, where)))
        if n_images and not 0 <= boxes[-1].image < n_images:
            raise RecordError(f"'{where}' refers to image {boxes[-1].image}, but there are "
                              f"only {n_images}")
        if not n_images:
            raise RecordError(f"'{where}' is a box but the sample lists no images to crop")
    return boxes


def parse_sample(obj: dict[str, Any]) -> SampleRecord:
    """Parse a sample line (see ADR 001)."""
    sample_id = id_field(obj, "id", "", required=True) or ""
    if not sample_id.strip():
        raise RecordError("field 'id' is empty")
    posts: list[PostRecord] = []
    if obj.get("post") is not None:
        posts = parse_post(obj["post"], "post.")
    post_id = id_field(obj, "post_id", "") or (posts[0].id if posts else None)
    prompt = text_field(obj, "prompt", "", required=True) or ""
    prompt_edited = text_field(obj, "prompt_edited", "")
    original = text_field(obj, "original_prompt", "")
    if original is not None:  # Winnow's own export: prompt = curated, original_prompt = extracted
        prompt, prompt_edited = original, prompt
    quality = obj.get("quality")
    if quality is not None and quality not in QUALITIES:
        raise RecordError(f"field 'quality' must be one of {', '.join(QUALITIES)} or null, "
                          f"got {quality!r}")
    split_value = text_field(obj, "split", "")
    if split_value is not None and split_value not in SPLITS:
        raise RecordError(f"field 'split' must be text-to-image or image-to-image, "
                          f"got {split_value!r}")
    inputs, outputs = _refs(obj, "input_images"), _refs(obj, "output_images")
    split = SPLITS[split_value] if split_value else (
        "image-to-image" if inputs else "text-to-image")
    feedback: list[tuple[str | None, str]] = []
    for k, item in enumerate(list_field(obj, "community_feedback", "")):
        where = f"community_feedback[{k}]."
        if isinstance(item, str):
            feedback.append((None, item))
        elif isinstance(item, dict):
            feedback.append((id_field(item, "post_id", where),
                             text_field(item, "text", where, required=True) or ""))
        else:
            raise RecordError(f"'community_feedback[{k}]' must be an object with post_id "
                              "and text")
    tags = []
    for k, tag in enumerate(list_field(obj, "tags", "")):
        if not isinstance(tag, str) or not tag.strip() or len(tag) > 1000:
            raise RecordError(f"'tags[{k}]' must be a non-empty string (at most 1,000 "
                              "characters)")
        tags.append(tag.strip())
    raw_text = canonical_json(obj)
    flat_post = _flat_fields(obj, post_id, (*inputs, *outputs)) if not posts else None
    return SampleRecord(
        id=sample_id,
        post_id=post_id,
        prompt=prompt,
        prompt_edited=prompt_edited,
        quality=quality,
        split=split,
        is_screenshot=bool_field(obj, "is_screenshot", ""),
        inputs=inputs,
        outputs=outputs,
        input_boxes=_boxes(obj, "input_bboxs", len(inputs)),
        output_boxes=_boxes(obj, "output_bboxs", len(outputs)),
        feedback=feedback,
        tags=sorted(set(tags)),
        notes=text_field(obj, "notes", "", default="") or "",
        raw_text=raw_text,
        raw_hash=_sha1(raw_text),
        posts=posts,
        flat_post=flat_post,
    )


#: the raw post fields a sample line may carry beside ``post_id`` (Table D.1, ADR 030)
FLAT_POST_FIELDS = ("text", "timestamp", "keyword", "url", "author", "engagement",
                    "image_urls", "replies_above", "replies_below")


def _flat_fields(obj: dict[str, Any], post_id: str | None,
                 refs: tuple[str | int, ...]) -> dict[str, Any] | None:
    """The raw post fields of a sample line (``text`` at least) as a post object, or None.
    Its ``image_urls`` are left out unless the sample picks images by index: the sample
    names its own image files, and the post's (paths beside another file, URLs) would be
    fetched for nothing."""
    if not post_id or "text" not in obj:
        return None
    flat = {"id": post_id, **{k: obj[k] for k in FLAT_POST_FIELDS if k in obj}}
    if not any(isinstance(r, int) for r in refs):
        flat.pop("image_urls", None)
    return flat


def flat_post_records(flat: dict[str, Any]) -> list[PostRecord] | str:
    """The post (and its replies) that a sample line's raw post fields describe, or why
    they do not make one."""
    try:
        return parse_post(flat, "")
    except RecordError as exc:
        return str(exc)
