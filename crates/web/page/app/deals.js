// @ts-check
// The Deals tab: every finished deal with its status (verified, unverified, disputed) and its
// entries trick by trick, each trick's winner named; "Correct deal n" re-enters a deal with the
// game's own panels, card by card or as a result, and a reason (PUT /tables/{id}/deals/{n}):
// each entry is checked by a dry run on the server (POST …/preview) whose view says what is
// legal next; another phone agrees with a deal or disputes it with its own entry
// (POST …/verification). The score sheet marks each
// deal's status through `markSheet`. "Download receipts" saves what api.js kept, and the last
// checkpoint this phone cosigned (witness.js).
//
// `ctx` = { id, table, log, players, reload(), render() }: the table screen's state, a way to
// read the table again after a correction, and a way to draw the screen again.

import { get, newKey, organiser, post, put, receipts, recordingToken } from './api.js';
import { lastCosigned } from './witness.js';
import { button, h, message, mount } from './dom.js';
import { numberingOf } from './legal.js';
import { entriesOfDeal, groupByDeal } from './entries.js';
import { entryPanel, gameModule } from './panels.js';
import { changeWords, dealChanges, describeParts } from './words.js';

const STATUS = {
  verified: 'verified',
  unverified: 'unverified: no second phone has checked it',
  disputed: 'disputed: another phone recorded it differently',
};

/// What the tab is doing, per table: the open deal, and a correction or dispute being entered.
const open = new Map();

/**
 * @param {import('./types.js').TableView} table
 * @returns {string} "Deal", or "Hand" for a game that numbers hands
 */
function wordFor(table) {
  return numberingOf(gameModule(table.game)).word;
}

export async function dealsTab(ctx, body) {
  const word = wordFor(ctx.table);
  const tools = h('p', { class: 'export' }, downloadReceipts(ctx.id));
  let standings;
  try {
    standings = await get(`/tables/${ctx.id}/deals`);
  } catch (err) {
    mount(body, tools, message(`${err.message}: the deals' status cannot be read now.`, 'warn'), localDeals(ctx, word));
    return;
  }
  const seen = open.get(ctx.id) || {};
  const changes = dealChanges(ctx.log);
  const list = h('ol', { class: 'deal-list', 'aria-label': `${word}s`, reversed: true },
    [...standings].reverse().map((d) => h('li', { class: `deal-line status-${d.status}`, 'data-deal': d.deal, 'data-status': d.status },
      button([`${word} ${d.deal}`, ' ', h('span', { class: 'status' }, d.status)], () => {
        open.set(ctx.id, seen.deal === d.deal ? {} : { deal: d.deal });
        dealsTab(ctx, body);
        // The name begins with what the button shows (axe: label-content-name-mismatch).
      }, { 'aria-label': `${word} ${d.deal} ${d.status}, Open ${word.toLowerCase()} ${d.deal}`, 'aria-expanded': String(seen.deal === d.deal) }),
      dealMarks(d, changes.get(d.deal)))));
  const detail = h('section', { class: 'deal-detail', 'aria-live': 'polite' });
  mount(body, tools, standings.length ? list : message(`No finished ${word.toLowerCase()}s yet.`), detail, current(ctx, word, standings.length + 1));
  if (seen.deal) await dealDetail(ctx, detail, seen.deal, word);
}

/// What changed a finished deal since it was recorded ("corrected", "ruled: average") and each
/// flag on it with its reason; a flagged deal not yet verified (nor ruled on) says it waits for a
/// second phone, which is what the session's close waits for.
/**
 * @param {{ deal: number, status: string, flags?: { rule: string, reason: string }[] }} d
 * @param {{ corrected: boolean, rulings: string[] } | undefined} changes
 */
function dealMarks(d, changes) {
  const changed = changeWords(changes);
  const flags = d.flags || [];
  if (!changed.length && !flags.length) return null;
  const ruled = Boolean(changes?.rulings.length);
  return h('div', { class: 'deal-marks' },
    changed.length ? h('p', { class: 'changed', 'data-changed': changed.join(' · ') }, changed.join(' · ')) : null,
    flags.map((f) => h('p', { class: 'flag', 'data-rule': f.rule },
      h('b', {}, 'Flagged: '), f.reason,
      d.status !== 'verified' && !ruled ? h('span', { class: 'flag-check' }, " — needs a second phone's check") : null)));
}

