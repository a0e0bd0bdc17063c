// Spin's page: the runs (stops.js, with Spin played beside a card), shows, who still holds
// Spin; the result form with Matrimony, Intrigue and Spin's holder.

import { DECK52 } from '../cards.js';
import { button, h } from '../dom.js';
import { concrete, openTo } from '../legal.js';
import { name, prompt, seatOptions, seatOrNull } from '../controls.js';
import { runsPanel, stopsResult } from '../stops.js';

/// The whole pack in the picker, so its rows keep their columns: the cards taken out of the
/// pack are shown but never tappable (the server never lists them as legal).
export const deck = DECK52;

export const kinds = ['play', 'stop', 'show', 'spin_holder'];

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

export function result(ctx) {
  return stopsResult(ctx, {
    extra: [
      h('label', { for: 'r-matrimony' }, 'Matrimony shown by'), h('select', { id: 'r-matrimony' }, seatOptions(ctx, 'nobody')),
      h('label', { for: 'r-intrigue' }, 'Intrigue shown by'), h('select', { id: 'r-intrigue' }, seatOptions(ctx, 'nobody')),
      h('label', { for: 'r-holder' }, 'Spin (A♦) still held by'), h('select', { id: 'r-holder' }, seatOptions(ctx, 'nobody: Spin was played')),
    ],
    finish: (move, form) => {
      for (const [key, id] of [['matrimony', 'r-matrimony'], ['intrigue', 'r-intrigue'], ['spin_holder', 'r-holder']]) {
        const seat = seatOrNull(form, id);
        if (seat != null) move[key] = seat;
      }
    },
  });
}
