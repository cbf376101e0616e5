"""Hypothesis: normalize raises only PageKeeperError subclasses, and the archive
profile is idempotent (a key normalizes to itself)."""

from __future__ import annotations

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.errors import PageKeeperError
from engine.urls.normalize import NormalizeOptions, archive_key, normalize
from engine.urls.rules import RULES

SCHEMES = st.sampled_from(["http", "https", "HTTP", "hTTps", "ftp", "ws", "file", "mailto", "foo"])
LABELS = st.sampled_from(
    ["www", "WWW", "www2", "m", "example", "EXAMPLE", "co", "uk", "com", "bücher", "xn--bcher-kva"]
    + ["github", "io", "0x7f", "127", "1", "256", "ß", "", "-a-", "a%41"]
)
HOSTS = st.one_of(
    st.lists(LABELS, min_size=1, max_size=4).map(".".join),
    st.sampled_from(["[::1]", "[2001:DB8:0:0::1]", "1.2.3.4", "2130706433", "[v1.x]"]),
)
PORTS = st.sampled_from(["", ":", ":80", ":443", ":0080", ":8080", ":65536", ":x"])
SEGMENTS = st.sampled_from(
    ["a", "B", ".", "..", "%2e", "%2E%2e", "index.html", "Index.html", "default.aspx", "x.pdf"]
    + ["%7e", "%7E", "%2f", "%41", "%25", "%2541", "é", " ", "a;jsessionid=1", "", "\\", "%"]
)
PAIRS = st.sampled_from(
    ["a=1", "b=2", "a=0", "", "utm_source=x", "fbclid=1", "utm_", "ref=x", "PHPSESSID=1"]
    + ["q=a%20b", "q=a+b", "%61=1", "k", "=v", "utm%5Fsource=1", "x=%7e", "é=1", "a=b=c"]
)
FRAGMENTS = st.sampled_from(["", "#", "#top", "#!x", "#!/a/b", "#/r", "#%21x", "#a#b", "#é"])


@st.composite
def urlish(draw) -> str:
    scheme = draw(SCHEMES)
    userinfo = draw(st.sampled_from(["", "@", ":@", "u@", "u:p@", "%7e@"]))
    path = "/".join(draw(st.lists(SEGMENTS, max_size=5)))
    pairs = draw(st.lists(PAIRS, max_size=5))
    query = draw(st.sampled_from(["", "?"])) + "&".join(pairs) if pairs else ""
    url = f"{scheme}://{userinfo}{draw(HOSTS)}{draw(PORTS)}/{path}{query}{draw(FRAGMENTS)}"
    return draw(st.sampled_from(["", " ", "\t"])) + url


OPTIONS = st.builds(
    lambda profile, flips: NormalizeOptions.from_profile(profile, ",".join(flips)),
    st.sampled_from(["safe", "archive", "aggressive"]),
    st.lists(st.sampled_from([s + name for name in RULES for s in "+-"]), max_size=4),
)


@settings(max_examples=800, deadline=None)
@given(st.one_of(urlish(), st.text(max_size=60)), OPTIONS)
def test_normalize_raises_only_pagekeeper_errors(text, options):
    try:
        result = normalize(text, options)
    except PageKeeperError:
        return
    assert isinstance(result, str)


@settings(max_examples=2000, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(urlish())
def test_archive_key_is_idempotent(text):
    try:
        key = archive_key(text)
    except PageKeeperError:
        assume(False)
    assert archive_key(key) == key


@settings(max_examples=800, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(urlish(), st.sampled_from(["safe", "aggressive"]))
def test_other_profiles_are_idempotent_too(text, profile):
    options = NormalizeOptions.from_profile(profile)
    try:
        once = normalize(text, options)
    except PageKeeperError:
        assume(False)
    assert normalize(once, options) == once