/// The deal being recorded, from the log: its entries so far.
function current(ctx, word, n) {
  if (ctx.table.finished) return null;
  const entries = entriesOfDeal(ctx.log, n, numberingOf(gameModule(ctx.table.game)));
  return h('section', { class: 'deal-now', 'aria-label': `${word} ${n}, being recorded` },
    h('h3', {}, `${word} ${n}, being recorded`),
    entries.length ? h('ol', { class: 'log' }, entries.map((e) => h('li', { class: e.voided_by ? 'voided' : '' },
      describeParts(e, ctx.players, gameModule(ctx.table.game)), e.voided_by ? ' (undone)' : ''))) : message('Nothing recorded in it yet.'));
}

/// Without the server: the log as this phone saw it, grouped by deal.
function localDeals(ctx, word) {
  const groups = groupByDeal(ctx.log, numberingOf(gameModule(ctx.table.game)));
  return groups.filter((g) => g.entries.length).reverse().map((g) => h('details', {},
    h('summary', {}, `${word} ${g.deal}`),
    h('ol', { class: 'log' }, g.entries.map((e) => h('li', { class: e.voided_by ? 'voided' : '' },
      describeParts(e, ctx.players, gameModule(ctx.table.game)), e.voided_by ? ' (undone)' : '')))));
}

async function dealDetail(ctx, detail, n, word) {
  mount(detail, message(`Loading ${word.toLowerCase()} ${n}…`));
  let deal;
  try {
    deal = await get(`/tables/${ctx.id}/deals/${n}`);
  } catch (err) {
    mount(detail, message(err.message, 'error'));
    return;
  }
  const players = ctx.players;
  const who = (s) => players[s] ?? `seat ${s}`;
  const state = open.get(ctx.id) || { deal: n };
  const lines = [];
  for (const m of deal.moves) {
    lines.push(h('li', {}, describeParts({ entry: 'move', move: m.move }, players, gameModule(ctx.table.game)), h('small', {}, ` (${m.recorded_by_name})`)));
    for (const ev of m.events || []) {
      // Each trick's winner, as the engine decided it.
      if (ev.event === 'trick_won' && ev.winner != null) {
        lines.push(h('li', { class: 'trick-winner' }, `Trick ${ev.trick ?? ''} won by ${who(ev.winner)}`.replace('  ', ' ')));
      }
    }
  }
  const corrections = deal.corrections.map((c) => h('li', {},
    `Corrected by ${c.recorded_by_name}: “${c.reason}”${c.voided_by ? ' (undone)' : ''}`));
  const verifications = deal.verifications.map((v) => h('li', { class: v.current ? '' : 'voided' },
    `${v.agree ? 'Agreed' : 'Disputed'} by ${v.verified_by_name}${v.current ? '' : ' (before a correction)'}`));
  const rulings = (deal.rulings || []).map((r) => h('li', {},
    `Ruled ${String(r.kind).replaceAll('_', ' ')} by ${r.recorded_by_name}: “${r.reason}”`,
    (r.answers || []).map((a) => h('small', { class: 'answer' }, ` · ${a.answer === 'agree' ? 'agreed' : 'appealed'} by ${a.recorded_by_name}${a.comment ? `: “${a.comment}”` : ''}`))));
  const disputes = deal.verifications.filter((v) => !v.agree && v.current && Array.isArray(v.moves) && v.differs?.length)
    .map((v) => dispute(ctx, deal, v));
  // The fields that differ are named in the disputes' tables, with their values; in the
  // sentence only when there is no table to show them.
  const status = h('p', { class: `deal-status status-${deal.status}`, 'data-status': deal.status },
    `${word} ${n} is ${STATUS[deal.status] || deal.status}.`,
    deal.status === 'disputed' && deal.differs.length && !disputes.length ? ` It differs in ${deal.differs.map((d) => differsWord(d, players)).join(', ')}.` : '');
  const note = h('div', { class: 'deal-note', 'aria-live': 'polite' }, state.done ? message(state.done, 'ok') : null);
  const actions = deal.finished ? h('div', { class: 'row' },
    button(`Correct ${word.toLowerCase()} ${n}`, () => edit(ctx, detail, n, word, 'correct')),
    button(`Agree with ${word.toLowerCase()} ${n}`, () => verify(ctx, detail, n, word, note)),
    button(`Dispute ${word.toLowerCase()} ${n}`, () => edit(ctx, detail, n, word, 'dispute'))) : null;
  mount(detail,
    h('h3', {}, `${word} ${n}`),
    status,
    disputes,
    lineText(deal.lines, players),
    h('ol', { class: 'log', 'aria-label': `Entries of ${word.toLowerCase()} ${n}` }, lines),
    corrections.length ? h('ul', { class: 'log', 'aria-label': 'Corrections' }, corrections) : null,
    rulings.length ? h('ul', { class: 'log', 'aria-label': 'Rulings' }, rulings) : null,
    verifications.length ? h('ul', { class: 'log', 'aria-label': 'Verifications' }, verifications) : null,
    note,
    actions);
  if (state.editing && state.deal === n) editor(ctx, detail, deal, word);
}

