/** The sign-in form: a bearer key, checked against the API, kept in this tab's session storage. */
import { Api, ApiError } from '../api.js';
import { storeKey } from '../key-store.js';
import { h, replace } from '../dom.js';

/** Renders the form; `done` receives the checked key. */
export function loginView(done: (api: Api) => void, reason?: string): HTMLElement {
  const input = h('input', {
    type: 'password',
    name: 'key',
    placeholder: 'API key',
    autocomplete: 'off',
    attrs: { 'aria-label': 'API key', required: '' },
  });
  const message = h('p', { class: 'form-error', attrs: { role: 'alert' } }, reason ?? '');
  const button = h('button', { type: 'submit', class: 'primary' }, 'Sign in');
  const form = h(
    'form',
    {
      class: 'login',
      onsubmit: (event) => {
        event.preventDefault();
        const key = input.value.trim();
        if (key === '') return;
        button.disabled = true;
        message.textContent = '';
        const api = new Api(key);
        api
          .check()
          .then(() => {
            storeKey(key);
            done(api);
          })
          .catch((err: unknown) => {
            replace(
              message,
              err instanceof ApiError && err.status === 401
                ? 'This key is not valid.'
                : err instanceof Error
                  ? err.message
                  : String(err),
            );
          })
          .finally(() => (button.disabled = false));
      },
    },
    h('h1', {}, 'isocode console'),
    h(
      'p',
      { class: 'muted' },
      'Enter an API key of this server. It is kept in this browser tab only and sent as a bearer token to the /v1 API; you see what that key may see.',
    ),
    input,
    button,
    message,
  );
  return h('section', { class: 'login-page' }, form);
}
