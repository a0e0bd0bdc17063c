// @ts-check
// The money screen (issue #44), for the session's organiser and treasurer: the settle-up (each
// party's net, then who pays whom in the settle-up's order, in chips and, with a chip value, in
// money), what the pools and the bank hold and where it goes (the tournaments' `leftover`
// rules), and the chip value set or cleared. Route: #/session/<id>/money. It reads with the
// signed-in account's token (organiserRoute asks for a sign-in): whoever may read the session
// reads it, and a treasurer signs in as an organiser does; setting the chip value is the
// server's to allow (organisers, treasurers, owners), a refusal said in its own words.
// Every number shown is `GET /sessions/{id}/settlement`'s (and the standings' for a player who
// came out square); the words are settle.js's.

import { call, get, organiser } from './api.js';
import { button, h, message, mount } from './dom.js';
import { guarded, top } from './organiser.js';
import { reopenedLines } from './words.js';
import { accountName, amountText, chips, currencyDigits, minorUnits, money, netChips, netMoney, partyKey, partyName, paymentLine, whereThePoolsGo } from './settle.js';

const auth = () => ({ token: organiser.token });

/**
 * @param {string} id the session's
 * @param {HTMLElement} root
 * @param {string | null} [note] said once the screen is drawn (what the last change did)
 */
export async function moneyScreen(id, root, note = null) {
  const back = `#/session/${id}`;
  mount(root, top('Money', back), message('Loading…'));
  await guarded(root, async () => {
    const [s, settlement, standings] = await Promise.all([
      get(`/sessions/${id}`, auth()),
      get(`/sessions/${id}/settlement`, auth()),
      get(`/sessions/${id}/standings`, auth()),
    ]);
    let tournaments = [];
    try {
      tournaments = (await get(`/sessions/${id}/tournaments`, auth())).items;
    } catch (err) {
      if (err.status === 401) throw err;
    }
    const value = settlement.chip_value ?? null;
    const status = h('div', { class: 'screen-status', 'aria-live': 'polite' }, note ? message(note, 'ok') : null);
    mount(root, top(`Money: ${s.name}`, back),
      status,
      reopened(settlement.reopenings),
      settleUp(settlement, value),
      nets(settlement, standings, value),
      pools(settlement, s, tournaments, value),
      chipValueForm(id, root, value, status));
  });
}

/// The session's reopenings, beside its result ever after; nothing when it was never reopened.
/**
 * @param {any[] | undefined} reopenings
 * @returns {HTMLElement | null}
 */
export function reopened(reopenings) {
  const lines = reopenedLines(reopenings);
  return lines.length
    ? h('section', { class: 'card-box reopened', 'aria-label': 'Reopened' }, h('ul', {}, lines.map((line) => h('li', {}, line))))
    : null;
}

/// Who pays whom, in the settle-up's order.
function settleUp(settlement, value) {
  return h('section', { class: 'card-box money', 'aria-labelledby': 'payments-head' },
    h('h2', { id: 'payments-head' }, 'Settle-up'),
    h('p', { class: 'chip-value', 'data-minor-units': value?.minor_units ?? '', 'data-currency': value?.currency ?? '' },
      value
        ? `A chip is worth ${money(value.minor_units, value.currency)}.`
        : 'No chip value is set: the settle-up is in chips only.'),
    settlement.payments.length
      ? h('ol', { class: 'payments', 'aria-label': 'Payments' }, settlement.payments.map((p) => h('li', {
        'data-from': partyKey(p.from), 'data-to': partyKey(p.to), 'data-chips': p.chips,
        'data-minor-units': p.minor_units ?? '', 'data-currency': p.currency ?? '',
      }, paymentLine(p))))
      : message('Everyone is square: nothing to pay.'));
}

/// Each party's net: the settle-up's (players who won or lost, the pools, the bank), and the
/// players the standings have at 0, who are square.
function nets(settlement, standings, value) {
  const listed = new Set(settlement.nets.map((n) => partyKey(n.party)));
  // Destructured: a standing's `player` is a name, not a game's view field of that name.
  const square = standings.players
    .map(({ player, member_id: member, chips: n }) => ({ party: { player, member_id: member ?? null, pools: false }, chips: n }))
    .filter((n) => n.chips === 0 && !listed.has(partyKey(n.party)));
  const rows = [...settlement.nets, ...square];
  return h('section', { class: 'card-box money', 'aria-labelledby': 'nets-head' },
    h('h2', { id: 'nets-head' }, 'Nets'),
    h('p', { class: 'facts' }, 'What each won (+) or lost (−) against what the bank issued; the payments bring each to square.'),
    rows.length
      ? h('ul', { class: 'nets', 'aria-label': 'Nets' }, rows.map((n) => h('li', {
        'data-party': partyKey(n.party), 'data-chips': n.chips,
        'data-minor-units': value ? n.chips * value.minor_units : '',
      },
      h('span', { class: 'net-name' }, partyName(n.party, true)),
      h('span', { class: 'net-chips' }, netChips(n.chips)),
      value ? h('span', { class: 'net-money' }, netMoney(n.chips, value)) : null)))
      : message('Nobody has won or lost a chip yet.'));
}

