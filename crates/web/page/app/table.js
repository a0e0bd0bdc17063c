// @ts-check
// The scorer's home: one table, its header, seats, centre, entry panel, undo and tabs.
// Everything on screen is drawn from `state.table` (the server's TableView) and `state.log`
// (the move log). `feed` takes a new TableView from any source: a move's answer, or the
// table's event stream, which the page follows instead of polling.
//
// A tap records what the scorer saw. When another phone's entry arrives, the controls (the
// entry panel and Undo) are held, inert and dimmed, for HOLD_MS after the new table is drawn,
// while the notice says what arrived ("Bob's phone recorded 7♦ for Dan"); only then is the
// next choice offered. The notice has a fixed height and Undo a fixed place above the panel,
// so nothing above the controls moves while they are shown. Undo names the entry it voids and
// asks once. The last card of a trick shows the trick's winner for FLASH_MS; a deal's end shows
// its summary in place of the panel for SUMMARY_MS (or until "Next deal").

import { Refusal, Unreachable, download, get, keep, phone, recordingToken, streamUrl } from './api.js';
import { cardFace, plainText, suitWord } from './cards.js';
import { button, fitText, h, message, mount } from './dom.js';
import { dealOf, kinds, numberingOf } from './legal.js';
import { gameName, loadCatalogue } from './catalogue.js';
import { dealsTab, markSheet, openForRuling } from './deals.js';
import { entryPanel, gameModule, loadGame } from './panels.js';
import { setAside, undoTarget } from './entries.js';
import { MoveQueue, dealAfterView, dealInHandView, nextDealView, resentAfterConflict } from './queue.js';
import { refusalChoices } from './refusals.js';
import { planStands, playOn } from './tricks.js';
import { answerPanels, countdown } from './rulings.js';
import { fromThisPhone, loadScorers, recorder } from './scorers.js';
import { onRewritten, rewritten, witness } from './witness.js';
import { bookingText, describe, describeParts, facts, seatBits, summaryLines, totalsOf } from './words.js';

/// How long the controls are held after another phone's entry is drawn.
export const HOLD_MS = 1500;
/// How long a finished trick stays in the centre with its winner.
const FLASH_MS = 2000;
/// How long a deal's summary stands in place of the next deal's panel.
const SUMMARY_MS = 3000;
/// How long the controls are held when the summary gives way to the next deal's panel by itself.
const SWAP_HOLD_MS = 700;

export { gameName };

/** @typedef {import('./types.js').GamePage} GamePage */
/** @typedef {import('./types.js').Seat} Seat */
/** @typedef {import('./types.js').TableView} TableView */
/** @typedef {import('./types.js').Who} Who */

let current = null;

/// The table's game page module (loaded before the table is first drawn), or null.
/**
 * @param {{ table: TableView | null }} state
 * @returns {GamePage | null}
 */
function pageOf(state) {
  return state.table ? gameModule(state.table.game) : null;
}

export async function openTable(id, root, assign = null) {
  current?.queue.close();
  current?.stream?.close();
  // The director's `assigned` ruling on a deal: the Deals tab, that deal open to enter it.
  if (assign != null) openForRuling(id, assign);
  const state = {
    id, root, table: null, log: [], tab: assign != null ? 'deals' : 'table', note: null, mode: null, busy: false,
    hold: null, confirmUndo: false, flash: null, summary: null, session: null, template: null, plan: null,
    rulings: { comments: new Map(), sent: new Set(), note: null },
  };
  current = state;
  state.queue = new MoveQueue(id, {
    changed: () => render(state),
    answered: (item, body) => answered(state, item, body),
    refused: (item, err, kept) => {
      state.note = { kind: 'error', text: `${item.label} was refused: ${err.message}${kept.length ? ` (${kept.length} later ${kept.length === 1 ? 'entry waits' : 'entries wait'})` : ''}` };
      render(state);
    },
    conflict: (item, err, kept) => conflict(state, item, kept),
  });
  mount(root, message('Loading the table…'));
  try {
    await reload(state);
  } catch (err) {
    // No signal: show the table as this phone last saw it, with its pending entries.
    const saved = JSON.parse(localStorage.getItem(`tk.table.${id}`) || 'null');
    if (!(err instanceof Unreachable) || !saved) {
      mount(root, message(err.message, 'error'), h('p', {}, h('a', { href: '#/' }, 'Back to the start')));
      return;
    }
    state.table = saved.table;
    state.log = saved.log;
    state.template = saved.template ?? null;
    state.plan = saved.plan ?? null;
    state.queue.offline = true;
    retryLoad(state, 1000);
  }
  // The session's correction window, read before the first drawing (whoever reads the table
  // reads it: the phones at it too), and again now and then, so that a close made while the page
  // is open is seen. It shows in the header's one line: nothing grows under a finger.
  state.session = await closingOf(state.table);
  watchClosing(state);
  // The game's panels and the catalogue's names: drawn again once they are here.
  await loadGame(state.table.game).catch(() => {});
  render(state);
  loadCatalogue().then(() => render(state));
  loadScorers(id);
  state.queue.flush();
  follow(state);
  // The phone cosigns the table's tree as it is now, in the background; a history found
  // rewritten is shown at once.
  const stop = onRewritten((table) => {
    if (current !== state) stop();
    else if (table === id) render(state);
  });
  witness(id);
}

/// Where the table's session stands (its `status` and `final_at`), or null outside a session or
/// when it cannot be read now.
/**
 * @param {TableView} table
 */
async function closingOf(table) {
  if (!table.session_id) return null;
  try {
    return await get(`/tables/${table.id}/closing`);
  } catch {
    return null;
  }
}

/// How often an open page asks whether its session closed (or was reopened): a correction
/// window is tens of minutes, and a phone asking once a minute costs the server little.
const CLOSING_EVERY_MS = 60_000;

