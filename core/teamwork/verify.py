"""Check a returned curator package before anything of it is merged (ADR 131).

1. The base MAC: identity, base values, posts, feedback and images are what the
   project put in (the key is derived from the split's secret, which only the project
   has); every image's bytes match its name.
2. The key chain over the audit log: every change made through Curate is an entry,
   MACed in the transaction that made it; none was changed, added, removed or reordered.
3. The replay: starting from the base values, the audit entries, applied in order,
   must lead to exactly what the package holds, each entry's *old* value being the state
   it found.  A sample changed with sqlite3 (no entry, or an entry bypassed) breaks it.

The replay also yields what the merge needs: the samples the curator derived
(fill-in-the-blank) in the order they were made, and their values when made.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.mac_chain import ChainEntry, mac, same, sql_entry
from core.teamwork.package import TEAM, WHERE, PackageFile, base_key, chain_start
from core.teamwork.values import SCALARS, audit_summary_key, images_summary, loads

MAX_PROBLEMS = 10
_TEMPLATE_TAGS = {"template", "fill-in-the-blank"}

State = dict[str, Any]


@dataclass
class Replayed:
    """What the audit trail says happened in the package."""

    states: dict[str, State] = field(default_factory=dict)
    #: derived samples alive at the end: id → (template id, reply post id, prompt)
    created: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    #: each derived sample's comparable values when it was made
    initial: dict[str, dict[str, Any]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def comparable_state(state: State, name: str) -> Any:
    """Field ``name`` of a replayed state in the terms merges compare."""
    if name == "images":
        return state["images"], state["is_screenshot"]
    return state[name]


def check(found: PackageFile, secret: bytes, recorded_base_mac: str) -> tuple[list[str],
                                                                            Replayed]:
    """Problems that refuse the package (empty = merge it), and the replay."""
    uid = found.uid
    expected = mac(base_key(secret, uid), found.document)
    if not (same(expected, found.meta.get("base_mac")) and same(expected, recorded_base_mac)):
        return ["what the project put in it (its identity, the samples' values at the "
                "split, posts, feedback or images) was changed (base MAC does not match)"], \
            Replayed()
    problems: list[str] = []
    if found.changed_images:
        problems.append(f"{len(found.changed_images)} image(s) were changed (their bytes do "
                        "not match their digest)")
    entries = [ChainEntry(f"audit entry {row[0]}", sql_entry(["audit", *row]),
                          found.macs.get(row[0]) if isinstance(row[0], int) else None)
               for row in found.audit]
    problems += TEAM.verify(chain_start(secret, uid), expected, entries, found.chain, WHERE)
    if problems:
        return problems, Replayed()
    replayed = replay(found)
    return replayed.problems, replayed


def state_of(values: dict[str, Any]) -> State:
    """A replay state from sample values (:func:`core.teamwork.values.read_values`)."""
    entries, shot = images_summary(values["images"])
    return {**{k: values[k] for k in SCALARS}, "tags": list(values["tags"]),
            "images": entries, "is_screenshot": shot}


def replay(found: PackageFile) -> Replayed:
    """Apply the audit entries to the base values and compare with what the file holds."""
    out = Replayed(states={sid: state_of(v) for sid, v in found.base.items()
                           if isinstance(v, dict) and "images" in v})
    if len(out.states) != len(found.base):
        out.problems.append("its base values are not readable")
        return out
    for row in found.audit:
        problem = _apply_entry(found, out, row)
        if problem:
            out.problems.append(f"audit entry {row[0]}: {problem}")
            if len(out.problems) >= MAX_PROBLEMS:
                return out
    _compare_final(found, out)
    return out


def _apply_entry(found: PackageFile, out: Replayed, row: tuple[Any, ...]) -> str | None:
    _id, _at, _actor, action, entity, sid, name, old_text, new_text = row
    if action != "edit" or entity != "sample":
        return f"a change Winnow's Curate does not make ({str(action)[:20]} {str(entity)[:20]})"
    try:
        old, new = loads(old_text), loads(new_text)
    except (TypeError, ValueError, RecursionError):
        return "its values are not readable"
    states = out.states
    if name == "created":
        return _created(found, out, sid, new)
    if sid not in states:
        return f"it changes sample {str(sid)[:60]!r}, which the package does not hold"
    state = states[sid]
    if name == "deleted":
        if sid not in out.created:
            return f"it deletes sample {sid}, which the curator did not create"
        del states[sid], out.created[sid], out.initial[sid]
        return None
    if name == "derived":
        return None  # the template's note that a sample was derived from it
    if name in SCALARS or name in ("is_screenshot", "tags"):
        have = state[name]
        if name == "is_screenshot":
            old, new, have = bool(old), bool(new), bool(have)
        if old != have:
            return f"sample {sid}'s {name} was changed {WHERE} before it"
        state[name] = new
        return None
    if name == "images":
        before, after = audit_summary_key(old), audit_summary_key(new)
        if before is None or after is None:
            return "its image values are not readable"
        if before != (state["images"], state["is_screenshot"]):
            return f"sample {sid}'s images were changed {WHERE} before it"
        state["images"], state["is_screenshot"] = after
        return None
    return f"a change Winnow's Curate does not make (field {str(name)[:40]!r})"


def _created(found: PackageFile, out: Replayed, sid: Any, new: Any) -> str | None:
    """A fill-in-the-blank sample: its state as DeriveFromTemplate makes it."""
    if not isinstance(new, dict) or sid in out.states:
        return f"it creates sample {str(sid)[:60]!r} twice or unreadably"
    template, reply, prompt = (new.get("from_template"), new.get("completion_post_id"),
                               new.get("prompt"))
    tpl = out.states.get(template) if isinstance(template, str) else None
    if (tpl is None or not isinstance(template, str) or not isinstance(reply, str)
            or not isinstance(prompt, str)):
        return f"it creates sample {str(sid)[:60]!r} from a template the package lacks"
    images = found.reply_images.get(reply)
    if images:
        from core.teamwork.values import dumps

        entries = tuple(sorted(dumps({"role": "output", "position": k, "image": sha or url})
                               for k, (_pos, url, sha, _err) in enumerate(images)))
    else:
        entries = tpl["images"]
    state = {"quality": None, "review_status": "unreviewed", "split": tpl["split"],
             "prompt": prompt, "notes": f"filled in from template {template} with reply "
                                        f"{reply}",
             "tags": sorted((set(tpl["tags"]) - _TEMPLATE_TAGS) | {"derived"}),
             "images": entries, "is_screenshot": tpl["is_screenshot"]}
    out.states[sid] = state
    out.created[sid] = (template, reply, prompt)
    out.initial[sid] = {k: comparable_state(state, k) for k in (*SCALARS, "tags", "images")}
    return None


def _compare_final(found: PackageFile, out: Replayed) -> None:
    extra = sorted(set(found.current) - set(out.states))
    missing = sorted(set(out.states) - set(found.current))
    for sid in extra[:3]:
        out.problems.append(f"sample {str(sid)[:60]!r} was added {WHERE}")
    for sid in missing[:3]:
        out.problems.append(f"sample {str(sid)[:60]!r} was removed {WHERE}")
    for sid, state in out.states.items():
        if sid not in found.current or len(out.problems) >= MAX_PROBLEMS:
            continue
        held = state_of(found.current[sid])
        for name in (*SCALARS, "tags", "images", "is_screenshot"):
            want = state[name] if name != "tags" else sorted(state[name])
            if held[name] != want:
                out.problems.append(f"sample {sid}: its {name.replace('_', ' ')} was "
                                    f"changed {WHERE} (it is not what its audit trail says)")
                break
