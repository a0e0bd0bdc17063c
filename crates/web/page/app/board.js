// @ts-check
// The club's big screen: every table of a session, live and read-only. It follows the session's
// event stream (one `table` event per change, on any replica, carrying the table as the change
// left it, which the tile is drawn from) and reads the session's changes again (to mark a
// corrected or ruled result); nothing polls but the
// session's correction window, once a minute. Route: #/board/<session id>, opened with a share link's token (/?share=…) or by
// a member of the club signed in on this browser; reads and the stream go with that token. Each
// change carries the audit key's receipt for its table's chain head: the board keeps them per
// table as a phone keeps its answers' (`tk.receipts.<table>`), and a treasurer downloads them all
// from the header, for `tablekeeper verify --receipts`. The board witnesses every table it
// shows (witness.js): its own key, registered for the session, cosigns each table's tree as it
// grows consistently; a history found rewritten is named on its tile. While a tournament of the session has
// started a round, the board shows that round: its number, a clock counting `minutes_per_round`
// down from the round's start, which of its tables still play, and only its tables; for a format
// seated from the results, that the next round follows them. Once the round closes the board
// shows where each player goes next (the next round's dry run, `GET /tournaments/{id}/rounds/next`)
// instead of the tiles, and after the last round the final standings, each sized to fill the
// screen without a line wider than its column. The stream's `tournament` event (a round started or
// closed, an entrant came or went) has it read the tournament again, as does every (re)connection,
// since what changed while it was away is not sent again.

import { download, get, keep, organiser, receipts, shareToken, streamUrl } from './api.js';
import { boardTournament, clockText, clockWords, currentRound, nextRoundWords, remainingMs, stillPlaying, topPlaces, totalText } from './clock.js';
import { h, message, mount } from './dom.js';
import { gameModule, loadGame } from './panels.js';
import { dealOf } from './legal.js';
import { countdown } from './rulings.js';
import { joinLink, publicBase, qrSvg } from './qr.js';
import { gameName } from './table.js';
import { tableCode } from './tournaments.js';
import { boardRewritten, onRewritten, witnessAsBoard } from './witness.js';
import { changedResults, facts, reopenedLines, seatBits, totalsOf } from './words.js';

/** @typedef {import('./types.js').TableView} TableView */

let stream = null;
let ticking = null;
/// Stops redrawing the board when a table's history is found rewritten (witness.js).
/** @type {(() => void) | undefined} */
let unheard;
/// Reads where the session stands once a minute (a close made while the board is on screen).
/** @type {ReturnType<typeof setInterval> | undefined} */
let closingTimer;
/// The final standings shown: places 1 to 10, at most 12 lines.
const TOP_PLACES = 10;
const TOP_LINES = 12;

