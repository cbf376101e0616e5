"""Which URLs count as one document: the archive's key profile, then its learned rules.

A version's *key* is its URL normalized with the archive's key profile (state
``key_profile``), then rewritten by the learned parameter rules and DUST rules (state
``dust_rules``: ``{"rules": [DUST rules], "params": [parameter rules]}``). Every change
to any of them re-keys the stored versions in ONE transaction (:func:`rekey`): a
document's history is never split between an old and a new key, and a failure halfway
leaves the archive as it was. Tags and alert choices follow their document's versions.

>>> import tempfile, pathlib
>>> from engine.archive.store import ArchiveStore
>>> s = ArchiveStore.open(pathlib.Path(tempfile.mkdtemp()))
>>> document_key(s, "https://WWW.example.com/a?utm_source=x"); s.close()
'https://example.com/a/'
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from engine.archive import alerts, labels
from engine.archive.dust import DustOptions, StoredContent, apply_rules, learn_rules
from engine.archive.param_rules import ParamOptions, apply_params, learn_params
from engine.archive.same_page import SamePage, SamePageOptions
from engine.archive.store import ArchiveStore
from engine.urls.normalize import profile_key
from engine.urls.rules import profile_rules

RULES_STATE = "dust_rules"


@dataclass(frozen=True)
class LearnOptions:
    """The two learners' options (DUST substitutions, parameters that change nothing) and
    the one "same page" judgement that validates both."""

    dust: DustOptions = field(default_factory=DustOptions)
    params: ParamOptions = field(default_factory=ParamOptions)
    same: SamePageOptions = field(default_factory=SamePageOptions)


def key_profile(store: ArchiveStore) -> str:
    """The normalization profile that keys this archive (state ``key_profile``, else ``archive``)."""
    state = store.load_state("key_profile")
    return state["profile"] if state else "archive"


def document_key(store: ArchiveStore, url: str) -> str:
    """The archive key of ``url``: its profile key, learned parameter and DUST rules applied."""
    return keyer(store)(url)


def keyer(store: ArchiveStore):
    """:func:`document_key` for many URLs: the profile and the rules are read once."""
    profile = key_profile(store)
    state = store.load_state(RULES_STATE) or {}
    rules, params = state.get("rules") or [], state.get("params") or []
    if not rules and not params:
        return lambda url: profile_key(url, profile)

    def key_of(url: str) -> str:
        key = apply_params(profile_key(url, profile), params)
        return apply_rules(key, rules, profile) if rules else key

    return key_of


def set_key_profile(store: ArchiveStore, profile: str) -> dict:
    """Key the whole archive with ``profile``: every version is re-keyed in one transaction,
    so documents whose URLs now share a key merge (and split again under a stricter profile).

    >>> import tempfile, pathlib
    >>> s = ArchiveStore.open(pathlib.Path(tempfile.mkdtemp()))
    >>> set_key_profile(s, "safe")["profile"], key_profile(s); s.close()
    ('safe', 'safe')
    """
    profile_rules(profile)  # InvalidInput for an unknown profile, before anything is written
    with store.transaction():
        store.save_state("key_profile", {"profile": profile})
        moved = rekey(store)
    return {"profile": profile, "rekeyed": moved, "documents": len(list(store.keys()))}


def learn(store: ArchiveStore, options: LearnOptions | None = None) -> dict:
    """Learn DUST and parameter rules from the archive's URLs, validated by the stored
    pages, save them and re-key every stored version under them, all in ONE transaction.

    Learning reads each version's *profile* key (its URL before any learned rule), so a
    second run sees the same evidence as the first and re-keys nothing more.
    """
    options = options or LearnOptions()
    newest = profile_keys(store)
    judge = SamePage(StoredContent(store, newest.get).content, options.same)
    rules = learn_rules(newest, judge, options.dust)
    compared = judge.compared  # the pairs DUST compared (the parameter learner's come after)
    params = learn_params(newest, judge, options.params)
    saved = {
        "rules": [rule.to_dict() for rule in rules],
        "params": [rule.to_dict() for rule in params],
        "urls": len(newest),
    }
    with store.transaction():
        store.save_state(RULES_STATE, saved)
        moved = rekey(store)
    documents = len(list(store.keys()))
    return {**saved, "compared_pairs": compared, "rekeyed": moved, "documents": documents}


def profile_keys(store: ArchiveStore) -> dict[str, str]:
    """Each distinct profile key of the stored versions -> its newest version, oldest key first."""
    profile, versions = key_profile(store), store.raw("versions")
    newest: dict[str, str] = {}
    for reg_id in store.ids:
        key = profile_key(versions[reg_id]["url"], profile)
        held = newest.get(key)
        if held is None or store.capture_order(reg_id) > store.capture_order(held):
            newest[key] = reg_id
    return newest


def rekey(store: ArchiveStore) -> int:
    """Give every version the key the rules in force give its URL; how many moved.

    Call inside the transaction that changed the rules. A document's tags and alert
    choice go with its versions: to every key they now have (merged when keys join).
    """
    versions, key_of, moved = store.raw("versions"), keyer(store), 0
    moves: dict[str, set[str]] = defaultdict(set)  # old key -> keys its versions have now
    for reg_id in list(store.ids):
        old, new = versions[reg_id]["key"], key_of(versions[reg_id]["url"])
        moves[old].add(new)
        if new != old:
            store.update("versions", reg_id, {"key": new})
            moved += 1
    _carry_choices(store, {old: new for old, new in moves.items() if new != {old}})
    store.reindex()
    return moved


def _carry_choices(store: ArchiveStore, moves: dict[str, set[str]]) -> None:
    """Tags and alert choices of re-keyed documents, onto their new keys."""
    for old, new_keys in moves.items():
        tags = labels.tags_of(store, old)
        on = alerts.document_choice(store, old)
        if old not in new_keys:
            labels.set_tags(store, old, [], tags)
            alerts.set_document(store, old, None)
        for key in new_keys - {old}:
            if tags:
                labels.set_tags(store, key, tags, [])
            if on is not None and alerts.document_choice(store, key) is None:
                alerts.set_document(store, key, on)
