"""The typo index: which keys ``near_keys`` finds (OSA distance, a swap is one edit)."""

from __future__ import annotations

from rapidfuzz import process
from rapidfuzz.distance import OSA

from engine.urls.dictionary import DomainDictionary
from tests.dictionary_cache import shared_bundled_dictionary

DOMAINS = ["google.com", "stackoverflow.com", "microsoftonline.com", "abc.com", "yahoo.com"]


def near(query: str) -> dict[str, int]:
    d = DomainDictionary.from_domains(DOMAINS)
    return {d.domain(i): dist for i, dist in d.near_keys(query)}


def test_two_letters_shorter_or_longer_is_two_edits_away():
    assert near("gogl") == {"google.com": 2}
    assert near("googglee") == {"google.com": 2}
    assert near("gogl" + "e") == {"google.com": 1}


def test_three_letters_apart_in_length_is_not_found():
    assert near("gog") == {}
    assert near("gooogglee") == {}


def test_a_key_under_four_letters_is_matched_at_one_edit_only():
    assert near("abd") == {"abc.com": 1}
    assert near("axd") == {}  # two edits from abc: nothing left to recognise
    assert near("abxd") == {}  # a longer query reaches abc through its deletions


def test_long_keys_with_two_edits_in_different_parts():
    # long keys are found through their parts: each edit in another part
    assert near("stakcoverfolw") == {"stackoverflow.com": 2}
    assert near("xstackoverflo") == {"stackoverflow.com": 2}
    assert near("microsoftonlie") == {"microsoftonline.com": 1}
    assert near("mcrosoftonlinee") == {"microsoftonline.com": 2}
    # parts of different sizes start at one place: each is hashed by its own letters
    for typed, meant in (
        ("stacjoverfow", "stackoverflow.com"),
        ("stackverfloa", "stackoverflow.com"),
        ("microsoftonie", "microsoftonline.com"),
        ("misrosoftonlin", "microsoftonline.com"),
    ):
        assert near(typed) == {meant: 2}


def _grouped(d: DomainDictionary, query: str, limit: int) -> list[tuple[str, int, list[int]]]:
    """near_keys grouped by key, nearest then most popular: what nearest_keys must give."""
    groups: dict[str, tuple[int, list[int]]] = {}
    for ident, dist in sorted(d.near_keys(query), key=lambda m: (m[1], m[0])):
        groups.setdefault(d.key(ident), (dist, []))[1].append(ident)
    return [(key, dist, ids) for key, (dist, ids) in list(groups.items())[:limit]]


def test_nearest_keys_is_near_keys_grouped_on_the_bundled_list():
    # 4-letter names have ~200 keys two edits away and ~500 more candidates that are not:
    # the walk in rank order stops early, and must still give every id of a key
    d = shared_bundled_dictionary()
    queries = ["emst", "m3ba", "cdnt", "opps", "nbbc", "yaaho", "gogle", "goolge", "amazn"]
    queries += ["ab", "abc", "wikipdia", "langsamernst", "stackoverflw", "facebok", "bbcc"]
    for query in queries:
        for limit in (1, 3, 40):
            assert d.nearest_keys(query, limit) == _grouped(d, query, limit), (query, limit)
            ones = [g for g in _grouped(d, query, 999) if g[1] == 1][:limit]
            assert d.nearest_keys(query, limit, most=1) == ones, (query, limit)


def _brute_force(d: DomainDictionary, query: str, limit: int) -> list[tuple[str, int, list[int]]]:
    """Every key of the dictionary checked with OSA, no index: what the index must find
    (two edits only on keys of 4+ letters), nearest first, then by the most popular id."""
    keys = [d.key(ident) for ident in range(len(d))]
    groups: dict[str, tuple[int, list[int]]] = {}
    for key, dist, ident in process.extract(
        query, keys, scorer=OSA.distance, score_cutoff=2, limit=None
    ):
        if dist > 0 and (dist == 1 or len(key) >= 4):
            groups.setdefault(key, (dist, []))[1].append(ident)
    ranked = sorted(groups.items(), key=lambda g: (g[1][0], min(g[1][1])))
    return [(key, dist, sorted(ids)) for key, (dist, ids) in ranked[:limit]]


def test_nearest_keys_is_the_brute_force_search_on_the_bundled_list():
    # the index's probes (deletions tagged with their key's length, long keys' parts)
    # against OSA over all 100k keys: 2- to 13-letter queries, among them the slowest
    # requests' (4-letter names walked for two-edit keys, long names probing nothing)
    d = shared_bundled_dictionary()
    queries = ["ab", "nic", "tit", "mkui", "ivar", "inse", "ttae", "ozom", "yaaho", "gogle"]
    queries += ["facebok", "linkdin", "dremahost", "uppsconline", "resolverarpa"]
    queries += ["stackoverflw", "xhamsterdesi", "wikipdia", "atealblog", "nwwaonline"]
    # two letters too many: google and facebook are found only through the query's
    # two-letter deletions, as keys two letters shorter than the query
    queries += ["googlexx", "facebookk1"]
    for query in queries:
        found = d.nearest_keys(query, 40)
        assert found == _brute_force(d, query, 40), query
        ones = [g for g in _brute_force(d, query, 999) if g[1] == 1][:40]
        assert d.nearest_keys(query, 40, most=1) == ones, query


