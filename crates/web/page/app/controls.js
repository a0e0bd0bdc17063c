// @ts-check
// Shared controls for the games' page modules (`games/<id>.js`): prompts, the card picker for a
// game's deck, seat buttons, number buttons, the result form and its draft keeping, and the
// JSON form for moves a game's panel has no control for. Nothing here names a game: what
// differs between games is passed in (the deck arrives as `ctx.deck`, set by panels.js from
// the game's module).

import { cardText, picker } from './cards.js';
import { button, h } from './dom.js';
import { dealOf, openTo, playableCards, seenThisDeal } from './legal.js';

/** @typedef {import('./types.js').PanelContext} PanelContext */
/** @typedef {import('./types.js').Seat} Seat */
/** @typedef {import('./types.js').Card} Card */
/** @typedef {import('./types.js').Move} Move */

/// A seat's player's name.
export const name = (ctx, s) => ctx.players[s] ?? `seat ${s}`;

/// "play_diamonds" → "play diamonds".
export const words = (s) => String(s).replaceAll('_', ' ');

export function prompt(text) {
  return h('p', { class: 'prompt' }, text);
}

/// A card picker over the game's deck, cards already played this deal greyed.
export function cardPicker(ctx, { legal, onPick, label }) {
  return picker({ deck: ctx.deck, legal, seen: seenThisDeal(ctx.view, ctx.log), onPick, label });
}

/// The card picker for the seat to play, sending a `play` move.
export function playPicker(ctx) {
  const seat = openTo(ctx.view, 'play')?.seat ?? ctx.view.to_act;
  return [prompt(`${name(ctx, seat)} to play`),
    cardPicker(ctx, {
      legal: playableCards(ctx.deck, ctx.view, ctx.log, ctx.page?.live?.(ctx.view)),
      label: `Card for ${name(ctx, seat)}`,
      onPick: (card) => ctx.send({ kind: 'play', seat, card }, `${cardText(card)} for ${name(ctx, seat)}`),
    })];
}

/// Buttons 0…max (or `min`…max) for one number, a radio group named `label`: a tap chooses.
/// The value sits in a hidden input `id` ('' until chosen), so the form's checks and drafts read
/// it like any field; a value the form fills in itself is marked `data-auto`.
/**
 * @param {string} label
 * @param {string} id
 * @param {{ min?: number, max: number, value?: string | number }} range
 * @returns {HTMLElement}
 */
export function numberPad(label, id, { min = 0, max, value = '' }) {
  const input = h('input', { type: 'hidden', id, value: String(value) });
  const choices = [];
  for (let n = min; n <= max; n += 1) choices.push(String(n));
  return choicePad(label, input, choices.map((n) => [n, n]), 'numbers');
}

/// A number from a range too wide for a row of buttons (Dividend's 0…52 cards, Tricky Dick's
/// −16…16 chips): a group named `label` of a tens row (0, 10, …) and a units row (0…9), two
/// taps at most, and a sign row (+, −) when `min` is below 0. Each row is a radio group
/// ("<label> tens", "<label> units", "<label> sign"), so a keyboard or a screen reader reaches
/// every key; the value sits in the hidden input `id` like a number pad's. A key that would go
/// past the range is disabled.
/**
 * @param {string} label
 * @param {string} id
 * @param {{ min?: number, max: number, value?: string | number }} range
 * @returns {HTMLElement}
 */