/// Reads where the session stands once a minute while the page is on screen, and when it comes
/// back on screen; draws the header again when that changed.
function watchClosing(state) {
  if (!state.table?.session_id) return;
  const look = async () => {
    if (current !== state || document.visibilityState !== 'visible') return;
    const seen = await closingOf(state.table);
    if (!seen || current !== state) return;
    if (seen.status === state.session?.status && seen.final_at === state.session?.final_at) return;
    state.session = seen;
    render(state);
  };
  const timer = setInterval(() => {
    if (current !== state) {
      clearInterval(timer);
      document.removeEventListener('visibilitychange', look);
      return;
    }
    look();
  }, CLOSING_EVERY_MS);
  document.addEventListener('visibilitychange', look);
}

/// Follows the table's event stream: every entry recorded by any phone, on any replica, arrives
/// here, with its receipt. EventSource reconnects by itself and resumes with Last-Event-ID, so
/// nothing is missed.
function follow(state) {
  if (typeof EventSource === 'undefined') return;
  const last = state.log.length ? state.log[state.log.length - 1].seq : 0;
  const stream = new EventSource(streamUrl(`/tables/${state.id}/events?last_event_id=${last}`));
  state.stream = stream;
  stream.addEventListener('entry', (e) => {
    if (current !== state) {
      stream.close();
      return;
    }
    let data;
    try {
      data = JSON.parse(e.data);
    } catch {
      return;
    }
    // Every phone keeps the receipts the stream brings, other phones' entries included.
    keep(state.id, data.receipt);
    // A receipt names the chain's new end: the tree grew, and this phone may cosign it.
    if (Number.isInteger(data.receipt?.position)) witness(state.id, data.receipt.position + 1);
    streamed(state, data.entry, data.table);
  });
}

/// An entry from the stream: known already (this phone's own answer came first), or another
/// phone's, which is added to the log and drawn from the table the event carries (as it left
/// it; read only when the event has none, as one resent from the log).
/**
 * @param {any} state
 * @param {any} entry
 * @param {import('./types.js').TableView} [carried]
 */
async function streamed(state, entry, carried) {
  const lastSeq = state.log.length ? state.log[state.log.length - 1].seq : 0;
  if (entry.seq <= lastSeq) return;
  state.log.push(entry);
  if (entry.voids) {
    const undone = state.log.find((x) => x.seq === entry.voids);
    if (undone) undone.voided_by = entry.seq;
  }
  const mine = fromThisPhone(state.id, entry);
  const hold = mine ? null : { entry };
  if (hold) {
    // Held at once, before the new table is even read: a finger on its way lands on nothing.
    state.hold = hold;
    state.confirmUndo = false;
    render(state);
    await loadScorers(state.id, recorder(state.id, entry) === 'another phone');
    hold.parts = heard(state, entry);
  }
  const before = state.table;
  try {
    const table = carried && carried.version >= entry.seq ? carried : await get(`/tables/${state.id}`);
    feed(state, table);
  } catch {
    release(state, hold, 0);
    return;
  }
  if (hold) state.note = { kind: 'ok', text: hold.parts };
  else if (!state.queue.pending) state.note = { kind: 'ok', text: ['Recorded: ', describeParts(entry, state.table.players, pageOf(state))] };
  moments(state, entry, before);
  render(state);
  release(state, hold, HOLD_MS);
}

/// "Bob's phone recorded 7♦ for Dan".
function heard(state, entry) {
  const who = recorder(state.id, entry);
  return [who.charAt(0).toUpperCase() + who.slice(1), ' recorded ', describeParts(entry, state.table.players, pageOf(state))];
}

/// Offers the next choice again once `hold` has stood for `ms` (unless a newer hold replaced it).
function release(state, hold, ms) {
  if (!hold) return;
  setTimeout(() => {
    if (state.hold !== hold) return;
    state.hold = null;
    render(state);
  }, ms);
}

/// What an entry's events show for a moment: a finished trick with its winner, a deal's summary.
function moments(state, entry, before) {
  const events = entry.events || [];
  const players = state.table.players;
  const who = (s) => players[s] ?? `seat ${s}`;
  const won = [...events].reverse().find((e) => e.event === 'trick_won');
  if (won && won.winner != null) {
    const plays = [...(before?.state?.current_trick?.plays || [])];
    const m = entry.move || {};
    if (m.kind === 'play' && m.card && !plays.some((p) => p.card === m.card)) plays.push({ seat: m.seat, card: m.card });
    const flash = { number: won.trick ?? before?.state?.current_trick?.number, winner: who(won.winner), plays };
    state.flash = flash;
    setTimeout(() => {
      if (state.flash !== flash) return;
      state.flash = null;
      render(state);
    }, FLASH_MS);
  }
  const scored = events.find((e) => ['deal_scored', 'hand_scored', 'deal_ended'].includes(e.event));
  const over = events.find((e) => ['passed_out', 'deal_void'].includes(e.event));
  if (!scored && !over) return;
  const page = gameModule(state.table.game);
  const n = numberingOf(page);
  const ended = scored || over;
  const summary = { lines: summaryLines(ended, entry, before?.state, who, page), deal: ended[n.deal] ?? ended.deal };
  summary.word = n.word;
  summary.title = over ? `${summary.word} ${summary.deal} ${String(over.event).replaceAll('_', ' ')}` : `${summary.word} ${summary.deal} scored`;
  summary.finished = events.some((e) => e.event === 'game_finished');
  state.summary = summary;
  if (!summary.finished) {
    setTimeout(() => {
      if (state.summary !== summary) return;
      state.summary = null;
      // The next deal's panel takes the summary's place by itself: a finger on its way to
      // "Next deal" would land on whatever the panel puts there, so hold the controls a moment.
      const hold = { swap: true };
      state.hold = hold;
      render(state);
      release(state, hold, SWAP_HOLD_MS);
    }, SUMMARY_MS);
  }
}

