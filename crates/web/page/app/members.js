// @ts-check
// A club's members, invitations and roles: add a player who has no account, mark guests, give
// a member with an account a role, mark who has left, and hand out invitation codes (each with
// the role it gives) or withdraw them.

import { call, get, organiser, post } from './api.js';
import { button, h, message, mount } from './dom.js';
import { guarded, top } from './organiser.js';
import { gameName } from './table.js';
import { memberGuides } from './tournaments.js';

/// The roles of a club, from most to least.
export const ROLES = ['owner', 'organiser', 'treasurer', 'scorer', 'viewer'];

/// Owners and organisers run the club's evenings and its members (service::access).
export function runs(role) {
  return role === 'owner' || role === 'organiser';
}

const auth = () => ({ token: organiser.token });
const patch = (path, body) => call('PATCH', path, { ...auth(), body });

/// What a member is, in words: role or no account, guest, left.
function standing(m) {
  return [m.role ?? 'no account', m.guest ? 'guest' : null, m.active === false ? 'left' : null].filter(Boolean).join(' · ');
}

export async function membersScreen(id, root) {
  mount(root, top('Members', `#/club/${id}`), message('Loading…'));
  await guarded(root, async () => {
    const club = await get(`/clubs/${id}`, auth());
    // Takes no room until it says something (only the table's notice keeps a fixed height).
    const status = h('div', { class: 'screen-status', 'aria-live': 'polite' });
    const say = (text, kind = 'ok') => mount(status, message(text, kind));
    const list = h('ul', { class: 'list members', 'aria-label': 'Members' });
    const manage = runs(club.role);
    // Roles a caller may give: an organiser gives any but owner.
    const giveable = club.role === 'owner' ? ROLES : ROLES.filter((r) => r !== 'owner');

    const memberRow = (m) => {
      const li = h('li', { class: 'member', 'data-member': m.id });
      const draw = (m) => {
        const controls = [];
        if (manage && m.user_id && m.role !== 'owner') {
          const sel = h('select', { id: `role-${m.id}`, 'aria-label': `${m.name}'s role` },
            giveable.map((r) => h('option', { value: r, selected: r === m.role }, r)));
          sel.addEventListener('change', () => change(m, { role: sel.value }, `${m.name} is now ${sel.value}.`));
          controls.push(sel);
        }
        if (manage) {
          const guest = h('input', { type: 'checkbox', checked: m.guest, id: `guest-${m.id}` });
          guest.addEventListener('change', () => change(m, { guest: guest.checked }, guest.checked ? `${m.name} is marked a guest.` : `${m.name} is a member, not a guest.`));
          controls.push(h('label', { class: 'tick', for: `guest-${m.id}` }, guest, h('span', {}, 'Guest')));
          if (m.role !== 'owner') {
            controls.push(m.active === false
              ? button('Came back', () => change(m, { active: true }, `${m.name} is back.`), { class: 'small', 'aria-label': `${m.name} is back` })
              : button('Left', () => change(m, { active: false }, `${m.name} has left the club.`), { class: 'small', 'aria-label': `${m.name} has left` }));
          }
        }
        if (manage && m.active === false && !m.anonymised) {
          controls.push(button('Anonymise', () => {
            // The name goes from every read for good: ask first.
            if (window.confirm(`Replace ${m.name}'s name everywhere with a neutral label? This cannot be undone.`)) {
              change(m, null, 'The name is replaced everywhere.');
            }
          }, { class: 'small', 'aria-label': `Anonymise ${m.name}` }));
        }
        mount(li,
          h('div', { class: 'member-name' },
            h('a', { href: `#/club/${id}/member/${m.id}`, 'aria-label': `${m.name}'s history` }, h('b', {}, m.name)),
            h('small', { class: 'standing' }, standing(m))),
          controls.length ? h('div', { class: 'member-controls' }, controls) : null);
      };
      const change = async (m, body, done) => {
        try {
          const changed = body
            ? await patch(`/clubs/${id}/members/${m.id}`, body)
            : await post(`/clubs/${id}/members/${m.id}/anonymise`, undefined, auth());
          draw(changed);
          say(done);
        } catch (err) {
          draw(m);
          say(err.message, 'error');
        }
      };
      draw(m);
      return li;
    };

    const drawMembers = async () => {
      const page = await get(`/clubs/${id}/members?limit=100`, auth());
      mount(list, page.items.map(memberRow));
    };

    const add = h('form', { class: 'card-box', 'aria-label': 'Add a player' },
      h('h2', {}, 'Add a player'),
      h('p', { class: 'came' }, 'For someone without an account: they are seated by name from the club\'s list.'),
      h('label', { for: 'player-name' }, "Player's name"),
      h('input', { id: 'player-name', required: true, autocomplete: 'off', maxlength: 100 }),
      h('label', { class: 'tick', for: 'player-guest' }, h('input', { type: 'checkbox', id: 'player-guest' }), h('span', {}, 'A guest')),
      h('button', { type: 'submit', class: 'primary' }, 'Add the player'));
    add.addEventListener('submit', async (e) => {
      e.preventDefault();
      const name = add.querySelector('#player-name');
      const guest = add.querySelector('#player-guest');
      try {
        const m = await post(`/clubs/${id}/members`, { name: name.value.trim(), guest: guest.checked }, auth());
        list.append(memberRow(m));
        say(`${m.name} added${m.guest ? ' as a guest' : ''}.`);
        name.value = '';
        guest.checked = false;
        name.focus();
      } catch (err) {
        say(err.message, 'error');
      }
    });

    const sections = [
      h('section', { class: 'card-box', 'aria-labelledby': 'list-head' }, h('h2', { id: 'list-head' }, 'Members'), list),
    ];
    if (manage) sections.unshift(add);
    if (manage) sections.push(await invitations(id, giveable, say));
    mount(root, top(`${club.name}: members`, `#/club/${id}`), status, sections);
    await drawMembers();
  });
}