export function tensPad(label, id, { min = 0, max, value = '' }) {
  const input = h('input', { type: 'hidden', id, value: String(value) });
  let negative = false;
  const current = () => (input.value === '' ? null : Math.abs(Number(input.value)));
  const limit = () => (negative ? -min : max);
  const set = (n) => {
    const v = negative && n !== 0 ? -n : n;
    input.value = String(v);
    delete input.dataset.auto;
    sync();
    input.dispatchEvent(new Event('input', { bubbles: true }));
  };
  const key = (text, onclick, extra = {}) => h('button', { type: 'button', role: 'radio', 'aria-checked': 'false', onclick, ...extra }, text);
  const tens = [];
  for (let t = 0; t <= Math.max(max, -min); t += 10) {
    tens.push(key(String(t), () => {
      const units = (current() ?? 0) % 10;
      set(t + units <= limit() ? t + units : t);
    }, { 'data-tens': String(t) }));
  }
  const units = Array.from({ length: 10 }, (_, u) => key(String(u), () => {
    set(Math.floor((current() ?? 0) / 10) * 10 + u);
  }, { 'data-units': String(u) }));
  const signs = min < 0
    ? [key('+', () => { negative = false; if (current() != null) set(Math.min(current(), limit())); else sync(); }, { 'aria-label': 'plus', 'data-sign': '+' }),
      key('−', () => { negative = true; if (current() != null) set(Math.min(current(), limit())); else sync(); }, { 'aria-label': 'minus', 'data-sign': '−' })]
    : [];
  const row = (word, keys) => h('span', { class: 'pad-keys', role: 'radiogroup', 'aria-label': `${label} ${word}` }, keys);
  const group = h('div', { class: 'pad tens-pad', role: 'group', 'aria-label': label, 'data-pad': 'tens' },
    h('span', { class: 'pad-label', 'aria-hidden': 'true' }, label, h('output', { class: 'pad-value' })),
    signs.length ? row('sign', signs) : null, row('tens', tens), row('units', units), input);
  function sync() {
    const n = input.value === '' ? null : Number(input.value);
    if (n != null && n !== 0) negative = n < 0;
    const abs = n == null ? null : Math.abs(n);
    const t = abs == null ? 0 : Math.floor(abs / 10) * 10;
    const auto = input.dataset.auto === '1';
    const mark = (b, on) => { b.setAttribute('aria-checked', String(on)); b.classList.toggle('auto', on && auto); };
    for (const b of tens) { mark(b, abs != null && Number(b.dataset.tens) === t); b.disabled = Number(b.dataset.tens) > limit(); }
    for (const b of units) { mark(b, abs != null && Number(b.dataset.units) === abs % 10); b.disabled = t + Number(b.dataset.units) > limit(); }
    for (const b of signs) mark(b, (b.dataset.sign === '−') === negative);
    group.querySelector('.pad-value').textContent = n == null ? '' : ` ${n < 0 ? `−${-n}` : n}`;
  }
  input.sync = sync;
  sync();
  return group;
}

/// Seat buttons (and `none`, e.g. "nobody") for one seat, a radio group named `label`; the hidden
/// input `id` holds the seat, 'none', or '' until chosen. `allowed` limits the seats offered.
export function seatPad(ctx, label, id, { none = null, allowed = null } = {}) {
  const input = h('input', { type: 'hidden', id, value: '' });
  const choices = ctx.players.map((p, s) => [String(s), p, allowed && !allowed.includes(s)]);
  if (none) choices.push(['none', none]);
  return choicePad(label, input, choices, 'seat-pad');
}

function choicePad(label, input, choices, kind) {
  const buttons = choices.map(([value, text, disabled]) => h('button', {
    type: 'button', role: 'radio', 'aria-checked': 'false', 'data-value': value, disabled: Boolean(disabled),
    onclick: () => {
      input.value = value;
      delete input.dataset.auto;
      sync();
      input.dispatchEvent(new Event('input', { bubbles: true }));
    },
  }, text));
  const group = h('div', { class: `pad ${kind}`, role: 'radiogroup', 'aria-label': label },
    h('span', { class: 'pad-label', 'aria-hidden': 'true' }, label), h('span', { class: 'pad-keys' }, buttons), input);
  function sync() {
    for (const b of buttons) {
      const on = b.dataset.value === input.value;
      b.setAttribute('aria-checked', String(on));
      b.classList.toggle('auto', on && input.dataset.auto === '1');
    }
  }
  input.sync = sync;
  sync();
  return group;
}

/// Several numbers on one keypad, so that a whole result fits a phone's screen: a cell per
/// number (rows of fields, a column per seat), each a button showing its value, one chosen at a
/// time, and one set of keys below them. A key sets the chosen cell and, once its value is whole,
/// the next cell still empty is chosen: a result entered in reading order is one tap a number.
/// A range too wide for a row of keys (Dividend's 0…52, Tricky Dick's −16…16) is tapped as tens
/// then units (and + / − first when it may be negative), two taps. Each cell's value sits in a
/// hidden input `id`, as a pad's does ('' until chosen; `data-auto` when the form filled it in).
/**
 * @typedef {{ id: string, label: string, min?: number, max: number, value?: string | number }} KeyCell
 * @typedef {{ spec: KeyCell, input: any, face: HTMLElement, negative: boolean, place: number }} KeyCellState
 * @param {{ columns: string[], rows: { word: string, note?: string, cells: (KeyCell | null)[] }[], label: string, bySeat?: boolean }} spec
 *   `bySeat`: the next cell is the same seat's next field, then the next seat's (a result read
 *   out player by player), rather than the next seat's same field
 * @returns {HTMLElement}
 */
