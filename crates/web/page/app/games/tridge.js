// @ts-check
// Tridge's page: the auction (the bids open to the seat to act, Pass, Pass out), Fixed Trick
// bids, the in-comer, the declaration (contract and suit, or Flip), the exchange, the defence,
// the dealer's count, a 40-card picker, Stop after the fifth trick, the Widow's Fund; the result
// form.

import { cardText, DECK52, suitWord, SUITS } from '../cards.js';
import { button, h } from '../dom.js';
import { concrete, kinds as kindsOf, openTo, seatsFor } from '../legal.js';
import { cardPicker, keypadGrid, name, numberPad, options, playPicker, prompt, resultForm, words } from '../controls.js';

/** @typedef {import('../types.js').GamePage} GamePage */
/** @typedef {import('../types.js').GameView} GameView */
/** @typedef {import('../types.js').PanelContext} PanelContext */
/** @typedef {import('../types.js').Seat} Seat */

/// 40 cards: no eights, nines or tens.
export const deck = DECK52.filter((c) => !['8', '9', '10'].includes(c.slice(0, -1)));

export const kinds = ['bid', 'pass', 'pass_out', 'declare', 'exchange', 'defence', 'play', 'stop', 'settle_widows_fund',
  'fixed_bid', 'in_come', 'give_up', 'count_stock'];

const CONTRACTS = [
  ['play', true], ['play_diamonds', false], ['no_change', true], ['no_change_diamonds', false],
  ['all_tricks', true], ['no_tricks', true],
];

/// "Pass out" ends the deal for everyone: set apart from "Pass", never beside it.
function passOut(ctx, k) {
  if (!k.has('pass_out')) return null;
  return h('div', { class: 'apart' }, h('p', { class: 'why' }, 'Nobody plays this deal:'),
    button('Pass out', () => ctx.send({ kind: 'pass_out' }, 'passed out'), { class: 'pass-out' }));
}