/// Reads the table again once the server answers (a retry with back-off, not a polling loop).
function retryLoad(state, delay) {
  setTimeout(async () => {
    if (current !== state) return;
    try {
      await reload(state);
      state.queue.offline = false;
      render(state);
    } catch {
      retryLoad(state, Math.min(delay * 2, 8000));
    }
  }, delay);
}

/// The last table and log this phone saw, for opening the page without a signal.
function remember(state) {
  try {
    localStorage.setItem(`tk.table.${state.id}`, JSON.stringify({ table: state.table, log: state.log, template: state.template, plan: state.plan }));
  } catch {
    // Storage full: the page still works online.
  }
}

async function reload(state) {
  const table = await get(`/tables/${state.id}`);
  const after = state.log.length ? state.log[state.log.length - 1].seq : 0;
  const fresh = await readLog(state.id, after);
  // Undo marks older entries as voided: re-read the whole log when one appears.
  state.log = fresh.some((e) => e.voids) ? await readLog(state.id, 0) : state.log.concat(fresh);
  feed(state, table);
  return fresh;
}

async function readLog(id, after) {
  const out = [];
  let next = after;
  for (;;) {
    const page = await get(`/tables/${id}/moves?after=${next}&limit=500`);
    out.push(...page.items);
    if (page.next_after == null) return out;
    next = page.next_after;
  }
}

/// A new TableView, from whatever source.
export function feed(state, table) {
  if (state.table && table.version < state.table.version) return;
  // Undo asks about the entry it names: once the table moved on, the question is stale.
  if (state.table && table.version !== state.table.version) state.confirmUndo = false;
  state.table = table;
  // The result form of the deal as it began: offline, a deal under way can still be finished
  // as a result (the server refuses one once the deal is under way, so its entries are set
  // aside first), and the page cannot ask the server for the form then.
  const legal = (table.state?.legal_moves || []).find((m) => typeof m === 'object' && m?.kind === 'result');
  const deal = dealOf(table.state, gameModule(table.game));
  if (legal && deal != null) state.template = { deal, legal };
  keepPlan(state);
  remember(state);
}

/// The trick plan of the deal in hand, read once as its play begins (and again after an undo),
/// so that offline the rest of the deal can still be entered card by card (tricks.js).
function keepPlan(state) {
  const t = state.table;
  const deal = dealOf(t.state, gameModule(t.game));
  if (!kinds(t.state).has('play') || deal == null || state.queue?.offline) return;
  if (planStands(state.plan, deal, state.log) || state.planAsked === `${deal}:${t.version}`) return;
  state.planAsked = `${deal}:${t.version}`;
  get(`/tables/${state.id}/trick-plan`).then((read) => {
    if (current !== state) return;
    state.plan = { version: read.version, deal: read.plan?.deal ?? deal, plan: read.plan ?? null };
    remember(state);
  }, () => {});
}

function answered(state, item, body) {
  // The stream may have brought the entry already.
  const known = (entry) => state.log.some((e) => e.seq === entry.seq);
  // When the stream brought it first, its moments (trick, summary) were shown from there.
  const fresh = Boolean(body.move) && !known(body.move);
  if (fresh) state.log.push(body.move);
  if (body.void) {
    if (!known(body.void)) state.log.push(body.void);
    const undone = state.log.find((e) => e.seq === body.undone.seq);
    if (undone) undone.voided_by = body.void.seq;
  }
  const before = state.table;
  feed(state, body.table);
  state.note = { kind: 'ok', text: `Recorded: ${item.label}` };
  if (fresh) moments(state, body.move, before);
  render(state);
}

/// Another phone recorded first. The table is read again and the scorer told in words what
/// was recorded; the queue then waits behind the entry (shown for fixing or discarding) with
/// everything after it kept, or sends it again when it is the result of the deal the table
/// still waits for. Answers the table's version and deal for the queue (null when the table
/// could not be read again), and the words.
async function conflict(state, item, kept) {
  let fresh = [];
  let read = true;
  try {
    fresh = await reload(state);
  } catch (e) {
    read = false;
  }
  // What was recorded since the version the entry was made against, however the page learnt it
  // (the stream may have brought it already): a version counts log entries.
  const since = item?.body?.expected_version ?? 0;
  const others = state.log.filter((e) => e.seq > since || fresh.includes(e));
  await loadScorers(state.id, true);
  const said = others.filter((e) => e.entry === 'move' || e.entry === 'void')
    .map((e) => { const [who, , what] = heard(state, e); return `${who} recorded ${plainText(what)}`; });
  const othersText = said.length ? `${said.join('; ')}.` : 'Another phone recorded an entry first.';
  const deal = read ? dealOf(state.table.state, pageOf(state)) : undefined;
  const waiting = kept.length ? ` ${kept.length} later ${kept.length === 1 ? 'entry waits' : 'entries wait'}.` : '';
  const what = resentAfterConflict(item, deal)
    ? `Your entry (${item.label}) is sent again: its deal is still the one the table waits for.`
    : `Your entry (${item.label}) was not recorded.${waiting}`;
  state.note = { kind: 'error', text: `${othersText} ${what}` };
  render(state);
  return read ? { version: state.table.version, deal, words: othersText } : { version: null, deal, words: othersText };
}

/// Sends a move through the queue, always naming the deal it was entered for (`deal`): a move
/// that waited in the queue, or a second phone's copy of a result, is then refused with
/// `deal_mismatch` rather than booked to the next deal. `extra` adds to the request.
function send(state, move, label, extra = {}) {
  state.note = null;
  // A card (or a bid) commits this deal to card-by-card entry: Result is a tap away again.
  if (move.kind !== 'result') state.mode = 'cards';
  state.confirmUndo = false;
  state.queue.add('moves', { move, deal: dealOf(state.table.state, pageOf(state)), ...extra }, label, state.table.version);
  render(state);
}

function undo(state, label) {
  state.note = null;
  state.confirmUndo = false;
  state.queue.add('undo', {}, `undo of ${label}`, state.table.version);
  render(state);
}

