// What PageKeeper says when something fails, in one place: the popup, the toolbar badge's title
// and the notifications of the shortcut and the context menus all use these words. Pure.
//
//   failureText({ code: 'host_missing', message: 'Specified native messaging host not found.' })
//   // 'The PageKeeper helper app is not installed.'

export const MESSAGES = {
  host_missing: 'The PageKeeper helper app is not installed.',
  // a request's own timeout (background/native.js): its message names the request, not the cause
  timeout: 'The PageKeeper helper did not answer in time (it may still be starting). Try again in a moment.',
  not_archivable: 'Only web pages (http and https addresses) can be archived.',
  link_not_archivable: 'Only http and https links can be archived.',
  access_declined: 'PageKeeper still may not read this site, so the page was not archived.',
  unknown: 'Something went wrong.',
};

/** The site-access failure of `host` (Firefox lets the user decline or withdraw it). */
export function siteAccessText(host) {
  return `PageKeeper is not allowed to read pages on ${host}: its access to websites was declined or withdrawn in the browser's add-on settings.`;
}

/** The sentence that names why an action failed (`error`: {code, message} or an Error). */
export function failureText(error) {
  if (error?.code === 'host_missing') return MESSAGES.host_missing;
  if (error?.code === 'timeout') return MESSAGES.timeout;
  return error?.message || MESSAGES.unknown;
}

/**
 * The frames a capture could not read, as the capture result names them: `lost` is
 * [{url, reason: 'site_access' | 'unreadable'}].
 *   framesLostText([{ url: 'https://maps.example/embed', reason: 'site_access' }])
 *   // '1 frame not kept: maps.example (PageKeeper may not read pages on that site)'
 */
export function framesLostText(lost) {
  if (!lost?.length) return '';
  const named = lost.map(({ url, reason }) => `${hostName(url)} (${FRAME_REASONS[reason] ?? FRAME_REASONS.unreadable})`);
  return `${lost.length} frame${lost.length === 1 ? '' : 's'} not kept: ${named.join(', ')}`;
}

/** The short reason a capture lists with a frame it could not read (host/PROTOCOL.md status). */
export const FRAME_REASONS = {
  site_access: 'PageKeeper may not read pages on that site',
  unreadable: 'the browser did not let PageKeeper read it',
};

function hostName(url) {
  try {
    return new URL(url).host;
  } catch {
    return url;
  }
}
