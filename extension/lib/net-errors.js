// Which navigation failures PageKeeper answers, and how to say them in plain words. Pure: no
// browser APIs, so it runs the same in the service worker, the pages and the logic tests.
//
//   classifyError('net::ERR_NAME_NOT_RESOLVED').kind === 'dns'
//   classifyError('net::ERR_ABORTED') === null          // the user stopped it, or we redirected
//
// The kinds are the engine's error kinds (engine/urls/suggest/pipeline.py ERRORS, the one list: dns,
// refused, reset, timeout, unreachable, http_404, http_410, soft_404); a test reads this file
// and fails on a kind the engine does not know.
//
// Being exact is the point (the Wayback extension's most common complaint is false "not found"
// prompts), so anything not listed here is left to the browser.

// Chromium's net error names (net/base/net_error_list.h).
const CHROMIUM = {
  'net::ERR_NAME_NOT_RESOLVED': 'dns',
  'net::ERR_NAME_RESOLUTION_FAILED': 'dns',
  'net::ERR_CONNECTION_REFUSED': 'refused',
  'net::ERR_CONNECTION_RESET': 'reset',
  'net::ERR_CONNECTION_CLOSED': 'reset',
  'net::ERR_EMPTY_RESPONSE': 'reset',
  'net::ERR_CONNECTION_TIMED_OUT': 'timeout',
  'net::ERR_TIMED_OUT': 'timeout',
  'net::ERR_ADDRESS_UNREACHABLE': 'unreachable',
  'net::ERR_CONNECTION_FAILED': 'unreachable',
};

// Firefox reports nsresult codes as "Error code <decimal>" (xpcom/base/ErrorList.py, module
// NETWORK = 6, so 0x804B0000 + n). NS_BINDING_ABORTED (2152398850) is an aborted load: ignored.
// Firefox has no code of its own for an unreachable address: nsSocketTransport2.cpp
// (ErrorAccordingToNSPR) lumps PR_NETWORK_UNREACHABLE_ERROR and PR_HOST_UNREACHABLE_ERROR into
// NS_ERROR_CONNECTION_REFUSED, so it arrives here as 'refused'.
const FIREFOX = {
  2152398878: 'dns', // NS_ERROR_UNKNOWN_HOST
  2152398890: 'dns', // NS_ERROR_UNKNOWN_PROXY_HOST
  2152398861: 'refused', // NS_ERROR_CONNECTION_REFUSED
  2152398868: 'reset', // NS_ERROR_NET_RESET
  2152398919: 'reset', // NS_ERROR_NET_INTERRUPT
  2152398862: 'timeout', // NS_ERROR_NET_TIMEOUT
  2152398933: 'timeout', // NS_ERROR_NET_TIMEOUT_EXTERNAL
};
// The names of those codes, to show a user a word rather than "Error code 2152398878".
const FIREFOX_CODE_NAMES = {
  2152398878: 'NS_ERROR_UNKNOWN_HOST',
  2152398890: 'NS_ERROR_UNKNOWN_PROXY_HOST',
  2152398861: 'NS_ERROR_CONNECTION_REFUSED',
  2152398868: 'NS_ERROR_NET_RESET',
  2152398919: 'NS_ERROR_NET_INTERRUPT',
  2152398862: 'NS_ERROR_NET_TIMEOUT',
  2152398933: 'NS_ERROR_NET_TIMEOUT_EXTERNAL',
};
const FIREFOX_NAMES = {
  NS_ERROR_UNKNOWN_HOST: 'dns',
  NS_ERROR_CONNECTION_REFUSED: 'refused',
  NS_ERROR_NET_RESET: 'reset',
  NS_ERROR_NET_INTERRUPT: 'reset',
  NS_ERROR_NET_TIMEOUT: 'timeout',
};

/**
 * A soft 404: the server still answers 200 at an archived URL, but the liveness check (`check`)
 * says the archived content is gone. The engine's error kind of the same name (engine/urls/suggest/pipeline.py).
 */
export const SOFT_404 = 'soft_404';

/** HTTP statuses of a main frame that mean "this page is gone". */
export const GONE_STATUSES = new Set([404, 410]);

const WORDS = {
  dns: ['This address does not exist', 'No server is known under the name {host}. It may be mistyped, or the site may be gone.'],
  refused: ['The server refused the connection', '{host} is known, but nothing answered on that port.'],
  reset: ['The connection broke off', '{host} closed the connection before sending the page.'],
  timeout: ['The server took too long', '{host} did not answer in time.'],
  unreachable: ['The server cannot be reached', 'There is no route to {host} from this network.'],
  http_404: ['This page is not on the server', '{host} answered, but has no page at this address (HTTP 404).'],
  http_410: ['This page was removed', '{host} says the page is gone for good (HTTP 410).'],
  soft_404: ['The page you archived is gone', '{host} still answers at this address, but the content you archived is no longer there.'],
};

/**
 * The kind of a navigation error string, or null when PageKeeper must not step in.
 * Accepts Chromium names, Firefox "Error code N" strings and nsresult names, "HTTP 404", and
 * 'soft_404' (never a browser event: the popup opens our page with it after a liveness check).
 */
export function classifyError(error) {
  const text = String(error ?? '').trim();
  if (CHROMIUM[text]) return { kind: CHROMIUM[text], error: text };
  const code = /^Error code (\d+)$/.exec(text);
  if (code && FIREFOX[code[1]]) return { kind: FIREFOX[code[1]], error: text };
  if (FIREFOX_NAMES[text]) return { kind: FIREFOX_NAMES[text], error: text };
  if (text === SOFT_404) return { kind: SOFT_404, error: text };
  const http = /^HTTP (\d{3})$/.exec(text);
  if (http && GONE_STATUSES.has(Number(http[1]))) return { kind: `http_${http[1]}`, error: text };
  return null;
}

/**
 * The error as shown beside the address: the browser's own name for it ("net::ERR_NAME_NOT_RESOLVED",
 * "NS_ERROR_UNKNOWN_HOST" for Firefox's "Error code 2152398878", "HTTP 404"); a soft 404 is
 * PageKeeper's own verdict, which the page says in words, so nothing.
 */
export function shownCode(error) {
  const text = String(error ?? '').trim();
  if (text === SOFT_404) return '';
  const code = /^Error code (\d+)$/.exec(text);
  return (code && FIREFOX_CODE_NAMES[code[1]]) ?? text;
}

/** Headline and explanation of an error kind, e.g. describe('dns', 'gooogle.com'). */
export function describe(kind, host) {
  const [title, detail] = WORDS[kind] ?? ['This page could not be loaded', 'The browser reported an error for {host}.'];
  return { title, detail: host ? detail.replace('{host}', host) : hostless(detail) };
}

/** An explanation for an address whose host could not be read: "that name" for the name, and
 * "the server", capitalised where it starts the sentence. */
function hostless(detail) {
  return detail
    .replace('under the name {host}', 'under that name')
    .replace(/^\{host\}/, 'The server')
    .replace('{host}', 'the server');
}
