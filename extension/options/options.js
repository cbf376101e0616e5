// The options page: every control is bound to one setting by its `name` ("autoArchive.days" is a
// field of the autoArchive object) and saved to storage.sync as soon as it changes.

import { callBackground, ext } from '../lib/browser.js';
import { fill, show } from '../lib/dom.js';
import { loadSettings, saveSettings } from '../lib/settings.js';

const LIST_FIELDS = new Set(['excluded', 'autoArchive.sites']);
let current = null;

init();

async function init() {
  current = await loadSettings();
  for (const control of controls()) {
    writeControl(control, readPath(current, control.name));
    control.addEventListener('change', () => onChange(control));
  }
  syncAutoFields();
  document.getElementById('viewer-link').addEventListener('click', openViewer);
  document.getElementById('import-bookmarks').addEventListener('click', importBookmarks);
  document.documentElement.dataset.ready = 'true';
  await showHost();
  await showProfile();
}

function controls() {
  return [...document.querySelectorAll('input[name], select[name], textarea[name]')];
}

/** The optional `bookmarks` permission, asked for on the click that needs it (a user gesture). */
async function bookmarksAllowed() {
  try {
    return await ext.permissions.request({ permissions: ['bookmarks'] });
  } catch {
    return false;
  }
}

async function importBookmarks(event) {
  const button = event.currentTarget;
  if (!(await bookmarksAllowed())) return fill('import-status', 'PageKeeper needs your permission to read your bookmarks.');
  button.disabled = true;
  fill('import-status', 'Archiving your bookmarks… (one page at a time, politely; you can close this page)');
  const reply = await callBackground('import_bookmarks', {});
  button.disabled = false;
  if (!reply.ok) return fill('import-status', `Stopped: ${reply.error.message}`);
  const r = reply.result;
  fill('import-status', `${r.archived} archived, ${r.already} already in your archive, ${r.failed.length} failed, of ${r.total} bookmarks.`);
}

async function onChange(control) {
  const [top, field] = control.name.split('.');
  const value = readControl(control);
  if (control.name === 'archiveBookmarks' && value && !(await bookmarksAllowed())) {
    control.checked = false;
    return;
  }
  const changed = field ? { [top]: { ...current[top], [field]: value } } : { [top]: value };
  if (control.name === 'profile' && !(await setProfile(value))) {
    control.value = current.profile;
    return;
  }
  current = { ...current, ...changed };
  await saveSettings(changed);
  syncAutoFields();
  fill('saved', 'Saved.');
  setTimeout(() => fill('saved', ''), 1500);
}

function readControl(control) {
  if (control.type === 'checkbox') return control.checked;
  if (control.type === 'number') return wholeInRange(control);
  if (LIST_FIELDS.has(control.name)) return control.value.split(/\s+/).map((s) => s.trim().toLowerCase()).filter(Boolean);
  return control.value;
}

/**
 * A number field's value as a whole number within its own min and max (a size cap of -5 MB or
 * 0.5 days is not a setting); shown back in the field, so what is saved is what the user sees.
 */
function wholeInRange(control) {
  const typed = Math.round(Number(control.value));
  const low = Number(control.min || 1);
  const high = Number(control.max || Infinity);
  const value = Number.isFinite(typed) ? Math.min(high, Math.max(low, typed)) : low;
  control.value = String(value);
  return value;
}

function writeControl(control, value) {
  if (control.type === 'checkbox') control.checked = Boolean(value);
  else if (LIST_FIELDS.has(control.name)) control.value = (value ?? []).join('\n');
  else control.value = value ?? '';
}

function readPath(object, path) {
  return path.split('.').reduce((o, k) => o?.[k], object);
}

function syncAutoFields() {
  document.getElementById('autoDays').disabled = current.autoArchive.mode !== 'older';
  document.getElementById('autoSites').disabled = current.autoArchive.mode === 'off';
}

async function showHost() {
  const reply = await callBackground('host_status');
  const status = document.getElementById('host-status');
  const s = reply.ok ? reply.result : { installed: false, error: reply.error };
  const ok = !s.error;
  status.className = `host-status ${ok ? 'ok' : 'bad'}`;
  status.textContent = ok
    ? `Connected · PageKeeper ${s.version ?? '?'} (protocol ${s.protocol ?? '?'}), answered in ${s.round_trip_ms} ms`
      + (s.archived_pages == null ? '' : ` · ${s.archived_pages} page${s.archived_pages === 1 ? '' : 's'} archived`)
    : s.installed ? `Installed, but not answering: ${s.error?.message ?? ''}` : 'Not installed';
  // How to install it only when it is not installed: a stopped or paused host says why itself.
  show('host-help', !ok && !s.installed);
  document.documentElement.dataset.host = ok ? 'connected' : 'missing';
}

async function openViewer(event) {
  event.preventDefault();
  const reply = await callBackground('viewer', {});
  if (reply.ok) await ext.tabs.create({ url: reply.result.url });
  else fill('host-status', `The viewer needs the helper app: ${reply.error?.message ?? ''}`);
}

// The key profile lives in the host, one per archive (a second browser shares it): the select
// shows the host's, and a change re-keys the archive there (host/PROTOCOL.md, `key_profile`).
async function showProfile() {
  const reply = await callBackground('key_profile', {});
  if (!reply.ok) return;
  current = { ...current, profile: reply.result.profile };
  document.getElementById('profile').value = reply.result.profile;
}

/** Ask the host to re-key the archive; true when it did. */
async function setProfile(profile) {
  fill('profile-note', 'Regrouping your archived pages…');
  const reply = await callBackground('key_profile', { profile });
  fill('profile-note', reply.ok ? regrouped(reply.result)
    : `Not changed: the helper app keeps this choice and did not answer (${reply.error?.message ?? 'not connected'}).`);
  return reply.ok;
}

function regrouped({ rekeyed, documents }) {
  const pages = `${documents} page${documents === 1 ? '' : 's'}`;
  return rekeyed ? `Done: ${rekeyed} archived version${rekeyed === 1 ? '' : 's'} regrouped, ${pages} now.`
    : `Done: nothing to regroup (${pages}).`;
}
