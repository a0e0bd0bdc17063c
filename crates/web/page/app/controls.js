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
  const form = h('form', { class: 'result', 'aria-label': label },
    extra, fields, note, submit);
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
