// @ts-check
// The club's big screen: every table of a session, live and read-only. It follows the session's
// event stream (one `table` event per change, on any replica) and reads the changed table again;
// nothing polls. Route: #/board/<session id>, opened with a share link's token (/?share=…) or by
// a member of the club signed in on this browser; reads and the stream go with that token. Each
// change carries the audit key's receipt for its table's chain head: the board keeps them per
// table as a phone keeps its answers' (`tk.receipts.<table>`), and a treasurer downloads them all
// from the header, for `tablekeeper verify --receipts`. While a tournament of the session has
// started a round, the board shows that round: its number, a clock counting `minutes_per_round`
// down from the round's start, which of its tables still play, and only its tables.

import { download, get, keep, receipts, streamUrl } from './api.js';
import { boardTournament, clockText, clockWords, currentRound, remainingMs, stillPlaying } from './clock.js';
import { h, message, mount } from './dom.js';
import { gameModule, loadGame } from './panels.js';
import { dealOf } from './legal.js';
import { gameName } from './table.js';
import { facts, seatBits, totalsOf } from './words.js';

/** @typedef {import('./types.js').TableView} TableView */

let stream = null;
let ticking = null;

export async function openBoard(sessionId, root) {
  stream?.close();
  clearInterval(ticking);
  // The big screen uses the whole width; leaving the route gives the page back its column.
  document.body.classList.add('big-screen');
  const leave = () => {
    if (!location.hash.startsWith('#/board/')) {
      document.body.classList.remove('big-screen');
      stream?.close();
      clearInterval(ticking);
      window.removeEventListener('hashchange', leave);
    }
  };
  window.addEventListener('hashchange', leave);
  mount(root, message('Loading the board…'));
  let session;
  try {
    session = await get(`/sessions/${sessionId}`);
  } catch (err) {
    mount(root, message(err.message, 'error'));
    return;
  }
  const tables = new Map();
  const saveLedger = (e) => {
    e.preventDefault();
    download(e.currentTarget.getAttribute('href')).catch((err) => mount(state, err.message));
  };
  const order = session.tables.map((t) => t.id);
  const grid = h('div', { class: 'board', 'aria-label': 'Tables' });
  const state = h('p', { class: 'facts', role: 'status' }, 'live');
  const kept = () => order.flatMap((id) => receipts(id));
  // A link like the ledger's, not a button: the header keeps the tiles' room on 1280×720. The
  // file is made when it is clicked, from what is kept then.
  let file = null;
  const receiptsLink = h('a', {
    href: '#', download: `receipts-${sessionId}.json`, class: 'csv receipts',
    onclick: (e) => {
      if (file) URL.revokeObjectURL(file);
      file = URL.createObjectURL(new Blob([JSON.stringify({ session_id: sessionId, receipts: kept() }, null, 2)],
        { type: 'application/json' }));
      e.currentTarget.href = file;
    },
  });
  const counted = () => {
    const n = kept().length;
    receiptsLink.textContent = `Receipts (${n})`;
    receiptsLink.dataset.count = n;
  };
  counted();
  // The tournament shown, and its round (the open one, else the last started).
  let event = null;
  let round = null;
  const band = h('section', { class: 'round-band', 'aria-label': 'Tournament round', hidden: true });
  const clock = h('p', { class: 'round-clock', role: 'timer' });
  const playingLine = h('p', { class: 'round-playing' });
  const readEvent = async () => {
    try {
      event = boardTournament((await get(`/sessions/${sessionId}/tournaments`)).items);
    } catch {
      event = null; // a server without tournaments, or a share link that cannot read them
    }
    round = event ? currentRound(event.played_rounds) : null;
    draw();
  };
  const tick = () => {
    const left = round && !round.closed_at ? remainingMs(round.started_at, event.minutes_per_round, Date.now()) : null;
    clock.hidden = left == null;
    if (left == null) return;
    clock.textContent = clockText(left);
    clock.setAttribute('aria-label', `Round clock: ${clockWords(left)}`);
    clock.classList.toggle('over', left <= 0);
  };
  const drawBand = () => {
    band.hidden = !round;
    if (!round) return;
    const playing = round.tables.filter((rt) => {
      const t = tables.get(rt.table_id);
      return !t || stillPlaying(t, dealOf(t.state, gameModule(t.game)), event.deals_per_round);
    });
    playingLine.textContent = round.closed_at
      ? `Round ${round.round} is closed`
      : playing.length
        ? `Still playing: ${playing.map((rt) => `table ${rt.number}`).join(', ')}`
        : 'Every table has finished';
    playingLine.dataset.playing = playing.map((rt) => rt.number).join(',');
    mount(band,
      h('h2', { class: 'round-name' }, `${event.name}: round ${round.round} of ${event.rounds}`),
      clock, playingLine);
    tick();
  };
  ticking = setInterval(tick, 1000);
  mount(root,
    h('header', { class: 'table-head' },
      h('div', { class: 'head-line' }, h('h1', {}, session.name),
        h('a', { href: `/api/v1/sessions/${sessionId}/ledger?format=csv`, download: '', class: 'csv', onclick: saveLedger }, 'Session ledger (CSV)'),
        receiptsLink,
        h('span', { class: 'conn live' }, state))),
    band,
    grid);
  window.addEventListener('resize', () => draw());
  const draw = () => {
    drawBand();
    // A tournament's round shows its own tables, by their numbers; else every table.
    const numbers = new Map(round ? round.tables.map((rt) => [rt.table_id, rt.number]) : []);
    const shown = round
      ? [...round.tables].sort((a, b) => a.number - b.number).map((rt) => rt.table_id).filter((id) => tables.has(id))
      : order.filter((id) => tables.has(id));
    grid.style.setProperty('--cols', columns(shown.length));
    grid.style.setProperty('--rows', Math.max(1, Math.ceil(shown.length / columns(shown.length))));
    grid.dataset.count = shown.length;
    grid.classList.toggle('many', shown.length > 6);
    mount(grid, ...shown.map((id, i) => card(numbers.get(id) ?? i + 1, tables.get(id))));
  };
  const read = async (id) => {
    try {
      const table = await get(`/tables/${id}`);
      // The game's page module says what is its own on the tile (a nomination, a bid).
      await loadGame(table.game).catch(() => {});
      tables.set(id, table);
      if (!order.includes(id)) order.push(id);
      draw();
    } catch {
      // The next change brings it again.
    }
  };
  await Promise.all(order.map(read));
  await readEvent();
  if (typeof EventSource === 'undefined') return;
  stream = new EventSource(streamUrl(`/sessions/${sessionId}/events`));
  stream.addEventListener('table', (e) => {
    let change;
    try {
      change = JSON.parse(e.data);
    } catch {
      return;
    }
    if (change.receipt) {
      keep(change.table_id, change.receipt);
      counted();
    }
    const known = tables.get(change.table_id);
    if (!known || known.version < change.version) read(change.table_id);
    // A table never seen: a round may have started with it.
    if (!known) readEvent();
  });
  stream.onerror = () => { state.textContent = 'reconnecting'; };
  stream.onopen = () => { state.textContent = 'live'; };
}