function connection(state) {
  const q = state.queue;
  if (q.pending) return `${q.offline ? 'offline · ' : ''}${q.pending} pending`;
  return q.offline ? 'offline' : 'live';
}

function render(state) {
  if (current !== state || !state.table) return;
  const t = state.table;
  const v = t.state;
  const header = h('header', { class: 'table-head', 'data-version': t.version },
    h('div', { class: 'head-line' },
      h('a', { href: '#/', class: 'back', 'aria-label': 'Back to the start' }, '‹'),
      h('h1', {}, gameName(t.game)),
      countdown(state.session, 'span', true),
      h('span', { class: `conn ${state.queue.pending ? 'pending' : state.queue.offline ? 'offline' : 'live'}`, role: 'status', 'aria-label': 'Connection' }, connection(state))),
    h('p', { class: 'facts' }, [...facts(t, pageOf(state)), phone.name ? `scoring as ${phone.name}` : null].filter(Boolean).join(' · ')));
  const tabs = h('nav', { class: 'tabs', role: 'tablist', 'aria-label': 'Views' },
    [['table', 'Table'], ['sheet', 'Score sheet'], ['ledger', 'Ledger'], ['deals', 'Deals']].map(([key, label]) =>
      h('button', { type: 'button', role: 'tab', 'aria-selected': String(state.tab === key), onclick: () => { state.tab = key; render(state); } }, label)));
  let body;
  if (state.tab === 'table') body = tableBody(state);
  else body = h('div', { class: 'tab-body', 'data-tab': state.tab }, message('Loading…'));
  // A history found rewritten: one line in the header on every tab, the two checkpoints in full
  // on the Deals tab (where no control sits under a finger).
  const found = rewritten(state.id);
  if (found) header.append(h('p', { class: 'msg error rewritten-line', role: 'alert' }, 'This table\'s history was rewritten: this phone stopped cosigning it. See Deals.'));
  const warning = found && state.tab === 'deals' ? rewrittenWarning(found) : null;
  steady(state, () => mount(state.root, header, warning, body, tabs));
  // A long notice (a conflict's words) is fitted to its fixed box, never cut off.
  const notice = /** @type {HTMLElement | null} */ (state.root.querySelector('.notice'));
  if (notice) fitText(notice);
  if (state.tab === 'sheet') sheetTab(state, body);
  if (state.tab === 'ledger') ledgerTab(state, body);
  if (state.tab === 'deals') {
    dealsTab({ id: state.id, table: t, log: state.log, players: t.players, reload: () => reload(state), render: () => render(state) }, body);
  }
}

/// The players' warning that this table's history was rewritten, with the two checkpoints (what
/// this phone cosigned, what the service shows now), or nothing on an honest table.
/**
 * @param {import('./witness.js').Rewritten} found
 */
function rewrittenWarning(found) {
  return h('div', { class: 'msg error rewritten', role: 'alert' },
    h('strong', {}, 'This table\'s history was rewritten.'),
    h('p', {}, `Cosigned by this phone: ${found.kept.size} entries, root `, h('code', {}, found.kept.root), '.'),
    h('p', {}, found.shown.size
      ? [`Shown by the server now: ${found.shown.size} entries, root `, h('code', {}, found.shown.root), '.']
      : 'Shown by the server now: fewer entries.'),
    h('p', {}, `${found.why[0].toUpperCase()}${found.why.slice(1)}. This phone no longer cosigns the table: tell the director, and keep this phone's receipts.`));
}

/// Redraws without moving the controls under a finger: the entry panel keeps its place on the
/// screen, and the page never gets shorter while the table tab is shown and scrolled (a shorter
/// page would clamp the scroll and slide everything down, so a tap aimed at one control lands on
/// another).
function steady(state, draw) {
  const root = state.root;
  const sameTab = state.drawnTab === state.tab;
  const top = sameTab ? root.querySelector('.controls')?.getBoundingClientRect().top : undefined;
  const height = root.offsetHeight;
  // Scrolled to the top, a shorter page moves nothing (there is no scroll to clamp): it may
  // shrink to what it shows, so a result form that fits the screen is not held taller.
  const top0 = window.scrollY === 0;
  if (top0 && sameTab) root.style.minHeight = '';
  // Scrolled, the page keeps its length while it is drawn anew: emptied for a moment, it would
  // clamp the scroll at once (a read of a size inside the drawing lays it out), and a scroll
  // given back afterwards was lost when a second drawing followed before it.
  else if (sameTab && state.tab === 'table') root.style.minHeight = `${height}px`;
  const active = document.activeElement;
  if (active && active !== document.body && root.contains(active)) state.focus = focusKey(active);
  draw();
  state.drawnTab = state.tab;
  keepFocus(state);
  if (!sameTab || state.tab !== 'table') {
    root.style.minHeight = '';
    state.centreHeight = 0;
    return;
  }
  // The centre keeps the room its tallest content took (a trick, then nothing while the next
  // deal is bid): the controls below it stay where they were.
  const centre = root.querySelector('.centre');
  if (centre) {
    if (centre.offsetHeight < (state.centreHeight || 0)) centre.style.minHeight = `${state.centreHeight}px`;
    else state.centreHeight = centre.offsetHeight;
  }
  if (!top0 && root.offsetHeight < height) root.style.minHeight = `${height}px`;
  const now = root.querySelector('.controls')?.getBoundingClientRect().top;
  if (top !== undefined && now !== undefined && now !== top) {
    // At the page's end the scroll that keeps them in place would be clamped: make room for it.
    // Measured to where the page's content ends, not its scroll height: that is never less than
    // the window, so a page shorter than the window (scrolled to its top, a short deal) was
    // given too little room and the controls slid down by what came above them.
    const end = (root.parentElement ?? root).getBoundingClientRect().bottom + window.scrollY;
    const short = window.scrollY + (now - top) + window.innerHeight - end;
    if (short > 0) root.style.minHeight = `${root.offsetHeight + short}px`;
    window.scrollBy(0, now - top);
  }
}