export function panel(ctx, k) {
  const v = ctx.view;
  const seat = v.to_act;
  const who = seat == null ? null : name(ctx, seat);
  const parts = [];
  if ((k.has('bid') || k.has('pass')) && seat == null) {
    // Everyone passed: each active seat may call what is open to it (No Tricks), pass in the
    // Fixed Trick auction, or the deal is passed out.
    parts.push(prompt('Everyone passed'),
      h('div', { class: 'choices', role: 'group', 'aria-label': 'Bids' },
        (concrete(v, 'bid') || []).flatMap((m) => m.bids.map((bid) =>
          button(`${name(ctx, m.seat)}: ${words(bid)}`, () => ctx.send({ kind: 'bid', seat: m.seat, bid }, `${name(ctx, m.seat)} bid ${words(bid)}`)))),
        seatsFor(v, 'pass').map((s) => button(`${name(ctx, s)} passes`, () => ctx.send({ kind: 'pass', seat: s }, `${name(ctx, s)} passed`)))),
      passOut(ctx, k));
  } else if (k.has('bid') || k.has('pass')) {
    parts.push(prompt(`${who} to bid`),
      h('div', { class: 'choices', role: 'group', 'aria-label': 'Bids' },
        k.has('bid') ? tridgeBids(v).map(({ bid, ok }) =>
          button(words(bid), () => ctx.send({ kind: 'bid', seat, bid }, `${who} bid ${words(bid)}`), { disabled: !ok })) : null,
        k.has('pass') && seat != null ? button('Pass', () => ctx.send({ kind: 'pass', seat }, `${who} passed`)) : null),
      passOut(ctx, k));
  }
  if (k.has('fixed_bid')) {
    for (const m of concrete(v, 'fixed_bid') || []) {
      parts.push(prompt(`${name(ctx, m.seat)}: Fixed Trick bid (fewer tricks beat more)`),
        h('div', { class: 'choices', role: 'group', 'aria-label': `Fixed Trick bids for ${name(ctx, m.seat)}` },
          m.bids.map((b) => button(`${b.tricks} ${suitWord(b.trumps)}`,
            () => ctx.send({ kind: 'fixed_bid', seat: m.seat, tricks: b.tricks, trumps: b.trumps }, `${name(ctx, m.seat)} bid ${b.tricks} ${b.trumps}`),
            { 'aria-label': `${name(ctx, m.seat)} bids ${b.tricks} ${b.trumps}` }))));
    }
  }
  if (k.has('in_come')) {
    parts.push(h('div', { class: 'choices', role: 'group', 'aria-label': 'In-comer' },
      seatsFor(v, 'in_come').map((s) => button(`${name(ctx, s)} comes in`, () => ctx.send({ kind: 'in_come', seat: s }, `${name(ctx, s)} came in`)))));
  }
  if (k.has('declare')) {
    const player = v.player ?? seat;
    const open = openTo(v, 'declare', player);
    const contracts = open ? open.contracts : CONTRACTS.flatMap(([c, suited]) => (suited
      ? ['hearts', 'spades', 'clubs'].map((t) => ({ contract: c, trumps: t })) : [{ contract: c }]));
    const label = (c) => [c.tricks != null ? `${c.tricks} tricks` : null, words(c.contract), c.trumps ? suitWord(c.trumps) : null].filter(Boolean).join(' ');
    parts.push(prompt(`${name(ctx, player)} declares`),
      h('div', { class: 'choices contracts', role: 'group', 'aria-label': 'Contracts' },
        contracts.map((c) => button(label(c), () => ctx.send({ kind: 'declare', seat: player, contract: c }, `${name(ctx, player)} declared ${label(c)}`)))));
    if (open?.flip_cards?.length) {
      parts.push(prompt('Flip: the stock’s top card turned'), cardPicker(ctx, {
        legal: new Set(open.flip_cards), label: 'Flip card',
        onPick: (turned) => ctx.send({ kind: 'declare', seat: player, contract: { contract: 'flip', turned } }, `${name(ctx, player)} declared flip (${cardText(turned)})`),
      }));
    }
  }
  if (k.has('give_up')) {
    parts.push(h('div', { class: 'choices', role: 'group', 'aria-label': 'Give up' },
      seatsFor(v, 'give_up').map((s) => button(`${name(ctx, s)} gives up`, () => ctx.send({ kind: 'give_up', seat: s }, `${name(ctx, s)} gave up`)))));
  }
  if (k.has('exchange')) {
    const counts = openTo(v, 'exchange', seat)?.cards ?? Array.from({ length: Math.min(9, v.stock_left) + 1 }, (_, n) => n);
    parts.push(prompt(`${who} exchanges how many cards?`),
      h('div', { class: 'choices', role: 'group', 'aria-label': 'Cards exchanged' },
        counts.map((n) => button(String(n), () => ctx.send({ kind: 'exchange', seat, cards: n }, `${who} exchanged ${n}`), { 'aria-label': `Exchange ${n}` }))));
  }
  if (k.has('defence')) {
    parts.push(prompt('Who is 1st Defender?'),
      h('div', { class: 'choices', role: 'group', 'aria-label': '1st Defender' },
        (openTo(v, 'defence')?.first_defenders ?? v.active.filter((s) => s !== v.player)).map((s) => button(name(ctx, s), () => ctx.send({ kind: 'defence', first_defender: s }, `${name(ctx, s)} 1st Defender`)))));
  }
  if (k.has('count_stock')) {
    const total = openTo(v, 'count_stock')?.total ?? 13;
    const discards = numberPad('Discards', 't-discards', { max: total, value: 0 });
    const stock = numberPad('Stock', 't-stock', { max: total, value: 0 });
    parts.push(h('form', {
      class: 'result', 'aria-label': 'Count the stock',
      onsubmit: (e) => {
        e.preventDefault();
        const d = Number(e.target.querySelector('#t-discards').value || 0);
        const st = Number(e.target.querySelector('#t-stock').value || 0);
        ctx.send({ kind: 'count_stock', discards: d, stock: st }, `stock counted: ${d} + ${st}`);
      },
    }, prompt(`Dealer's count before play (discards + stock = ${total})`), discards, stock, h('button', { type: 'submit' }, 'Record count')));
  }
  if (k.has('play')) parts.push(playPicker(ctx));
  if (k.has('stop') && v.may_stop) {
    const top = h('input', { id: 't-top', autocomplete: 'off', placeholder: 'e.g. AH KH' });
    parts.push(h('label', { for: 't-top' }, 'Top trumps shown (for honours)'), top,
      button('Stop (after five tricks)', () => ctx.send({
        kind: 'stop', seat: v.player, top_trumps: top.value.trim() ? top.value.trim().toUpperCase().split(/[\s,]+/) : [],
      }, `${name(ctx, v.player)} stopped`)));
  }
  if (k.has('settle_widows_fund') && !parts.length) {
    parts.push(prompt("End of the session: the Widow's Fund"),
      button('Split it', () => ctx.send({ kind: 'settle_widows_fund', choice: 'split' }, "Widow's Fund split")),
      button('Leave it', () => ctx.send({ kind: 'settle_widows_fund', choice: 'leave' }, "Widow's Fund left")));
  }
  return parts.length ? parts : null;
}