export function keypadGrid({ columns, rows, label, bySeat = false }) {
  /** @type {KeyCellState[]} */
  const cells = [];
  const all = rows.flatMap((r) => r.cells).filter((c) => c != null);
  const low = Math.min(...all.map((c) => c.min ?? 0));
  const high = Math.max(...all.map((c) => c.max));
  const tens = high - low > 15;
  const signed = low < 0;
  let chosen = -1;
  // Sizes through the CSSOM: the page's Content-Security-Policy takes no style attributes.
  const grid = h('div', { class: 'keygrid', role: 'group', 'aria-label': label },
    h('span', { class: 'keygrid-corner' }), columns.map((c) => h('span', { class: 'keygrid-col' }, c)),
    rows.map((r, row) => [
      h('span', { class: 'keygrid-row' }, r.word, r.note ? h('small', {}, r.note) : null),
      r.cells.map((spec, col) => {
        if (!spec) return h('span', { class: 'keygrid-none' });
        const input = h('input', { type: 'hidden', id: spec.id, value: String(spec.value ?? '') });
        const n = cells.length;
        const face = h('button', {
          type: 'button', class: 'keycell', 'data-cell': spec.id, 'aria-label': spec.label, 'aria-pressed': 'false',
          onclick: () => choose(n),
        }, h('output', {}), input);
        const cell = { spec, input, face, negative: false, place: bySeat ? col * rows.length + row : row * columns.length + col };
        input.sync = () => show(cell);
        cells.push(cell);
        return face;
      }),
    ]));
  const key = (text, onclick, extra = {}) => h('button', { type: 'button', class: 'key', onclick, ...extra }, text);
  /** @type {HTMLButtonElement[]} */
  let keys = [];
  let pad;
  if (tens) {
    const signs = signed ? [key('+', () => sign(false), { 'aria-label': 'plus', 'data-sign': '+' }), key('−', () => sign(true), { 'aria-label': 'minus', 'data-sign': '−' })] : [];
    const tensKeys = [];
    // A tens key reads "10+" (and is named "10 and up"): not to be taken for a unit.
    for (let t = 0; t <= Math.max(high, -low); t += 10) tensKeys.push(key(`${t}+`, () => setTens(t), { 'data-tens': String(t), 'aria-label': `${t} and up` }));
    const units = Array.from({ length: 10 }, (_, u) => key(String(u), () => setUnits(u), { 'data-units': String(u) }));
    const half = Math.ceil(tensKeys.length / 2);
    const at = (el, row, col) => { el.style.gridRow = String(row); el.style.gridColumn = String(col); return el; };
    const t0 = signs.length;
    pad = h('div', { class: 'keypad', 'data-keypad': 'tens' },
      signed ? h('span', { class: 'keys', role: 'group', 'aria-label': 'sign' }, signs.map((b, i) => at(b, i + 1, 1))) : null,
      h('span', { class: 'keys', role: 'group', 'aria-label': 'tens' }, tensKeys.map((b, i) => at(b, i < half ? 1 : 2, t0 + 1 + (i % half)))),
      h('span', { class: 'keys', role: 'group', 'aria-label': 'units' }, units.map((b, u) => at(b, u < 5 ? 1 : 2, t0 + half + 1 + (u % 5)))));
    keys = [...signs, ...tensKeys, ...units];
    pad.style.setProperty('--keys', String(t0 + half + 5));
  } else {
    const plain = [];
    for (let v = low; v <= high; v += 1) plain.push(key(String(v), () => set(cells[chosen], v, true), { 'data-value': String(v) }));
    pad = h('div', { class: 'keypad', 'data-keypad': 'plain' },
      h('span', { class: 'keys', role: 'group', 'aria-label': 'numbers' }, plain));
    pad.style.setProperty('--keys', String(Math.ceil(plain.length / 2)));
    keys = plain;
  }
  grid.style.setProperty('--cols', String(columns.length));
  const box = h('div', { class: 'keypad-fields' }, grid, pad);

  /** @param {KeyCellState} cell */
  function value(cell) {
    return cell.input.value === '' ? null : Number(cell.input.value);
  }
  /** @param {KeyCellState} cell */
  function show(cell) {
    const v = value(cell);
    if (v != null && v !== 0) cell.negative = v < 0;
    const out = cell.face.querySelector('output');
    const text = v == null ? '·' : v < 0 ? `−${-v}` : String(v);
    if (out) out.textContent = text;
    // Its name starts with what it shows ("20, Ann cards won"), as a spoken name should.
    cell.face.setAttribute('aria-label', v == null ? cell.spec.label : `${text}, ${cell.spec.label}`);
    cell.face.classList.toggle('auto', cell.input.dataset.auto === '1');
    cell.face.classList.toggle('empty', v == null);
    if (cells[chosen] === cell) keysFor(cell);
  }
  function choose(n) {
    chosen = n;
    cells.forEach((c, i) => c.face.setAttribute('aria-pressed', String(i === n)));
    if (cells[n]) keysFor(cells[n]);
  }
  /** Keys past the chosen cell's range are not offered. @param {KeyCellState} cell */
  function keysFor(cell) {
    const min = cell.spec.min ?? 0;
    const max = cell.spec.max;
    const v = value(cell);
    const abs = v == null ? 0 : Math.abs(v);
    const limit = cell.negative ? -min : max;
    for (const b of keys) {
      let on = false;
      if (b.dataset.value != null) on = Number(b.dataset.value) >= min && Number(b.dataset.value) <= max;
      else if (b.dataset.sign != null) on = b.dataset.sign === '+' ? max > 0 : min < 0;
      else if (b.dataset.tens != null) on = Number(b.dataset.tens) <= limit;
      else if (b.dataset.units != null) on = Math.floor(abs / 10) * 10 + Number(b.dataset.units) <= limit;
      b.disabled = !on;
      const lit = v != null && ((b.dataset.value != null && Number(b.dataset.value) === v)
        || (b.dataset.tens != null && Number(b.dataset.tens) === Math.floor(abs / 10) * 10)
        || (b.dataset.units != null && Number(b.dataset.units) === abs % 10)
        || (b.dataset.sign != null && (b.dataset.sign === '−') === cell.negative));
      b.classList.toggle('lit', Boolean(lit));
    }
  }
  /** @param {KeyCellState | undefined} cell @param {number} v @param {boolean} whole */
  function set(cell, v, whole) {
    if (!cell) return;
    cell.input.value = String(v);
    delete cell.input.dataset.auto;
    show(cell);
    cell.input.dispatchEvent(new Event('input', { bubbles: true }));
    if (whole) {
      // The next cell still to choose, in reading order after this one.
      const order = [...cells].sort((a, b) => a.place - b.place);
      const at = order.indexOf(cell);
      const next = [...order.slice(at + 1), ...order.slice(0, at)].find((c) => c.input.value === '');
      if (next) choose(cells.indexOf(next));
    }
  }
  function sign(negative) {
    const cell = cells[chosen];
    if (!cell) return;
    cell.negative = negative;
    const v = value(cell);
    if (v != null) {
      const limit = negative ? -(cell.spec.min ?? 0) : cell.spec.max;
      const abs = Math.min(Math.abs(v), limit);
      set(cell, negative && abs !== 0 ? -abs : abs, false);
    } else keysFor(cell);
  }
  function setTens(t) {
    const cell = cells[chosen];
    if (!cell) return;
    const v = value(cell);
    const units = v == null ? 0 : Math.abs(v) % 10;
    const limit = cell.negative ? -(cell.spec.min ?? 0) : cell.spec.max;
    const abs = t + units <= limit ? t + units : t;
    set(cell, cell.negative && abs !== 0 ? -abs : abs, false);
  }
  function setUnits(u) {
    const cell = cells[chosen];
    if (!cell) return;
    const v = value(cell);
    const abs = (v == null ? 0 : Math.floor(Math.abs(v) / 10) * 10) + u;
    set(cell, cell.negative && abs !== 0 ? -abs : abs, true);
  }
  cells.forEach(show);
  const first = [...cells].sort((a, b) => a.place - b.place).find((c) => c.input.value === '');
  choose(first ? cells.indexOf(first) : 0);
  return box;
}

