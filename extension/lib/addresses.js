// Which URLs PageKeeper looks at. Pure: no browser APIs.
//
//   isPrivateHost('192.168.1.20') === true
//   isWatched('http://127.0.0.1:8000/', { allowPrivate: false, excluded: [] }) === false

/** http(s) only: never about:, data:, file:, chrome:, or extension pages. */
export function isWebURL(url) {
  return /^https?:\/\//i.test(String(url ?? ''));
}

/** The host of a URL without brackets around IPv6, lower case; '' if it does not parse. */
export function hostOf(url) {
  try {
    return new URL(url).hostname.replace(/^\[|\]$/g, '').toLowerCase();
  } catch {
    return '';
  }
}

/**
 * Loopback, private, link-local and single-label hosts (RFC 1918, RFC 4193, RFC 6761 `localhost`,
 * `.local` mDNS names and intranet names without a dot).
 */
export function isPrivateHost(host) {
  const h = String(host ?? '').toLowerCase().replace(/\.$/, '');
  if (!h || h === 'localhost' || h.endsWith('.localhost') || h.endsWith('.local')) return true;
  if (!h.includes('.') && !h.includes(':')) return true; // intranet name such as http://wiki/
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(h);
  if (v4) return isPrivateV4(v4.slice(1).map(Number));
  // RFC 4193 unique local fc00::/7; RFC 4291 link-local fe80::/10 (fe80: to febf:)
  if (h.includes(':')) return h === '::1' || /^f[cd]|^fe[89ab]/.test(h);
  return false;
}

function isPrivateV4([a, b]) {
  return a === 10 || a === 127 || a === 0 || (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) ||
    (a === 100 && b >= 64 && b <= 127); // RFC 6598 carrier-grade NAT
}

/** True if `host` is `site` or one of its subdomains; `site` may start with '*.' or '.'. */
export function matchesSite(host, site) {
  const s = String(site ?? '').trim().toLowerCase().replace(/^\*?\./, '');
  return Boolean(s) && (host === s || host.endsWith(`.${s}`));
}

/**
 * Whether PageKeeper may act on `url` at all, given the user's settings
 * (`allowPrivate`: local/private addresses too; `excluded`: sites to leave alone).
 */
export function isWatched(url, settings) {
  if (!isWebURL(url)) return false;
  const host = hostOf(url);
  if (!host) return false;
  if (!settings.allowPrivate && isPrivateHost(host)) return false;
  return !(settings.excluded ?? []).some((site) => matchesSite(host, site));
}
