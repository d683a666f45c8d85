/**
 * A run's logs as they arrive: numbered lines (the number is the line's place in the run, kept
 * when a search hides others), a search box that filters them (case-insensitive, on the text as
 * the program wrote it), and follow-tail: on while the list is scrolled to its end, so new lines
 * scroll into view; scrolling up stops it, scrolling back down (or the box) resumes it.
 */
import { h } from '../dom.js';
import { Shown } from '../format.js';
import type { LogLine } from './outcome.js';

/** How close to the end (px) still counts as "at the end" for follow-tail. */
const END_SLACK_PX = 8;

export class LogPanel {
  readonly #list = h('ol', { class: 'logs', data: { testid: 'logs' } });
  readonly #texts: string[] = [];
  readonly #search = h('input', {
    type: 'search',
    name: 'log-search',
    placeholder: 'Search the logs',
    autocomplete: 'off',
    data: { testid: 'log-search' },
    attrs: { 'aria-label': 'Search the logs' },
  });
  readonly #follow = h('input', {
    type: 'checkbox',
    name: 'log-follow',
    checked: true,
    data: { testid: 'log-follow' },
  });
  readonly #count = h('span', { class: 'muted', data: { testid: 'log-count' } });
  #query = '';
  /** The card to mount. */
  readonly root: HTMLElement;

  constructor() {
    this.#search.addEventListener('input', () => {
      this.#query = this.#search.value.toLowerCase();
      this.#list.childNodes.forEach((node, i) => {
        (node as HTMLElement).hidden = !this.#matches(this.#texts[i] ?? '');
      });
      this.#drawCount();
    });
    this.#follow.addEventListener('change', () => {
      if (this.#follow.checked) this.#toEnd();
    });
    this.#list.addEventListener('scroll', () => {
      const l = this.#list;
      this.#follow.checked = l.scrollTop + l.clientHeight >= l.scrollHeight - END_SLACK_PX;
    });
    this.root = h(
      'div',
      { class: 'card' },
      h(
        'div',
        { class: 'logs-bar' },
        h('h3', {}, 'Logs'),
        this.#search,
        h('label', { class: 'follow' }, this.#follow, ' Follow'),
        this.#count,
      ),
      this.#list,
    );
    this.#drawCount();
  }

  /** Lines so far. */
  get count(): number {
    return this.#texts.length;
  }

  /** Appends a line (kept hidden when it does not match the search). */
  add(line: LogLine): void {
    const text = line.text instanceof Shown ? line.text.text : line.text;
    this.#texts.push(text);
    const safe = /^[a-z]{1,10}$/.test(line.level) ? line.level : 'log';
    const li = h(
      'li',
      { class: `log-${safe}`, data: { line: String(this.#texts.length) } },
      h('span', { class: 'level' }, line.level),
      line.text,
    );
    li.hidden = !this.#matches(text);
    this.#list.appendChild(li);
    this.#drawCount();
    if (this.#follow.checked) this.#toEnd();
  }

  #matches(text: string): boolean {
    return this.#query === '' || text.toLowerCase().includes(this.#query);
  }

  #toEnd(): void {
    this.#list.scrollTop = this.#list.scrollHeight;
  }

  #drawCount(): void {
    const all = this.#texts.length;
    if (this.#query === '') this.#count.textContent = `${all} ${all === 1 ? 'line' : 'lines'}`;
    else {
      const shown = this.#texts.filter((t) => this.#matches(t)).length;
      this.#count.textContent = `${shown} of ${all} lines`;
    }
  }
}