/// Sets a pad's value as the form's own (filled in, not tapped).
export function autoFill(form, id, value) {
  const input = form.querySelector(`#${id}`);
  if (!input) return;
  input.value = value == null ? '' : String(value);
  if (value == null) delete input.dataset.auto;
  else input.dataset.auto = '1';
  input.sync?.();
}

/// Result forms being filled in, by table and label ("Result of deal 3").
const drafts = new Map();

/// A result form: `fields` and `extra` hold inputs with ids; `check(values, form)` says what is
/// wrong (or null), shown as you go; `build(values, form)` makes the move sent with the deal.
export function resultForm(ctx, { fields, check, build, label, extra = [], fill = null }) {
  const note = h('p', { class: 'msg', role: 'status' });
  const submit = h('button', { type: 'submit' }, 'Record result');
  // The check and Record share a row: the whole form fits a phone's screen.
  const form = h('form', { class: 'result', 'aria-label': label },
    extra, fields, h('div', { class: 'result-foot' }, note, submit));
  // A number per seat; null for a pad not chosen yet.
  const values = (key) => ctx.players.map((_, s) => {
    const v = form.querySelector(`#r-${key}-${s}`)?.value;
    if (v === '' && form.querySelector(`#r-${key}-${s}`)?.type === 'hidden') return null;
    return Number(v || 0);
  });
  // What was typed survives a re-render (a refusal, an answer for another entry): nothing is lost.
  const fieldsOf = () => form.querySelectorAll('input[id], select[id]');
  for (const el of fieldsOf()) {
    const saved = drafts.get(`${ctx.table.id} ${label}`)?.[el.id];
    if (saved !== undefined) el.value = saved;
    el.sync?.();
  }
  // What the form filled in itself is worked out again, not kept.
  const keep = () => drafts.set(`${ctx.table.id} ${label}`,
    Object.fromEntries([...fieldsOf()].filter((el) => el.dataset.auto !== '1').map((el) => [el.id, el.value])));
  form.addEventListener('input', keep);
  form.addEventListener('change', keep);
  const update = () => {
    fill?.(values, form);
    const problem = check(values, form);
    note.textContent = problem || 'Adds up.';
    note.className = `msg ${problem ? 'warn' : 'ok'}`;
    submit.disabled = Boolean(problem);
  };
  form.addEventListener('input', update);
  form.addEventListener('change', update);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    if (check(values, form)) return;
    ctx.send(build(values, form), label, { deal: dealOf(ctx.view, ctx.page) });
  });
  queueMicrotask(update);
  return form;
}