/// Signed chips, as a ledger shows them.
function chips(n) {
  return n > 0 ? `+${n}` : `${n}`;
}

/// A place in words: 1st, 2nd, =3rd when shared.
function placed(place, tied = 1) {
  if (place == null) return '–';
  const suffix = place % 10 === 1 && place % 100 !== 11 ? 'st' : place % 10 === 2 && place % 100 !== 12 ? 'nd'
    : place % 10 === 3 && place % 100 !== 13 ? 'rd' : 'th';
  return `${tied > 1 ? '=' : ''}${place}${suffix}`;
}

/// A member's history (GET /clubs/{id}/members/{member_id}): their place in the season under
/// way, chips won or lost, results per game, and every session they came to with their seats.
export async function memberScreen(id, memberId, root) {
  mount(root, top('Member', `#/club/${id}/members`), message('Loading…'));
  await guarded(root, async () => {
    // Tonight's guide cards come first: where the member sits now and next.
    const [hist, guides] = await Promise.all([get(`/clubs/${id}/members/${memberId}`, auth()), memberGuides(id, memberId)]);
    const m = hist.member;
    const s = hist.season;
    const season = h('section', { class: 'card-box', 'aria-labelledby': 'season-head' },
      h('h2', { id: 'season-head' }, s ? `Season: ${s.season.name}` : 'Season'),
      s
        ? h('p', { class: 'season-place' }, s.place
          ? `${placed(s.place)} of ${s.ranked} · ${s.nights} night${s.nights === 1 ? '' : 's'} · ${s.tables} table${s.tables === 1 ? '' : 's'}`
            + (s.league_points != null ? ` · ${s.league_points} league points` : '')
            + (s.points != null ? ` · ${s.points} points` : '')
            + (s.net_chips != null ? ` · ${chips(s.net_chips)} chips` : '')
          : 'Not placed yet: no counted table this season.')
        : message('No season under way.'));
    const games = Object.entries(hist.by_game);
    const byGame = h('section', { class: 'card-box', 'aria-labelledby': 'games-head' },
      h('h2', { id: 'games-head' }, 'Results per game'),
      games.length
        ? h('table', { class: 'history-games' },
          h('thead', {}, h('tr', {}, ['Game', 'Tables', 'Wins', 'Points', 'Chips'].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, games.map(([game, f]) => h('tr', {},
            h('th', { scope: 'row' }, gameName(game)),
            h('td', {}, `${f.tables}`),
            h('td', {}, `${f.wins ?? 0}`),
            h('td', {}, f.points != null ? `${f.points}` : '–'),
            h('td', {}, f.net_chips != null ? chips(f.net_chips) : '–')))))
        : message('No tables yet.'));
    const sessions = h('section', { class: 'card-box', 'aria-labelledby': 'sessions-head' },
      h('h2', { id: 'sessions-head' }, 'Sessions'),
      hist.sessions.length
        ? h('ul', { class: 'list history-sessions', 'aria-label': 'Sessions' }, [...hist.sessions].reverse().map((x) => h('li', {},
          h('b', {}, x.name),
          h('small', {}, ` ${new Date(x.started_at).toLocaleDateString(undefined, { dateStyle: 'medium' })} · ${chips(x.net_chips)} chips`),
          h('ul', {}, x.seats.map((seat) => h('li', {},
            `${gameName(seat.game)}: `
              + (seat.points != null ? `${seat.points} points` : `${chips(seat.net_chips ?? 0)} chips`)
              + (seat.finished ? `, ${placed(seat.place, seat.tied)}` : ', not finished')))))))
        : message('No sessions yet.'));
    mount(root, top(m.name, `#/club/${id}/members`),
      h('p', { class: 'came member-total' }, `${chips(hist.net_chips)} chips won or lost over every table`),
      guides, season, byGame, sessions);
  });
}

/// Invitations: make one for a role (its code is what the new member types), list the open
/// ones, withdraw one.
async function invitations(id, giveable, say) {
  const list = h('ul', { class: 'list invitations', 'aria-label': 'Invitations' });
  const row = (inv) => h('li', { class: 'invitation' },
    h('span', { class: 'invite-code', 'data-code': inv.code }, inv.code),
    h('span', { class: 'came' }, `${inv.role} · until ${new Date(inv.expires_at).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}`),
    button('Withdraw', async (e) => {
      try {
        await call('DELETE', `/clubs/${id}/invitations/${encodeURIComponent(inv.code)}`, auth());
        e.target.closest('li').remove();
        say(`Invitation ${inv.code} withdrawn.`);
      } catch (err) {
        say(err.message, 'error');
      }
    }, { class: 'small', 'aria-label': `Withdraw ${inv.code}` }));
  const page = await get(`/clubs/${id}/invitations?limit=100`, auth());
  mount(list, page.items.map(row));
  const role = h('select', { id: 'invite-role' }, giveable.map((r) => h('option', { value: r, selected: r === 'viewer' }, r)));
  const form = h('form', { class: 'card-box', 'aria-labelledby': 'invite-head' },
    h('h2', { id: 'invite-head' }, 'Invitations'),
    h('p', { class: 'came' }, 'Someone with an account joins with the code, under Clubs, and gets its role.'),
    h('label', { for: 'invite-role' }, 'Role'), role,
    h('button', { type: 'submit', class: 'primary' }, 'Make an invitation'),
    list);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    try {
      const inv = await post(`/clubs/${id}/invitations`, { role: role.value }, auth());
      list.prepend(row(inv));
      say(`Invitation for a ${inv.role}: ${inv.code}`);
    } catch (err) {
      say(err.message, 'error');
    }
  });
  return form;
}