export async function openBoard(sessionId, root) {
  stream?.close();
  clearInterval(ticking);
  clearInterval(closingTimer);
  unheard?.();
  // The big screen uses the whole width; leaving the route gives the page back its column.
  document.body.classList.add('big-screen');
  const leave = () => {
    if (!location.hash.startsWith('#/board/')) {
      document.body.classList.remove('big-screen');
      stream?.close();
      clearInterval(ticking);
      clearInterval(closingTimer);
      unheard?.();
      window.removeEventListener('hashchange', leave);
    }
  };
  window.addEventListener('hashchange', leave);
  mount(root, message('Loading the board…'));
  let session;
  try {
    session = await get(`/sessions/${sessionId}`);
  } catch (err) {
    mount(root, message(err.message, 'error'));
    return;
  }
  const tables = new Map();
  // Each table's changed results ("Changed: deal 2 corrected"), from the session's changes.
  /** @type {Map<string, string>} */
  let changed = new Map();
  const saveLedger = (e) => {
    e.preventDefault();
    download(e.currentTarget.getAttribute('href')).catch((err) => mount(state, err.message));
  };
  const order = session.tables.map((t) => t.id);
  const grid = h('div', { class: 'board', 'aria-label': 'Tables' });
  const state = h('p', { class: 'facts', role: 'status' }, 'live');
  const kept = () => order.flatMap((id) => receipts(id));
  // A link like the ledger's, not a button: the header keeps the tiles' room on 1280×720. The
  // file is made when it is clicked, from what is kept then.
  let file = null;
  const receiptsLink = h('a', {
    href: '#', download: `receipts-${sessionId}.json`, class: 'csv receipts',
    onclick: (e) => {
      if (file) URL.revokeObjectURL(file);
      file = URL.createObjectURL(new Blob([JSON.stringify({ session_id: sessionId, receipts: kept() }, null, 2)],
        { type: 'application/json' }));
      e.currentTarget.href = file;
    },
  });
  const counted = () => {
    const n = kept().length;
    receiptsLink.textContent = `Receipts (${n})`;
    receiptsLink.dataset.count = n;
  };
  counted();
  // The tournament shown, and its round (the open one, else the last started).
  let event = null;
  let round = null;
  const band = h('section', { class: 'round-band', 'aria-label': 'Tournament round', hidden: true });
  const clock = h('p', { class: 'round-clock', role: 'timer' });
  const playingLine = h('p', { class: 'round-playing' });
  const nextLine = h('p', { class: 'round-next' });
  // Between rounds, the next round's tables (or why they cannot be seated yet); after the last
  // round, the final standings: drawn in `after`, in place of the tiles.
  let planned = null;
  let unplanned = null;
  const after = h('section', { class: 'after-round', 'aria-labelledby': 'after-head', hidden: true });
  let afterShown = '';
  let reads = 0;
  const readEvent = async () => {
    const read = ++reads;
    /** @type {any} */
    let found = null;
    let next = null;
    let refused = null;
    try {
      found = boardTournament((await get(`/sessions/${sessionId}/tournaments`)).items);
    } catch {
      // a server without tournaments, or a share link that cannot read them
    }
    const last = found ? currentRound(found.played_rounds) : null;
    if (found && last?.closed_at && !found.finished_at) {
      try {
        next = await get(`/tournaments/${found.id}/rounds/next`);
      } catch (err) {
        refused = err.message;
      }
    }
    if (read !== reads) return; // a later read answered first
    [event, round, planned, unplanned] = [found, last, next, refused];
    draw();
  };
  const tick = () => {
    const left = round && !round.closed_at ? remainingMs(round.started_at, event.minutes_per_round, Date.now()) : null;
    clock.hidden = left == null;
    if (left == null) return;
    clock.textContent = clockText(left);
    clock.setAttribute('aria-label', `Round clock: ${clockWords(left)}`);
    clock.classList.toggle('over', left <= 0);
  };
  // The open round's scorer codes, a QR code a table, on a board opened by the organiser's own
  // sign-in: a phone at each table scans its code from across the room. A board opened with a
  // share link never shows one (the link may travel beyond the room; the codes screen, or its
  // print, serves there). Read once a round; a member who may not hand codes out sees none.
  const codes = h('div', { class: 'board-codes', role: 'list', 'aria-label': 'Scorer codes' });
  let codesOf = null;
  const drawCodes = async () => {
    const open = round && !round.closed_at && !event?.finished_at ? round : null;
    const key = open && !shareToken() && organiser.token ? `${event.id}/${open.round}` : null;
    if (key === codesOf) return;
    codesOf = key;
    mount(codes);
    if (!key) return;
    try {
      const [base, issued] = await Promise.all([publicBase(), Promise.all(open.tables.map((rt) => tableCode(rt.table_id)))]);
      if (codesOf !== key) return;
      mount(codes, ...open.tables.map((rt, i) => h('figure', { class: 'board-code', role: 'listitem' },
        qrSvg(joinLink(base, issued[i].code), `QR code to score table ${rt.number}`),
        h('figcaption', {}, `Table ${rt.number} `, h('b', { class: 'join-code', 'data-code': issued[i].code }, issued[i].code)))));
    } catch {
      // A member who may not hand codes out: the band shows none.
    }
  };
  const drawBand = () => {
    band.hidden = !round;
    drawCodes();
    if (!round) return;
    const playing = round.tables.filter((rt) => {
      const t = tables.get(rt.table_id);
      return !t || stillPlaying(t, dealOf(t.state, gameModule(t.game)), event.deals_per_round);
    });
    playingLine.textContent = round.closed_at
      ? `Round ${round.round} is closed${unplanned ? `; round ${round.round + 1} cannot be seated yet: ${unplanned}` : ''}`
      : playing.length
        ? `Still playing: ${playing.map((rt) => `table ${rt.number}`).join(', ')}`
        : 'Every table has finished';
    playingLine.dataset.playing = playing.map((rt) => rt.number).join(',');
    playingLine.hidden = Boolean(event.finished_at);
    const next = nextRoundWords(event, round);
    nextLine.textContent = next ?? '';
    nextLine.hidden = !next;
    mount(band,
      h('h2', { class: 'round-name' }, event.finished_at
        ? `${event.name}: finished after ${event.rounds} round${event.rounds === 1 ? '' : 's'}`
        : `${event.name}: round ${round.round} of ${event.rounds}`),
      clock, h('div', { class: 'round-lines' }, playingLine, nextLine), codes);
    tick();
  };
  ticking = setInterval(tick, 1000);
  // The correction window's countdown, in the header's one line; a close or a reopening made
  // while the board is on screen shows within a minute.
  // With it, each reopening of the session (its reason), beside the result ever after.
  const windowParts = () => [countdown(session, 'span'),
    ...reopenedLines(session.reopenings).map((line) => h('span', { class: 'reopened' }, line))];
  const windowSlot = h('span', { class: 'window-slot' }, ...windowParts());
  closingTimer = setInterval(async () => {
    try {
      const now = await get(`/sessions/${sessionId}`);
      if (now.status === session.status && now.final_at === session.final_at) return;
      session = now;
      mount(windowSlot, ...windowParts());
    } catch {
      // Asked again in a minute.
    }
  }, 60_000);
  mount(root,
    h('header', { class: 'table-head' },
      h('div', { class: 'head-line' }, h('h1', {}, session.name),
        windowSlot,
        h('a', { href: `/api/v1/sessions/${sessionId}/ledger?format=csv`, download: '', class: 'csv', onclick: saveLedger }, 'Session ledger (CSV)'),
        receiptsLink,
        h('span', { class: 'conn live' }, state))),
    band,
    after,
    grid);
  window.addEventListener('resize', () => draw());
  unheard = onRewritten((id) => { if (tables.has(id)) draw(); });
  let afterFitted = '';
  /// Draws the next round's tables or the final standings when there are some to show; true then.
  const drawAfter = () => {
    const standings = event?.finished_at && event.standings.length ? event : null;
    const next = !standings && round?.closed_at ? planned : null;
    after.hidden = !standings && !next;
    if (after.hidden) {
      afterShown = '';
      return false;
    }
    const shown = JSON.stringify(standings ? ['standings', event.standings] : ['next', next]);
    const room = `${window.innerWidth}x${window.innerHeight}`;
    if (shown !== afterShown) mount(after, ...(standings ? finalStandings(standings) : movement(event, next)));
    after.classList.toggle('standings', Boolean(standings));
    if (shown !== afterShown || room !== afterFitted) fit(after, standings ? [1] : [1, 2, 3, 4].filter((c) => c <= Math.max(1, next.tables.length)));
    [afterShown, afterFitted] = [shown, room];
    return true;
  };
  // Draws once the reads in flight have answered (a frame later), not once per table: each
  // drawing fits the tiles to the screen again when their number changed.
  let drawing = false;
  const draw = () => {
    if (drawing) return;
    drawing = true;
    requestAnimationFrame(() => {
      drawing = false;
      drawNow();
    });
  };
  const drawNow = () => {
    drawBand();
    grid.hidden = drawAfter();
    // A tournament's round shows its own tables, by their numbers; else every table.
    const numbers = new Map(round ? round.tables.map((rt) => [rt.table_id, rt.number]) : []);
    const shown = round
      ? [...round.tables].sort((a, b) => a.number - b.number).map((rt) => rt.table_id).filter((id) => tables.has(id))
      : order.filter((id) => tables.has(id));
    grid.dataset.count = shown.length;
    mount(grid, ...shown.map((id, i) => card(numbers.get(id) ?? i + 1, tables.get(id), changed.get(id))));
    if (!grid.hidden) fitTiles(grid, shown.length);
  };
  /// Shows `table` on its tile unless a newer version of it is shown already (changes of one
  /// table may arrive out of order).
  const show = async (table) => {
    // The game's page module says what is its own on the tile (a nomination, a bid).
    await loadGame(table.game).catch(() => {});
    const known = tables.get(table.id);
    if (known && known.version > table.version) return;
    tables.set(table.id, table);
    if (!order.includes(table.id)) order.push(table.id);
    draw();
  };
  const read = async (id) => {
    try {
      await show(await get(`/tables/${id}`));
      // The board cosigns the table's tree as it is now, in the background (witness.js).
      witnessAsBoard(sessionId, id);
    } catch {
      // The next change brings it again.
    }
  };
  // The session's changes, read again a moment after the tables move (a correction or a ruling
  // is an entry like any other): at most one read in flight, and one more after it when the
  // tables moved meanwhile.
  let changesRead = null;
  let changesAgain = false;
  const readChanges = () => {
    if (changesRead) {
      changesAgain = true;
      return;
    }
    changesRead = (async () => {
      await new Promise((done) => setTimeout(done, 1000));
      try {
        const all = [];
        let offset = 0;
        for (;;) {
          const page = await get(`/sessions/${sessionId}/changes?offset=${offset}&limit=500`);
          all.push(...page.items);
          if (page.next_offset == null) break;
          offset = page.next_offset;
        }
        const now = changedResults(all);
        const before = changed;
        changed = now;
        if (now.size !== before.size || [...now].some(([id, said]) => before.get(id) !== said)) draw();
      } catch {
        // The next change asks again.
      }
      changesRead = null;
      if (changesAgain) {
        changesAgain = false;
        readChanges();
      }
    })();
  };
  // Listening before the first reads: a change made while they are on their way reaches the
  // stream (and its receipt is kept) instead of falling between the two.
  if (typeof EventSource !== 'undefined') {
    stream = new EventSource(streamUrl(`/sessions/${sessionId}/events`));
    stream.addEventListener('table', (e) => {
      let change;
      try {
        change = JSON.parse(e.data);
      } catch {
        return;
      }
      if (change.receipt) {
        keep(change.table_id, change.receipt);
        counted();
        // The receipt names the chain's new end: the tree grew, and the board may cosign it.
        if (Number.isInteger(change.receipt.position)) witnessAsBoard(sessionId, change.table_id, change.receipt.position + 1);
      }
      const known = tables.get(change.table_id);
      // The event carries the table as the change left it: drawn from it, not read again.
      if (!known || known.version < change.version) {
        if (change.table?.version === change.version) {
          show(change.table);
          if (!known) witnessAsBoard(sessionId, change.table_id);
        } else {
          read(change.table_id);
        }
      }
      readChanges();
      // A table never seen: a round may have started with it.
      if (!known) readEvent();
    });
    stream.addEventListener('tournament', () => readEvent());
    stream.onerror = () => { state.textContent = 'reconnecting'; };
    let opened = false;
    stream.onopen = () => {
      state.textContent = 'live';
      // The first opening comes before the reads below; a reconnection may have missed a change.
      if (opened) readEvent();
      opened = true;
    };
  }
  await Promise.all(order.map(read));
  await readEvent();
  readChanges();
}