export const options = (list) => list.map(([value, text]) => h('option', { value }, text));
export const seatOptions = (ctx, none = null) => options([...(none ? [['', none]] : []), ...ctx.players.map((p, s) => [s, p])]);
export const seatOrNull = (form, id) => {
  const value = form.querySelector(`#${id}`)?.value;
  return value === '' || value === 'none' || value == null ? null : Number(value);
};

/// True when a pad (or select) has a value chosen.
export const chosen = (form, id) => (form.querySelector(`#${id}`)?.value ?? '') !== '';

/// A number pad per seat (or per seat of `seats`), ids `r-<key>-<seat>`, named "<player> <word>";
/// a tens-and-units pad where the range is too wide for one row of buttons.
/**
 * @param {PanelContext} ctx
 * @param {string} key
 * @param {string} word
 * @param {number} max
 * @param {Seat[] | null} [seats]
 * @param {{ min?: number, value?: string | number }} [range]
 * @returns {HTMLElement}
 */
export function perSeatPads(ctx, key, word, max, seats = null, { min = 0, value = '' } = {}) {
  const pad = max - min > 15 ? tensPad : numberPad;
  return h('fieldset', {}, h('legend', {}, word),
    ctx.players.map((p, s) => (seats && !seats.includes(s) ? null : pad(`${p} ${word.toLowerCase()}`, `r-${key}-${s}`, { min, max, value }))));
}

/// For the moves without a panel yet: the move as JSON, checked by the server.
export function generic(ctx, k) {
  const area = h('textarea', { id: 'g-move', rows: 4, spellcheck: 'false' });
  const kindsList = [...k];
  area.value = JSON.stringify({ kind: kindsList[0], ...(ctx.view.to_act != null ? { seat: ctx.view.to_act } : {}) });
  return h('form', {
    class: 'generic', 'aria-label': 'Move',
    onsubmit: (e) => {
      e.preventDefault();
      let move;
      try { move = JSON.parse(area.value); } catch { area.setCustomValidity('not JSON'); area.reportValidity(); return; }
      ctx.send(move, words(move.kind || 'move'));
    },
  },
  prompt(`Next: ${kindsList.map(words).join(', ')}`),
  h('div', { class: 'choices' }, kindsList.map((kind) => button(words(kind), () => { area.value = JSON.stringify({ kind }); }))),
  h('label', { for: 'g-move' }, 'Move (JSON)'), area,
  h('button', { type: 'submit' }, 'Record'));
}
