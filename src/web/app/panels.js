// The entry panel for the next move, per game. Only legal choices are enabled; the choices
// come from legal.js. `ctx` = { game, view, table, log, players, mode, setMode, send(move, label) }.

import { cardText, picker, suitWord, SUITS } from './cards.js';
import { button, h, message } from './dom.js';
import { deckOf, kinds, nominations, playableCards, seenThisDeal, tridgeBids, turnUpCards } from './legal.js';

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
    case 'newmarket': body = resultMode ? null : stops(ctx, k); break;
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
  tridge: ['bid', 'pass', 'pass_out', 'declare', 'exchange', 'defence', 'play', 'stop', 'settle_widows_fund'],
  'pope-joan': ['turn_up', 'play', 'stop', 'pope_in_lieu', 'pope_holder'],
  spin: ['play', 'stop'],
  newmarket: ['play', 'stop'],
};

const name = (ctx, s) => ctx.players[s] ?? `seat ${s}`;

function prompt(text) {
  return h('p', { class: 'prompt' }, text);
}

function cardPicker(ctx, { legal, onPick, label }) {
  return picker({ deck: deckOf(ctx.game), legal, seen: seenThisDeal(ctx.view, ctx.log), onPick, label });
}

function playPicker(ctx) {
  const seat = ctx.view.to_act;
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
    ctx.send(build(values, form), label);
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
  if (k.has('bid') || k.has('pass')) {
    parts.push(prompt(`${who ?? 'Any active seat'} to bid`),
      h('div', { class: 'choices', role: 'group', 'aria-label': 'Bids' },
        k.has('bid') ? tridgeBids(v).map(({ bid, ok }) =>
          button(words(bid), () => ctx.send({ kind: 'bid', seat, bid }, `${who} bid ${words(bid)}`), { disabled: !ok })) : null,
        k.has('pass') && seat != null ? button('Pass', () => ctx.send({ kind: 'pass', seat }, `${who} passed`)) : null,
        k.has('pass_out') ? button('Pass out', () => ctx.send({ kind: 'pass_out' }, 'passed out')) : null));
  }
  if (k.has('declare')) {
    const player = v.player ?? seat;
    parts.push(prompt(`${name(ctx, player)} declares`),
      h('div', { class: 'choices', role: 'group', 'aria-label': 'Contracts' },
        CONTRACTS.flatMap(([c, suited]) => (suited
          ? ['hearts', 'spades', 'clubs'].map((t) => button(`${words(c)} ${suitWord(t)}`, () => ctx.send({ kind: 'declare', seat: player, contract: { contract: c, trumps: t } }, `${name(ctx, player)} declared ${words(c)} ${t}`)))
          : [button(words(c), () => ctx.send({ kind: 'declare', seat: player, contract: { contract: c } }, `${name(ctx, player)} declared ${words(c)}`))]))));
  }
  if (k.has('exchange')) {
    parts.push(prompt(`${who} exchanges how many cards?`),
      h('div', { class: 'choices', role: 'group', 'aria-label': 'Cards exchanged' },
        Array.from({ length: Math.min(9, v.stock_left) + 1 }, (_, n) => button(String(n), () => ctx.send({ kind: 'exchange', seat, cards: n }, `${who} exchanged ${n}`), { 'aria-label': `Exchange ${n}` }))));
  }
  if (k.has('defence')) {
    parts.push(prompt('Who is 1st Defender?'),
      h('div', { class: 'choices', role: 'group', 'aria-label': '1st Defender' },
        v.active.filter((s) => s !== v.player).map((s) => button(name(ctx, s), () => ctx.send({ kind: 'defence', first_defender: s }, `${name(ctx, s)} 1st Defender`)))));
  }
  if (k.has('play')) parts.push(playPicker(ctx));
  if (k.has('stop') && v.may_stop) parts.push(button('Stop (after five tricks)', () => ctx.send({ kind: 'stop', seat: v.player }, `${name(ctx, v.player)} stopped`)));
  if (k.has('settle_widows_fund') && !parts.length) {
    parts.push(prompt("End of the session: the Widow's Fund"),
      button('Split it', () => ctx.send({ kind: 'settle_widows_fund', choice: 'split' }, "Widow's Fund split")),
      button('Leave it', () => ctx.send({ kind: 'settle_widows_fund', choice: 'leave' }, "Widow's Fund left")));
  }
  return parts.length ? parts : null;
}

