/**
 * The isocode web console (decision record 023): a shell with a sign-in form, a nav and three
 * views chosen by the URL's hash (`#/runs`, `#/runs/<id>`, `#/approvals`). Everything it shows
 * comes from the `/v1` API with the viewer's key.
 */
import { Api, ApiError } from './api.js';
import { storeKey, storedKey } from './key-store.js';
import { h, replace } from './dom.js';
import { approvalsView } from './views/approvals.js';
import { loginView } from './views/login.js';
import { runView } from './views/run.js';
import { runsView } from './views/runs.js';
import { type View, type ViewContext } from './views/view.js';
import { PendingFeed } from './pending-feed.js';

const app = document.getElementById('app');
const header = document.getElementById('header');
if (!app || !header) throw new Error('the console page is missing #app or #header');

let api: Api | undefined;
let current: View | undefined;
let feed: PendingFeed | undefined;
const banner = h('div', { class: 'banner', attrs: { role: 'alert' }, data: { testid: 'banner' } });
const badge = h('span', { class: 'count', data: { testid: 'pending-count' } });

const ctx = (): ViewContext => ({
  api: api!,
  report(error) {
    if (error instanceof ApiError && error.status === 401)
      return signOut('The key was refused: sign in again.');
    if (error === undefined) {
      banner.hidden = true;
      return;
    }
    banner.hidden = false;
    replace(
      banner,
      error instanceof ApiError
        ? error.code === 'NOT_FOUND' && error.message.startsWith('no route')
          ? 'This server does not offer durable runs (the /v1/runs API).'
          : `${error.code}: ${error.message}`
        : error instanceof Error
          ? error.message
          : 'unexpected error',
    );
  },
  onPending: (listener) => feed?.subscribe(listener) ?? (() => undefined),
});

function drawHeader(): void {
  if (!api) {
    replace(header!, h('span', { class: 'brand' }, 'isocode'));
    return;
  }
  const who = api.key === undefined ? 'anonymous (loopback)' : `key …${api.key.slice(-4)}`;
  replace(
    header!,
    h('span', { class: 'brand' }, 'isocode'),
    h(
      'nav',
      {},
      h('a', { href: '#/runs', data: { nav: 'runs' } }, 'Runs'),
      h('a', { href: '#/approvals', data: { nav: 'approvals' } }, 'Approvals ', badge),
    ),
    h('span', { class: 'who', data: { testid: 'who' } }, who),
    h(
      'button',
      { type: 'button', class: 'link', onclick: () => signOut(), data: { action: 'sign-out' } },
      api.key === undefined ? 'Use a key' : 'Sign out',
    ),
  );
}

function route(): void {
  current?.dispose();
  current = undefined;
  banner.hidden = true;
  if (!api) return;
  const hash = location.hash.replace(/^#\/?/, '');
  const [path = '', query = ''] = hash.split('?', 2);
  const parts = path.split('/').filter((p) => p !== '');
  const c = ctx();
  if (parts[0] === 'runs' && parts[1] !== undefined)
    current = runView(c, decodeURIComponent(parts[1]));
  else if (parts[0] === 'approvals') current = approvalsView(c);
  else current = runsView(c, new URLSearchParams(query));
  for (const a of header!.querySelectorAll<HTMLAnchorElement>('nav a'))
    a.classList.toggle(
      'active',
      a.dataset['nav'] === (parts[0] === 'approvals' ? 'approvals' : 'runs'),
    );
  replace(app!, banner, current.root);
}

function signIn(next: Api): void {
  api = next;
  drawHeader();
  feed?.close();
  // The pending count in the nav, whatever the view, pushed by the server (no polling).
  feed = new PendingFeed(next, (error) => {
    if (error?.status === 401) signOut('The key was refused: sign in again.');
  });
  feed.subscribe((ids) => {
    badge.textContent = ids.length > 0 ? String(ids.length) : '';
  });
  route();
}

function signOut(reason?: string): void {
  storeKey(undefined);
  feed?.close();
  feed = undefined;
  current?.dispose();
  current = undefined;
  api = undefined;
  drawHeader();
  replace(app!, loginView(signIn, reason));
}

window.addEventListener('hashchange', route);

/** Starts with the tab's key, else anonymous loopback access if the server allows it, else the form. */
async function start(): Promise<void> {
  const key = storedKey();
  const candidate = new Api(key);
  try {
    await candidate.check();
    signIn(candidate);
  } catch (err) {
    signOut(
      key !== undefined && err instanceof ApiError && err.status === 401
        ? 'The stored key was refused.'
        : undefined,
    );
  }
}
void start();