/// Columns for `n` tiles on this screen: the arrangement that gives each tile the most room
/// for what it shows (about 240 × 300 px: four seats with totals 48 px high), so 1 to 12 tables
/// fill the screen, whatever its shape.
function columns(n) {
  const w = window.innerWidth;
  const h = Math.max(1, window.innerHeight - 70);
  let best = 1;
  let room = 0;
  for (let c = 1; c <= Math.max(1, n); c += 1) {
    const fit = Math.min(w / c / 240, h / Math.ceil(n / c) / 300);
    if (fit > room + 1e-9) {
      best = c;
      room = fit;
    }
  }
  return best;
}

/**
 * @param {number} number the table's number on the board (a round's, else its place)
 * @param {TableView} t
 * @param {string} [changes] what changed of its results ("Changed: deal 2 corrected")
 * @returns {HTMLElement}
 */
function card(number, t, changes) {
  const v = t.state;
  const page = gameModule(t.game);
  const totals = totalsOf(v);
  const turn = v.to_act != null ? `${t.players[v.to_act]} to act` : t.finished || v.phase === 'finished' ? 'Game over' : null;
  // The seats mark the dealer, so the facts leave the dealer out; the turn follows them in the
  // same lines, a tile's room going to the names and totals.
  const told = facts(t, page, true).filter((f) => Boolean(f) && f !== turn);
  return h('section', { class: 'board-tile', 'aria-label': `Table ${number}`, 'data-table': t.id, 'data-version': t.version },
    h('div', { class: 'tile-head' },
      h('h2', {}, `Table ${number}: ${gameName(t.game)}`),
      told.length ? h('span', { class: 'tile-facts' }, ` · ${told.join(' · ')}`) : null,
      turn ? h('b', { class: 'tile-turn' }, ` · ${turn}`) : null),
    changes ? h('p', { class: 'tile-changed' }, changes) : null,
    rewrittenLine(boardRewritten(t.id)),
    h('ol', { class: 'tile-seats', 'aria-label': `Table ${number} seats` }, t.players.map((name, s) =>
      h('li', { class: `tile-seat${v.to_act === s ? ' acting' : ''}`, 'aria-current': v.to_act === s ? 'true' : null },
        // The full name in a tooltip: on a crowded screen a long one may end in an ellipsis.
        h('span', { class: 'tile-name', title: name }, name),
        h('span', { class: 'tile-bits' },
          v.dealer === s ? h('abbr', { title: 'dealer', class: 'tile-dealer' }, 'D') : null,
          seatBits(v, s, page, true).join(' · ')),
        h('b', { class: 'seat-total tile-total', 'aria-label': `${name}'s total`, 'data-total': totals[s] ?? 0 }, String(totals[s] ?? 0))))));
}

