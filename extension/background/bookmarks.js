// Bookmarks in, automatically: with the "archive pages I bookmark" option (and the optional
// `bookmarks` permission) a new bookmark is archived at once, its folders as tags; "Archive my
// browser bookmarks" archives the whole tree politely (one page at a time, one request per site
// per second), skipping what is archived, its progress in storage.session for the options page.

import { ext, sessionStore } from '../lib/browser.js';
import { bookmarkPages, chainTags } from '../lib/bookmark-tree.js';
import { settings } from './config.js';
import { request } from './native.js';

const PER_SITE_MS = 1000;

/** bookmarks.onCreated: archive the new page when the option is on. */
export async function onBookmarkCreated(_id, node) {
  if (!node?.url || !/^https?:\/\//i.test(node.url)) return null;
  if (!(await settings()).archiveBookmarks) return null;
  return archiveBookmark(node.url, chainTags(await folderChain(node.parentId)));
}

async function folderChain(parentId) {
  const chain = [];
  for (let id = parentId; id != null && chain.length < 32;) {
    const [folder] = await ext.bookmarks.get(id).catch(() => []);
    if (!folder) break;
    chain.push(folder);
    id = folder.parentId;
  }
  return chain;
}

/** Archive one bookmarked page (the host fetches it) and tag it with its folders. */
export async function archiveBookmark(url, tags) {
  const done = await request('archive_page', { url }, { timeoutMs: 60000 });
  if (tags.length) await request('archive_tag', { ref: done.id, add: tags });
  return done;
}

/** Archive every bookmark of the browser not archived yet: {total, already, archived, failed}. */
export async function importBrowserBookmarks() {
  const pages = bookmarkPages(await ext.bookmarks.getTree());
  const report = { total: pages.length, already: 0, archived: 0, failed: [], done: 0, running: true };
  const lastAsked = new Map();
  for (const page of pages) {
    try {
      const versions = await request('versions', { url: page.url });
      if (versions.versions?.length) report.already += 1;
      else {
        await politely(page.url, lastAsked);
        await archiveBookmark(page.url, page.tags);
        report.archived += 1;
      }
    } catch (err) {
      report.failed.push({ url: page.url, error: { code: err?.code ?? 'error', message: err?.message ?? String(err) } });
    }
    report.done += 1;
    await sessionStore.set({ bookmarkImport: report });
  }
  report.running = false;
  await sessionStore.set({ bookmarkImport: report });
  return report;
}

async function politely(url, lastAsked) {
  const site = new URL(url).host;
  const wait = (lastAsked.get(site) ?? 0) + PER_SITE_MS - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
  lastAsked.set(site, Date.now());
}
