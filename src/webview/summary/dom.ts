/// <reference lib="dom" />
// Builds DOM nodes without HTML parsing: every value goes in as a text node or an attribute value,
// so a row can never inject markup or script into the panel.

type Child = Node | string | null | undefined | false;

export interface Props {
  class?: string;
  id?: string;
  title?: string;
  attrs?: Record<string, string>;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  apply(el, props, children);
  return el;
}

/** A custom element (`vscode-button`, ...), built the same way. */
export function custom(tag: string, props: Props = {}, ...children: Child[]): HTMLElement {
  const el = document.createElement(tag);
  apply(el, props, children);
  return el;
}

function apply(el: HTMLElement, props: Props, children: Child[]): void {
  if (props.class) el.className = props.class;
  if (props.id) el.id = props.id;
  if (props.title) el.title = props.title;
  for (const [k, v] of Object.entries(props.attrs ?? {})) el.setAttribute(k, v);
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.append(typeof c === 'string' ? document.createTextNode(c) : c);
  }
}

/** A theme colour: the VS Code variable when the page runs in a webview, else the fallback. */
export function themeColor(name: string, fallback: string): string {
  const v = getComputedStyle(document.body).getPropertyValue(name).trim();
  return v || fallback;
}