/// A tile's warning that its table's history was rewritten, with the two checkpoints (what the
/// board cosigned, what it was shown at that size), or nothing on an honest table.
/**
 * @param {import('./witness.js').Rewritten | null} found
 * @returns {HTMLElement | null}
 */
function rewrittenLine(found) {
  if (!found) return null;
  return h('p', { class: 'tile-changed tile-rewritten', role: 'alert' },
    'History rewritten: this board stopped cosigning this table. Tell the director.',
    h('small', { class: 'tile-roots' },
      ` It cosigned ${found.kept.size} entries with root ${found.kept.root}; it was shown ${found.shown.size} with root ${found.shown.root || 'none'}.`));
}

/// The smallest and largest names on the tiles, in px (totals are twice as big, 48 px at least).
const NAME_MIN = 24;
const NAME_MAX = 96;
/// How a tile seats its four players: in a row, two by two, or one under another (the name
/// beside the total). In this order when they fit as well.
const SEATINGS = ['row', 'quad', 'list'];

/// Lays the tiles out as large as they fit below the header, to the bottom of the screen: of
/// the column counts that suit the screen's shape and the seatings, the one whose names can be
/// largest with each tile's content inside it and every name on at most two lines, no word
/// broken (a word is never split: one too wide shows as too wide). When nothing fits so, a name
/// with a word too wide for its seat takes one line ending in an ellipsis (`cut`), the others
/// still two; then, every name one line (`cut` when it must); when even that does not fit, the
/// tiles take the room they need and the page scrolls. The last layout is kept while it still fits (a board does not jump at every entry)
/// and found again when the tiles or the screen change.
/**
 * @param {HTMLElement & { fit?: any }} grid
 * @param {number} count
 */
