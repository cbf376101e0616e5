"""A learned keep/drop score for the body's blocks, read from each block's context: the
element names and class/id words around it, and whether its structure repeats in the body.

Boilerplate classifiers after boilerpipe (dragnet's CETR and "weninger" features, Web2Text,
BoilerNet) found that the markup around a block tells main text from boilerplate better than
its shape alone: a comment's paragraph and a story's paragraph look alike, but one sits in
``li.comment > div.comment-body`` and the other in ``div.entry-content``. The model is a logistic
regression over binary features (:func:`block_features`); its weights are a JSON file built from
the tuning splits only (``tests/bench/train_context_model.py``). Words are lower-cased class/id
words; only words seen on several sites of the training pages have a weight, so no site's own
names are learned.

>>> from selectolax.lexbor import LexborHTMLParser
>>> model = ContextModel(bias=0.0, weights={"near:comment": -4.0}, margin=2.0, floor=0.5)
>>> story = Block("A long paragraph of the story itself.", 190, 0, "p", path=(1, 2))
>>> note = Block("Nice post!", 9, 0, "p", path=(1, 3, 4))
>>> html = '<div class="entry"><p>x</p><div class="comment"><p>y</p></div></div>'
>>> regions = [n for n in LexborHTMLParser(html).css("div, p")]
>>> [b.text for b in model.keep([story, note], regions)]
['A long paragraph of the story itself.']
"""

from __future__ import annotations

import itertools
import json
import math
import re
from bisect import bisect_right
from dataclasses import dataclass, field, fields
from functools import cache, lru_cache
from importlib import resources

from selectolax.lexbor import LexborNode

from engine.html.blocks import STORY_PARAGRAPH_CHARS, Block, tag_name

MODEL_FILE = "context_model.json"

# Class/id words: runs of letters (digits split them off: "post-4955" is "post"), 3-24 long
# (shorter runs are utility classes' and CSS-in-JS hashes' pieces: "mx", "fb", "sm").
_WORD = re.compile(r"[a-z]{3,24}")
NEAR = 3  # the block's own region element and the two around it are its near context
MAIN_SHARE = 0.6  # the element holding this share of the body's characters is its main one
SENTENCE_END = frozenset(".!?。！？:;\"'”’»)")


@lru_cache(maxsize=8192)
def label_words(tag: str, label: str) -> tuple[str, ...]:
    """The element's name (``@tag``) and the distinct class/id words of its lower-cased
    "class id" label.

    >>> label_words("div", "entry-content post-4955 hentry")
    ('@div', 'entry', 'content', 'post', 'hentry')
    """
    return ("@" + tag, *dict.fromkeys(_WORD.findall(label.lower())))


# node_words's own cache: the label's words by tag, then by "class id" label. A call of
# label_words's lru_cache from compiled code goes through the wrapper's generic call (an
# argument tuple, built and hashed: a sixth of the logits' time in the compiled build);
# two dict look-ups by strings here. Each level is cleared when full (pages repeat their
# labels, and a custom element's tag is a name of its own).
_NODE_WORDS: dict[str, dict[str, tuple[str, ...]]] = {}
_NODE_WORDS_MAX = 8192


def node_words(node: LexborNode) -> tuple[str, ...]:
    """:func:`label_words` of a region element (one attribute read, a call into lexbor; the
    tag name by its id, see :func:`engine.html.blocks.tag_name`), cached by tag and label.

    >>> from selectolax.lexbor import LexborHTMLParser
    >>> node_words(LexborHTMLParser('<div class="Entry-Content" id="post-1">x</div>').css_first("div"))
    ('@div', 'entry', 'content', 'post')
    """
    attrs = node.attributes
    label = f"{attrs.get('class') or ''} {attrs.get('id') or ''}"
    tag = tag_name(node)
    known = _NODE_WORDS.get(tag)
    if known is None:
        if len(_NODE_WORDS) >= _NODE_WORDS_MAX:
            _NODE_WORDS.clear()
        known = _NODE_WORDS[tag] = {}
    words = known.get(label)
    if words is None:
        if len(known) >= _NODE_WORDS_MAX:
            known.clear()
        words = known[label] = label_words(tag, label)
    return words


def _bucket(value: float, bounds: tuple[float, ...]) -> int:
    """Index of the first bound ``value`` is under (len(bounds) past the last): the number of
    bounds at or under it, as the bounds ascend.

    >>> _bucket(5, (5, 20, 50)), _bucket(4.9, (5, 20, 50)), _bucket(50, (5, 20, 50))
    (1, 0, 3)
    """
    return bisect_right(bounds, value)