/// Whether the scorer is using the keyboard (the last input was a key, not a tap): focus is kept
/// for them only, so a tap never brings a focus ring or a scroll.
let keyboard = false;
window.addEventListener('keydown', () => { keyboard = true; }, true);
window.addEventListener('pointerdown', () => { keyboard = false; }, true);

/// What had focus, to find its like again once the page is drawn anew.
/**
 * @param {Element} el
 * @returns {{ card?: string, label: string | null, text: string, where: string }}
 */
function focusKey(el) {
  const where = el.closest('.controls') ? 'controls' : el.closest('.tabs') ? 'tabs' : 'page';
  return { card: /** @type {HTMLElement} */ (el).dataset?.card, label: el.getAttribute('aria-label'), text: el.textContent ?? '', where };
}

/// Each entry draws the page anew: without this, focus would fall back to the top of the page
/// and a keyboard would go through the whole page again for every card. Focus goes back to the
/// control that had it when it is still there and open, else to the entry point: the panel's
/// first open control (a deal's summary: its "Next deal"; Undo's question: Keep).
function keepFocus(state) {
  const f = state.focus;
  const active = document.activeElement;
  if (!keyboard || !f || (active && active !== document.body && state.root.contains(active))) return;
  const root = state.root;
  const scope = root.querySelector(f.where === 'tabs' ? '.tabs' : f.where === 'controls' ? '.controls' : 'main') ?? root;
  const open = /** @type {HTMLElement[]} */ ([...scope.querySelectorAll('button:not(:disabled), a[href], input:not([type=hidden]), select, textarea, summary')]);
  const same = open.find((el) => (f.card ? el.dataset.card === f.card : f.label ? el.getAttribute('aria-label') === f.label : el.textContent === f.text));
  let target = same;
  if (!target && f.where === 'controls') {
    const ask = root.querySelector('.undo-bar.confirm');
    const entry = root.querySelector('.entry');
    target = ask ? [...ask.querySelectorAll('button')].pop()
      : /** @type {HTMLElement[]} */ ([...(entry?.querySelectorAll('button:not(:disabled), input:not([type=hidden]), select, textarea') ?? [])])
        .find((el) => !el.closest('.modes'));
  }
  target?.focus();
}

/// Type-ahead in the entry panel: a key goes to the next open button of the focused one's group
/// whose text starts with what was typed ("2" to "Nominate 2", "1" "2" to 12), Enter then enters
/// it. The card picker has keys of its own (cards.js).
/**
 * @param {KeyboardEvent} e
 */
function typeAhead(e) {
  const target = /** @type {HTMLElement} */ (e.target);
  if (e.ctrlKey || e.metaKey || e.altKey || e.key.length !== 1 || e.key === ' ' || !target.closest?.('.entry')) return;
  if (target.matches('input, select, textarea')) return;
  const scope = target.closest('[role=group], [role=radiogroup], .choices') ?? target.closest('.entry');
  const now = Date.now();
  typed = now - typedAt < 1000 ? typed + e.key.toLowerCase() : e.key.toLowerCase();
  typedAt = now;
  const open = /** @type {HTMLElement[]} */ ([...(scope?.querySelectorAll('button:not(:disabled)') ?? [])]);
  const found = open.find((b) => (b.textContent ?? '').trim().toLowerCase().startsWith(typed));
  if (!found) return;
  e.preventDefault();
  found.focus();
}
let typed = '';
let typedAt = 0;

