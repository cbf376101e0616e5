// Repairs the error page can offer on its own when the host is not installed: scheme and `www.`
// fixes and a few unambiguous top-level-domain typos. Pure: no browser APIs.
//
//   localFallbacks('http://www.example.con/a')
//   // → [{url: 'http://www.example.com/a', reason: 'typo in ".con"'}, {url: 'https://www.example.con/a', ...}, ...]
//
// The host's rewrite pipeline is far better (dictionary, Levenshtein, segmentation); these only
// cover the mistakes that need no dictionary.

// Keyboard slips of the most common TLDs; kept to ones that are not real TLDs themselves.
const TLD_TYPOS = {
  con: 'com', cmo: 'com', ocm: 'com', comm: 'com', vom: 'com', xom: 'com', coom: 'com',
  ogr: 'org', orh: 'org', rog: 'org', nte: 'net', ent: 'net', nett: 'net', ten: 'net',
  edi: 'edu', ude: 'edu', ogv: 'gov',
};

/** Candidate URLs for a URL that failed, best first, without duplicates or the URL itself. */
export function localFallbacks(failedUrl) {
  let url;
  try {
    url = new URL(failedUrl);
  } catch {
    return [];
  }
  const seen = new Set([url.href]);
  const out = [];
  for (const [candidate, reason] of candidates(url)) {
    if (!seen.has(candidate)) {
      seen.add(candidate);
      out.push({ url: candidate, reason, step: 'local' });
    }
  }
  return out;
}

function* candidates(url) {
  const fixedTld = fixTld(url.hostname);
  if (fixedTld) yield [withHost(url, fixedTld), `typo in ".${url.hostname.split('.').pop()}"`];
  const trimmed = url.hostname.replace(/\.{2,}/g, '.').replace(/^\.|\.$/g, '');
  if (trimmed && trimmed !== url.hostname) yield [withHost(url, trimmed), 'stray dots'];
  if (url.hostname.startsWith('ww.') || url.hostname.startsWith('wwww.')) {
    yield [withHost(url, url.hostname.replace(/^w+\./, 'www.')), 'mistyped "www."'];
  }
  // The other scheme on the same explicit port knocks on the same door (a refused port
  // refuses https too); without a port it is another port (80 / 443) and may answer.
  if (!url.port) {
    const other = url.protocol === 'http:' ? 'https:' : 'http:';
    yield [withProtocol(url, other), `try ${other.slice(0, -1).toUpperCase()}`];
  }
  const toggled = url.hostname.startsWith('www.') ? url.hostname.slice(4) : `www.${url.hostname}`;
  if (toggled.includes('.') && !isLoopbackName(url.hostname)) yield [withHost(url, toggled), url.hostname.startsWith('www.') ? 'without "www."' : 'with "www."'];
  if (url.pathname !== '/' || url.search) yield [`${url.origin}/`, 'the site\'s home page'];
}

/**
 * localhost and its subdomains are this computer (RFC 6761 §6.3): "www.localhost" is the same
 * refused port again, not another site. (An IP address takes no "www." at all: URL refuses it.)
 */
function isLoopbackName(hostname) {
  return hostname === 'localhost' || hostname.endsWith('.localhost');
}

function fixTld(hostname) {
  const labels = hostname.split('.');
  const fixed = TLD_TYPOS[labels.at(-1)];
  if (!fixed || labels.length < 2) return null;
  return [...labels.slice(0, -1), fixed].join('.');
}

function withHost(url, host) {
  const copy = new URL(url.href);
  copy.hostname = host;
  return copy.href;
}

function withProtocol(url, protocol) {
  const copy = new URL(url.href);
  copy.protocol = protocol;
  return copy.href;
}