function fitTiles(grid, count) {
  if (!count) return;
  const top = grid.getBoundingClientRect().top + window.scrollY;
  const height = Math.floor(window.innerHeight - top - 8);
  grid.style.setProperty('--board-height', `${Math.max(120, height)}px`);
  const names = [...grid.querySelectorAll('.tile-name')];
  const set = (/** @type {{ cols: number, seats: string, px: number }} */ f) => {
    grid.style.setProperty('--cols', String(f.cols));
    grid.style.setProperty('--rows', String(Math.ceil(count / f.cols)));
    grid.style.setProperty('--name', `${f.px}px`);
    grid.dataset.seats = f.seats;
    grid.classList.remove('overflowing');
  };
  // Measured by the boxes, not by the letters' ink: a figure's ink reaches a little past its line
  // in most fonts, and a digit's descent is blank anyway.
  const wide = (/** @type {Element} */ el) => el.scrollWidth > el.clientWidth + 1;
  /// `cutting`: 0 every name whole; 1 the names too wide cut; 2 every name on one line.
  const fits = (/** @type {number} */ cutting) => {
    // All names whole, then those to cut cut: two layouts, not one a name.
    grid.classList.toggle('one-line', cutting === 2);
    for (const name of names) name.classList.remove('cut');
    if (cutting) for (const name of names.filter(wide)) name.classList.add('cut');
    const root = document.documentElement;
    if (root.scrollWidth > root.clientWidth || root.scrollHeight > root.clientHeight + 1) return false;
    const px = parseFloat(grid.style.getPropertyValue('--name'));
    for (const tile of grid.children) {
      if (wide(tile)) return false;
      const edge = tile.getBoundingClientRect().bottom - 2;
      for (const seat of tile.querySelectorAll('.tile-seat')) {
        if (seat.getBoundingClientRect().bottom > edge || wide(seat)) return false;
        for (const el of seat.querySelectorAll('.tile-bits, .tile-total')) if (wide(el)) return false;
      }
    }
    // A name wider than its box has a word too long for a line; taller, a line too many.
    return cutting === 2 || names.every((name) => name.classList.contains('cut') || (!wide(name) && name.scrollHeight <= name.clientHeight + px / 2));
  };
  const key = `${count} ${window.innerWidth}x${window.innerHeight} ${top}`;
  if (grid.fit?.key === key) {
    set(grid.fit);
    if (fits(grid.fit.cutting)) return;
  }
  const gap = 6;
  const width = grid.clientWidth;
  // Column counts that leave no row empty and tiles neither a sliver nor a strip.
  const counts = [];
  for (let cols = 1; cols <= count; cols += 1) {
    const rows = Math.ceil(count / cols);
    if (cols * (rows - 1) >= count) continue;
    const shape = ((width - gap * (cols - 1)) / cols) / ((height - gap * (rows - 1)) / rows);
    if (shape >= 0.45 && shape <= 5) counts.push(cols);
  }
  /** @type {any} */
  let best = null;
  for (const cutting of [0, 1, 2]) {
    for (const cols of counts) {
      for (const seats of SEATINGS) {
        // Only what beats the best so far is worth a search.
        let lo = best ? best.px + 1 : NAME_MIN;
        if (lo > NAME_MAX) break;
        set({ cols, seats, px: lo });
        if (!fits(cutting)) continue;
        let hi = NAME_MAX + 1;
        while (hi - lo > 1) {
          const mid = Math.floor((lo + hi) / 2);
          set({ cols, seats, px: mid });
          if (fits(cutting)) lo = mid;
          else hi = mid;
        }
        best = { cols, seats, px: lo, cutting };
      }
    }
    if (best) break;
  }
  if (best) {
    grid.fit = { ...best, key };
    set(best);
    fits(best.cutting);
    return;
  }
  grid.fit = null;
  set({ cols: columns(count), seats: 'quad', px: NAME_MIN });
  fits(2);
  grid.classList.add('overflowing');
}

