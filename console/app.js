// app.js - the console's entry: login (or none under --insecure-no-auth), logout, and a hash router
// (#/page?key=value) that loads one page module and calls its render(view, params). Pages: catalog.js,
// snapshots.js, files.js, sql.js, metrics.js, pipelines.js; each reads data only through api.js with the
// user's token.
import { authRequired, login, resetMcp, session } from './api.js';
import { clear, errorBox, h } from './dom.js';

const pages = {
  catalog: () => import('./catalog.js'),
  snapshots: () => import('./snapshots.js'),
  files: () => import('./files.js'),
  sql: () => import('./sql.js'),
  metrics: () => import('./metrics.js'),
  pipelines: () => import('./pipelines.js'),
};

const view = () => document.getElementById('view');
let noAuth = false;

export function status(text) {
  document.getElementById('status').textContent = text;
}

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, '');
  const [page, query = ''] = raw.split('?');
  return { page: page || 'catalog', params: Object.fromEntries(new URLSearchParams(query)) };
}

export function go(page, params = {}) {
  const q = new URLSearchParams(params).toString();
  const next = `#/${page}${q ? `?${q}` : ''}`;
  if (location.hash === next) route();
  else location.hash = next;
}

function chrome(loggedIn) {
  document.getElementById('nav').hidden = !loggedIn;
  document.getElementById('logout').hidden = !loggedIn || noAuth;
  document.getElementById('who').textContent = loggedIn ? `Signed in as ${session.user()}` : '';
}

function loginPage(message) {
  chrome(false);
  const id = h('input', { id: 'login-id', name: 'client_id', autocomplete: 'username', required: true });
  const secret = h('input', { id: 'login-secret', name: 'client_secret', type: 'password',
    autocomplete: 'current-password', required: true });
  const out = h('div', { 'aria-live': 'polite' }, message ? errorBox(message) : null);
  const form = h('form', { class: 'login', 'aria-labelledby': 'login-title' },
    h('h1', { id: 'login-title' }, 'Sign in to floe'),
    h('p', { class: 'muted' }, 'Use a principal\u2019s client credentials (floe admin principal create NAME prints them).'),
    h('label', { for: 'login-id' }, 'Client id', id),
    h('label', { for: 'login-secret' }, 'Client secret', secret),
    h('button', { type: 'submit', id: 'login-submit' }, 'Sign in'), out);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    clear(out, h('span', { class: 'muted' }, 'Signing in\u2026'));
    try {
      await login(id.value.trim(), secret.value);
      resetMcp();
      route();
    } catch (e) {
      clear(out, errorBox(e));
    }
  });
  clear(view(), form);
  id.focus();
}

async function route() {
  if (!session.token() && !noAuth) return loginPage();
  chrome(true);
  const { page, params } = parseHash();
  const load = pages[page];
  for (const a of document.querySelectorAll('#nav a')) {
    if (a.getAttribute('href') === `#/${page}`) a.setAttribute('aria-current', 'page');
    else a.removeAttribute('aria-current');
  }
  const v = view();
  if (!load) return clear(v, errorBox(`no page '${page}'`));
  clear(v, h('p', { class: 'muted' }, 'Loading\u2026'));
  try {
    const mod = await load();
    await mod.render(v, params);
  } catch (e) {
    if (!session.token() && !noAuth) return; // a 401 brought the login page up: leave it
    clear(v, errorBox(e));
  }
  const title = v.querySelector('h1');
  document.title = `${title ? title.textContent : page} \u2013 floe console`;
  if (document.activeElement === document.body) v.focus();
}

async function start() {
  document.getElementById('logout').addEventListener('click', () => {
    session.clear();
    resetMcp();
    loginPage();
  });
  window.addEventListener('floe:unauthorized', () => loginPage('Your session has ended: sign in again.'));
  window.addEventListener('hashchange', route);
  try {
    if (!session.token() && !(await authRequired())) {
      noAuth = true;
      session.set(null, 'anonymous (authentication disabled)');
    }
  } catch (e) {
    return clear(view(), errorBox(e));
  }
  route();
}

start();
