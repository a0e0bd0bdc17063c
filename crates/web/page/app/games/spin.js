// @ts-check
// Spin's page: the runs (stops.js, with Spin played beside a card), shows, who still holds
// Spin; the result form with Matrimony, Intrigue and Spin's holder.

import { DECK52 } from '../cards.js';
import { button, h } from '../dom.js';
import { concrete, openTo } from '../legal.js';
import { chosen, name, prompt, seatOrNull, seatPad } from '../controls.js';
import { nextCardLine, poolList, runsPanel, stopsResult } from '../stops.js';

/** @typedef {import('../types.js').GamePage} GamePage */
/** @typedef {import('../types.js').GameView} GameView */
/** @typedef {import('../types.js').PanelContext} PanelContext */
/** @typedef {import('../types.js').Seat} Seat */

/// The whole pack in the picker, so its rows keep their columns: the cards taken out of the
/// pack are shown but never tappable (the server never lists them as legal).
export const deck = DECK52;

/// Spin: the ace of diamonds.
const SPIN = 'AD';

export const kinds = ['play', 'stop', 'show', 'spin_holder'];

/** Its pools can hold chips when a round closes (a tournament's `leftover` rule). */
export const pools = true;

function own(ctx, k, where) {
  if (where !== 'after') return [];
  const v = ctx.view;
  const parts = [];
  if (k.has('show')) {
    for (const m of concrete(v, 'show') || []) {
      parts.push(h('div', { class: 'choices', role: 'group', 'aria-label': `Shows for ${name(ctx, m.seat)}` },
        m.combinations.map((c) => button(`${name(ctx, m.seat)} shows ${c}`, () => ctx.send({ kind: 'show', seat: m.seat, combination: c }, `${name(ctx, m.seat)} showed ${c}`)))));
    }
  }
  if (k.has('spin_holder')) {
    const open = new Set(openTo(v, 'spin_holder')?.seats ?? []);
    parts.push(prompt('Who still holds Spin (A♦)?'),
      h('div', { class: 'choices', role: 'group', 'aria-label': 'Spin holder' },
        ctx.players.map((p, s) => button(p, () => ctx.send({ kind: 'spin_holder', seat: s }, `Spin held by ${p}`), { disabled: !open.has(s), 'aria-label': `Spin held by ${p}` }))));
  }
  return parts;
}

export function panel(ctx, k) {
  return runsPanel(ctx, k, own);
}

/// The whole deal: stops.js's form (the kings and Spin played), with who showed Matrimony and
/// Intrigue and who still holds Spin when it was not played, each by seat buttons.
export function result(ctx) {
  return stopsResult(ctx, {
    fields: () => [
      seatPad(ctx, 'Matrimony shown by', 'r-matrimony', { none: 'nobody' }),
      seatPad(ctx, 'Intrigue shown by', 'r-intrigue', { none: 'nobody' }),
      h('div', { id: 'r-spin-holder-box' }, seatPad(ctx, 'Spin (A♦) still held by', 'r-holder', { none: 'nobody' })),
    ],
    fill: (values, form, played) => {
      const box = form.querySelector('#r-spin-holder-box');
      if (box) box.hidden = played.has(SPIN);
    },
    check: (values, form, played) => {
      for (const [id, what] of [['r-matrimony', 'Matrimony'], ['r-intrigue', 'Intrigue']]) {
        if (!chosen(form, id)) return `who showed ${what}? (or nobody)`;
      }
      if (!played.has(SPIN) && !chosen(form, 'r-holder')) return 'who still holds Spin (A♦)? (or nobody)';
      return null;
    },
    finish: (move, form, played) => {
      for (const [key, id] of [['matrimony', 'r-matrimony'], ['intrigue', 'r-intrigue'], ['spin_holder', 'r-holder']]) {
        if (key === 'spin_holder' && played.has(SPIN)) continue;
        const seat = seatOrNull(form, id);
        if (seat != null) move[key] = seat;
      }
    },
  });
}

/// The card the live run waits for.
/** @type {GamePage['live']} */
export function live(v) {
  return v.next_card ?? null;
}

/// The next card, the pools with their chips.
/** @type {GamePage['centre']} */
export function centre(v) {
  const out = [];
  if (v.next_card) out.push(nextCardLine(v.next_card));
  if (v.pools) out.push(poolList(v.pools));
  return out;
}