/// Where each player sits in the next round: its tables in order, each with its players in seat
/// order (the first named deals first), and who sits out.
/**
 * @param {any} event the tournament (its entrants name the byes)
 * @param {{ round: number, tables: { number: number, seats: { name: string }[] }[], byes: string[] }} next
 * @returns {HTMLElement[]}
 */
function movement(event, next) {
  const out = next.byes.map((id) => event.entrants.find((e) => e.member_id === id)?.name ?? 'someone');
  return [
    h('h2', { id: 'after-head', class: 'after-head' }, `Round ${next.round}: where to sit`,
      h('small', {}, ' (the first named deals first)')),
    h('ul', { class: 'movement', 'aria-label': `Round ${next.round} tables` }, next.tables.map((t) =>
      h('li', { class: 'movement-table', 'data-number': t.number },
        h('h3', {}, `Table ${t.number}`),
        h('ol', { class: 'movement-names fit-line', 'aria-label': `Table ${t.number} players` },
          t.seats.map((s) => h('li', {}, s.name)))))),
    out.length ? h('p', { class: 'movement-byes' }, `Sitting out: ${out.join(', ')}`) : null,
  ].filter(Boolean);
}

/// The final standings' top places, the winner marked.
/**
 * @param {any} event the finished tournament
 * @returns {HTMLElement[]}
 */
