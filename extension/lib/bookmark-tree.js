// The browser's bookmark tree (bookmarks.getTree / bookmarks.get) as web pages to archive, each
// with its folders as tags. Pure: no browser API here (tested as a module in Chromium).
//
//   bookmarkPages(tree) → [{url: 'https://a.example/', title: 'A', tags: ['recipes', 'winter']}, …]

// Folders the browser makes itself are not the user's own sorting: no tags for them.
const ROOT_FOLDERS = new Set([
  'bookmarks bar', 'bookmarks toolbar', 'bookmarks menu', 'other bookmarks', 'mobile bookmarks',
  'favorites bar', 'favourites bar', 'unsorted bookmarks', 'bookmarks',
]);

/** A folder's title as a tag, or null for the browser's own root folders (and untitled ones). */
export function folderTag(node) {
  const title = (node?.title ?? '').trim();
  if (!title || node.parentId === undefined || node.folderType || ROOT_FOLDERS.has(title.toLowerCase())) return null;
  return title.toLowerCase();
}

/** Every http(s) bookmark of a tree, once per URL (tags of its copies joined), in tree order. */
export function bookmarkPages(tree) {
  const found = new Map();
  const walk = (node, tags) => {
    if (node.url) {
      if (!/^https?:\/\//i.test(node.url)) return;
      const held = found.get(node.url);
      if (held) held.tags = [...new Set([...held.tags, ...tags])];
      else found.set(node.url, { url: node.url, title: node.title ?? '', tags: [...tags] });
      return;
    }
    const tag = folderTag(node);
    for (const child of node.children ?? []) walk(child, tag ? [...tags, tag] : tags);
  };
  for (const root of tree) walk(root, []);
  return [...found.values()];
}

/** The tags of a new bookmark from its folder chain, outermost first (`chain` = parent, grandparent, …). */
export function chainTags(chain) {
  return chain.map(folderTag).filter(Boolean).reverse();
}