def test_one_edit_search_of_connector_readings_is_the_brute_force_search():
    # a name typed with a connector (clear&bleibt.com) is read joined, hyphenated and with
    # "and", each searched at one edit only: the part index's hits (hundreds of ids, none
    # one edit away) are read for keys one letter longer or shorter only, and a 10-letter
    # query still finds 9-letter keys through its one-letter deletions (wikipediaa)
    d = shared_bundled_dictionary()
    queries = ["clearbleibt", "clear-bleibt", "clearandbleibt", "dearbleibt", "livrosseria"]
    queries += ["tristemine", "triste-mine", "wikipediaa", "facebooook", "stackoverflw"]
    queries += ["instagramm", "crashlytics", "youtubecom", "amazoncomm"]
    for query in queries:
        ones = [g for g in _brute_force(d, query, 999) if g[1] == 1][:40]
        assert d.nearest_keys(query, 40, most=1) == ones, query
    assert [k for k, _, _ in d.nearest_keys("wikipediaa", 40, most=1)][:1] == ["wikipedia"]


def test_nearest_keys_of_three_letter_names_on_the_bundled_list():
    # a 3-letter query's one-letter deletions hit every 4-letter key holding two of its
    # letters (~550 candidates for "nic"): only those at most as long as the query can be
    # one edit away (a longer one is found through the query itself); the rest, two
    # edits or more, wait for the walk, which only runs past 40+ one-edit keys here
    d = shared_bundled_dictionary()
    for query in ("nic", "car", "cnd", "tit", "aum", "oaa", "epn", "ww"):
        for limit in (3, 40, 120):
            assert d.nearest_keys(query, limit) == _grouped(d, query, limit), (query, limit)
            ones = [g for g in _grouped(d, query, 999) if g[1] == 1][:limit]
            assert d.nearest_keys(query, limit, most=1) == ones, (query, limit)


def test_nearest_keys_finds_an_inserted_letter_and_a_replaced_one():
    # abcde is abcd with a letter inserted: one edit, found through "abcd" itself; abxd
    # and abc are found through a one-letter deletion; abcdef (two inserted) and axcyd
    # are two edits away, in the walk
    domains = ["abcdef.com", "axcyd.com", "abcde.com", "abxd.com", "abc.com", "zzzz.com"]
    d = DomainDictionary.from_domains(domains)
    found = [(key, dist) for key, dist, _ in d.nearest_keys("abcd", 40)]
    assert found == [("abcde", 1), ("abxd", 1), ("abc", 1), ("abcdef", 2), ("axcyd", 2)]
    assert d.nearest_keys("abcd", 40) == _grouped(d, "abcd", 40)
    assert [key for key, _, _ in d.nearest_keys("abcd", 40, most=1)] == ["abcde", "abxd", "abc"]


def test_nearest_keys_lists_every_domain_of_a_two_edit_key():
    # "xbcy" is two replacements from abcd: found only through two deletions on each
    # side, in the walk by rank; abcd's domains are far apart in rank, listed once each
    domains = ["abcd.com", "bbcy.com"] + [f"q{i}rst.com" for i in range(50)]
    domains += ["abcd.de", "xbcyz.org", "abcd.fr"]
    d = DomainDictionary.from_domains(domains)
    back = DomainDictionary.from_bytes(d.to_bytes())
    for index in (d, back):
        found = [
            (key, dist, [index.domain(i) for i in ids])
            for key, dist, ids in index.nearest_keys("xbcy", 40)
        ]
        assert found == [
            ("bbcy", 1, ["bbcy.com"]),
            ("xbcyz", 1, ["xbcyz.org"]),
            ("abcd", 2, ["abcd.com", "abcd.de", "abcd.fr"]),
        ]
        assert index.nearest_keys("xbcy", 40) == _grouped(index, "xbcy", 40)


def test_ids_with_key_lists_every_domain_of_a_key_in_rank_order():
    d = shared_bundled_dictionary()
    by_key: dict[str, list[int]] = {}
    for ident in range(len(d)):
        by_key.setdefault(d.key(ident), []).append(ident)
    for key in ("google", "amazon", "bbc", "yahoo", "wikipedia", "xn--80ak6aa92e"):
        assert d.ids_with_key(key) == by_key.get(key, []), key
        assert d.has_key(key) == (key in by_key)
    assert d.ids_with_key("qqzzxxjj") == [] and not d.has_key("qqzzxxjj")
    assert len(d.ids_with_key("google")) > 100  # google.* in rank order, via the twin chain


def _one_edit_variants(key: str) -> set[str]:
    out = set()
    for i in range(len(key) + 1):
        out |= {key[:i] + c + key[i:] for c in "ae-"}
        if i < len(key):
            out |= {key[:i] + key[i + 1 :], key[:i] + "q" + key[i + 1 :]}
        if i + 1 < len(key):
            out.add(key[:i] + key[i + 1] + key[i] + key[i + 2 :])
    return out - {key}


def test_one_edit_search_finds_every_one_edit_typo_of_a_long_key():
    # one-edit search keeps only long keys hit 4 times: an edit breaks one part of each
    # cut, a swap across a cut of one lies inside a part of the other
    keys = ["stackoverflow", "microsoftonline", "wikipedia-org", "aaaabbbbcc", "abcdefghij"]
    d = DomainDictionary.from_domains([f"{k}.com" for k in keys] + ["qqqqqqqqqq.com"])
    for key in keys:
        for typed in _one_edit_variants(key):
            found = {k for k, dist, _ in d.nearest_keys(typed, 40, most=1)}
            assert key in found, (typed, key)
