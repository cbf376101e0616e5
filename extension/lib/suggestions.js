// Which of the host's suggestions the error page shows, and which one gets the large
// "Did you mean" button. Pure: no browser APIs.
//
//   const { best, rest } = rankForPage(result, 'http://gooogle.com/');
//   best?.url === 'http://google.com/'

/**
 * Split a `nav_error` answer into {best, rest}. The top suggestion becomes the large button only
 * when the engine is sure: at or above the answer's `confident` bar (the engine's own, sent by the
 * host; host/PROTOCOL.md), so an answer without the bar has no large button. The failed URL itself is dropped, and so is the
 * archived copy offered as a suggestion (step "archive", a daemon /v/ address that needs the
 * token): the page has its own button for it. When the engine ranks that copy first (a 404 of a
 * page the user archived), the copy's button is the answer and no runner-up is promoted to the
 * large button: a sibling page at 0.69 is not what the user meant (seen on the 404 screenshot).
 */
export function rankForPage(result, failedUrl) {
  const copies = new Set([...(result?.archived ?? []), ...(result?.similar ?? [])].map((v) => v.version_url));
  const isCopy = (s) => s.step === 'archive' || copies.has(s.url);
  const ranked = (result?.suggestions ?? []).filter((s) => s.url && s.url !== failedUrl);
  const shown = ranked.filter((s) => !isCopy(s));
  const copyFirst = ranked.length > 0 && isCopy(ranked[0]);
  return !copyFirst && isBest(shown[0], result?.confident) ? { best: shown[0], rest: shown.slice(1) } : { best: null, rest: shown };
}

/** Whether `top` deserves the large button: its score reaches the host's `confident` bar. */
export function isBest(top, confident) {
  return typeof top?.score === 'number' && typeof confident === 'number' && top.score >= confident;
}

/**
 * One entry per archived page: the host lists similar pages by version, so a page archived
 * twice would show twice. The first of each page (key, else URL) is kept: the lists come
 * most similar first.
 *   distinctPages([{key: 'a', similarity: 0.96}, {key: 'a', similarity: 0.95}]).length === 1
 */
export function distinctPages(pages) {
  const seen = new Set();
  return (pages ?? []).filter((page) => {
    const id = page.key ?? page.url;
    if (seen.has(id)) return false;
    seen.add(id);
    return true;
  });
}
