// The entry panel for the next move, per game. Only legal choices are enabled; the choices
// come from legal.js. `ctx` = { game, view, table, log, players, mode, setMode,
// send(move, label, extra) }; a result, and a deal's first move where the panel knows it, is
// sent with `extra.deal`, the deal it was entered for (the server refuses it for any other).

import { cardText, picker, squaresFace, squaresName, squaresPicker, SQUARES64, suitWord, SUITS } from './cards.js';
import { button, h, message } from './dom.js';
import { concrete, dealOf, deckOf, kinds, nominations, openTo, playableCards, seatsFor, seenThisDeal, tridgeBids, turnUpCards } from './legal.js';

export function entryPanel(ctx) {
  const k = kinds(ctx.view);
  if (!k.size || ctx.table.finished) return message('The game is over: nothing more to record.');
  const resultMode = k.has('result') && (ctx.mode === 'result' || (k.size === 1));
  const toggle = k.has('result') && k.size > 1
    ? h('div', { class: 'modes', role: 'group', 'aria-label': 'Recording mode' },
      button('Card by card', () => ctx.setMode('cards'), { 'aria-pressed': String(!resultMode) }),
      button('Result', () => ctx.setMode('result'), { 'aria-pressed': String(resultMode) }))
    : null;
  let body;
  switch (ctx.game) {
    case 'nomination-whist': body = resultMode ? whistResult(ctx) : whist(ctx, k); break;
    case 'dividend': body = resultMode ? dividendResult(ctx) : dividend(ctx, k); break;
    case 'tridge': body = resultMode ? tridgeResult(ctx) : tridge(ctx, k); break;
    case 'pope-joan': body = resultMode ? stopsResult(ctx) : stops(ctx, k); break;
    case 'spin': body = resultMode ? stopsResult(ctx) : stops(ctx, k); break;
    case 'newmarket': body = resultMode ? newmarketResult(ctx) : stops(ctx, k); break;
    case 'tricky-dick': body = resultMode ? trickyDickResult(ctx) : trickyDick(ctx, k); break;
    default: body = null;
  }
  if (!body) return [toggle, generic(ctx, k)];
  // Kinds this game's panel has no control for yet: the move as JSON, checked by the server.
  const handled = resultMode ? new Set(['result']) : new Set([...(PANEL_KINDS[ctx.game] || []), 'result']);
  const rest = new Set([...k].filter((x) => !handled.has(x)));
  return [toggle, body, rest.size ? h('details', { class: 'other' }, h('summary', {}, 'Other entries'), generic(ctx, rest)) : null];
}

/// The move kinds each game's panel offers controls for.
const PANEL_KINDS = {
  'nomination-whist': ['turn_up', 'nominate', 'play'],
  dividend: ['play', 'trick'],
  tridge: ['bid', 'pass', 'pass_out', 'declare', 'exchange', 'defence', 'play', 'stop', 'settle_widows_fund',
    'fixed_bid', 'in_come', 'give_up', 'count_stock'],
  'pope-joan': ['turn_up', 'play', 'stop', 'pope_in_lieu', 'pope_holder'],
  spin: ['play', 'stop', 'show', 'spin_holder'],
  newmarket: ['layout', 'play', 'stop'],
  'tricky-dick': ['first_trick', 'play'],
};

const name = (ctx, s) => ctx.players[s] ?? `seat ${s}`;

function prompt(text) {
  return h('p', { class: 'prompt' }, text);
}

function cardPicker(ctx, { legal, onPick, label }) {
  return picker({ deck: deckOf(ctx.game), legal, seen: seenThisDeal(ctx.view, ctx.log), onPick, label });
}

function playPicker(ctx) {
  const seat = openTo(ctx.view, 'play')?.seat ?? ctx.view.to_act;
  return [prompt(`${name(ctx, seat)} to play`),
    cardPicker(ctx, {
      legal: playableCards(ctx.game, ctx.view, ctx.log),
      label: `Card for ${name(ctx, seat)}`,
      onPick: (card) => ctx.send({ kind: 'play', seat, card }, `${cardText(card)} for ${name(ctx, seat)}`),
    })];
}

// ---- Nomination Whist -------------------------------------------------------------------------