def _names(prefix: str, bounds: tuple[float, ...]) -> tuple[str, ...]:
    """The feature names of a bucketed value: ``prefix:0`` to ``prefix:len(bounds)``.

    >>> _names("end", (1,))
    ('end:0', 'end:1')
    """
    return tuple(f"{prefix}:{n}" for n in range(len(bounds) + 1))


_LEN_BOUNDS = (5, 20, 50, 100, 200, 400)
_LINK_BOUNDS = (0.01, 0.2, 0.5)
_SHARE_BOUNDS = (0.02, 0.05, 0.15, 0.4)
_LEN_NAMES = _names("len", _LEN_BOUNDS)
_LINK_NAMES = _names("link", _LINK_BOUNDS)
_END_NAMES = _names("end", (1,))
_SHARE_NAMES = _names("share", _SHARE_BOUNDS)
_REP_BOUNDS = (1, 2, 5)  # other parents of a block's structure
_REP_NAMES = _names("rep", _REP_BOUNDS)


def shape_features(block: Block, share: float) -> list[str]:
    """The block's tag, length, link density, sentence end and share of the body, bucketed.

    >>> shape_features(Block("Read more", 8, 8, "a"), 0.01)
    ['tag:a', 'len:1', 'link:3', 'end:0', 'share:0']
    """
    text = block.text
    return [
        "tag:" + block.tag,
        _LEN_NAMES[_bucket(block.chars, _LEN_BOUNDS)],
        _LINK_NAMES[_bucket(block.link_density, _LINK_BOUNDS)],
        _END_NAMES[bool(text) and text[-1] in SENTENCE_END],
        _SHARE_NAMES[_bucket(share, _SHARE_BOUNDS)],
    ]


def inside_features(inside: int, shape: list[str]) -> tuple[str, str, str]:
    """Whether the block lies in the body's main element (``in:``), and its tag and length
    features joined to it.

    >>> inside_features(1, ["tag:p", "len:3"])
    ('in:1', 'in1:tag:p', 'in1:len:3')
    """
    return f"in:{inside}", f"in{inside}:{shape[0]}", f"in{inside}:{shape[1]}"


def repeat_keys(body: list[Block], words: dict[int, tuple[str, ...]]) -> list[tuple]:
    """Each block's structure key: the words of its own element and its parent's (not where
    they are), so two comments, or two cards, of one template share a key."""
    get, empty = words.get, ((), ())  # map() stops at the shorter: a path of one gives one
    return [tuple(map(get, block.path[-2:], empty)) for block in body]


def repeat_features(body: list[Block], keys: list[tuple]) -> list[str]:
    """How often a block's structure repeats in the body under other parents: a comment
    thread or a card list repeats one template (many parents), a story's paragraphs share one
    parent.

    >>> a = Block("x", 1, 0, "p", path=(1, 2)); b = Block("y", 1, 0, "p", path=(3, 4))
    >>> repeat_features([a, b], [("k",), ("k",)])
    ['rep:1', 'rep:1']
    """
    parents: dict[tuple, set] = {}
    for block, key in zip(body, keys, strict=True):
        parents.setdefault(key, set()).add(block.path[:-1])
    names = {key: _REP_NAMES[_bucket(len(p) - 1, _REP_BOUNDS)] for key, p in parents.items()}
    return [names[key] for key in keys]


def story_share(body: list[Block], paragraph_chars: int = STORY_PARAGRAPH_CHARS) -> float:
    """Share of the body's characters in blocks of ``paragraph_chars``+ that end a sentence.

    >>> story_share([Block("x" * 199 + ".", 200, 0, "p"), Block("Home", 4, 4, "a")])
    0.9803921568627451
    """
    total = sum(b.chars for b in body)
    if not total:
        return 0.0
    long = sum(b.chars for b in body if b.chars >= paragraph_chars and b.text[-1:] in SENTENCE_END)
    return long / total