/// A dispute beside the deal as recorded: for each field it changes, what the recording phone
/// entered and what the disputing phone entered, side by side. The server keeps the dispute's
/// moves and the fields they change; what those moves score is asked of the server's dry run
/// (POST …/preview, nothing stored), so the page reckons no score of its own.
function dispute(ctx, deal, v) {
  const players = ctx.players;
  const recorders = [...new Set(deal.moves.map((m) => m.recorded_by_name))].join(', ') || 'the table';
  const box = h('table', { class: 'dispute', 'aria-label': `Dispute by ${v.verified_by_name}` },
    h('caption', {}, `${v.verified_by_name} disputes it`),
    h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Differs in'), h('th', { scope: 'col' }, recorders), h('th', { scope: 'col' }, v.verified_by_name))));
  const rows = (theirs) => h('tbody', {}, v.differs.map((pointer) => h('tr', { 'data-pointer': pointer },
    h('th', { scope: 'row' }, differsWord(pointer, players)),
    h('td', {}, valueText(at(deal.lines, pointer))),
    h('td', {}, theirs ? valueText(at(theirs, pointer)) : '…'))));
  box.append(rows(null));
  post(`/tables/${ctx.id}/deals/${deal.deal}/preview`, { moves: v.moves }, { token: recordingToken(ctx.id) })
    .then((preview) => box.querySelector('tbody')?.replaceWith(rows(preview.lines)))
    .catch(() => box.querySelectorAll('tbody td:last-child').forEach((td) => { td.textContent = 'not readable now'; }));
  return box;
}

/// The value at a JSON pointer (RFC 6901) into `doc`, or undefined.
function at(doc, pointer) {
  return pointer.split('/').slice(1).map((p) => p.replaceAll('~1', '/').replaceAll('~0', '~'))
    .reduce((v, key) => (v == null ? undefined : v[key]), doc);
}

function valueText(value) {
  if (value === undefined || value === null) return '—';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/// "Bob's tricks": a dispute's JSON pointer (`/0/tricks/1`) in words.
function differsWord(pointer, players) {
  const parts = pointer.split('/').filter(Boolean);
  const field = parts.find((p) => Number.isNaN(Number(p))) || 'result';
  const seat = parts.length > 2 ? Number(parts[parts.length - 1]) : NaN;
  const what = field.replaceAll('_', ' ');
  return Number.isNaN(seat) ? what : `${players[seat] ?? `seat ${seat}`}'s ${what}`;
}

/// The score-sheet line in words: points (or chips) per seat.
function lineText(lines, players) {
  const line = lines?.[0];
  if (!line) return null;
  const pts = line.points ?? line.net ?? line.delta;
  if (!Array.isArray(pts)) return null;
  return h('p', { class: 'facts' }, players.map((p, s) => `${p} ${pts[s] > 0 ? '+' : ''}${pts[s]}`).join(' · '));
}

async function verify(ctx, detail, n, word, note) {
  try {
    await post(`/tables/${ctx.id}/deals/${n}/verification`, { agree: true }, { token: recordingToken(ctx.id) });
    open.set(ctx.id, { deal: n, done: `You agreed with ${word.toLowerCase()} ${n}.` });
    await dealsTab(ctx, detail.parentElement);
  } catch (err) {
    mount(note, message(err.message, 'error'));
  }
}

function edit(ctx, detail, n, word, kind) {
  open.set(ctx.id, { deal: n, editing: kind, moves: [], labels: [], preview: null });
  dealsTab(ctx, detail.parentElement);
}

/// The dry run of the moves entered so far (POST …/deals/{n}/preview): the deal's view after
/// them, with whose turn it is and what is legal next, so that the game's own panels can be
/// driven card by card; nothing is stored. Answers null (and says why in `status`) when the
/// server refused or cannot be reached.
async function previewOf(ctx, n, moves, status) {
  try {
    return await post(`/tables/${ctx.id}/deals/${n}/preview`, { moves }, { token: recordingToken(ctx.id) });
  } catch (err) {
    mount(status, message(err.message, 'error'));
    return null;
  }
}

/// How the deal was recorded: re-entered the same way unless the scorer switches.
function recordedAs(deal) {
  return deal.moves.length && deal.moves.every((m) => m.kind === 'result') ? 'result' : 'cards';
}

/// The moves entered so far as log entries, with the engine's events: the card picker greys the
/// cards played, and each finished trick is shown with its winner.
function enteredLog(state) {
  return state.moves.map((move, i) => ({ entry: 'move', move, events: state.preview?.events?.[i] || [] }));
}

function enteredList(state, players) {
  const who = (s) => players[s] ?? `seat ${s}`;
  const items = [];
  state.labels.forEach((label, i) => {
    items.push(h('li', {}, label));
    for (const ev of state.preview?.events?.[i] || []) {
      if (ev.event === 'trick_won' && ev.winner != null) {
        items.push(h('li', { class: 'trick-winner' }, `Trick ${ev.trick ?? ''} won by ${who(ev.winner)}`.replace('  ', ' ')));
      }
    }
  });
  return items.length ? h('ol', { class: 'log', 'aria-label': 'Entered so far' }, items) : null;
}

/// Opens deal `n` of table `id` in the director's `assigned` ruling: the deal entered as it
/// should have been, as a correction is, and sent as the ruling (the director's screen links
/// here: #/table/<id>/assign/<n>).
/**
 * @param {string} id
 * @param {number} n
 */
export function openForRuling(id, n) {
  open.set(id, { deal: n, editing: 'assign', moves: [], labels: [], preview: null });
}

function editor(ctx, detail, deal, word) {
  const n = deal.deal;
  const state = open.get(ctx.id);
  const correcting = state.editing === 'correct';
  const assigning = state.editing === 'assign';
  const noun = `${word.toLowerCase()} ${n}`;
  const box = h('section', { class: 'card-box correction', 'aria-label': correcting ? `Correction of ${noun}` : assigning ? `Ruling on ${noun}` : `Dispute of ${noun}` });
  const title = h('h3', {}, correcting ? `Correct ${noun}` : assigning ? `Rule on ${noun}: the result assigned` : `Dispute ${noun}`);
  const again = () => dealsTab(ctx, detail.parentElement);
  const reasonId = `reason-${n}`;
  const reason = correcting || assigning
    ? [h('label', { for: reasonId }, assigning ? 'Reason for the ruling' : 'Reason for the correction'),
      h('input', { id: reasonId, maxlength: 500, autocomplete: 'off', value: state.reason || '', placeholder: "that was Bob's 7, not Ann's", oninput: (e) => { state.reason = e.target.value; } })]
    : null;
  const status = h('div', { 'aria-live': 'polite' });
  const cancel = button('Cancel', () => { open.set(ctx.id, { deal: n }); again(); });
  const takeBack = state.moves.length
    ? button(`Take back ${state.labels[state.labels.length - 1]}`, async () => {
      const moves = state.moves.slice(0, -1);
      const preview = await previewOf(ctx, n, moves, status);
      if (!preview || open.get(ctx.id) !== state) return;
      state.moves = moves;
      state.labels = state.labels.slice(0, -1);
      state.preview = preview;
      again();
    })
    : null;
  detail.append(box);
  if (!state.preview) {
    // The deal's start as the engine has it: read once, then kept with the entries.
    state.mode ??= recordedAs(deal);
    mount(box, title, reason, message(`Loading ${noun}…`), status, cancel);
    previewOf(ctx, n, state.moves, status).then((preview) => {
      if (!preview || open.get(ctx.id) !== state) return;
      state.preview = preview;
      again();
    });
    return;
  }
  if (state.preview.complete) {
    const submit = button(correcting ? `Send the correction of ${noun}` : assigning ? `Make the ruling on ${noun}` : `Send the dispute of ${noun}`, async () => {
      const why = (state.reason || '').trim();
      if ((correcting || assigning) && !why) {
        mount(status, message(assigning ? 'Say why: the players see the reason with the ruling.' : 'Say why the deal is corrected: the log keeps the reason.', 'error'));
        return;
      }
      try {
        if (assigning) {
          await post(`/tables/${ctx.id}/deals/${n}/rulings`, { kind: 'assigned', moves: state.moves, reason: why },
            { token: organiser.token, headers: { 'Idempotency-Key': newKey() } });
          open.set(ctx.id, { deal: n, done: `Ruled: ${noun} assigned as entered.` });
          await ctx.reload();
          ctx.render();
          return;
        }
        if (correcting) {
          await put(`/tables/${ctx.id}/deals/${n}`, { moves: state.moves, expected_version: deal.version, reason: why }, { token: recordingToken(ctx.id) });
        } else {
          await post(`/tables/${ctx.id}/deals/${n}/verification`, { agree: false, moves: state.moves }, { token: recordingToken(ctx.id) });
        }
        open.set(ctx.id, { deal: n });
        await ctx.reload();
        ctx.render();
      } catch (err) {
        mount(status, message(err.message, 'error'));
      }
    }, { class: 'primary' });
    const line = lineText(state.preview.lines, ctx.players);
    const label = state.labels.length > 1 ? `${state.labels.length} entries` : state.labels.join('; ');
    // One entry (a result) is named in full above; "Enter it again" takes it back.
    const several = state.labels.length > 1;
    mount(box, title, reason, h('p', {}, `Entered: ${label}.`), several ? enteredList(state, ctx.players) : null,
      line ? [h('p', {}, `As entered, ${noun} scores:`), line] : null, status,
      h('div', { class: 'row' }, submit, several ? takeBack : null,
        button('Enter it again', () => { Object.assign(state, { moves: [], labels: [], preview: null }); again(); }), cancel));
    return;
  }
  const view = state.preview.state;
  const panel = entryPanel({
    game: ctx.table.game,
    view,
    table: { ...ctx.table, state: view, finished: false },
    log: enteredLog(state),
    players: ctx.players,
    mode: state.mode,
    setMode: (m) => { state.mode = m; again(); },
    // Collected, not posted: each entry is checked by a dry run, and the whole deal goes in one
    // correction or dispute.
    send: async (move, label) => {
      const moves = [...state.moves, move];
      const preview = await previewOf(ctx, n, moves, status);
      if (!preview || open.get(ctx.id) !== state) return;
      state.moves = moves;
      state.labels = [...state.labels, label];
      state.preview = preview;
      again();
    },
  });
  mount(box, title, reason,
    h('p', { class: 'prompt' }, correcting ? `Enter the ${word.toLowerCase()} as it should have been recorded.` : `Enter the ${word.toLowerCase()} as you saw it.`),
    enteredList(state, ctx.players), status, panel,
    h('div', { class: 'row' }, takeBack, cancel));
}

/// Marks each line of the score sheet with its deal's status.
export async function markSheet(id, body) {
  let standings;
  try {
    standings = await get(`/tables/${id}/deals`);
  } catch {
    return; // the sheet stands without the marks
  }
  const rows = body.querySelectorAll('table.sheet tbody tr');
  for (const row of rows) {
    const th = row.querySelector('th');
    const n = Number(th?.textContent);
    const d = standings.find((x) => x.deal === n);
    if (!d || th.querySelector('.deal-status')) continue;
    row.dataset.status = d.status;
    th.append(h('small', { class: `deal-status status-${d.status}`, title: STATUS[d.status] }, ` ${d.status}`));
  }
}

/// "Download receipts": the receipts this phone kept for the table, as a JSON file.
function downloadReceipts(id) {
  const kept = receipts(id);
  return button(`Download receipts (${kept.length})`, () => {
    // With the last checkpoint this phone cosigned: `tablekeeper verify --inclusion PROOF
    // --checkpoint <this file>` checks one move against it, offline.
    const cosigned = lastCosigned(id);
    const file = { table_id: id, receipts: receipts(id), ...(cosigned ? { checkpoint: cosigned } : {}) };
    const blob = new Blob([JSON.stringify(file, null, 2)], { type: 'application/json' });
    const a = h('a', { href: URL.createObjectURL(blob), download: `receipts-${id}.json` });
    document.body.append(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 0);
  }, { disabled: kept.length === 0 });
}