function tridgeResult(ctx) {
  const v = ctx.view;
  const seats = v.active;
  const options = (list) => list.map(([value, text]) => h('option', { value }, text));
  return resultForm(ctx, {
    label: `Result of deal ${v.deal}`,
    extra: [
      h('label', { for: 'r-player' }, 'Player'),
      h('select', { id: 'r-player' }, options(seats.map((s) => [s, name(ctx, s)]))),
      h('label', { for: 'r-contract' }, 'Contract'),
      h('select', { id: 'r-contract' }, options(CONTRACTS.map(([c]) => [c, words(c)]))),
      h('label', { for: 'r-trumps' }, 'Trumps'),
      h('select', { id: 'r-trumps' }, options(SUITS.map((s) => [s.word, `${s.symbol} ${s.word}`]))),
      stepper('Honours', 'r-honours', { max: 9 }),
    ],
    fields: [perSeat(ctx, 'tricks', 'Tricks', 9, seats)],
    check: (values) => {
      const t = values('tricks').reduce((a, b) => a + b, 0);
      return t === 9 ? null : `tricks add up to ${t}, not 9`;
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
      };
    },
  });
}

// ---- Pope Joan (the stops games) --------------------------------------------------------------

function stops(ctx, k) {
  const v = ctx.view;
  const parts = [];
  if (k.has('turn_up')) {
    parts.push(prompt('Turn-up card (sets trumps)'), cardPicker(ctx, {
      legal: turnUpCards(ctx.game, v, ctx.log), label: 'Turn-up card',
      onPick: (card) => ctx.send({ kind: 'turn_up', card }, `${cardText(card)} turned up`),
    }));
  }
  if (k.has('play') && v.run) {
    const next = v.run.next;
    parts.push(prompt(`Next card: ${cardText(next)}. Who plays it?`),
      h('div', { class: 'choices', role: 'group', 'aria-label': `Who plays ${cardText(next)}` },
        ctx.players.map((p, s) => button(`${p} plays ${cardText(next)}`, () => ctx.send({ kind: 'play', seat: s, card: next }, `${cardText(next)} for ${p}`), { disabled: v.cards_left?.[s] === 0 }))));
  } else if (k.has('play') && v.to_act != null) {
    parts.push(playPicker(ctx));
  }
  if (k.has('stop')) parts.push(button('Stop (nobody can go on)', () => ctx.send({ kind: 'stop' }, 'stop'), { class: 'wide' }));
  if (k.has('pope_in_lieu')) {
    parts.push(h('div', { class: 'choices', role: 'group', 'aria-label': 'Pope in lieu' },
      ctx.players.map((p, s) => button(`${p}: Pope in lieu`, () => ctx.send({ kind: 'pope_in_lieu', seat: s }, `Pope in lieu for ${p}`)))));
  }
  if (k.has('pope_holder')) {
    parts.push(prompt('Who holds the Pope (9♦)?'),
      h('div', { class: 'choices', role: 'group', 'aria-label': 'Pope holder' },
        ctx.players.map((p, s) => button(p, () => ctx.send({ kind: 'pope_holder', seat: s }, `the Pope held by ${p}`))),
        button('The spare hand', () => ctx.send({ kind: 'pope_holder', seat: null }, 'the Pope in the spare hand'))));
  }
  return parts.length ? parts : null;
}

function stopsResult(ctx) {
  const v = ctx.view;
  const options = (list) => list.map(([value, text]) => h('option', { value }, text));
  return resultForm(ctx, {
    label: `Result of deal ${v.deal}`,
    extra: [
      h('label', { for: 'r-out' }, 'Went out'),
      h('select', { id: 'r-out' }, options(ctx.players.map((p, s) => [s, p]))),
      h('label', { for: 'r-specials' }, 'Specials played (e.g. Ann: 9D AH; Bob: KH)'),
      h('input', { id: 'r-specials', autocomplete: 'off' }),
    ],
    fields: [perSeat(ctx, 'left', 'Cards left', v.hand_size ?? 20)],
    check: (values, form) => {
      const out = Number(form.querySelector('#r-out').value);
      return values('left')[out] === 0 ? null : `${name(ctx, out)} went out: 0 cards left`;
    },
    build: (values, form) => {
      const specials = ctx.players.map(() => []);
      for (const part of form.querySelector('#r-specials').value.split(';')) {
        const [who, cards] = part.split(':');
        const s = ctx.players.findIndex((p) => p.toLowerCase() === (who || '').trim().toLowerCase());
        if (s >= 0 && cards) specials[s] = cards.trim().split(/\s+/).map((c) => c.toUpperCase());
      }
      return { kind: 'result', out: Number(form.querySelector('#r-out').value), cards_left: values('left'), specials };
    },
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
