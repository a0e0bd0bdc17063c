// @ts-check
// Nomination Whist's page: the turn-up card, nominations 0…hand size (the hook-rule number
// refused with a word why), a card picker for play; the result form (nominations and tricks).

import { cardText, DECK52 } from '../cards.js';
import { button, h } from '../dom.js';
import { concrete, openTo, turnUpCards } from '../legal.js';
import { autoFill, cardPicker, keypadGrid, name, playPicker, prompt, resultForm } from '../controls.js';

/** @typedef {import('../types.js').GamePage} GamePage */
/** @typedef {import('../types.js').GameView} GameView */
/** @typedef {import('../types.js').PanelContext} PanelContext */
/** @typedef {import('../types.js').Seat} Seat */

export const deck = DECK52;

/// The move kinds the card-by-card panel offers controls for.
export const kinds = ['turn_up', 'nominate', 'play'];

/// Each count 0…hand size, the hook-rule number refused with a reason.
export function nominations(view) {
  const server = concrete(view, 'nominate');
  const size = view.hand_size ?? 0;
  const allowed = server ? new Set(server.flatMap((m) => m.tricks ?? [])) : null;
  const out = [];
  for (let n = 0; n <= size; n += 1) {
    let why = null;
    // The view names the number the hook rule forbids the seat nominating last.
    if (view.forbidden_nomination === n && (!allowed || !allowed.has(n))) {
      why = `hook rule: the last to nominate may not make the nominations add up to ${size}`;
    } else if (allowed && !allowed.has(n)) why = 'not allowed now';
    out.push({ n, ok: !why, why });
  }
  return out;
}

export function panel(ctx, k) {
  const v = ctx.view;
  if (k.has('turn_up')) {
    return [prompt('Turn-up card (sets trumps)'), cardPicker(ctx, {
      legal: turnUpCards(ctx.deck, v, ctx.log), label: 'Turn-up card',
      onPick: (card) => ctx.send({ kind: 'turn_up', card }, `${cardText(card)} turned up`),
    })];
  }
  if (k.has('nominate')) {
    const seat = v.to_act;
    const choices = nominations(v);
    const why = choices.find((c) => !c.ok)?.why;
    return [prompt(`${name(ctx, seat)} nominates`),
      h('div', { class: 'choices', role: 'group', 'aria-label': `Nomination for ${name(ctx, seat)}` },
        choices.map((c) => button(String(c.n), () => ctx.send({ kind: 'nominate', seat, tricks: c.n }, `${name(ctx, seat)} nominated ${c.n}`),
          { disabled: !c.ok, title: c.why || `nominate ${c.n}`, 'aria-label': `Nominate ${c.n}` }))),
      why ? h('p', { class: 'why' }, why) : null];
  }
  if (k.has('play')) return playPicker(ctx);
  return null;
}

