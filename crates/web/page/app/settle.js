// @ts-check
// The settle-up in words, without a browser: a party's name, chips, money in the session's
// currency (Intl.NumberFormat, in the currency's own minor units), a payment ("Ann pays Bob 12
// chips (£0.60)"), a net, where the pools' chips go (a tournament's `leftover` rule), and an
// amount typed on the chip value form read as minor units. The money screen (money.js) draws
// these; `GET /sessions/{id}/settlement` is the only source of the numbers.

/** What a chip is worth: `{minor_units, currency}`, as the API gives it. @typedef {{ minor_units: number, currency: string }} ChipValue */
/**
 * A party of the settle-up: a player (`player`, `member_id`), the tables' pools (`pools: true`)
 * or the bank (`bank: true`).
 * @typedef {{ player: string, pools: boolean, bank?: boolean, member_id?: string | null }} Party
 */

/// The digits after the point in `currency`'s minor units (2 for GBP, 0 for JPY); 2 for a code
/// Intl does not know or cannot take.
/**
 * @param {string} currency
 * @returns {number}
 */
export function currencyDigits(currency) {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits;
  } catch {
    return 2;
  }
}

/// `minor` minor units of `currency` as money: 60 GBP → "£0.60" (in `locale`, the browser's
/// when left out). A code Intl refuses is written after the number ("0.60 XX1").
/**
 * @param {number} minor
 * @param {string} currency
 * @param {string} [locale]
 * @returns {string}
 */
export function money(minor, currency, locale) {
  const digits = currencyDigits(currency);
  const amount = minor / 10 ** digits;
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount.toFixed(digits)} ${currency}`;
  }
}

/// "1 chip", "12 chips".
/**
 * @param {number} n
 * @returns {string}
 */
export function chips(n) {
  return `${n} chip${Math.abs(n) === 1 ? '' : 's'}`;
}

/// A party's name in a sentence: the player's, "the pools" or "the bank" (capitalised to start
/// one).
// The flags are destructured: `pools` here is a settle-up party's flag, not a game's view field.
/**
 * @param {Party} party
 * @param {boolean} [start]
 * @returns {string}
 */
export function partyName({ player, pools, bank }, start = false) {
  if (bank) return start ? 'The bank' : 'the bank';
  if (pools) return start ? 'The pools' : 'the pools';
  return player;
}

/// A stable key for a party (the member, else the name; the pools and the bank by role), to
/// match what the page shows with what the API gives.
/**
 * @param {Party} party
 * @returns {string}
 */
export function partyKey({ player, pools, bank, member_id: member }) {
  if (bank) return 'bank';
  if (pools) return 'pools';
  return member ? `member:${member}` : `player:${player}`;
}

/// One payment in words: "Ann pays Bob 12 chips (£0.60)", "The pools pay Cat 3 chips"; the money
/// is the API's (`minor_units`, `currency`), given only when the session sets a chip value.
/**
 * @param {{ from: Party, to: Party, chips: number, minor_units?: number | null, currency?: string | null }} payment
 * @param {string} [locale]
 * @returns {string}
 */
export function paymentLine(payment, locale) {
  const from = partyName(payment.from, true);
  const verb = partyKey(payment.from) === 'pools' ? 'pay' : 'pays';
  const cash = payment.minor_units != null && payment.currency
    ? ` (${money(payment.minor_units, payment.currency, locale)})`
    : '';
  return `${from} ${verb} ${partyName(payment.to)} ${chips(payment.chips)}${cash}`;
}

/// A net in chips, signed: "+12 chips", "−7 chips" (a minus sign, not a hyphen), "square".
/**
 * @param {number} n
 * @returns {string}
 */
export function netChips(n) {
  if (n === 0) return 'square';
  return `${n > 0 ? '+' : '−'}${chips(Math.abs(n))}`;
}

/// A net in money at `value` a chip, signed as `netChips`; empty without a chip value.
/**
 * @param {number} n
 * @param {ChipValue | null | undefined} value
 * @param {string} [locale]
 * @returns {string}
 */
export function netMoney(n, value, locale) {
  if (!value || n === 0) return '';
  return `${n > 0 ? '+' : '−'}${money(Math.abs(n) * value.minor_units, value.currency, locale)}`;
}

/// What a tournament's `leftover` rule does with the chips left in its tables' pools, ending a
/// sentence that starts "Chips left in … pools" (docs/tournaments.md, "Leftover chips").
export const LEFTOVER = {
  keep: "stay in the pools: the settle-up counts them as the pools'",
  share: "are shared among the table's players when a round closes, the odd chips one each from seat 1 on",
  bank: "go to the bank (the club's) when a round closes: the settle-up counts them as the bank's",
  carry: "are carried onto the next round's table of the same number when a round closes (the bank's until then, and after the last round)",
};

/// Where the pools' chips go, a sentence each: one per tournament (its rule), and one for the
/// session's tables outside every tournament, whose pools keep what they hold.
/**
 * @param {{ name: string, leftover?: string, tables: string[] }[]} tournaments each with the ids
 *   of the tables its rounds opened
 * @param {string[]} tables the ids of the session's tables
 * @returns {string[]}
 */
export function whereThePoolsGo(tournaments, tables) {
  const inTournaments = new Set(tournaments.flatMap((t) => t.tables));
  const lines = tournaments.map((t) =>
    `Chips left in the pools of ${t.name}'s tables ${LEFTOVER[t.leftover ?? 'keep'] ?? LEFTOVER.keep}.`);
  const outside = tables.filter((id) => !inTournaments.has(id)).length;
  if (!tournaments.length) lines.push(`Chips left in the pools ${LEFTOVER.keep}.`);
  else if (outside) lines.push(`Chips left in the pools of the other ${outside === 1 ? 'table' : `${outside} tables`} ${LEFTOVER.keep}.`);
  return lines;
}

