// The club's big screen: every table of a session, live and read-only. It follows the session's
// event stream (one `table` event per change, on any replica) and reads the changed table again;
// nothing polls. Route: #/board/<session id>; public, like the session's reads.

import { get } from './api.js';
import { h, message, mount } from './dom.js';
import { centreOf, facts, gameName, totalsOf } from './table.js';

let stream = null;

export async function openBoard(sessionId, root) {
  stream?.close();
  mount(root, message('Loading the board…'));
  let session;
  try {
    session = await get(`/sessions/${sessionId}`);
  } catch (err) {
    mount(root, message(err.message, 'error'));
    return;
  }
  const tables = new Map();
  const order = session.tables.map((t) => t.id);
  const grid = h('div', { class: 'board', 'aria-label': 'Tables', 'aria-live': 'polite' });
  const state = h('p', { class: 'facts', role: 'status' }, 'live');
  mount(root,
    h('header', { class: 'table-head' },
      h('div', { class: 'head-line' }, h('h1', {}, session.name), h('span', { class: 'conn live' }, state))),
    grid,
    h('p', { class: 'export' },
      h('a', { href: `/api/v1/sessions/${sessionId}/ledger?format=csv`, download: '', class: 'csv' }, 'Session ledger (CSV)')));
  const draw = () => mount(grid, ...order.filter((id) => tables.has(id)).map((id, i) => card(i, tables.get(id))));
  const read = async (id) => {
    try {
      tables.set(id, await get(`/tables/${id}`));
      if (!order.includes(id)) order.push(id);
      draw();
    } catch {
      // The next change brings it again.
    }
  };
  await Promise.all(order.map(read));
  if (typeof EventSource === 'undefined') return;
  stream = new EventSource(`/api/v1/sessions/${sessionId}/events`);
  stream.addEventListener('table', (e) => {
    let change;
    try {
      change = JSON.parse(e.data);
    } catch {
      return;
    }
    const known = tables.get(change.table_id);
    if (!known || known.version < change.version) read(change.table_id);
  });
  stream.onerror = () => { state.textContent = 'reconnecting'; };
  stream.onopen = () => { state.textContent = 'live'; };
}

function card(index, t) {
  const v = t.state;
  const totals = totalsOf(v);
  const turn = v.to_act != null ? `${t.players[v.to_act]} to act` : null;
  return h('section', { class: 'table-card board-card', 'aria-label': `Table ${index + 1}`, 'data-table': t.id, 'data-version': t.version },
    h('h2', {}, `Table ${index + 1}: ${gameName(t.game)}`),
    h('p', { class: 'facts' }, [...facts(t), turn].filter(Boolean).join(' · ')),
    h('ol', { class: 'seats' }, t.players.map((name, s) =>
      h('li', { class: `seat${v.to_act === s ? ' acting' : ''}` },
        h('span', { class: 'seat-name' }, name),
        h('b', { class: 'seat-total', 'aria-label': `${name}'s total` }, String(totals[s] ?? 0))))),
    centreOf(t));
}
