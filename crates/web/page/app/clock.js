// @ts-check
// A tournament's round in words and numbers, pure (no DOM, no fetch: unit-tested with node):
// the round's clock counting down `minutes_per_round` from the round's start, whether a round's
// table is still playing, and a round's name. Times are passed in, never read here.

/// Milliseconds left on a round's clock at `now`: negative once time is up; null when the
/// tournament has no clock (no `minutes_per_round`) or the round has no start.
/**
 * @param {string | null | undefined} startedAt the round's `started_at` (ISO 8601)
 * @param {number | null | undefined} minutes the tournament's `minutes_per_round`
 * @param {number} now ms since the epoch
 * @returns {number | null}
 */
export function remainingMs(startedAt, minutes, now) {
  if (!minutes || !startedAt) return null;
  const start = Date.parse(startedAt);
  if (Number.isNaN(start)) return null;
  return start + minutes * 60_000 - now;
}

/// A clock's face: "19:59" while time is left (whole seconds, rounded up so that it reads
/// "20:00" at the start and "0:00" only when time is up), "1:05:00" past an hour, and "+2:10"
/// for the time played over.
/**
 * @param {number} ms from `remainingMs`
 * @returns {string}
 */
export function clockText(ms) {
  const over = ms < 0;
  const total = over ? Math.floor(-ms / 1000) : Math.ceil(ms / 1000);
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const two = (/** @type {number} */ n) => String(n).padStart(2, '0');
  const face = h ? `${h}:${two(m)}:${two(s)}` : `${m}:${two(s)}`;
  return over && total > 0 ? `+${face}` : face;
}

/// The clock said for a screen reader and a caption: "12 minutes left", "time is up".
/**
 * @param {number} ms
 * @returns {string}
 */
export function clockWords(ms) {
  if (ms <= 0) return 'time is up';
  const minutes = Math.ceil(ms / 60_000);
  return minutes === 1 ? 'less than a minute left' : `${minutes} minutes left`;
}

/// Deals a round's table has finished, from its view: the deal it is on less one, or the
/// deal it is on when its game is over. `deal` is the game's deal number (its `numbering`).
/**
 * @param {{ finished: boolean, state: { phase?: string } }} table
 * @param {number | null | undefined} deal the deal being played (1-based)
 * @param {number | null | undefined} [inGame] how many deals the game has
 * @returns {number}
 */
export function dealsDone(table, deal, inGame) {
  const over = table.finished || table.state.phase === 'finished';
  if (over) return inGame ?? deal ?? 0;
  return Math.max(0, (deal ?? 1) - 1);
}

/// Whether a round's table is still playing: its game is not over and, when the tournament
/// counts deals, it has not finished `dealsPerRound` of them.
/**
 * @param {{ finished: boolean, state: { phase?: string } }} table
 * @param {number | null | undefined} deal
 * @param {number | null | undefined} dealsPerRound
 * @returns {boolean}
 */
export function stillPlaying(table, deal, dealsPerRound) {
  if (table.finished || table.state.phase === 'finished') return false;
  return !dealsPerRound || dealsDone(table, deal) < dealsPerRound;
}

/**
 * The rounds of a tournament as its views give them (`played_rounds`).
 * @typedef {{ round: number, started_at: string, closed_at?: string | null, tables: { table_id: string, number: number }[] }} RoundLike
 */

/// The round to show: the open one, else the last started; null before the first.
/**
 * @template {RoundLike} R
 * @param {R[]} rounds
 * @returns {R | null}
 */
export function currentRound(rounds) {
  return rounds.find((r) => !r.closed_at) ?? rounds[rounds.length - 1] ?? null;
}

/// A format in words: "Progressive (winner moves up)", "Rotation", "Swiss", "Fixed tables".
/**
 * @param {{ kind: string, move?: string }} format
 * @returns {string}
 */
export function formatWords(format) {
  switch (format.kind) {
    case 'progressive': return `Progressive (${MOVES[format.move] ?? format.move})`;
    case 'rotation': return 'Rotation (all meet all)';
    case 'swiss': return 'Swiss';
    case 'fixed': return 'Fixed tables';
    default: return format.kind;
  }
}

/// The progressive move rules in words, for the form and the set-up line.
export const MOVES = {
  winner: 'winner moves up',
  top_two: 'top two move up',
  winners_up_losers_down: 'winners up, losers down',
};

/// The tournament a session's board shows: the newest with an open round, else the newest that
/// has started a round; null when none has.
/**
 * @template {{ played_rounds: RoundLike[] }} T
 * @param {T[]} tournaments oldest first, as `GET /sessions/{id}/tournaments` lists them
 * @returns {T | null}
 */
export function boardTournament(tournaments) {
  const newest = [...tournaments].reverse();
  return newest.find((t) => t.played_rounds.some((r) => !r.closed_at))
    ?? newest.find((t) => t.played_rounds.length) ?? null;
}

/// Whether a format seats each round from the results before it (a progressive drive, a Swiss
/// event), so that the next round's tables are known only once the round closes.
/**
 * @param {{ kind: string }} format
 * @returns {boolean}
 */
export function seatedByResults(format) {
  return format.kind === 'progressive' || format.kind === 'swiss';
}

/// What the board says of the next round while `round` is open: that it is seated from this
/// round's results (for a format that does so, when another round follows); else null.
/**
 * @param {{ format: { kind: string }, rounds: number }} event
 * @param {{ round: number, closed_at?: string | null } | null} round
 * @returns {string | null}
 */
export function nextRoundWords(event, round) {
  if (!round || round.closed_at || round.round >= event.rounds || !seatedByResults(event.format)) return null;
  return `Round ${round.round + 1} is seated from this round's results`;
}

/// A standings total as words: a whole number, a decimal that ends, else a fraction.
/**
 * @param {{ numer: number, denom: number }} f
 * @returns {string}
 */
export function totalText(f) {
  if (f.denom === 1) return String(f.numer);
  const d = f.numer / f.denom;
  return Number.isInteger(d * 1000) ? String(d) : `${f.numer}/${f.denom}`;
}

/// The top of the standings for a screen: the places up to `places` (ties at the last place
/// shown included), at most `most` lines; and how many are left out.
/**
 * @template {{ place: number }} S
 * @param {S[]} standings best first
 * @param {number} places
 * @param {number} most
 * @returns {{ top: S[], more: number }}
 */
export function topPlaces(standings, places, most) {
  const top = standings.filter((s) => s.place <= places).slice(0, most);
  return { top, more: standings.length - top.length };
}
