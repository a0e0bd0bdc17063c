// @ts-check
// Who recorded an entry, in the club's words: the log's `recorded_by` ("scorer:<id>",
// "organiser:<id>") named from the table's scorers (`GET /tables/{id}/scorers`: each phone's
// name as it joined), and which of them is this phone (from its own token).

import { get, recordingToken } from './api.js';

const byTable = new Map();

/// Reads the table's scorers (again when `fresh`, e.g. a phone joined since).
/**
 * @param {string} table
 * @param {boolean} [fresh]
 * @returns {Promise<Map<string, string>>} names by `recorded_by`
 */
export async function loadScorers(table, fresh = false) {
  if (!fresh && byTable.has(table)) return byTable.get(table);
  const names = new Map();
  try {
    for (const s of await get(`/tables/${table}/scorers`)) names.set(s.recorded_by, s.name);
  } catch {
    // Offline: entries are said to come from "another phone" until the names are known.
  }
  byTable.set(table, names);
  return names;
}

/// This phone's `recorded_by`, read from the token it records with.
/**
 * @param {string} table
 * @returns {string | null}
 */
export function myRecordedBy(table) {
  const token = recordingToken(table);
  try {
    const claims = JSON.parse(atob(token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/')));
    if (claims.scorer) return `scorer:${claims.scorer}`;
    return `${claims.role === 'scorer' ? 'scorer' : 'organiser'}:${claims.sub}`;
  } catch {
    return null;
  }
}

/// "Bob's phone", "the organiser", or "another phone".
/**
 * @param {string} table
 * @param {import('./types.js').LogEntry} entry
 * @returns {string}
 */
export function recorder(table, entry) {
  const by = entry?.recorded_by || '';
  const name = byTable.get(table)?.get(by);
  if (name) return name;
  if (by.startsWith('organiser:')) return 'the organiser';
  return 'another phone';
}

/// True when the entry came from this phone.
/**
 * @param {string} table
 * @param {import('./types.js').LogEntry} entry
 * @returns {boolean}
 */
export function fromThisPhone(table, entry) {
  const me = myRecordedBy(table);
  return Boolean(me) && entry?.recorded_by === me;
}