function tableBody(state) {
  const t = state.table;
  const page = pageOf(state);
  const pending = state.queue.items;
  const blocked = state.queue.blocked;
  const offline = state.queue.offline && !blocked;
  // Offline behind queued cards, the deal in hand as the trick plan follows them (tricks.js):
  // the trick as it now stands, the next seat to play, who won the tricks the queue completed.
  const plan = offline && pending.length && planStands(state.plan, dealOf(t.state, page), state.log) ? state.plan.plan : null;
  const on = plan ? playOn(t.state, plan, pending) : null;
  const v = on ? on.view : t.state;
  const totals = totalsOf(v);
  const unit = v.totals ? 'points' : 'chips';
  const seats = h('ol', { class: 'seats', 'aria-label': 'Seats' }, t.players.map((name, s) => {
    const acting = v.to_act === s;
    const bits = seatBits(v, s, page);
    return h('li', { class: `seat${acting ? ' acting' : ''}${v.dealer === s ? ' dealer' : ''}`, 'aria-current': acting ? 'true' : null, 'data-seat': s },
      h('span', { class: 'seat-name' }, name, v.dealer === s ? h('abbr', { title: 'dealer', class: 'dealer-mark' }, ' D') : null),
      h('span', { class: 'seat-total', 'aria-label': `${name}'s total`, 'data-total': totals[s] }, `${totals[s] ?? ''}`),
      h('span', { class: 'seat-bits' }, bits.join(' · ') || (acting ? 'to act' : '')));
  }));
  const centre = h('section', { class: 'centre', 'aria-label': 'Centre' }, centreOf(v === t.state ? t : { ...t, state: v }, page));
  const flash = on?.won ? { number: on.won.number, winner: t.players[on.won.winner], plays: on.won.plays } : on ? null : state.flash;
  if (flash && !(v.current_trick?.plays || []).length) {
    // The finished trick (until the next card is laid), with its winner, where the trick is shown (the same height).
    const f = flash;
    const trick = centre.querySelector('.trick');
    const shown = h('div', { class: 'trick won', role: 'status', 'aria-label': `Trick ${f.number} won by ${f.winner}` },
      h('span', { class: 'trick-no' }, `Trick ${f.number} won by `, h('b', {}, f.winner)),
      f.plays.map((p) => h('span', { class: `played${t.players[p.seat] === f.winner ? ' winner' : ''}` }, h('small', {}, t.players[p.seat] ?? ''), cardFace(p.card))));
    if (trick) trick.replaceWith(shown);
    else centre.prepend(shown);
  }
  // Beaten by another phone, or refused and then the table moved on (the stream): either way
  // the table now is not the one the entry was made on (refusalPanel deals with it).
  const beaten = Boolean(blocked) && (blocked.code === 'version_conflict' || t.version > pending[0].body.expected_version);
  const queueList = pending.length
    ? h('section', { class: 'queue', 'aria-label': 'Pending entries' },
      h('ul', {}, pending.map((i, n) => h('li', { class: n === 0 && blocked ? 'refused' : '' },
        n === 0 && blocked
          ? `${i.label} — ${blocked.code === 'version_conflict' ? 'not recorded, another phone was first' : 'refused'}: ${blocked.message}`
          : `${i.label} — pending`))),
      blocked
        ? (beaten ? null : h('div', { class: 'row' }, button('Discard the refused entry', () => { state.note = null; state.queue.discardBlocked(); })))
        : button('Retry now', () => state.queue.retryNow()))
    : null;
  // A fixed-height notice: a message appearing or going never moves the controls below it.
  const note = h('div', { class: 'notice', 'aria-live': 'polite' },
    state.note ? message(state.note.text, state.note.kind) : null);
  const panelOf = (view, mode, more = {}) => entryPanel({
    game: t.game, view, table: t, log: state.log, players: t.players, mode,
    setMode: (m) => { state.mode = m; render(state); },
    send: (move, label, extra) => send(state, move, label, extra),
    ...more,
  });
  // Entries waiting: a first one another phone beat to the table is dealt with on its own
  // (refusalPanel: never on the panel of the table as it is now, often another seat's); one
  // refused otherwise is fixed on the table as the server has it while that is the table it
  // was entered on; offline, after a queued result the next deal is offered as a result, and
  // a deal under way can be finished as a result at any point (inHand); otherwise the server
  // answers first (online that takes a moment: the panel does not flick to the next deal
  // meanwhile).
  let ahead = null;
  if (on?.over) ahead = dealAfterView(t, Number(dealOf(t.state, page)), numberingOf(page), state.template);
  else if (pending.length && offline) ahead = nextDealView(t, pending, numberingOf(page), state.template);
  const finish = offline && !ahead && !state.summary ? inHand(state) : null;
  let panel;
  if (state.summary && !state.summary.finished) panel = summaryPanel(state);
  else if (on && !on.over && state.mode !== 'result') {
    // The next card behind the queued ones; Result still finishes the deal (the cards so far
    // set aside), as below.
    panel = panelOf({ ...v, legal_moves: [...(v.legal_moves || []), ...(finish?.view.legal_moves || [])] }, 'cards');
  } else if (finish && (pending.length || state.mode === 'result')) {
    // Offline with the deal under way: the next card needs the server's answer (what is legal
    // then), a result does not.
    const waiting = pending.length
      ? `Offline: the next entry waits for the server. Tap Result to finish ${dealWord(state)} as a result now.`
      : null;
    const cards = pending.length ? [] : (v.legal_moves || []).filter((m) => !(typeof m === 'object' && m?.kind === 'result'));
    panel = [panelOf({ ...finish.view, legal_moves: [...(finish.view.legal_moves || []), ...cards.map((m) => (typeof m === 'string' ? m : m.kind))] },
      state.mode === 'result' ? 'result' : 'cards',
      { log: [], waiting, send: (move, label, extra) => finishInHand(state, finish.undos, move, label, extra) }),
    finish.undos.length && state.mode === 'result'
      ? h('p', { class: 'why set-aside' }, `Sent when the server answers, after undoing the ${finish.undos.length} ${finish.undos.length === 1 ? 'entry' : 'entries'} of ${dealWord(state)} made so far: a result stands for the whole deal.`)
      : null];
  } else if (!pending.length) {
    // Offline, a deal under way keeps its Result switch open (inHand).
    panel = panelOf(finish ? { ...v, legal_moves: [...(v.legal_moves || []), ...(finish.view.legal_moves || [])] } : v, state.mode);
    if (state.summary) panel = [summaryPanel(state), panel];
  } else if (beaten) {
    panel = refusalPanel(state);
  } else if (blocked) {
    panel = [h('p', { class: 'prompt' }, `Fix the refused entry (${pending[0].label}) or discard it; the ${pending.length - 1} after it wait.`),
      panelOf(v, pending[0].body?.move?.kind === 'result' ? 'result' : state.mode)];
  } else if (ahead) {
    panel = [h('p', { class: 'prompt' }, `${numberingOf(page).word} ${dealOf(ahead, page)}: enter it as a result; it is sent when the server answers.`),
      panelOf(ahead, 'result')];
  } else panel = message('Waiting for the pending entry to be answered before the next one.');
  const held = Boolean(state.hold);
  const controls = h('div', {
    class: `controls${held ? ' held' : ''}`, inert: held, 'aria-busy': held ? 'true' : null, onkeydown: typeAhead,
  }, undoBar(state, pending.length > 0), h('section', { class: 'entry', 'aria-label': 'Entry' }, panel));
  // A ruling to answer comes below the controls: its arrival moves nothing under a finger.
  const rulings = answerPanels({ id: state.id, log: state.log, ui: state.rulings, redraw: () => render(state) });
  return h('div', { class: 'tab-body', 'data-tab': 'table' }, seats, centre, note, controls, queueList, rulings);
}

/// "deal 3" (or "hand 3"): the deal the table waits for.
function dealWord(state) {
  const page = pageOf(state);
  return `${numberingOf(page).word.toLowerCase()} ${dealOf(state.table.state, page)}`;
}