/// A ledger account of a leftover move in words: "pool:pope" → "the Pope pool", "seat:1" → the
/// player at that seat (ledger seats from 0), "bank" → "the bank".
/**
 * @param {string} account
 * @param {string[]} players the table's players in seat order
 * @returns {string}
 */
export function accountName(account, players) {
  if (account === 'bank') return 'the bank';
  const [kind, rest = ''] = account.split(':');
  if (kind === 'seat') return players[Number(rest)] ?? `seat ${Number(rest) + 1}`;
  if (kind === 'pool') return `the ${rest.charAt(0).toUpperCase()}${rest.slice(1).replaceAll('_', ' ')} pool`;
  return account;
}

/// An amount typed in the currency's units ("0.05", "1", ".5", "0,05") as minor units: 5, 100,
/// 50, 5 at 2 digits. A minus sign is kept, for the server to refuse in its own words; what is
/// not a number, or has more decimals than the currency's minor unit, is null (it cannot be
/// sent as a whole number of minor units).
/**
 * @param {string} text
 * @param {number} [digits]
 * @returns {number | null}
 */
export function minorUnits(text, digits = 2) {
  const m = /^\s*([-−]?)(\d*)(?:[.,](\d*))?\s*$/.exec(text);
  if (!m || (!m[2] && !m[3])) return null;
  const [, sign, whole, fraction = ''] = m;
  if (fraction.length > digits) return null;
  const n = Number(whole || '0') * 10 ** digits + Number(fraction.padEnd(digits, '0') || '0');
  if (!Number.isSafeInteger(n)) return null;
  return sign ? -n : n;
}

/// Minor units back as the amount a person types: 5 at 2 digits → "0.05".
/**
 * @param {number} minor
 * @param {number} [digits]
 * @returns {string}
 */
export function amountText(minor, digits = 2) {
  return (minor / 10 ** digits).toFixed(digits);
}