/// Columns for `n` tiles on this screen: the arrangement that gives each tile the most room
/// for what it shows (about 240 × 300 px: four seats with totals 48 px high), so 1 to 12 tables
/// fill the screen, whatever its shape.
function columns(n) {
  const w = window.innerWidth;
  const h = Math.max(1, window.innerHeight - 70);
  let best = 1;
  let room = 0;
  for (let c = 1; c <= Math.max(1, n); c += 1) {
    const fit = Math.min(w / c / 240, h / Math.ceil(n / c) / 300);
    if (fit > room + 1e-9) {
      best = c;
      room = fit;
    }
  }
  return best;
}

/**
 * @param {number} number the table's number on the board (a round's, else its place)
 * @param {TableView} t
 * @returns {HTMLElement}
 */
function card(number, t) {
  const v = t.state;
  const page = gameModule(t.game);
  const totals = totalsOf(v);
  const turn = v.to_act != null ? `${t.players[v.to_act]} to act` : t.finished || v.phase === 'finished' ? 'Game over' : null;
  return h('section', { class: 'board-tile', 'aria-label': `Table ${number}`, 'data-table': t.id, 'data-version': t.version },
    h('h2', {}, `Table ${number}: ${gameName(t.game)}`),
    h('p', { class: 'tile-facts' }, [...facts(t, page)].filter(Boolean).join(' · ')),
    turn ? h('p', { class: 'tile-turn' }, turn) : null,
    h('ol', { class: 'tile-seats', 'aria-label': `Table ${number} seats` }, t.players.map((name, s) =>
      h('li', { class: `tile-seat${v.to_act === s ? ' acting' : ''}`, 'aria-current': v.to_act === s ? 'true' : null },
        h('span', { class: 'tile-name' }, name, v.dealer === s ? h('abbr', { title: 'dealer' }, ' D') : null),
        h('b', { class: 'seat-total tile-total', 'aria-label': `${name}'s total`, 'data-total': totals[s] ?? 0 }, String(totals[s] ?? 0)),
        h('span', { class: 'tile-bits' }, seatBits(v, s, page, true).join(' · '))))));
}
