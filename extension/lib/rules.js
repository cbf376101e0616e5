// Small decisions the background makes on every navigation. Pure: no browser APIs.
//
//   const recent = new RecentKeys(3000);
//   recent.claim('7 http://a/', 1000) === true;   // first time: act
//   recent.claim('7 http://a/', 1500) === false;  // a repeat within 3 s: ignore

import { matchesSite } from './addresses.js';

/**
 * Keys seen within a time window. chromedriver and Chromium itself may report one failed
 * navigation up to three times; the error page must open once.
 */
export class RecentKeys {
  constructor(windowMs) {
    this.windowMs = windowMs;
    this.times = new Map();
  }

  /** True if `key` was not claimed in the window before `now` (and claim it, for `windowMs`). */
  claim(key, now, windowMs = this.windowMs) {
    this.prune(now);
    if (this.times.has(key)) return false;
    this.times.set(key, now + windowMs);
    return true;
  }

  /** True if `key` was claimed within the window before `now`. */
  has(key, now) {
    this.prune(now);
    return this.times.has(key);
  }

  /** Forget a key, e.g. when the user presses "Try again". */
  release(key) {
    this.times.delete(key);
  }

  prune(now) {
    for (const [key, until] of this.times) if (now >= until) this.times.delete(key);
  }
}

const DAY_MS = 24 * 3600 * 1000;

/**
 * Whether a visit should archive the page automatically. `rule` is the autoArchive setting
 * ({mode: off|every|older, days, sites}); `lastTime` the newest version's time (ms) or null.
 */
export function shouldAutoArchive(rule, host, lastTime, now) {
  if (!rule || rule.mode === 'off') return false;
  const sites = rule.sites ?? [];
  if (sites.length && !sites.some((site) => matchesSite(host, site))) return false;
  if (rule.mode === 'every' || lastTime == null) return true;
  return rule.mode === 'older' && now - lastTime >= Math.max(0, Number(rule.days) || 0) * DAY_MS;
}

/** The badge text for a version count: '' for none, '999+' past three digits. */
export function badgeText(count) {
  if (!count) return '';
  return count > 999 ? '999+' : String(count);
}