def main_container(body: list[Block], share: float = MAIN_SHARE) -> tuple[int, ...]:
    """The path of the deepest element that holds ``share`` (over a half) of the body's
    characters. Such an element is inside the one found a level up, so each level looks only
    at the blocks inside that one.

    >>> a = Block("x" * 80, 80, 0, "p", path=(1, 2, 3)); b = Block("y" * 20, 20, 0, "p", path=(1, 4))
    >>> main_container([a, b])
    (1, 2)
    """
    bar = share * (sum(b.chars for b in body) or 1)
    best: tuple[int, ...] = ()
    inside = body
    depth = 0
    while True:
        chars: dict[int, int] = {}
        for b in inside:
            if len(b.path) > depth + 1:
                key = b.path[depth]
                chars[key] = chars.get(key, 0) + b.chars
        top = max(chars.items(), key=lambda kv: kv[1], default=None)
        if top is None or top[1] < bar:
            return best
        best += (top[0],)
        inside = [b for b in inside if len(b.path) > depth + 1 and b.path[depth] == top[0]]
        depth += 1


def _region_words(body: list[Block], regions: list[LexborNode]) -> dict[int, tuple[str, ...]]:
    """:func:`node_words` of every region element on the body's paths, read once each. A
    path is read from its end and no further than an element already read: every element
    above it was read with it (a path names each enclosing region, outermost first)."""
    words: dict[int, tuple[str, ...]] = {}
    count = len(regions)
    for block in body:
        for n in reversed(block.path):
            if n in words:
                break
            if 0 < n <= count:
                words[n] = node_words(regions[n - 1])
    return words


def _near(block: Block, words: dict[int, tuple[str, ...]]) -> list[str]:
    """The words of the block's element and the two around it, once each."""
    near: dict[str, None] = {}
    for n in block.path[-NEAR:]:
        for w in words.get(n, ()):
            near["near:" + w] = None
    return list(near)


def _far(prefix: tuple[int, ...], words: dict[int, tuple[str, ...]]) -> list[str]:
    """The words of every element above the near ones, once each."""
    seen: dict[str, None] = {}
    for n in prefix:
        for w in words.get(n, ()):
            seen["far:" + w] = None
    return list(seen)


def _own_sum(get, block: Block, share: float, repeat: str, inside: bool) -> float:
    """The weights of a block's shape, repeat and ``in`` features added in their order
    (see :meth:`ContextModel.logits`). ``sum()`` starts from an int 0; 0.0 gives the same
    float (0 + x and 0.0 + x are x, and both make -0.0 a 0.0), and mypyc compiles a float
    local only when it starts as one."""
    shape = shape_features(block, share)
    sums = 0.0
    for name in (*shape, repeat, *inside_features(int(inside), shape)):
        sums += get(name, 0.0)
    return sums


def _far_list(
    prefix: tuple[int, ...],
    words: dict[int, tuple[str, ...]],
    lists: dict[tuple, tuple[list[str], set[str]]],
) -> tuple[list[str], set[str]]:
    """:func:`_far` of ``prefix`` (with its set), extended from the longest prefix of it that
    ``lists`` keeps (it holds the empty one): the words of the elements above come first,
    once each, then the next elements' new ones. The list built is kept."""
    cut = len(prefix)
    while prefix[:cut] not in lists:
        cut -= 1
    names, seen = lists[prefix[:cut]]
    if cut == len(prefix):
        return names, seen
    names, seen = names[:], set(seen)
    for n in prefix[cut:]:
        for w in words.get(n, ()):
            name = "far:" + w
            if name not in seen:
                seen.add(name)
                names.append(name)
    lists[prefix] = (names, seen)
    return names, seen


def block_parts(body: list[Block], regions: list[LexborNode]) -> list[tuple[list[str], list[str]]]:
    """Each body block's own features (shape, repeats, ``in``: whether it lies in the
    element that holds most of the body, near words) and its far words; blocks under one
    path prefix share one far list (the same object)."""
    words = _region_words(body, regions)
    total = sum(b.chars for b in body) or 1
    repeats = repeat_features(body, repeat_keys(body, words))
    main = main_container(body)
    far: dict[tuple, list[str]] = {}
    out = []
    for block, repeat in zip(body, repeats, strict=True):
        feats = shape_features(block, block.chars / total)
        inside = int(block.path[: len(main)] == main)
        feats += (repeat, *inside_features(inside, feats))
        feats += _near(block, words)
        prefix = block.path[:-NEAR]
        above = far.get(prefix)
        if above is None:
            above = far[prefix] = _far(prefix, words)
        out.append((feats, above))
    return out


def block_features(body: list[Block], regions: list[LexborNode]) -> list[list[str]]:
    """The binary features of each body block (see :func:`block_parts`)."""
    return [own + far for own, far in block_parts(body, regions)]


