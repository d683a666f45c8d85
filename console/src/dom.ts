/**
 * Building DOM nodes. Data only ever becomes text (`Text` nodes, `textContent`): nothing here
 * parses HTML, so a run's arguments, logs or results cannot inject markup. And every text goes
 * through the visible-text rule (src/text/visible.ts, bundled from the one module; decision 028):
 * a control, bidi or invisible character is shown as an escape such as `\u202E`, drawn in a
 * marked box, never interpreted (no reordering, no hidden text, no ANSI glyphs).
 */
import { visible, visibleParts, type VisiblePart } from '../../src/text/visible.js';
import { Shown } from './format.js';
import { tokenize } from './highlight.js';

/**
 * A child: a node, text, text already made visible ({@link Shown}: JSON, program source), or
 * nothing (`null`, `undefined`, `false` are skipped); arrays flatten.
 */
export type Child = Node | Shown | string | number | null | undefined | false | readonly Child[];

/** Appends shown pieces: escapes in `<span class="esc">`, the rest as text. */
function appendParts(parent: Node, parts: readonly VisiblePart[]): void {
  for (const part of parts)
    parent.appendChild(
      part.escaped
        ? h(
            'span',
            { class: 'esc', title: 'a hidden or control character, shown as an escape' },
            new Shown([{ text: part.text, escaped: false }]),
          )
        : document.createTextNode(part.text),
    );
}

/** Element properties the console sets. */
export interface Props {
  class?: string | undefined;
  /** A tooltip (shown through the visible-text rule). */
  title?: string | Shown | undefined;
  /** Only links the console builds itself (`#/...`). */
  href?: string | undefined;
  type?: string | undefined;
  name?: string | undefined;
  value?: string | undefined;
  placeholder?: string | undefined;
  disabled?: boolean | undefined;
  checked?: boolean | undefined;
  autocomplete?: string | undefined;
  /** `data-*` attributes (tests select by them). */
  data?: Record<string, string> | undefined;
  /** ARIA and other plain attributes. */
  attrs?: Record<string, string> | undefined;
  onclick?: ((event: MouseEvent) => void) | undefined;
  onchange?: ((event: Event) => void) | undefined;
  onsubmit?: ((event: SubmitEvent) => void) | undefined;
}

/** Appends children as nodes and text. */
export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, ...(child as Child[]));
    else if (child instanceof Shown) appendParts(parent, child.parts);
    else if (typeof child === 'string') appendParts(parent, visibleParts(child));
    else if (typeof child === 'number') parent.appendChild(document.createTextNode(String(child)));
    else parent.appendChild(child as Node);
  }
}

/** Creates an element. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (props.class) el.className = props.class;
  if (props.title !== undefined)
    el.title = props.title instanceof Shown ? props.title.text : visible(props.title);
  if (props.href !== undefined && props.href.startsWith('#')) el.setAttribute('href', props.href);
  for (const key of ['type', 'name', 'placeholder', 'autocomplete'] as const) {
    const v = props[key];
    if (v !== undefined) el.setAttribute(key, v);
  }
  if (props.value !== undefined) (el as HTMLInputElement).value = props.value;
  if (props.disabled) (el as HTMLButtonElement).disabled = true;
  if (props.checked) (el as HTMLInputElement).checked = true;
  for (const [k, v] of Object.entries(props.data ?? {})) el.dataset[k] = v;
  for (const [k, v] of Object.entries(props.attrs ?? {})) el.setAttribute(k, v);
  if (props.onclick) el.addEventListener('click', props.onclick as EventListener);
  if (props.onchange) el.addEventListener('change', props.onchange);
  if (props.onsubmit) el.addEventListener('submit', props.onsubmit as EventListener);
  append(el, ...children);
  return el;
}

/** Replaces an element's children. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** A status badge: `<span class="badge status-running">running</span>`. */
export function statusBadge(status: string): HTMLSpanElement {
  const safe = /^[a-z-]{1,30}$/.test(status) ? status : 'unknown';
  return h('span', { class: `badge status-${safe}`, data: { status } }, status);
}

/**
 * The mark of a record whose stored columns could not be read (the API's `damaged`): those show
 * empty, and the mark says so rather than let the empty value pass for the real one.
 */
export function damagedMark(columns: readonly string[] | undefined): HTMLSpanElement | null {
  if (columns === undefined || columns.length === 0) return null;
  const named = columns.slice(0, 8).join(', ');
  return h(
    'span',
    {
      class: 'badge damaged',
      data: { testid: 'damaged' },
      title: `The store could not read ${named}: shown empty, not as stored.`,
    },
    `unreadable: ${named}`,
  );
}

/** A highlighted TypeScript program with line numbers. */
export function codeBlock(source: string, fail?: { line: number; note: string }): HTMLElement {
  const code = h('code');
  // Source mode: a hidden character (a Trojan Source bidi override) becomes a marked `\u202E`;
  // backslashes stay as written.
  for (const t of tokenize(source)) {
    const shown = new Shown(visibleParts(t.text, 'code'));
    if (t.kind === 'space' || t.kind === 'ident' || t.kind === 'punct') append(code, shown);
    else code.appendChild(h('span', { class: `tok-${t.kind}` }, shown));
  }
  const lines = source.split('\n').length;
  const gutter = h('pre', { class: 'gutter', attrs: { 'aria-hidden': 'true' } });
  const failing = fail !== undefined && fail.line >= 1 && fail.line <= lines ? fail : undefined;
  for (let i = 1; i <= lines; i++) {
    if (i > 1) gutter.append('\n');
    if (i === failing?.line)
      gutter.appendChild(
        h('span', { class: 'fail-line', title: failing.note, data: { testid: 'fail-line' } }, i),
      );
    else gutter.append(String(i));
  }
  const pre = h('pre', { class: 'source' }, code);
  if (failing) {
    // A band behind the failing line (CSSOM, which the page's CSP allows; no style attribute).
    const band = h('div', { class: 'fail-band', attrs: { 'aria-hidden': 'true' } });
    band.style.setProperty('--fail-line', String(failing.line - 1));
    pre.prepend(band);
  }
  return h('div', { class: 'program' }, gutter, pre);
}