export function result(ctx) {
  const v = ctx.view;
  const bounds = openTo(v, 'result') || /** @type {import('../types.js').LegalMove} */ ({});
  const total = bounds.tricks_total ?? 9;
  const check = (id, text) => h('label', {}, h('input', { id, type: 'checkbox' }), text);
  const checked = (form, id) => Boolean(form.querySelector(`#${id}`)?.checked);
  return resultForm(ctx, {
    label: `Result of deal ${v.deal}`,
    // The Player, the contract and trumps side by side, each named where it is chosen.
    extra: [
      h('div', { class: 'selects' },
        h('label', {}, h('small', {}, 'Player'), h('select', { id: 'r-player' }, options((bounds.seats || v.active).map((s) => [s, name(ctx, s)])))),
        h('label', {}, h('small', {}, 'Contract'), h('select', { id: 'r-contract' }, options(CONTRACTS.map(([c]) => [c, words(c)])))),
        h('label', {}, h('small', {}, 'Trumps'), h('select', { id: 'r-trumps' }, options(SUITS.map((s) => [s.word, `${s.symbol} ${s.word}`]))))),
      h('div', { class: 'checks', role: 'group', 'aria-label': 'How the deal went' },
        check('r-stopped', 'Stopped after five'),
        check('r-all-after', 'Played on for all nine after five'),
        bounds.in_comer ? check('r-in-comer', 'The Player came in (dealer of four)') : null),
    ],
    // The active seats' tricks, then the honours, on one keypad.
    fields: [keypadGrid({
      label: 'Tricks and honours', columns: [...ctx.players, 'Honours'],
      rows: [{
        word: 'Tricks',
        cells: [...ctx.players.map((p, s) => ((bounds.seats || v.active || [s]).includes(s) ? { id: `r-tricks-${s}`, label: `${p} tricks`, max: total } : null)),
          { id: 'r-honours', label: 'Honours', max: 9, value: 0 }],
      }],
    })],
    check: (values, form) => {
      const tricks = values('tricks');
      const open = (bounds.seats || v.active || ctx.players.map((_, s) => s)).filter((s) => tricks[s] == null);
      if (open.length) return `tricks still to choose: ${open.map((s) => name(ctx, s)).join(', ')}`;
      const t = tricks.reduce((a, b) => a + b, 0);
      if (checked(form, 'r-stopped')) {
        const player = Number(form.querySelector('#r-player').value);
        return tricks[player] === 5 && t === 5 ? null : `stopped after five: ${name(ctx, player)} 5 tricks, the others none`;
      }
      return t === total ? null : `tricks add up to ${t}, not ${total}`;
    },
    build: (values, form) => {
      const c = form.querySelector('#r-contract').value;
      const contract = { contract: c };
      if (CONTRACTS.find(([x]) => x === c)[1]) contract.trumps = form.querySelector('#r-trumps').value;
      return {
        kind: 'result',
        player: Number(form.querySelector('#r-player').value),
        contract,
        honours: Number(form.querySelector('#r-honours').value),
        tricks: values('tricks'),
        stopped_after_five: checked(form, 'r-stopped'),
        all_tricks_after_fifth: checked(form, 'r-all-after'),
        in_comer: checked(form, 'r-in-comer'),
      };
    },
  });
}

