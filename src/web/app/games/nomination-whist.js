// Nomination Whist's page: the turn-up card, nominations 0…hand size (the hook-rule number
// refused with a word why), a card picker for play; the result form (nominations and tricks).

import { cardText, DECK52 } from '../cards.js';
import { button, h } from '../dom.js';
import { concrete, turnUpCards } from '../legal.js';
import { cardPicker, name, perSeat, playPicker, prompt, resultForm } from '../controls.js';

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
    if (allowed && !allowed.has(n)) why = 'not allowed now';
    else if (!allowed && view.forbidden_nomination === n) {
      why = `hook rule: the nominations may not add up to ${size}`;
    }
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

export function result(ctx) {
  const v = ctx.view;
  const size = v.hand_size ?? 0;
  const needsTurnUp = v.phase === 'turn_up';
  const extra = needsTurnUp
    ? h('label', {}, 'Turned-up card ', h('input', { id: 'r-turnup', autocomplete: 'off', placeholder: 'e.g. 7D', size: 4 }))
    : [];
  return resultForm(ctx, {
    label: `Result of deal ${v.deal}`,
    extra,
    fields: [perSeat(ctx, 'nom', 'Nominations', size), perSeat(ctx, 'tricks', 'Tricks', size)],
    check: (values) => {
      const t = values('tricks').reduce((a, b) => a + b, 0);
      const n = values('nom');
      if (n.some((x) => x > size)) return `a nomination is 0 to ${size}`;
      if (t !== size) return `tricks add up to ${t}, not ${size}`;
      return null;
    },
    build: (values, form) => {
      const move = { kind: 'result', nominations: values('nom'), tricks: values('tricks') };
      const turn = form.querySelector('#r-turnup')?.value.trim().toUpperCase();
      if (turn) move.turn_up = turn;
      return move;
    },
  });
}