@dataclass(frozen=True)
class ContextModel:
    """Weights of a logistic regression over :func:`block_features`. A block is dropped when
    its logit is more than ``margin`` under the body's mean (each block weighed by its
    characters) and its probability is under ``floor``: the score is read against the page's
    own blocks, as sites differ in how much their markup says. Only a body whose story share
    is at least ``gate`` is scored, and nothing is dropped when the blocks dropped would hold
    more than ``max_drop`` of the body's characters."""

    bias: float
    weights: dict[str, float] = field(default_factory=dict)
    margin: float = 7.0
    floor: float = 0.2
    gate: float = 0.0
    max_drop: float = 0.5

    def logits(self, body: list[Block], regions: list[LexborNode]) -> list[float]:
        """bias + the weights of each block's :func:`block_features`, added in their order
        (a far list shared by several blocks is summed once). The features are those of
        :func:`block_parts`, but not built per block: the sum of a block's own shape, repeat
        and ``in`` weights is kept by what decides those names (tag, buckets, sentence end,
        repeat, inside), a near word's weight is looked up once a page, and a far list is
        extended from the longest prefix's already made. The same floats are added in the
        same order, so the logits are equal, not close."""
        get, bias, zeros = self.weights.get, self.bias, itertools.repeat(0.0)
        words = _region_words(body, regions)
        total = sum(b.chars for b in body) or 1
        repeats = repeat_features(body, repeat_keys(body, words))
        main = main_container(body)
        depth = len(main)
        own_sums: dict[tuple, float] = {}  # the own features' sum, by what decides them
        near_weights: dict[str, float] = {}  # a near word's weight, by the word
        far_sums: dict[tuple, float] = {}
        far_lists: dict[tuple, tuple[list[str], set[str]]] = {(): ([], set())}
        out = []
        for block, repeat in zip(body, repeats, strict=True):
            path, text, chars = block.path, block.text, block.chars
            key = (
                block.tag,
                bisect_right(_LEN_BOUNDS, chars),
                bisect_right(_LINK_BOUNDS, block.link_density),
                bool(text) and text[-1] in SENTENCE_END,
                bisect_right(_SHARE_BOUNDS, chars / total),
                repeat,
                path[:depth] == main,
            )
            sums = own_sums.get(key)
            if sums is None:
                sums = own_sums[key] = _own_sum(get, block, chars / total, repeat, key[-1])
            near: dict[str, None] = {}
            for n in path[-NEAR:]:
                for w in words.get(n, ()):
                    near[w] = None
            for w in near:
                weight = near_weights.get(w)
                if weight is None:
                    weight = near_weights[w] = get("near:" + w, 0.0)
                sums += weight
            prefix = path[:-NEAR]
            above = far_sums.get(prefix)
            if above is None:
                names = _far_list(prefix, words, far_lists)[0]
                above = far_sums[prefix] = sum(map(get, names, zeros))
            out.append(bias + above + sums)
        return out

    def decide(self, logits: list[float], chars: list[int]) -> list[bool]:
        """Which blocks stay, from their logits and lengths (see the class).

        >>> ContextModel(0.0, margin=2.0, floor=0.5).decide([3.0, 3.0, -4.0], [100, 100, 10])
        [True, True, False]
        """
        total = sum(chars)
        mean = sum(z * c for z, c in zip(logits, chars, strict=True)) / (total or 1)
        bar = min(mean - self.margin, math.log(self.floor / (1.0 - self.floor)))
        keep = [z >= bar for z in logits]
        dropped = sum(c for c, k in zip(chars, keep, strict=True) if not k)
        if dropped > self.max_drop * total:
            return [True] * len(logits)
        return keep

    def keep(self, body: list[Block], regions: list[LexborNode]) -> list[Block]:
        """The body without the blocks the model judges not main text."""
        if len(body) < 2 or (self.gate > 0 and story_share(body) < self.gate):
            return body
        keep = self.decide(self.logits(body, regions), [b.chars for b in body])
        return body if all(keep) else [b for b, k in zip(body, keep, strict=True) if k]


@cache
def bundled_model() -> ContextModel | None:
    """The model in ``engine/data/`` (None when the file is absent)."""
    path = resources.files("engine") / "data" / MODEL_FILE
    if not path.is_file():
        return None
    data = json.loads(path.read_text("utf-8"))
    return ContextModel(**{f.name: data[f.name] for f in fields(ContextModel)})


__all__ = ["ContextModel", "block_features", "bundled_model", "label_words"]