/// Offline, the deal under way as a result: the form of the deal as it began (remembered when
/// the table was last read at its start) and the undos that set aside its entries so far,
/// stored and queued (entries.js). Null when the table does not wait for a result-less deal in
/// hand, or the page cannot tell what to set aside.
function inHand(state) {
  const t = state.table;
  const page = pageOf(state);
  if (t.finished || kinds(t.state).size === 0) return null;
  if (!state.queue.pending && kinds(t.state).has('result')) return null;
  const view = dealInHandView(t, state.template, numberingOf(page));
  if (!view) return null;
  const deal = dealOf(t.state, page);
  if (deal == null) return null;
  const undos = setAside(state.log, state.queue.items, deal, numberingOf(page), (e) => describe(e, t.players, page));
  return undos ? { view, undos } : null;
}

/// The deal in hand finished as a result offline: its entries so far are undone, the latest
/// first, then the result is sent, each queued in order behind what waits already.
function finishInHand(state, undos, move, label, extra) {
  for (const words of undos) state.queue.add('undo', {}, words, state.table.version);
  send(state, move, label, extra);
  if (undos.length) state.note = { kind: 'ok', text: `${label}: queued after ${undos.length} ${undos.length === 1 ? 'undo' : 'undos'} that set aside the entries made so far.` };
  render(state);
}

/// The first entry waiting, which another phone beat to the table: what was recorded, what this
/// phone tried, and only what it can do now (refusals.js): enter it again when the table still
/// accepts it for the same seat, undo the other phone's entry and enter it, or discard it. The
/// panel of the table as it is now (the next seat's, often) is held back until then: what is
/// entered there would be another seat's entry, not this one's fix.
function refusalPanel(state) {
  const t = state.table;
  const page = pageOf(state);
  const pending = state.queue.items;
  const item = pending[0];
  const blocked = state.queue.blocked;
  const since = blocked.since ?? item.body.expected_version;
  // Until the page has read what the other phone recorded, it cannot tell what still stands.
  const known = t.version > since;
  const { again, undo } = known ? refusalChoices(item, since, state.log, t.state, page) : { again: false, undo: null };
  const mine = spoken(item.label);
  const rest = pending.length - 1;
  const waits = rest ? ` The ${rest} after it ${rest === 1 ? 'waits' : 'wait'}.` : '';
  const n = numberingOf(page);
  const gone = item.body?.move?.kind === 'result' && known && Number(item.body.deal) !== Number(dealOf(t.state, page))
    ? `: ${n.word.toLowerCase()} ${item.body.deal} is recorded already (correct it from the Deals tab if it differs)` : '';
  const theirs = undo ? describe(undo, t.players, page) : '';
  return h('section', { class: 'refusal', role: 'group', 'aria-label': 'Refused entry' },
    h('p', { class: 'prompt' }, `${blocked.message} Your entry (${item.label}) was not recorded${gone}.${waits}`),
    h('div', { class: 'choices' },
      again ? button(`Enter ${mine} again`, () => settle(state, [item]), { class: 'primary' }) : null,
      undo ? button(['Undo ', describeParts(undo, t.players, page), `, then enter ${mine}`],
        () => settle(state, [{ path: 'undo', body: {}, label: `undo of ${theirs}` }, item]),
        { 'aria-label': `Undo ${theirs}, then enter ${mine}` }) : null,
      button(`Discard ${mine}`, () => settle(state, null))));
}

/// A label inside a sentence: "the result of deal 2", "K♠ for Bob".
function spoken(label) {
  return label.replace(/^Result of /, 'the result of ');
}

/// The refused entry is dealt with: `entries` take its place (null: it is discarded). The
/// next choice comes in the panel's place: held a moment, so a second tap lands on nothing.
function settle(state, entries) {
  state.note = null;
  state.confirmUndo = false;
  if (entries) state.queue.resolveBlocked(entries, state.table.version);
  else state.queue.discardBlocked();
  const hold = { swap: true };
  state.hold = hold;
  render(state);
  release(state, hold, SWAP_HOLD_MS);
}

/// Undo, in a fixed place above the panel: names the entry it voids, then asks once.
function undoBar(state, waiting) {
  const t = state.table;
  // Entries waiting: the last, never sent, can be taken back (a card tapped by mistake
  // offline); what the server holds is undone once they are all sent.
  const queued = state.queue.items;
  if (waiting && queued.length) {
    const last = queued[queued.length - 1];
    return h('div', { class: 'undo-bar' },
      // Whether it is on its way is asked at the tap: a try starts and ends without a drawing.
      button(`Take back ${spoken(last.label)}`, () => {
        const gone = state.queue.takeBack();
        state.note = gone
          ? { kind: 'ok', text: `Taken back: ${spoken(gone.label)} (it was not sent).` }
          : { kind: 'error', text: `${last.label} is being sent now: undo it once it is recorded.` };
        render(state);
      }, { class: 'undo' }));
  }
  // What `POST /undo` voids: a correction made since the last move is undone whole, and named so.
  const last = undoTarget(state.log);
  if (!last) return h('div', { class: 'undo-bar' }, h('span', { class: 'undo-none' }, 'Nothing to undo yet'));
  const page = pageOf(state);
  const words = describe(last, t.players, page);
  if (state.confirmUndo) {
    return h('div', { class: 'undo-bar confirm', role: 'group', 'aria-label': `Undo ${words}?` },
      h('span', { class: 'undo-ask' }, 'Undo ', describeParts(last, t.players, page), '?'),
      button('Yes, undo', () => undo(state, words), { class: 'danger', 'aria-label': `Yes, undo ${words}` }),
      button('Keep', () => { state.confirmUndo = false; render(state); }));
  }
  return h('div', { class: 'undo-bar' },
    // Named by what it shows (a Squares card's face is named by its own label).
    button(['Undo ', describeParts(last, t.players, page)], () => { state.confirmUndo = true; render(state); },
      { class: 'undo', disabled: waiting }));
}

/// A deal's end, in place of the next deal's panel for a moment.
function summaryPanel(state) {
  const sum = state.summary;
  return h('section', { class: 'summary', role: 'status', 'aria-label': sum.title },
    h('p', { class: 'prompt' }, sum.title),
    h('ul', {}, sum.lines.map((l) => h('li', {}, l))),
    sum.finished ? null : button(`Next ${sum.word.toLowerCase()}`, () => { state.summary = null; render(state); }, { class: 'primary' }));
}

