// A club's members, invitations and roles: add a player who has no account, mark guests, give
// a member with an account a role, mark who has left, and hand out invitation codes (each with
// the role it gives) or withdraw them.

import { call, get, organiser, post } from './api.js';
import { button, h, message, mount } from './dom.js';
import { guarded, top } from './organiser.js';

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
    const status = h('div', { class: 'notice', 'aria-live': 'polite' });
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
        mount(li,
          h('div', { class: 'member-name' }, h('b', {}, m.name), h('small', { class: 'standing' }, standing(m))),
          controls.length ? h('div', { class: 'member-controls' }, controls) : null);
      };
      const change = async (m, body, done) => {
        try {
          const changed = await patch(`/clubs/${id}/members/${m.id}`, body);
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
