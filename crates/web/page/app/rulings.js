// @ts-check
// The result as it becomes final (issue #42), on the page: the director's screen (a ruling on a
// finished deal, and what it moved, seat by seat; the session's flagged deals), a phone's answer
// to a ruling at its table (agree or appeal, once), and the correction window's countdown.
//
// The director's screen is the organiser's, route #/session/<id>/director[/<table>/<deal>]: a
// ruling is `POST /tables/{id}/deals/{n}/rulings` with the organiser's token and an
// Idempotency-Key made here, and its answer's `diff` is drawn as it comes: nothing is worked out
// on the page. An `assigned` result is entered as the deal as it should have been, as the
// table's Deals tab enters a correction (card by card or as a result); the screen links there
// (#/table/<id>/assign/<deal>), and what is entered is sent as the ruling.

import { get, newKey, organiser, post, recordingToken, scorerToken } from './api.js';
import { button, h, message, mount } from './dom.js';
import { myRecordedBy } from './scorers.js';
import { countdownText, rulingsToAnswer, spaced } from './words.js';

/** @typedef {import('./types.js').LogEntry} LogEntry */

/**
 * What a ruling moved (`RulingDiff`).
 * @typedef {object} RulingDiff
 * @property {{ seat: number, player: string, score_before: number, score_after: number, chips_before: number, chips_after: number }[]} seats
 * @property {{ account: string, before: number, after: number }[]} accounts
 * @property {{ deal: number, before: Record<string, any>, after: Record<string, any> }[]} later_deals
 * @property {{ player: string, chips_before: number, chips_after: number, points_before?: number | null, points_after?: number | null }[]} standings
 */

// ---- The countdown ------------------------------------------------------------------------------

/// The countdowns on screen: one timer moves them all, and forgets those no longer shown.
/** @type {Set<HTMLElement & { session?: any, short?: boolean }>} */
const counting = new Set();
/** @type {ReturnType<typeof setInterval> | null} */
let ticker = null;

/// "Corrections close in 12:34" while the session's correction window runs, then "Final";
/// nothing for an open session. `tag`: a span in a header line, else a paragraph; `short`: "Final
/// in 12:34", for a phone's header line.
/**
 * @param {{ status?: string | null, final_at?: string | null } | null | undefined} session
 * @param {string} [tag]
 * @param {boolean} [short]
 * @returns {HTMLElement | null}
 */
export function countdown(session, tag = 'p', short = false) {
  const text = countdownText(session, Date.now(), short);
  if (text == null) return null;
  const el = h(tag, { class: `countdown${text === 'Final' ? ' final' : ''}`, role: 'timer', 'aria-label': 'Correction window' }, text);
  el.session = session;
  el.short = short;
  counting.add(el);
  ticker ??= setInterval(() => {
    for (const shown of counting) {
      // Drawn anew since: the new one counts.
      if (!shown.isConnected) {
        counting.delete(shown);
        continue;
      }
      const now = countdownText(shown.session, Date.now(), shown.short) ?? '';
      if (shown.textContent !== now) shown.textContent = now;
      shown.classList.toggle('final', now === 'Final');
    }
    if (!counting.size && ticker) {
      clearInterval(ticker);
      ticker = null;
    }
  }, 500);
  return el;
}

// ---- What a ruling moved --------------------------------------------------------------------------

/// A signed number: "+3", "0", "-2".
const signed = (/** @type {number} */ n) => `${n > 0 ? '+' : ''}${n}`;

/// A ledger account in the club's words: a seat by its player, a fund by its name.
/**
 * @param {string} account
 * @param {string[]} players
 */
function accountName(account, players) {
  return account.startsWith('seat:') ? players[Number(account.slice(5))] ?? account : spaced(account);
}

/// The ruling's diff: each seat's score (and chips, at a chip game) before and after, as a table;
/// then the accounts, later deals and standings that moved.
/**
 * @param {RulingDiff} diff
 * @param {string} label the table's accessible name
 * @returns {HTMLElement}
 */
