/**
 * Building DOM nodes. Data only ever becomes text (`Text` nodes, `textContent`): nothing here
 * parses HTML, so a run's arguments, logs or results cannot inject markup.
 */
import { tokenize } from './highlight.js';

/** A child: a node, text, or nothing (`null`, `undefined`, `false` are skipped); arrays flatten. */
export type Child = Node | string | number | null | undefined | false | readonly Child[];

/** Element properties the console sets. */
export interface Props {
  class?: string | undefined;
  title?: string | undefined;
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
    else if (typeof child === 'string' || typeof child === 'number')
      parent.appendChild(document.createTextNode(String(child)));
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
  if (props.title !== undefined) el.title = props.title;
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

/** A highlighted TypeScript program with line numbers. */
export function codeBlock(source: string): HTMLElement {
  const code = h('code');
  for (const t of tokenize(source)) {
    if (t.kind === 'space' || t.kind === 'ident' || t.kind === 'punct')
      code.appendChild(document.createTextNode(t.text));
    else code.appendChild(h('span', { class: `tok-${t.kind}` }, t.text));
  }
  const lines = source.split('\n').length;
  const gutter = h('pre', { class: 'gutter', attrs: { 'aria-hidden': 'true' } });
  gutter.textContent = Array.from({ length: lines }, (_, i) => String(i + 1)).join('\n');
  return h('div', { class: 'program' }, gutter, h('pre', { class: 'source' }, code));
}
