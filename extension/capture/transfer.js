// Send the resources the host asked for in bounded parts (capture_part), and pick up where it
// stopped when the host went away: after a lost connection or a timeout, capture_status says
// which parts the host still lacks, and only those are sent again.
//
//   await sendParts({ tabId, key, captureId, need: ['https://a.example/a.css'], limits: { part_bytes: 4 << 20 }, page, report });

import { runInFrames } from '../lib/browser.js';
import { HostError, request } from '../background/native.js';

// A request to the host is capped at 64 MiB (native messaging); base64 makes 4 bytes of 3.
const MAX_PART_BYTES = 32 * 2 ** 20;
const DEFAULT_PART_BYTES = 4 * 2 ** 20;
// Bytes read from the page per executeScript call (small enough that sending starts early),
// batches read ahead of the one being sent, and parts in flight at once.
const READ_BATCH_BYTES = 2 ** 20;
const READ_AHEAD = 1;
const PARTS_IN_FLIGHT = 8;
const PART_TIMEOUT_MS = 60000;
const RESUME_TRIES = 5;
const RESUME_WAIT_MS = 500;
const RESUMABLE = new Set(['host_disconnected', 'timeout', 'unavailable']);

/**
 * Every part of every needed resource reaches the host, or this throws. `need` null: carry on
 * with what the host still lacks (capture_status), after the background restarted.
 */
export async function sendParts({ tabId, key, captureId, need, limits, page, report }) {
  const partBytes = Math.max(1, Math.min(limits.part_bytes || DEFAULT_PART_BYTES, MAX_PART_BYTES));
  let tasks = need ? planParts(need, page, partBytes) : await stillMissing(captureId, page, partBytes, -1);
  if (need) await report.update({ phase: 'sending', parts_total: tasks.length, bytes_total: tasks.reduce((n, t) => n + t.length, 0), resources_needed: need.length });
  else await report.update({ phase: 'sending' });
  const reader = { tabId, key };
  for (let attempt = 0; ; attempt++) {
    try {
      await sendAll(reader, captureId, tasks, report);
      return;
    } catch (err) {
      if (!RESUMABLE.has(err?.code) || attempt >= RESUME_TRIES) throw err;
      await report.update({ resumed: attempt + 1 });
      tasks = await stillMissing(captureId, page, partBytes, attempt);
    }
  }
}

/**
 * One task per part: {url, index, count, offset, length}. A resource the host asked for that
 * this capture does not hold is skipped (the host lists it as missing at commit).
 *   planParts(['u'], page with u of 10 bytes, 4) → 3 tasks of 4, 4 and 2 bytes
 */
export function planParts(need, page, partBytes) {
  const tasks = [];
  for (const url of need) {
    const entry = page.resources.get(url);
    if (!entry || !page.holders.has(url)) continue;
    const count = Math.max(1, Math.ceil(entry.size / partBytes));
    for (let index = 0; index < count; index++) {
      const offset = index * partBytes;
      tasks.push({ url, index, count, offset, length: Math.min(partBytes, entry.size - offset), holder: page.holders.get(url) });
    }
  }
  return tasks;
}

/** After the host came back: the parts it still lacks (capture_status), as tasks. */
async function stillMissing(captureId, page, partBytes, attempt) {
  await new Promise((resolve) => setTimeout(resolve, RESUME_WAIT_MS * (attempt + 1)));
  const { missing } = await request('capture_status', { capture_id: captureId }, { timeoutMs: PART_TIMEOUT_MS });
  const wanted = new Set(Object.entries(missing ?? {}).flatMap(([url, indices]) => indices.map((i) => `${i} ${url}`)));
  return planParts(Object.keys(missing ?? {}), page, partBytes).filter((t) => wanted.has(`${t.index} ${t.url}`));
}

/**
 * One pipeline: PARTS_IN_FLIGHT lanes send parts in order, each as soon as its batch is read;
 * the page reads batch i + 1 while batch i is being sent (READ_AHEAD batches held at most), so
 * neither the reading nor the end of a batch holds the other lanes back.
 * Adds to report.state.waits: page_ms, how long sending stood still for a read; host_ms, the rest.
 */
async function sendAll(reader, captureId, tasks, report) {
  const batches = batch(tasks);
  const reads = [];
  const ready = batches.map(() => false);
  const stalls = batches.map(() => 0);
  const read = (i) => {
    if (i >= batches.length || reads[i]) return;
    reads[i] = readBatch(reader, batches[i]).then((data) => ((ready[i] = true), data));
    reads[i].catch(() => {}); // surfaced when awaited
  };
  const order = batches.flatMap((tasksOf, i) => tasksOf.map((_, j) => [i, j]));
  const started = Date.now();
  let next = 0;
  const lane = async () => {
    while (next < order.length) {
      const [i, j] = order[next++];
      for (let k = i; k <= i + READ_AHEAD; k++) read(k);
      const since = ready[i] ? null : Date.now();
      const data = await reads[i];
      if (since !== null) stalls[i] = Math.max(stalls[i], Date.now() - since);
      const { url, index, count, length } = batches[i][j];
      const part = data[j];
      data[j] = null; // sent parts are not kept
      await request('capture_part', { capture_id: captureId, url, index, count, data: part }, { timeoutMs: PART_TIMEOUT_MS });
      await report.sent(length);
    }
  };
  await Promise.all(Array.from({ length: Math.min(PARTS_IN_FLIGHT, order.length) }, lane));
  const waits = report.state.waits ?? (report.state.waits = { page_ms: 0, host_ms: 0 });
  const stalled = stalls.reduce((a, b) => a + b, 0);
  waits.page_ms += stalled;
  waits.host_ms += Date.now() - started - stalled;
}

/** Consecutive tasks of one frame (or of the background), up to READ_BATCH_BYTES per batch. */
function batch(tasks) {
  const out = [];
  let current = [];
  let bytes = 0;
  for (const task of tasks) {
    if (current.length && (bytes + task.length > READ_BATCH_BYTES || source(current[0]) !== source(task))) {
      out.push(current);
      current = [];
      bytes = 0;
    }
    current.push(task);
    bytes += task.length;
  }
  if (current.length) out.push(current);
  return out;
}

function source(task) {
  return task.holder.blob ? 'background' : task.holder.frameId;
}

/** Base64 of each task's byte range, from the frame that holds it or from the background. */
async function readBatch({ tabId, key }, tasks) {
  const { holder } = tasks[0];
  if (holder.blob) return Promise.all(tasks.map((t) => toBase64(t.holder.blob.slice(t.offset, t.offset + t.length))));
  const ranges = tasks.map(({ url, offset, length }) => ({ url, offset, length }));
  const [run] = await runInFrames(tabId, { func: (k, r) => globalThis.pagekeeperCapture.readParts(k, r), args: [key, ranges], frameIds: [holder.frameId] });
  if (!Array.isArray(run?.result)) throw new HostError('capture_failed', 'The page was closed or reloaded before its resources were sent.');
  return run.result;
}

async function toBase64(blob) {
  const bytes = new Uint8Array(await blob.arrayBuffer());
  if (typeof bytes.toBase64 === 'function') return bytes.toBase64();
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
}