export function diffTable(diff, label) {
  const seats = diff.seats || [];
  // `player` is named so, not read as `x.player`: that word is Tridge's own in a table's view.
  const players = seats.map(({ player }) => player);
  const chips = seats.some((s) => s.chips_before !== 0 || s.chips_after !== 0) || (diff.accounts || []).length > 0;
  const cellOf = (/** @type {number} */ before, /** @type {number} */ after, /** @type {string} */ what) => [
    h('td', { 'data-before': before, 'data-what': what }, String(before)),
    h('td', { 'data-after': after, 'data-what': what, class: after !== before ? 'moved' : null },
      String(after), after !== before ? h('small', {}, ` (${signed(after - before)})`) : null),
  ];
  const cols = ['Player', 'Score before', 'Score after', ...(chips ? ['Chips before', 'Chips after'] : [])];
  const moved = [];
  for (const a of diff.accounts || []) moved.push(`${accountName(a.account, players)}: ${a.before} → ${a.after}`);
  for (const d of diff.later_deals || []) {
    const t = (/** @type {Record<string, any>} */ line) => (Array.isArray(line?.totals) ? line.totals.join(' / ') : JSON.stringify(line));
    moved.push(`Deal ${d.deal}'s line moved: ${t(d.before)} → ${t(d.after)}`);
  }
  for (const p of diff.standings || []) {
    const { player } = p;
    const bits = [];
    if (p.points_before != null && p.points_after != null && p.points_before !== p.points_after) bits.push(`points ${p.points_before} → ${p.points_after}`);
    if (p.chips_before !== p.chips_after) bits.push(`chips ${p.chips_before} → ${p.chips_after}`);
    if (bits.length) moved.push(`${player}'s standing in the session: ${bits.join(', ')}`);
  }
  return h('div', { class: 'diff' },
    h('table', { class: 'sheet diff-table', 'aria-label': label },
      h('thead', {}, h('tr', {}, cols.map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, seats.map((s, i) => h('tr', { 'data-seat': s.seat },
        h('th', { scope: 'row' }, players[i]),
        cellOf(s.score_before, s.score_after, 'score'),
        chips ? cellOf(s.chips_before, s.chips_after, 'chips') : null)))),
    moved.length ? h('ul', { class: 'log diff-moved', 'aria-label': 'Also moved' }, moved.map((m) => h('li', {}, m))) : null);
}

// ---- The director's screen ------------------------------------------------------------------------

const KINDS = [['void', 'Void'], ['average', 'Average'], ['split', 'Split'], ['assigned', 'Assigned']];
const PERCENTS = [40, 50, 60];
const KIND_WORDS = {
  void: 'the deal does not count: no points, and every account it moved goes back',
  average: 'each seat chosen gets the percentage of the deal\'s best score (at a chip game, nets 0 chips)',
  split: 'each seat gets the result you give it (at a chip game, net chips summing to 0)',
  assigned: 'the deal as it should have been, entered card by card or as a result',
};

/// What the director has chosen, per session: kept while the screen is drawn again.
/** @type {Map<string, any>} */
const chosen = new Map();

/// The director's screen of session `id`; `table` and `deal` (from the route) are chosen first.
/**
 * @param {string} id
 * @param {HTMLElement} root
 * @param {string} [table]
 * @param {string} [deal]
 */
export async function directorScreen(id, root, table, deal) {
  const { top, guarded } = await import('./organiser.js');
  mount(root, top('Director', `#/session/${id}`), message('Loading…'));
  await guarded(root, async () => {
    const token = organiser.token;
    const [session, flags] = await Promise.all([
      get(`/sessions/${id}`, { token }),
      get(`/sessions/${id}/flags`, { token }).catch(() => []),
    ]);
    const state = chosen.get(id) || { kind: 'void', seats: [], percent: 50, results: {}, reason: '' };
    chosen.set(id, state);
    if (table) Object.assign(state, { table, deal: Number(deal) || null, made: null });
    state.table ??= session.tables[0]?.id ?? null;
    const numberOf = (/** @type {string} */ t) => session.tables.findIndex((x) => x.id === t) + 1;
    const flagged = h('section', { class: 'card-box flagged', 'aria-labelledby': 'flagged-head' },
      h('h2', { id: 'flagged-head' }, 'Flagged deals'),
      flags.length
        ? h('ul', { class: 'list', 'aria-label': 'Flagged deals' }, flags.map((f) => h('li', { 'data-table': f.table_id, 'data-deal': f.deal },
          h('p', {}, h('b', {}, `Table ${numberOf(f.table_id)}, deal ${f.deal}: `), f.flags.map((x) => x.reason).join('; ')),
          h('p', { class: 'facts' }, f.cleared ? (f.ruled ? 'ruled on' : 'checked by a second phone') : "needs a second phone's check or a ruling"),
          h('a', { class: 'button', href: `#/session/${id}/director/${f.table_id}/${f.deal}` }, `Rule on table ${numberOf(f.table_id)}, deal ${f.deal}`))))
        : message('No deal of the session is flagged.'));
    const form = h('section', { class: 'card-box ruling', 'aria-labelledby': 'ruling-head' });
    mount(root, top(`Director: ${session.name}`, `#/session/${id}`), countdown(session), form, flagged);
    if (!session.tables.length) {
      mount(form, h('h2', { id: 'ruling-head' }, 'A ruling'), message('No tables yet.'));
      return;
    }
    await drawForm(form, session, state, numberOf);
  });
}

/**
 * @param {HTMLElement} form
 * @param {any} session
 * @param {any} state
 * @param {(t: string) => number} numberOf
 */
async function drawForm(form, session, state, numberOf) {
  const token = organiser.token;
  const t = session.tables.find((/** @type {any} */ x) => x.id === state.table) ?? session.tables[0];
  state.table = t.id;
  const again = () => drawForm(form, session, state, numberOf);
  // Each choice draws the form again after a read: only the latest drawing is shown, so one
  // that answers late never puts an older form back under the director's finger.
  const drawing = (state.drawing = (state.drawing ?? 0) + 1);
  let deals = [];
  try {
    deals = await get(`/tables/${t.id}/deals`, { token });
  } catch (err) {
    mount(form, h('h2', { id: 'ruling-head' }, 'A ruling'), message(err.message, 'error'));
    return;
  }
  if (drawing !== state.drawing) return;
  if (!deals.some((/** @type {any} */ d) => d.deal === state.deal)) state.deal = deals.length ? deals[deals.length - 1].deal : null;
  const tableSelect = h('select', { id: 'ruling-table' }, session.tables.map((/** @type {any} */ x, /** @type {number} */ i) =>
    h('option', { value: x.id, selected: x.id === t.id }, `Table ${i + 1}: ${x.players.join(', ')}`)));
  tableSelect.addEventListener('change', () => { Object.assign(state, { table: tableSelect.value, deal: null, made: null, seats: [], results: {}, refused: null }); again(); });
  const pick = (/** @type {string} */ label, /** @type {any[]} */ options, /** @type {(o: any) => string} */ text, /** @type {(o: any) => boolean} */ on, /** @type {(o: any) => void} */ set) =>
    h('div', { class: 'choices', role: 'radiogroup', 'aria-label': label }, options.map((o) =>
      button(text(o), () => { set(o); state.refused = null; again(); }, { role: 'radio', 'aria-checked': String(on(o)), class: on(o) ? 'chosen' : null })));
  // A refusal (or a reason missing) stays in the form's state until the director changes a
  // choice or tries again: a drawing that comes after it (a late read) shows it still.
  const status = h('div', { 'aria-live': 'polite' }, state.refused ? message(state.refused, 'error') : null);
  const refuse = (/** @type {string} */ text) => { state.refused = text; mount(status, message(text, 'error')); };
  // The same field in every drawing: what is being typed is never swapped for a copy.
  state.reasonInput ??= h('input', { id: 'ruling-reason', maxlength: 500, autocomplete: 'off', placeholder: 'the board was fouled', oninput: (/** @type {any} */ e) => { state.reason = e.target.value; } });
  state.reasonInput.value = state.reason;
  const reasonField = [h('label', { for: 'ruling-reason' }, 'Reason for the ruling'), state.reasonInput];
  const players = t.players;
  let fields = null;
  if (state.kind === 'average') {
    fields = [
      h('p', { class: 'option-label' }, 'Average for (none chosen: every seat)'),
      h('div', { class: 'choices', role: 'group', 'aria-label': 'Seats given average' }, players.map((/** @type {string} */ p, /** @type {number} */ seat) => {
        const on = state.seats.includes(seat);
        return button(p, () => { state.seats = on ? state.seats.filter((/** @type {number} */ s) => s !== seat) : [...state.seats, seat].sort(); again(); },
          { 'aria-pressed': String(on), 'aria-label': `Average for ${p}`, class: on ? 'chosen' : null });
      })),
      h('p', { class: 'option-label' }, 'Percentage of the deal\'s best score (a points game)'),
      pick('Percentage', PERCENTS, (n) => `${n} %`, (n) => state.percent === n, (n) => { state.percent = n; }),
    ];
  } else if (state.kind === 'split') {
    fields = [h('p', { class: 'option-label' }, 'Each seat\'s result (points; net chips at a chip game). Leave a seat empty to keep its own.'),
      players.map((/** @type {string} */ p, /** @type {number} */ seat) => [
        h('label', { for: `split-${seat}` }, `Result for ${p}`),
        h('input', { id: `split-${seat}`, type: 'number', inputmode: 'numeric', step: 1, value: state.results[seat] ?? '', oninput: (/** @type {any} */ e) => { state.results[seat] = e.target.value; } })])];
  } else if (state.kind === 'assigned') {
    fields = state.deal == null
      ? [h('p', {}, 'Choose the deal first.')]
      : [h('p', {}, `Enter deal ${state.deal} as it should have been, card by card or as a result, with the reason: it is sent as the ruling.`),
        h('a', { class: 'button', href: `#/table/${t.id}/assign/${state.deal}` }, `Enter deal ${state.deal} of table ${numberOf(t.id)}`)];
  }
  const submit = state.kind === 'assigned' || state.deal == null ? null : button('Make the ruling', async () => {
    const reason = state.reason.trim();
    if (!reason) {
      refuse('Say why: the players see the reason with the ruling.');
      return;
    }
    /** @type {Record<string, any>} */
    const body = { kind: state.kind, reason };
    if (state.kind === 'average') {
      if (state.seats.length) body.seats = state.seats;
      body.percent = state.percent;
    }
    if (state.kind === 'split') {
      body.results = Object.entries(state.results).filter(([, v]) => v !== '' && v != null).map(([seat, v]) => ({ seat: Number(seat), result: Number(v) }));
    }
    try {
      state.made = await post(`/tables/${t.id}/deals/${state.deal}/rulings`, body, { token, headers: { 'Idempotency-Key': newKey() } });
      state.reason = '';
      state.refused = null;
      again();
    } catch (err) {
      refuse(err.message);
    }
  }, { class: 'primary' });
  let earlier = [];
  if (state.deal != null) {
    earlier = await get(`/tables/${t.id}/deals/${state.deal}/rulings`, { token }).catch(() => []);
  }
  if (drawing !== state.drawing) return;
  const made = state.made && state.made.table_id === t.id && state.made.deal === state.deal ? state.made : null;
  mount(form,
    h('h2', { id: 'ruling-head' }, 'A ruling'),
    h('label', { for: 'ruling-table' }, 'Table'), tableSelect,
    deals.length
      ? [h('p', { class: 'option-label' }, 'Deal (finished)'),
        pick('Deal', deals, (d) => `${d.deal}${d.flags ? ' ⚑' : ''}`, (d) => d.deal === state.deal, (d) => { state.deal = d.deal; state.made = null; })]
      : message('No finished deal at this table yet.'),
    h('p', { class: 'option-label' }, 'Kind'),
    pick('Kind', KINDS, ([, w]) => w, ([k]) => state.kind === k, ([k]) => { state.kind = k; }),
    h('p', { class: 'facts' }, KIND_WORDS[/** @type {keyof typeof KIND_WORDS} */ (state.kind)]),
    fields,
    state.kind === 'assigned' ? null : reasonField,
    status,
    submit,
    made ? h('section', { class: 'ruling-made', 'aria-label': 'The ruling made' },
      message(`Ruled: ${spaced(made.kind)} of deal ${made.deal} at table ${numberOf(t.id)}.`, 'ok'),
      diffTable(made.diff, `What the ruling moved at table ${numberOf(t.id)}, deal ${made.deal}`)) : null,
    earlier.length ? h('section', { class: 'rulings-earlier', 'aria-label': `Rulings of deal ${state.deal}` },
      h('h3', {}, `Rulings of deal ${state.deal}`),
      h('ol', { class: 'log' }, earlier.map((/** @type {any} */ r) => h('li', { 'data-ruling': r.id },
        `${spaced(r.kind)}: “${r.reason}”`,
        r.answers.length
          ? r.answers.map((/** @type {any} */ a) => h('small', { class: 'answer' }, ` · ${a.answer === 'agree' ? 'agreed' : 'appealed'} by ${a.recorded_by_name}${a.comment ? `: “${a.comment}”` : ''}`))
          : h('small', {}, ' · no answer yet'))))) : null);
}

// ---- A phone's answer ---------------------------------------------------------------------------

/// The rulings at the phone's table it has not answered, each with its kind, reason and what it
/// moved, and Agree / Appeal with an optional comment. Shown to a phone that joined the table
/// (a scorer token), once: after its answer the ruling is not offered again. `ui` keeps the
/// comments typed and the answers sent while the table is drawn again; `redraw` draws it.
/**
 * @param {{ id: string, log: LogEntry[], ui: { comments: Map<number, string>, sent: Set<number>, note: string | null }, redraw: () => void }} ctx
 * @returns {HTMLElement | null}
 */
export function answerPanels(ctx) {
  if (!scorerToken(ctx.id)) return null;
  const { ui } = ctx;
  const open = rulingsToAnswer(ctx.log, myRecordedBy(ctx.id)).filter((e) => !ui.sent.has(/** @type {number} */ (e.seq)));
  if (!open.length && !ui.note) return null;
  return h('section', { class: 'rulings-to-answer', 'aria-label': "The director's rulings" },
    ui.note ? message(ui.note, 'ok') : null,
    open.map((e) => {
      const m = /** @type {Record<string, any>} */ (e.move);
      const seq = /** @type {number} */ (e.seq);
      const status = h('div', { 'aria-live': 'polite' });
      const id = `ruling-comment-${seq}`;
      const answer = async (/** @type {'agree' | 'appeal'} */ said) => {
        const comment = (ui.comments.get(seq) || '').trim();
        try {
          await post(`/tables/${ctx.id}/deals/${m.deal}/rulings/${seq}/answers`, comment ? { answer: said, comment } : { answer: said },
            { token: recordingToken(ctx.id), headers: { 'Idempotency-Key': newKey() } });
          ui.sent.add(seq);
          ui.comments.delete(seq);
          ui.note = `You ${said === 'agree' ? 'agreed with' : 'appealed'} the ruling on deal ${m.deal}.`;
          ctx.redraw();
        } catch (err) {
          mount(status, message(err.message, 'error'));
        }
      };
      return h('section', { class: 'card-box ruling-answer', 'aria-label': `Ruling on deal ${m.deal}`, 'data-ruling': seq },
        h('h3', {}, `The director ruled on deal ${m.deal}: ${spaced(m.kind)}`),
        h('p', {}, `“${m.reason}”`),
        m.diff ? diffTable(m.diff, `What the ruling on deal ${m.deal} moved`) : null,
        h('label', { for: id }, 'Comment (optional)'),
        h('input', { id, maxlength: 500, autocomplete: 'off', value: ui.comments.get(seq) || '', placeholder: 'Dan had not seen the card', oninput: (/** @type {any} */ ev) => { ui.comments.set(seq, ev.target.value); } }),
        status,
        h('div', { class: 'row' },
          button('Agree', () => answer('agree'), { class: 'primary', 'aria-label': `Agree with the ruling on deal ${m.deal}` }),
          button('Appeal', () => answer('appeal'), { 'aria-label': `Appeal the ruling on deal ${m.deal}` })));
    }));
}
