// Pope Joan's page: the turn-up, the runs (stops.js), Pope in lieu, who holds the Pope when
// someone goes out; the result form with the Pope's holder.

import { DECK52 } from '../cards.js';
import { button, h } from '../dom.js';
import { openTo } from '../legal.js';
import { prompt, seatOptions, seatOrNull } from '../controls.js';
import { runsPanel, stopsResult } from '../stops.js';

/// The 8♦ is taken out.
export const deck = DECK52.filter((c) => c !== '8D');

export const kinds = ['turn_up', 'play', 'stop', 'pope_in_lieu', 'pope_holder'];

function own(ctx, k, where) {
  if (where !== 'after') return [];
  const v = ctx.view;
  const parts = [];
  if (k.has('pope_in_lieu')) {
    const open = new Set(openTo(v, 'pope_in_lieu')?.seats ?? ctx.players.map((_, s) => s));
    parts.push(h('div', { class: 'choices', role: 'group', 'aria-label': 'Pope in lieu' },
      ctx.players.map((p, s) => button(`${p}: Pope in lieu`, () => ctx.send({ kind: 'pope_in_lieu', seat: s }, `Pope in lieu for ${p}`), { disabled: !open.has(s) }))));
  }
  if (k.has('pope_holder')) {
    const open = openTo(v, 'pope_holder')?.seats;
    const ok = (s) => !open || open.includes(s);
    parts.push(prompt('Who holds the Pope (9♦)?'),
      h('div', { class: 'choices', role: 'group', 'aria-label': 'Pope holder' },
        ctx.players.map((p, s) => button(p, () => ctx.send({ kind: 'pope_holder', seat: s }, `the Pope held by ${p}`), { disabled: !ok(s) })),
        button('The spare hand', () => ctx.send({ kind: 'pope_holder', seat: null }, 'the Pope in the spare hand'), { disabled: !ok(null) })));
  }
  return parts;
}

export function panel(ctx, k) {
  return runsPanel(ctx, k, own);
}

export function result(ctx) {
  return stopsResult(ctx, {
    extra: [h('label', { for: 'r-holder' }, 'The Pope (9♦) still held by'), h('select', { id: 'r-holder' }, seatOptions(ctx, 'nobody / the spare hand'))],
    finish: (move, form) => {
      const holder = seatOrNull(form, 'r-holder');
      if (holder != null) move.pope_holder = holder;
    },
  });
}