/// The calls of the auction, in rank order, each open or not for the seat to act.
export const TRIDGE_BIDS = ['play', 'play_more', 'flip', 'no_change', 'no_change_diamonds', 'all_tricks', 'no_tricks'];

export function tridgeBids(view) {
  const server = concrete(view, 'bid');
  if (server) {
    const open = new Set(server.flatMap((m) => m.bids || (m.bid ? [m.bid] : [])));
    return TRIDGE_BIDS.map((bid) => ({ bid, ok: open.has(bid) }));
  }
  if (!kindsOf(view).has('bid') || view.to_act == null) return TRIDGE_BIDS.map((bid) => ({ bid, ok: false }));
  const standing = view.standing_bid ? TRIDGE_BIDS.indexOf(view.standing_bid.bid) : -1;
  const allPassed = view.phase === 'all_passed';
  // No Tricks only once everyone has passed; otherwise a call must beat the standing one.
  return TRIDGE_BIDS.map((bid, i) => ({ bid, ok: bid === 'no_tricks' ? allPassed : !allPassed && i > standing }));
}

/// "Play in ♥ hearts", "7 tricks fixed in ♠ spades", "flip (QH turned)".
/**
 * @param {{ contract: string, trumps?: string, turned?: string, tricks?: number } | null | undefined} c
 * @returns {string}
 */
export function contractText(c) {
  if (!c) return '';
  const name = String(c.contract).replaceAll('_', ' ');
  const trumps = c.trumps ? ` in ${suitWord(c.trumps)}` : c.turned ? ` (${cardText(c.turned)} turned)` : '';
  return `${c.tricks != null ? `${c.tricks} tricks ` : ''}${name}${trumps}`;
}

/// The Player's contract, in the header.
/** @type {GamePage['facts']} */
export function facts(v, name) {
  return v.contract ? [`${name(v.player)}: ${contractText(v.contract)}`] : [];
}

/// The standing bid, the Player, the dealer who sits out.
/** @type {GamePage['seatBits']} */
export function seatBits(v, s) {
  const bits = [];
  if (v.standing_bid?.seat === s) bits.push(`bid ${String(v.standing_bid.bid).replaceAll('_', ' ')}`);
  if (v.player === s) bits.push('Player');
  if (v.sitting_out === s) bits.push('sits out');
  return bits;
}

/// The Game Fund, the Widow's Fund and the reserves, always in view.
/** @type {GamePage['centre']} */
export function centre(v) {
  const f = v.funds;
  if (!f) return [];
  return [h('ul', { class: 'pools', 'aria-label': 'Funds' },
    h('li', {}, h('span', {}, 'Game Fund'), h('b', {}, String(f.game_fund))),
    h('li', {}, h('span', {}, "Widow's Fund"), h('b', {}, String(f.widows_fund))),
    (f.reserves || []).map((r, i) => h('li', {}, h('span', {}, `Reserve ${i + 1}`), h('b', {}, String(r.chips ?? r)))))];
}

/** @type {GamePage['describe']} */
export function describe(m, who) {
  switch (m.kind) {
    case 'bid': return `${who(m.seat)} bid ${String(m.bid).replaceAll('_', ' ')}`;
    case 'pass': return `${who(m.seat)} passed`;
    case 'declare': return `${who(m.seat)} declared ${contractText(m.contract)}`;
    case 'exchange': return `${who(m.seat)} exchanged ${m.cards}`;
    default: return null;
  }
}

/// The deal's outcome for the Player, first.
/** @type {GamePage['summary']} */
export function summary(ev, entry, before, who) {
  if (!ev.outcome) return {};
  const player = ev.player != null ? `${who(ev.player)}: ` : '';
  const tricks = Array.isArray(ev.tricks) && ev.player != null ? ` with ${ev.tricks[ev.player]} tricks` : '';
  return { lines: [`${player}${String(ev.outcome).replaceAll('_', ' ')}${tricks}`] };
}

/// A score-sheet cell ends with the tricks the seat took.
/** @type {GamePage['sheetCell']} */
export function sheetCell(d, seat) {
  return d.tricks ? { after: [h('small', {}, `${d.tricks[seat]} tricks `)] } : {};
}