/// The centre: the trick being played, the turn-up, what the game shows there (`page.centre`:
/// its runs, pools, funds, last trick), revokes, the winners.
/**
 * @param {TableView} t
 * @param {GamePage | null} [page]
 * @returns {Node[]}
 */
export function centreOf(t, page = null) {
  const v = t.state;
  /** @type {Who} */
  const name = (s) => t.players[s] ?? '';
  const out = [];
  if (v.current_trick) {
    const trick = v.current_trick;
    out.push(h('div', { class: 'trick', 'aria-label': `Trick ${trick.number}` },
      h('span', { class: 'trick-no' }, `Trick ${trick.number}`),
      (trick.plays || []).map((p) => h('span', { class: 'played' }, h('small', {}, name(p.seat)), cardFace(p.card)))));
  }
  if (v.turn_up) out.push(h('p', { class: 'turnup' }, 'Turned up ', cardFace(v.turn_up)));
  out.push(...(page?.centre?.(v, name) ?? []));
  for (const r of v.revokes || []) out.push(message(`Revoke: ${name(r.seat)} showed void and later played ${r.suit ? suitWord(r.suit) : ''}`, 'warn'));
  if (v.winners?.length) out.push(h('p', { class: 'winners' }, `Winner${v.winners.length > 1 ? 's' : ''}: ${v.winners.map(name).join(', ')}`));
  return out;
}

async function sheetTab(state, body) {
  try {
    const s = await get(`/tables/${state.id}/scores`);
    const sheet = s.sheet;
    // A points game's director's rulings sit beside the sheet (the deals as played): the totals
    // the standings count are theirs.
    const ruled = s.rulings?.totals;
    const totals = ruled || sheet.totals || sheet.chips || [];
    // Tricky Dick's sheet lists hands, the others' deals.
    const page = pageOf(state);
    const n = numberingOf(page);
    const rows = (sheet[n.sheet] || []).map((d, i) => h('tr', {},
      h('th', { scope: 'row' }, String(d[n.deal] ?? i + 1)),
      s.players.map((_, seat) => h('td', {}, cell(d, seat, page)))));
    mount(body, h('table', { class: 'sheet', 'aria-label': 'Score sheet' },
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Deal'), s.players.map((p) => h('th', { scope: 'col' }, p)))),
      h('tbody', {}, rows),
      h('tfoot', {}, h('tr', {}, h('th', { scope: 'row' }, ruled ? 'Total with rulings' : 'Total'), totals.map((x, seat) => h('td', { 'data-total': x, 'aria-label': `${s.players[seat]} total` }, String(x)))))),
    ruled ? h('p', { class: 'ruled-totals' }, `The totals include the director's rulings (${s.players.map((p, seat) => `${p} ${s.rulings.adjustments[seat] > 0 ? '+' : ''}${s.rulings.adjustments[seat]}`).join(', ')}); the lines are the deals as played.`) : null,
    sheet.winners?.length ? h('p', { class: 'winners' }, `Winners: ${sheet.winners.map((w) => s.players[w]).join(', ')}`) : null,
    csvLink(`/api/v1/tables/${state.id}/scores?format=csv`, 'Download the score sheet (CSV)'));
    markSheet(state.id, body);
  } catch (err) {
    mount(body, message(err.message, 'error'));
  }
}

// A link to a CSV export: the page fetches it with its reading token (a plain link cannot send
// one) and saves it; the address stays on the link for the browser's "copy link".
function csvLink(href, label) {
  const save = (e) => {
    e.preventDefault();
    download(href).catch((err) => window.alert(err.message));
  };
  return h('p', { class: 'export' }, h('a', { href, download: '', class: 'csv', onclick: save }, label));
}

/// A seat's cell of a score-sheet line: what the game shows of its own (`page.sheetCell`:
/// nominated and won, tricks), the points or chips, the running total.
/**
 * @param {Record<string, any>} d the line
 * @param {Seat} seat
 * @param {GamePage | null} page
 * @returns {Node[] | string}
 */
function cell(d, seat, page) {
  const own = page?.sheetCell?.(d, seat) ?? {};
  const out = [...(own.before ?? [])];
  const pts = d.points ?? d.net ?? d.delta;
  if (Array.isArray(pts)) out.push(h('b', {}, `${pts[seat] > 0 ? '+' : ''}${pts[seat]}`));
  out.push(...(own.after ?? []));
  const running = d.totals ?? d.chips;
  if (Array.isArray(running)) out.push(h('small', { class: 'running' }, String(running[seat])));
  return out.length ? out : '·';
}

async function ledgerTab(state, body) {
  try {
    const l = await get(`/tables/${state.id}/ledger`);
    const players = state.table.players;
    const account = (a) => (a.startsWith('seat:') ? players[Number(a.slice(5))] ?? a : a.replaceAll('_', ' '));
    mount(body,
      h('h2', {}, 'Balances'),
      h('ul', { class: 'pools' }, l.balances.map((b) => h('li', {}, h('span', {}, account(b.account)), h('b', {}, String(b.balance))))),
      h('h2', {}, 'Bookings'),
      l.bookings.length ? h('ol', { class: 'bookings' }, l.bookings.map((b) => h('li', {},
        h('p', {}, bookingText(b, numberingOf(pageOf(state)).word)),
        h('p', { class: 'postings' }, b.postings.map((p) => `${account(p.account)} ${p.amount > 0 ? '+' : ''}${p.amount}`).join(' · ')))))
        : message('No bookings: this game keeps points, not chips.'),
      csvLink(`/api/v1/tables/${state.id}/ledger?format=csv`, 'Download the ledger (CSV)'));
  } catch (err) {
    mount(body, message(err.message, 'error'));
  }
}

export { Refusal, Unreachable, kinds, phone, recordingToken };
