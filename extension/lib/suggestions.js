// Which of the host's suggestions the error page shows, and which one gets the large
// "Did you mean" button. Pure: no browser APIs.
//
//   const { best, rest } = rankForPage(result, 'http://gooogle.com/');
//   best?.url === 'http://google.com/'

// The top suggestion becomes the button when it is sure (score ≥ 0.5), or when it clearly beats
// the rest (≥ 0.25 and four times the runner-up): the engine's scores are calibrated across all
// candidates, so a lone strong repair can sit below 0.5.
export const BEST_SCORE = 0.5;
export const CLEAR_WINNER = { score: 0.25, ratio: 4 };

/**
 * Split a `nav_error` answer into {best, rest}. The failed URL itself is dropped, and so is the
 * archived copy offered as a suggestion (step "archive", a daemon /v/ address that needs the
 * token): the page has its own button for it.
 */
export function rankForPage(result, failedUrl) {
  const copies = new Set([...(result?.archived ?? []), ...(result?.similar ?? [])].map((v) => v.version_url));
  const shown = (result?.suggestions ?? []).filter(
    (s) => s.url && s.url !== failedUrl && s.step !== 'archive' && !copies.has(s.url),
  );
  return isBest(shown[0], shown[1]) ? { best: shown[0], rest: shown.slice(1) } : { best: null, rest: shown };
}

/** Whether `top` deserves the large button, given the runner-up `next`. */
export function isBest(top, next) {
  if (!top || typeof top.score !== 'number') return false;
  if (top.score >= BEST_SCORE) return true;
  return top.score >= CLEAR_WINNER.score && top.score >= CLEAR_WINNER.ratio * (next?.score ?? 0);
}
