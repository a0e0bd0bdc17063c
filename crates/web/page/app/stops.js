// @ts-check
// Shared page code of the stops family (a turn-up or a layout, then runs of cards in sequence,
// "next card" buttons for each live run, Stop; a result with who went out and the cards left).
// Each stops game's module (games/<id>.js) adds what is its own: its holders, shows, specials.

import { cardFace, cardText } from './cards.js';
import { button, h } from './dom.js';
import { concrete, openTo, turnUpCards } from './legal.js';
import { autoFill, cardPicker, chosen, name, numberPad, playPicker, prompt, resultForm, seatOrNull, seatPad } from './controls.js';

/// The common part of the card-by-card panel: the turn-up, the live runs (whoever holds the
/// next card plays it; a card the server lists `with_spin` may be played with the A♦ beside
/// it), a lead from the picker, Stop. `own` adds the game's own controls after them.
/**
 * @param {import('./types.js').PanelContext} ctx
 * @param {Set<string>} k the kinds open now
 * @param {(ctx: import('./types.js').PanelContext, k: Set<string>, where: 'before' | 'after') => any[]} [own]
 * @returns {any[] | null}
 */
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
  const live = ctx.page?.live?.(v) ?? null;
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

/// The result form of a deal, every value tapped: who went out (seat buttons), who played each
/// special card (seat buttons; "not played" until one is tapped), each seat's cards left (number buttons; the seat
/// that went out has none). `own` adds the game's fields: `fields(bounds)`, `fill(values, form,
/// played)`, `check(values, form, played)` (a sentence or null) and `finish(move, form, played)`,
/// where `played` maps each special card played to its seat.
export function stopsResult(ctx, own = {}) {
  const v = ctx.view;
  const bounds = openTo(v, 'result') || /** @type {import('./types.js').LegalMove} */ ({});
  const hands = bounds.hand_sizes || ctx.players.map(() => v.hand_size ?? 20);
  const specials = bounds.specials || [];
  const seats = ctx.players.map((_, s) => s);
  const played = (form) => new Map(specials.map((c, i) => [c, seatOrNull(form, `r-sp-${i}`)]).filter(([, s]) => s != null));
  return resultForm(ctx, {
    label: `Result of deal ${v.deal}`,
    extra: [
      seatPad(ctx, 'Went out', 'r-out'),
      specials.length ? h('fieldset', {}, h('legend', {}, 'Specials: who played each'),
        specials.map((c, i) => seatPad(ctx, `${cardText(c)} played by`, `r-sp-${i}`, { none: 'not played' }))) : null,
    ],
    fields: [h('fieldset', {}, h('legend', {}, 'Cards left'),
      seats.map((s) => numberPad(`${name(ctx, s)} cards left`, `r-left-${s}`, { max: hands[s] }))),
    own.fields?.(bounds) ?? []],
    fill: (values, form) => {
      // A special is "not played" until a seat is tapped for it (filled in, shown paler): most
      // deals see few of them played, and each is one tap on its player.
      specials.forEach((_, i) => { if (!chosen(form, `r-sp-${i}`)) autoFill(form, `r-sp-${i}`, 'none'); });
      // The seat that went out has no cards left: filled in, not tapped.
      for (const s of seats) if (form.querySelector(`#r-left-${s}`)?.dataset.auto === '1') autoFill(form, `r-left-${s}`, null);
      const out = seatOrNull(form, 'r-out');
      if (out != null && !chosen(form, `r-left-${out}`)) autoFill(form, `r-left-${out}`, 0);
      own.fill?.(values, form, played(form));
    },
    check: (values, form) => {
      const out = seatOrNull(form, 'r-out');
      if (out == null) return 'who went out?';
      const unsaid = specials.filter((_, i) => !chosen(form, `r-sp-${i}`));
      if (unsaid.length) return `say who played ${unsaid.map(cardText).join(', ')} (or not played)`;
      const left = values('left');
      const open = seats.filter((s) => left[s] == null);
      if (open.length) return `cards left still to choose: ${open.map((s) => name(ctx, s)).join(', ')}`;
      if (left[out] !== 0) return `${name(ctx, out)} went out: 0 cards left`;
      const none = seats.find((s) => s !== out && left[s] === 0);
      if (none != null) return `only ${name(ctx, out)} went out: ${name(ctx, none)} has cards left`;
      const over = seats.find((s) => left[s] > hands[s]);
      if (over != null) return `${name(ctx, over)} was dealt ${hands[over]} cards`;
      const p = played(form);
      const tooMany = seats.find((s) => [...p.values()].filter((x) => x === s).length > hands[s] - left[s]);
      if (tooMany != null) return `${name(ctx, tooMany)} played more specials than cards`;
      return own.check?.(values, form, p) ?? null;
    },
    build: (values, form) => {
      const p = played(form);
      const bySeat = seats.map((s) => specials.filter((c) => p.get(c) === s));
      const move = { kind: 'result', out: seatOrNull(form, 'r-out'), cards_left: values('left'), specials: bySeat };
      own.finish?.(move, form, p);
      return move;
    },
  });
}

/// The centre's line for a live run's next card.
/**
 * @param {string} card
 * @returns {HTMLElement}
 */
export function nextCardLine(card) {
  return h('p', { class: 'run' }, 'Next card: ', cardFace(card));
}

/// The pools on the board (Pope Joan's divisions, Newmarket's and Spin's pools) with their chips.
/**
 * @param {{ pool: string, chips: number }[]} pools
 * @returns {HTMLElement}
 */
export function poolList(pools) {
  return h('ul', { class: 'pools', 'aria-label': 'Board' }, pools.map((p) =>
    h('li', {}, h('span', {}, String(p.pool).replaceAll('_', ' ')), h('b', {}, String(p.chips)))));
}