function whist(ctx, k) {
  const v = ctx.view;
  if (k.has('turn_up')) {
    return [prompt('Turn-up card (sets trumps)'), cardPicker(ctx, {
      legal: turnUpCards(ctx.game, v, ctx.log), label: 'Turn-up card',
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

function stepper(label, id, { min = 0, max, value = 0 }) {
  const input = h('input', { id, type: 'number', inputmode: 'numeric', min, max, value, required: true });
  const step = (d) => () => {
    const n = Math.max(min, Math.min(max ?? 999, (Number(input.value) || 0) + d));
    input.value = n;
    input.dispatchEvent(new Event('input', { bubbles: true }));
  };
  return h('div', { class: 'stepper' },
    h('label', { for: id }, label),
    button('−', step(-1), { 'aria-label': `${label} minus one`, class: 'step' }),
    input,
    button('+', step(1), { 'aria-label': `${label} plus one`, class: 'step' }));
}

/// Result forms being filled in, by table and label ("Result of deal 3").
const drafts = new Map();

function resultForm(ctx, { fields, check, build, label, extra = [] }) {
  const note = h('p', { class: 'msg', role: 'status' });
  const submit = h('button', { type: 'submit' }, 'Record result');
  const form = h('form', { class: 'result', 'aria-label': label },
    extra, fields, note, submit);
  const values = (key) => ctx.players.map((_, s) => Number(form.querySelector(`#r-${key}-${s}`)?.value || 0));
  // What was typed survives a re-render (a refusal, an answer for another entry): nothing is lost.
  const fieldsOf = () => form.querySelectorAll('input[id], select[id]');
  for (const el of fieldsOf()) {
    const saved = drafts.get(`${ctx.table.id} ${label}`)?.[el.id];
    if (saved !== undefined) el.value = saved;
  }
  const keep = () => drafts.set(`${ctx.table.id} ${label}`, Object.fromEntries([...fieldsOf()].map((el) => [el.id, el.value])));
  form.addEventListener('input', keep);
  form.addEventListener('change', keep);
  const update = () => {
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
    ctx.send(build(values, form), label, { deal: dealOf(ctx.view) });
  });
  queueMicrotask(update);
  return form;
}

function perSeat(ctx, key, word, max, seats = null) {
  return h('fieldset', {}, h('legend', {}, word),
    ctx.players.map((p, s) => (seats && !seats.includes(s) ? null : stepper(`${p} ${word.toLowerCase()}`, `r-${key}-${s}`, { max }))));
}

function whistResult(ctx) {
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

// ---- Dividend ---------------------------------------------------------------------------------

function dividend(ctx, k) {
  const v = ctx.view;
  const parts = [];
  const trick = v.current_trick;
  if (k.has('trick') && trick && !(trick.plays || []).length && v.recording !== 'card_by_card') {
    parts.push(prompt(`Who won trick ${trick.number}? (${name(ctx, trick.leader)} led)`),
      h('div', { class: 'choices seats4', role: 'group', 'aria-label': `Winner of trick ${trick.number}` },
        ctx.players.map((p, s) => button(p, () => ctx.send({ kind: 'trick', winner: s, number: trick.number }, `trick ${trick.number} won by ${p}`),
          { 'aria-label': `${p} won trick ${trick.number}` }))));
  }
  if (k.has('play') && v.recording !== 'trick_by_trick') parts.push(playPicker(ctx));
  return parts.length ? parts : null;
}

function dividendResult(ctx) {
  return resultForm(ctx, {
    label: `Result of deal ${ctx.view.deal}`,
    fields: [perSeat(ctx, 'won', 'Cards won', 52)],
    check: (values) => {
      const t = values('won').reduce((a, b) => a + b, 0);
      return t === 52 ? null : `cards won add up to ${t}, not 52`;
    },
    build: (values) => ({ kind: 'result', cards_won: values('won') }),
  });
}

// ---- Tridge -----------------------------------------------------------------------------------

const CONTRACTS = [
  ['play', true], ['play_diamonds', false], ['no_change', true], ['no_change_diamonds', false],
  ['all_tricks', true], ['no_tricks', true],
];
const words = (s) => String(s).replaceAll('_', ' ');

function tridge(ctx, k) {
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
        seatsFor(v, 'pass').map((s) => button(`${name(ctx, s)} passes`, () => ctx.send({ kind: 'pass', seat: s }, `${name(ctx, s)} passed`))),
        k.has('pass_out') ? button('Pass out', () => ctx.send({ kind: 'pass_out' }, 'passed out')) : null));
  } else if (k.has('bid') || k.has('pass')) {
    parts.push(prompt(`${who} to bid`),
      h('div', { class: 'choices', role: 'group', 'aria-label': 'Bids' },
        k.has('bid') ? tridgeBids(v).map(({ bid, ok }) =>
          button(words(bid), () => ctx.send({ kind: 'bid', seat, bid }, `${who} bid ${words(bid)}`), { disabled: !ok })) : null,
        k.has('pass') && seat != null ? button('Pass', () => ctx.send({ kind: 'pass', seat }, `${who} passed`)) : null,
        k.has('pass_out') ? button('Pass out', () => ctx.send({ kind: 'pass_out' }, 'passed out')) : null));
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
      h('div', { class: 'choices', role: 'group', 'aria-label': 'Contracts' },
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
    const discards = stepper('Discards', 't-discards', { max: total });
    const stock = stepper('Stock', 't-stock', { max: total });
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

function tridgeResult(ctx) {
  const v = ctx.view;
  const bounds = openTo(v, 'result') || {};
  const total = bounds.tricks_total ?? 9;
  const options = (list) => list.map(([value, text]) => h('option', { value }, text));
  const check = (id, text) => h('label', {}, h('input', { id, type: 'checkbox' }), text);
  const checked = (form, id) => Boolean(form.querySelector(`#${id}`)?.checked);
  return resultForm(ctx, {
    label: `Result of deal ${v.deal}`,
    extra: [
      h('label', { for: 'r-player' }, 'Player'),
      h('select', { id: 'r-player' }, options((bounds.seats || v.active).map((s) => [s, name(ctx, s)]))),
      h('label', { for: 'r-contract' }, 'Contract'),
      h('select', { id: 'r-contract' }, options(CONTRACTS.map(([c]) => [c, words(c)]))),
      h('label', { for: 'r-trumps' }, 'Trumps'),
      h('select', { id: 'r-trumps' }, options(SUITS.map((s) => [s.word, `${s.symbol} ${s.word}`]))),
      stepper('Honours', 'r-honours', { max: 9 }),
      h('div', { class: 'checks', role: 'group', 'aria-label': 'How the deal went' },
        check('r-stopped', 'Stopped after five'),
        check('r-all-after', 'Played on for all nine after five'),
        bounds.in_comer ? check('r-in-comer', 'The Player came in (dealer of four)') : null),
    ],
    fields: [perSeat(ctx, 'tricks', 'Tricks', total, bounds.seats || v.active)],
    check: (values, form) => {
      const tricks = values('tricks');
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

// ---- Pope Joan, Spin and Newmarket (the stops games) ----------------------------------------

function stops(ctx, k) {
  const v = ctx.view;
  const parts = [];
  if (k.has('turn_up')) {
    parts.push(prompt('Turn-up card (sets trumps)'), cardPicker(ctx, {
      legal: turnUpCards(ctx.game, v, ctx.log), label: 'Turn-up card',
      onPick: (card) => ctx.send({ kind: 'turn_up', card }, `${cardText(card)} turned up`),
    }));
  }
  if (k.has('layout')) parts.push(newmarketLayout(ctx));
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
  if (k.has('show')) {
    for (const m of concrete(v, 'show') || []) {
      parts.push(h('div', { class: 'choices', role: 'group', 'aria-label': `Shows for ${name(ctx, m.seat)}` },
        m.combinations.map((c) => button(`${name(ctx, m.seat)} shows ${c}`, () => ctx.send({ kind: 'show', seat: m.seat, combination: c }, `${name(ctx, m.seat)} showed ${c}`)))));
    }
  }
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
  if (k.has('spin_holder')) {
    const open = new Set(openTo(v, 'spin_holder')?.seats ?? []);
    parts.push(prompt('Who still holds Spin (A♦)?'),
      h('div', { class: 'choices', role: 'group', 'aria-label': 'Spin holder' },
        ctx.players.map((p, s) => button(p, () => ctx.send({ kind: 'spin_holder', seat: s }, `Spin held by ${p}`), { disabled: !open.has(s), 'aria-label': `Spin held by ${p}` }))));
  }
  return parts.length ? parts : null;
}

const options = (list) => list.map(([value, text]) => h('option', { value }, text));
const seatOptions = (ctx, none = null) => options([...(none ? [['', none]] : []), ...ctx.players.map((p, s) => [s, p])]);
const seatOrNull = (form, id) => {
  const value = form.querySelector(`#${id}`)?.value;
  return value === '' || value == null ? null : Number(value);
};

/// Cards left per seat within the hands dealt, the seat that went out on none.
function cardsLeftCheck(ctx, hands) {
  return (values, form) => {
    const left = values('left');
    const out = Number(form.querySelector('#r-out').value);
    const over = left.findIndex((n, s) => hands[s] != null && n > hands[s]);
    if (over >= 0) return `${name(ctx, over)} was dealt ${hands[over]} cards`;
    return left[out] === 0 ? null : `${name(ctx, out)} went out: 0 cards left`;
  };
}

function stopsResult(ctx) {
  const v = ctx.view;
  const bounds = openTo(v, 'result') || {};
  const hands = bounds.hand_sizes || ctx.players.map(() => v.hand_size ?? 20);
  const extra = ctx.game === 'spin'
    ? [
      h('label', { for: 'r-matrimony' }, 'Matrimony shown by'), h('select', { id: 'r-matrimony' }, seatOptions(ctx, 'nobody')),
      h('label', { for: 'r-intrigue' }, 'Intrigue shown by'), h('select', { id: 'r-intrigue' }, seatOptions(ctx, 'nobody')),
      h('label', { for: 'r-holder' }, 'Spin (A♦) still held by'), h('select', { id: 'r-holder' }, seatOptions(ctx, 'nobody: Spin was played')),
    ]
    : [h('label', { for: 'r-holder' }, 'The Pope (9♦) still held by'), h('select', { id: 'r-holder' }, seatOptions(ctx, 'nobody / the spare hand'))];
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
      const holder = seatOrNull(form, 'r-holder');
      if (ctx.game === 'spin') {
        for (const [key, id] of [['matrimony', 'r-matrimony'], ['intrigue', 'r-intrigue'], ['spin_holder', 'r-holder']]) {
          const seat = seatOrNull(form, id);
          if (seat != null) move[key] = seat;
        }
      } else if (holder != null) {
        move.pope_holder = holder;
      }
      return move;
    },
  });
}

/// Newmarket's layout: a pool card of each rank in four different suits, every seat's stake.
function newmarketLayout(ctx) {
  const v = ctx.view;
  const open = openTo(v, 'layout');
  const pool = open?.pool_cards || [];
  const ranks = [['A', 'Ace'], ['K', 'King'], ['Q', 'Queen'], ['J', 'Knave']];
  const byRank = (r) => pool.filter((c) => c.slice(0, -1) === r);
  const note = h('p', { class: 'msg', role: 'status' });
  const form = h('form', { class: 'result', 'aria-label': 'Layout' },
    prompt('The layout: the pool cards and each player’s stake'),
    ranks.map(([r, word], i) => [h('label', { for: `l-pool-${i}` }, word),
      h('select', { id: `l-pool-${i}` }, options(byRank(r).map((c) => [c, cardText(c)])))]),
    h('fieldset', {}, h('legend', {}, 'Stakes'),
      ctx.players.map((p, s) => [h('label', { for: `l-stake-${s}` }, `${p} stakes on`),
        h('select', { id: `l-stake-${s}` }, options(ranks.map(([, word], i) => [i, word])))])),
    note, h('button', { type: 'submit' }, 'Record layout'));
  // Four different suits to start: ♠ ♥ ♦ ♣ in rank order.
  ranks.forEach((_, i) => { const sel = form.querySelector(`#l-pool-${i}`); if (sel && sel.options[i]) sel.selectedIndex = i; });
  ctx.players.forEach((_, s) => { const sel = form.querySelector(`#l-stake-${s}`); if (sel) sel.selectedIndex = s % 4; });
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const cards = ranks.map((_, i) => form.querySelector(`#l-pool-${i}`).value);
    if (new Set(cards.map((c) => c.slice(-1))).size !== 4) {
      note.textContent = 'the pool cards must be of four different suits';
      note.className = 'msg warn';
      return;
    }
    const stakes = ctx.players.map((_, s) => cards[Number(form.querySelector(`#l-stake-${s}`).value)]);
    ctx.send({ kind: 'layout', pool_cards: cards, stakes }, `layout ${cards.map(cardText).join(' ')}`);
  });
  return form;
}

function newmarketResult(ctx) {
  const v = ctx.view;
  const bounds = openTo(v, 'result') || {};
  const hands = bounds.hand_sizes || ctx.players.map(() => 52);
  const pool = bounds.pool_cards || v.pool_cards || [];
  return resultForm(ctx, {
    label: `Result of deal ${v.deal}`,
    extra: [
      h('label', { for: 'r-out' }, 'Went out'),
      h('select', { id: 'r-out' }, seatOptions(ctx)),
      h('fieldset', {}, h('legend', {}, 'Pool cards won'),
        pool.map((c, i) => [h('label', { for: `r-pool-${i}` }, `${cardText(c)} pool won by`),
          h('select', { id: `r-pool-${i}` }, seatOptions(ctx, 'nobody'))])),
    ],
    fields: [h('fieldset', {}, h('legend', {}, 'Cards left'),
      ctx.players.map((p, s) => stepper(`${p} cards left`, `r-left-${s}`, { max: hands[s] })))],
    check: cardsLeftCheck(ctx, hands),
    build: (values, form) => ({
      kind: 'result',
      out: Number(form.querySelector('#r-out').value),
      cards_left: values('left'),
      pool_winners: pool.map((_, i) => seatOrNull(form, `r-pool-${i}`)),
    }),
  });
}

// ---- Tricky Dick (the 64-card Squares deck) ----------------------------------------------------

/// Trick 1's four face-up cards, tapped in seat order, by table.
const firstTricks = new Map();

function trickyDick(ctx, k) {
  const v = ctx.view;
  if (k.has('first_trick')) {
    const open = new Set(openTo(v, 'first_trick')?.cards ?? SQUARES64);
    const chosen = firstTricks.get(ctx.table.id) || [];
    const rerender = () => ctx.setMode(ctx.mode);
    const seat = chosen.length;
    return [prompt(seat < 4 ? `Trick 1: ${name(ctx, seat)}'s face-up card` : 'Trick 1'),
      h('p', { class: 'chosen' }, chosen.map((c, s) => [name(ctx, s), ' ', squaresFace(c), ' '])),
      squaresPicker({
        legal: seat < 4 ? open : new Set(), chosen, label: 'Squares card',
        onPick: (card) => {
          const next = [...chosen, card];
          if (next.length === 4) {
            firstTricks.delete(ctx.table.id);
            ctx.send({ kind: 'first_trick', cards: next }, `trick 1: ${next.map(squaresName).join(', ')}`, { deal: dealOf(v) });
          } else {
            firstTricks.set(ctx.table.id, next);
            rerender();
          }
        },
      }),
      chosen.length ? button('Clear', () => { firstTricks.delete(ctx.table.id); rerender(); }) : null];
  }
  if (k.has('play')) {
    const m = openTo(v, 'play');
    const seat = m?.seat ?? v.to_act;
    return [prompt(`${name(ctx, seat)} to lay a card to trick ${m?.trick ?? v.current_trick?.number ?? ''}`),
      squaresPicker({
        legal: new Set(m?.cards ?? []), label: `Card for ${name(ctx, seat)}`,
        onPick: (card) => ctx.send({ kind: 'play', seat, card, ...(m?.trick ? { trick: m.trick } : {}) }, `${squaresName(card)} for ${name(ctx, seat)}`),
      })];
  }
  return null;
}

/// The whole hand at once: each player's trick chips (circles − squares of the tricks they
/// scored) and penalties, within the bounds of the server's result form.
function trickyDickResult(ctx) {
  const v = ctx.view;
  const b = openTo(v, 'result') || {};
  const [min, max] = [b.trick_chips_min ?? -16, b.trick_chips_max ?? 16];
  const [totalMin, totalMax] = [b.trick_chips_total_min ?? -48, b.trick_chips_total_max ?? 48];
  const penaltiesMax = b.penalties_max ?? 15;
  const hand = dealOf(v);
  const signed = (n) => (n < 0 ? `−${-n}` : String(n));
  return resultForm(ctx, {
    label: `Result of hand ${hand}`,
    extra: [h('p', { class: 'why' },
      `Trick chips: circles − squares of the tricks each player scored, ${signed(min)} to ${max}. `
      + `Penalties: lays sharing nothing with the player's previous lay, 0 to ${penaltiesMax}.`)],
    fields: [
      h('fieldset', {}, h('legend', {}, 'Trick chips'),
        ctx.players.map((p, s) => stepper(`${p} trick chips`, `r-chips-${s}`, { min, max }))),
      h('fieldset', {}, h('legend', {}, 'Penalties'),
        ctx.players.map((p, s) => stepper(`${p} penalties`, `r-pen-${s}`, { max: penaltiesMax }))),
    ],
    check: (values) => {
      const chips = values('chips');
      const off = chips.findIndex((c) => !Number.isInteger(c) || c < min || c > max);
      if (off >= 0) return `${name(ctx, off)}'s trick chips are ${signed(min)} to ${max}`;
      const total = chips.reduce((a, c) => a + c, 0);
      if (total < totalMin || total > totalMax) return `the trick chips add up to ${signed(total)}: no hand gives more than ${totalMax} or less than ${signed(totalMin)}`;
      const pen = values('pen').findIndex((n) => !Number.isInteger(n) || n < 0 || n > penaltiesMax);
      if (pen >= 0) return `${name(ctx, pen)}'s penalties are 0 to ${penaltiesMax}`;
      return null;
    },
    build: (values) => ({ kind: 'result', trick_chips: values('chips'), penalties: values('pen') }),
  });
}

// ---- Any other move ---------------------------------------------------------------------------

/// For the moves without a panel yet: the move as JSON, checked by the server.
function generic(ctx, k) {
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
