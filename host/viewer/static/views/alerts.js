// "Changes since your last visit": pages whose alerts are on that changed or went away
// (alerts_list, host/PROTOCOL.md); "Mark as seen" starts the next list (alerts_seen).
// Shown above the search when there is something to show.

import { count, fill, h, safeUrl, timeEl, toast } from '../dom.js';

const KIND = { gone: 'gone', changed: 'changed' };

function alertRow(a) {
  return h('li', { class: 'alert-row' },
    h('span', { class: `badge badge-${KIND[a.kind] ?? 'changed'}` }, a.kind),
    h('a', { href: `#/doc/${encodeURIComponent(a.id)}`, class: 'alert-link' }, a.title || safeUrl(a.url)),
    h('span', { class: 'muted' }, timeEl(a.at), a.detail ? ` · ${a.detail}` : ''));
}

/** The card (empty when nothing changed); it reloads itself after "Mark as seen". */
export function alertsCard(ctx) {
  const box = h('section', { class: 'panel alerts-panel', id: 'alerts', 'aria-labelledby': 'alerts-h', hidden: true });
  const load = async () => {
    let res;
    try {
      res = await ctx.api.call('alerts_list', {});
    } catch {
      return; // a daemon without alerts: nothing to show
    }
    box.hidden = !res.alerts.length;
    if (!res.alerts.length) return;
    const seen = h('button', { type: 'button', class: 'btn btn-small', id: 'alerts-seen' }, 'Mark as seen');
    seen.addEventListener('click', async () => {
      try {
        await ctx.api.call('alerts_seen', {});
        await load();
      } catch (err) {
        toast(`Could not mark them seen: ${err.message}`);
      }
    });
    fill(box,
      h('div', { class: 'panel-head' },
        h('h2', { id: 'alerts-h' }, `Changes since your last visit (${count(res.alerts.length)})`), seen),
      h('ul', { class: 'alert-list' }, res.alerts.map(alertRow)));
  };
  load();
  return box;
}
