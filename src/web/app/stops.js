// Shared page code of the stops family (a turn-up or a layout, then runs of cards in sequence,
// "next card" buttons for each live run, Stop; a result with who went out and the cards left).
// Each stops game's module (games/<id>.js) adds what is its own: its holders, shows, specials.

import { cardText } from './cards.js';
import { button, h } from './dom.js';
import { concrete, openTo, turnUpCards } from './legal.js';
import { cardPicker, name, playPicker, prompt, resultForm, seatOptions, stepper } from './controls.js';

/// The common part of the card-by-card panel: the turn-up, the live runs (whoever holds the
/// next card plays it; a card the server lists `with_spin` may be played with the A♦ beside
/// it), a lead from the picker, Stop. `own` adds the game's own controls after them.
export function runsPanel(ctx, k, own = () => []) {
  const v = ctx.view;
  const parts = [];
  if (k.has('turn_up')) {
    parts.push(prompt('Turn-up card (sets trumps)'), cardPicker(ctx, {
      legal: turnUpCards(ctx.deck, v, ctx.log), label: 'Turn-up card',
      onPick: (card) => ctx.send({ kind: 'turn_up', card }, `${cardText(card)} turned up`),
    }));
  }
  parts.push(own(ctx, k, 'before'));
  const plays = concrete(v, 'play') || [];
  const live = v.run?.next ?? v.next_card ?? null;
  if (k.has('play') && live) {
    // A live run: whoever holds the next card plays it; only the seats the server lists may.
    const cards = [...new Set(plays.flatMap((m) => m.cards))];
    for (const next of cards.length ? cards : [live]) {
      const open = new Set(plays.filter((m) => m.cards.includes(next)).map((m) => m.seat));
      parts.push(prompt(`Next card: ${cardText(next)}. Who plays it?`),
        h('div', { class: 'choices', role: 'group', 'aria-label': `Who plays ${cardText(next)}` },
          ctx.players.map((p, s) => button(`${p} plays ${cardText(next)}`, () => ctx.send({ kind: 'play', seat: s, card: next }, `${cardText(next)} for ${p}`), { disabled: !open.has(s) }))));
      const withSpin = plays.filter((m) => (m.with_spin || []).includes(next));
      if (withSpin.length) {
        parts.push(h('div', { class: 'choices', role: 'group', 'aria-label': `${cardText(next)} with Spin` },
          withSpin.map((m) => button(`${name(ctx, m.seat)} plays ${cardText(next)} with Spin`,
            () => ctx.send({ kind: 'play', seat: m.seat, card: next, spin: true }, `${cardText(next)} with Spin for ${name(ctx, m.seat)}`)))));
      }
    }
  } else if (k.has('play') && (v.to_act != null || plays.length)) {
    parts.push(playPicker(ctx));
    const lead = plays[0];
    if (lead?.with_spin?.length) {
      parts.push(prompt(`Or ${name(ctx, lead.seat)} leads with Spin (A♦) beside it:`), cardPicker(ctx, {
        legal: new Set(lead.with_spin), label: `Card with Spin for ${name(ctx, lead.seat)}`,
        onPick: (card) => ctx.send({ kind: 'play', seat: lead.seat, card, spin: true }, `${cardText(card)} with Spin for ${name(ctx, lead.seat)}`),
      }));
    }
  }
  if (k.has('stop')) parts.push(button('Stop (nobody can go on)', () => ctx.send({ kind: 'stop' }, 'stop'), { class: 'wide' }));
  parts.push(own(ctx, k, 'after'));
  const shown = parts.flat(Infinity).filter(Boolean);
  return shown.length ? shown : null;
}

/// Cards left per seat within the hands dealt, the seat that went out on none.
export function cardsLeftCheck(ctx, hands) {
  return (values, form) => {
    const left = values('left');
    const out = Number(form.querySelector('#r-out').value);
    const over = left.findIndex((n, s) => hands[s] != null && n > hands[s]);
    if (over >= 0) return `${name(ctx, over)} was dealt ${hands[over]} cards`;
    return left[out] === 0 ? null : `${name(ctx, out)} went out: 0 cards left`;
  };
}

/// The result form of a deal: who went out, the specials each seat played, the cards left;
/// `extra` adds the game's own fields, `finish(move, form)` their values.
export function stopsResult(ctx, { extra = [], finish = () => {} } = {}) {
  const v = ctx.view;
  const bounds = openTo(v, 'result') || {};
  const hands = bounds.hand_sizes || ctx.players.map(() => v.hand_size ?? 20);
  const specials = bounds.specials ? ` (${bounds.specials.map(cardText).join(' ')})` : '';
  return resultForm(ctx, {
    label: `Result of deal ${v.deal}`,
    extra: [
      h('label', { for: 'r-out' }, 'Went out'),
      h('select', { id: 'r-out' }, seatOptions(ctx)),
      h('label', { for: 'r-specials' }, `Specials played${specials}, e.g. Ann: 9D AH; Bob: KH`),
      h('input', { id: 'r-specials', autocomplete: 'off' }),
      extra,
    ],
    fields: [h('fieldset', {}, h('legend', {}, 'Cards left'),
      ctx.players.map((p, s) => stepper(`${p} cards left`, `r-left-${s}`, { max: hands[s] })))],
    check: cardsLeftCheck(ctx, hands),
    build: (values, form) => {
      const played = ctx.players.map(() => []);
      for (const part of form.querySelector('#r-specials').value.split(';')) {
        const [who, cards] = part.split(':');
        const s = ctx.players.findIndex((p) => p.toLowerCase() === (who || '').trim().toLowerCase());
        if (s >= 0 && cards) played[s] = cards.trim().split(/\s+/).map((c) => c.toUpperCase());
      }
      const move = { kind: 'result', out: Number(form.querySelector('#r-out').value), cards_left: values('left'), specials: played };
      finish(move, form);
      return move;
    },
  });
}
