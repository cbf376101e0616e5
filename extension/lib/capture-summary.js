// What the popup says about the files a capture kept with the page.

/**
 * A byte count as people read it: 512 -> "512 bytes", 2048 -> "2.0 KB", 5 * 2 ** 20 -> "5.0 MB".
 * @param {number} bytes
 */
export function byteSize(bytes) {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? '' : 's'}`;
  const kilobytes = (bytes / 1024).toFixed(1);
  if (Number(kilobytes) < 1024) return `${kilobytes} KB`;
  return `${(bytes / 2 ** 20).toFixed(1)} MB`;
}

/**
 * One line on a capture's resources, e.g. "12 files kept with the page, 2 missing · 1.4 MB new".
 * A page with no files of its own says so; a capture whose files were all stored before says
 * that nothing new was stored, since every file is stored once for all versions.
 * @param {{stored?: number|any[], missing?: number|any[], bytes_new?: number}} res
 */
export function resourcesSummary(res) {
  const stored = count(res.stored);
  const missing = count(res.missing);
  if (!stored && !missing) return 'No other files on this page';
  const files = `${stored} file${stored === 1 ? '' : 's'} kept with the page`
    + (missing ? `, ${missing} missing` : '');
  if (typeof res.bytes_new !== 'number') return files;
  return `${files} · ${res.bytes_new ? `${byteSize(res.bytes_new)} new` : 'all stored before'}`;
}

function count(value) {
  return Array.isArray(value) ? value.length : (value ?? 0);
}