function finalStandings(event) {
  /** @type {{ top: any[], more: number }} */
  const { top, more } = topPlaces(event.standings, TOP_PLACES, TOP_LINES);
  return [
    h('h2', { id: 'after-head', class: 'after-head' }, 'Final standings'),
    h('table', { class: 'final-standings fit-line' },
      h('thead', {}, h('tr', {}, ['Place', 'Player', 'Total'].map((c) => h('th', { scope: 'col' }, c)))),
      h('tbody', {}, top.map((s) => h('tr', { class: s.place === 1 ? 'winner' : null },
        h('td', {}, s.place), h('th', { scope: 'row' }, s.name), h('td', {}, totalText(s.total)))))),
    more ? h('p', { class: 'movement-byes' }, `and ${more} more in the results`) : null,
  ].filter(Boolean);
}

/// Gives `box` the largest type (and, of `columns`, the number of columns) with which it fits
/// the screen below its top: no line wider than its column (a name is never broken, so a line
/// too wide would stick out), no scroll sideways, nothing below the bottom. A size that keeps
/// each table's names on one line is taken when it is nearly as big (`ONE_LINE`). At the
/// smallest size it may still run below the bottom, and the page scrolls down.
/**
 * @param {HTMLElement} box
 * @param {number[]} columns
 */
function fit(box, columns) {
  const MIN = 14;
  const MAX = 120;
  const ONE_LINE = 0.85;
  const root = document.documentElement;
  const fits = () => {
    const top = box.getBoundingClientRect().top + window.scrollY;
    const wide = [box, ...box.querySelectorAll('.fit-line')].some((el) => el.scrollWidth > el.clientWidth + 1);
    return !wide && root.scrollWidth <= root.clientWidth && top + box.scrollHeight <= window.innerHeight - 6;
  };
  const oneLine = () => [...box.querySelectorAll('.movement-names')].every((ol) =>
    /** @type {HTMLElement} */ (ol.firstElementChild)?.offsetTop === /** @type {HTMLElement} */ (ol.lastElementChild)?.offsetTop);
  const set = (/** @type {number} */ cols, /** @type {number} */ px) => {
    box.style.setProperty('--after-cols', String(cols));
    box.style.setProperty('--after-size', `${px}px`);
  };
  // The largest size from MIN to MAX at which `ok` holds in `cols` columns; 0 when none does.
  const largest = (/** @type {number} */ cols, /** @type {() => boolean} */ ok) => {
    set(cols, MIN);
    if (!ok()) return 0;
    let [lo, hi] = [MIN, MAX + 1];
    while (hi - lo > 1) {
      const mid = Math.floor((lo + hi) / 2);
      set(cols, mid);
      if (ok()) lo = mid;
      else hi = mid;
    }
    return lo;
  };
  let best = { cols: columns[0], px: MIN };
  let flat = { cols: columns[0], px: 0 };
  for (const cols of columns) {
    const px = largest(cols, fits);
    if (px > best.px) best = { cols, px };
    const one = px ? largest(cols, () => fits() && oneLine()) : 0;
    if (one > flat.px) flat = { cols, px: one };
  }
  const chosen = flat.px >= best.px * ONE_LINE ? flat : best;
  set(chosen.cols, chosen.px);
}