/// The whole deal: a nomination and tricks per seat, each one tap on a number; once all but one
/// seat's tricks are chosen (or the chosen ones make the hand), the rest are filled in, so a
/// 4-player deal takes 4 + 3 taps and Record.
export function result(ctx) {
  const v = ctx.view;
  const size = v.hand_size ?? 0;
  const needsTurnUp = openTo(v, 'result')?.turn_up_required ?? v.phase === 'turn_up';
  // The turned-up card is tapped on the picker, never typed.
  const turned = h('input', { type: 'hidden', id: 'r-turnup', value: '' });
  const shown = h('p', { class: 'why', role: 'status' }, 'Tap the turned-up card.');
  // A draft restored into the hidden field shows as chosen too.
  turned.sync = () => {
    if (!turned.value) return;
    shown.textContent = `Turned up: ${cardText(turned.value)}`;
    turned.closest('fieldset')?.querySelectorAll('[data-card]').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.card === turned.value)));
  };
  const extra = needsTurnUp
    ? h('fieldset', {}, h('legend', {}, 'Turned-up card'), shown, turned, cardPicker(ctx, {
      legal: turnUpCards(ctx.deck, v, ctx.log), label: 'Turned-up card',
      onPick: (card) => {
        turned.value = card;
        shown.textContent = `Turned up: ${cardText(card)}`;
        turned.closest('fieldset').querySelectorAll('[data-card]').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.card === card)));
        turned.dispatchEvent(new Event('input', { bubbles: true }));
      },
    }))
    : [];
  const seats = ctx.players.map((_, s) => s);
  return resultForm(ctx, {
    label: `Result of deal ${v.deal}`,
    extra,
    fields: [keypadGrid({
      label: 'Nominations and tricks', columns: ctx.players, bySeat: true,
      rows: [['nom', 'Nom.', 'nominations'], ['tricks', 'Tricks', 'tricks']].map(([key, word, what]) => ({
        word, cells: seats.map((s) => ({ id: `r-${key}-${s}`, label: `${name(ctx, s)} ${what}`, max: size })),
      })),
    })],
    fill: (values, form) => {
      for (const s of seats) {
        if (form.querySelector(`#r-tricks-${s}`)?.dataset.auto === '1') autoFill(form, `r-tricks-${s}`, null);
      }
      const tricks = values('tricks');
      const open = seats.filter((s) => tricks[s] == null);
      const sum = tricks.reduce((a, b) => a + (b ?? 0), 0);
      if (open.length === 1 && sum <= size) autoFill(form, `r-tricks-${open[0]}`, size - sum);
      else if (open.length > 1 && sum === size) for (const s of open) autoFill(form, `r-tricks-${s}`, 0);
    },
    check: (values, form) => {
      if (needsTurnUp && !form.querySelector('#r-turnup')?.value) return 'which card was turned up?';
      const n = values('nom');
      const missing = seats.filter((s) => n[s] == null).map((s) => name(ctx, s));
      if (missing.length) return `nominations still to choose: ${missing.join(', ')}`;
      const tricks = values('tricks');
      const so = tricks.reduce((a, b) => a + (b ?? 0), 0);
      if (so > size) return `tricks add up to ${so}, more than ${size}`;
      const open = seats.filter((s) => tricks[s] == null).map((s) => name(ctx, s));
      if (open.length) return `tricks still to choose: ${open.join(', ')}`;
      const t = tricks.reduce((a, b) => a + b, 0);
      if (t !== size) return `tricks add up to ${t}, not ${size}`;
      return null;
    },
    build: (values, form) => {
      const move = { kind: 'result', nominations: values('nom'), tricks: values('tricks') };
      const turn = form.querySelector('#r-turnup')?.value;
      if (turn) move.turn_up = turn;
      return move;
    },
  });
}

/// The tricks `seat` nominated this deal, or null: the view lists only the seats that have
/// nominated, as `{seat, tricks}`.
/**
 * @param {GameView} v
 * @param {Seat} seat
 * @returns {number | null}
 */
export function nominationOf(v, seat) {
  return v.nominations?.find((n) => n.seat === seat)?.tricks ?? null;
}

/// A seat's nomination, beside its name.
/** @type {GamePage['seatBits']} */
export function seatBits(v, s) {
  const n = nominationOf(v, s);
  return n != null ? [`nom. ${n}`] : [];
}

/** @type {GamePage['describe']} */
export function describe(m, who) {
  return m.kind === 'nominate' ? `${who(m.seat)} nominated ${m.tricks}` : null;
}

/// Each seat made or missed its nomination: from a result entry, or the deal as played (the
/// last trick counted).
/** @type {GamePage['summary']} */
export function summary(ev, entry, v) {
  const m = entry.move || { kind: '' };
  const noms = m.kind === 'result' ? m.nominations : v.nominations && v.tricks_won?.map((_, s) => nominationOf(v, s));
  const tricks = m.kind === 'result' ? m.tricks : v.tricks_won ? [...v.tricks_won] : null;
  if (m.kind !== 'result' && tricks) {
    for (const e of entry.events || []) if (e.event === 'trick_won' && e.winner != null) tricks[e.winner] = (tricks[e.winner] ?? 0) + 1;
  }
  if (!Array.isArray(noms) || !Array.isArray(tricks)) return {};
  return { seats: noms.map((n, s) => (n == null ? null : n === tricks[s] ? `made ${n}` : `missed ${n} (won ${tricks[s]})`)) };
}

/// A score-sheet cell starts with nominated / won.
/** @type {GamePage['sheetCell']} */
export function sheetCell(d, seat) {
  return d.nominations ? { before: [h('small', { title: 'nominated / won' }, `${d.nominations[seat]}/${d.tricks?.[seat] ?? ''} `)] } : {};
}