/// What the pools and the bank hold, and where it goes.
function pools(settlement, s, tournaments, value) {
  const held = (party) => settlement.nets.find((n) => partyKey(n.party) === party)?.chips ?? 0;
  const [inPools, inBank] = [held('pools'), held('bank')];
  const worth = (n) => (value && n ? ` (${money(n * value.minor_units, value.currency)})` : '');
  const rounds = tournaments.map((t) => ({
    name: t.name,
    leftover: t.leftover,
    tables: (t.played_rounds ?? []).flatMap((r) => (r.tables ?? []).map((x) => x.table_id)),
  }));
  const players = (tableId) => s.tables.find((t) => t.id === tableId)?.players ?? [];
  const moved = settlement.leftovers ?? [];
  return h('section', { class: 'card-box money', 'aria-labelledby': 'pools-head' },
    h('h2', { id: 'pools-head' }, 'Pools and bank'),
    h('p', { class: 'held', 'data-pools': inPools, 'data-bank': inBank },
      `The pools hold ${chips(inPools)}${worth(inPools)}`,
      inBank ? `; the bank holds ${chips(inBank)}${worth(inBank)}.` : '.'),
    h('ul', { class: 'where', 'aria-label': 'Where the pools go' },
      whereThePoolsGo(rounds, s.tables.map((t) => t.id)).map((line) => h('li', {}, line))),
    moved.length
      ? h('details', { class: 'leftovers' }, h('summary', {}, `Moved out of pools as rounds closed (${moved.length})`),
        h('ul', { 'aria-label': 'Leftover moves' }, moved.map((m) => h('li', { 'data-chips': m.chips },
          `Round ${m.round}, table ${m.table}: ${chips(m.chips)} from ${accountName(m.from, players(m.table_id))} to ${accountName(m.to, players(m.table_id))}`))))
      : null);
}

/// Sets or clears what a chip is worth. What cannot be a whole number of minor units is said
/// here; anything else goes to the server, whose refusal is shown in its words, nothing changed.
function chipValueForm(id, root, value, status) {
  const said = h('div', { class: 'form-status', 'aria-live': 'polite' });
  const currency = h('input', {
    id: 'chip-currency', name: 'currency', autocomplete: 'off', autocapitalize: 'characters', spellcheck: 'false',
    required: true, value: value?.currency ?? 'GBP', 'aria-describedby': 'chip-currency-note',
  });
  const amount = h('input', {
    id: 'chip-amount', name: 'amount', inputmode: 'decimal', autocomplete: 'off', required: true,
    value: value ? amountText(value.minor_units, currencyDigits(value.currency)) : '', placeholder: '0.05',
    'aria-describedby': 'chip-amount-note',
  });
  const send = async (chipValue, done) => {
    try {
      await call('PATCH', `/sessions/${id}`, { ...auth(), body: { chip_value: chipValue } });
    } catch (err) {
      if (err.status === 401) return guarded(root, () => { throw err; });
      mount(said, message(err.message, 'error'));
      return undefined;
    }
    return moneyScreen(id, root, done);
  };
  const form = h('form', { class: 'card-box money', 'aria-labelledby': 'chip-value-head' },
    h('h2', { id: 'chip-value-head' }, 'Chip value'),
    h('label', { for: 'chip-amount' }, 'Value of a chip'), amount,
    h('small', { id: 'chip-amount-note' }, "In the currency's units, e.g. 0.05 for 5p."),
    h('label', { for: 'chip-currency' }, 'Currency'), currency,
    h('small', { id: 'chip-currency-note' }, 'Its three-letter code: GBP, EUR, USD.'),
    said,
    h('div', { class: 'row' },
      h('button', { type: 'submit', class: 'primary' }, 'Set the chip value'),
      value ? button('Clear the chip value', () => send(null, 'The chip value is cleared: the settle-up is in chips only.')) : null));
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    const code = currency.value.trim().toUpperCase();
    const minor = minorUnits(amount.value, currencyDigits(code));
    if (minor === null) {
      mount(said, message(`"${amount.value}" is not an amount of ${code || 'money'}: write it like 0.05.`, 'error'));
      return;
    }
    const set = { minor_units: minor, currency: code };
    await send(set, `A chip is now worth ${money(minor, code)}.`);
  });
  return form;
}
