// DOM construction for the inspector. Text from the target only ever reaches the page through
// `textContent` (the `text` option and string children) or through attributes set with setAttribute, which
// are never HTML-parsed. Nothing in the webview uses innerHTML, insertAdjacentHTML, outerHTML or
// document.write; no `style` attribute is written (the CSP allows no inline styles): sizes go through the
// CSSOM (`element.style.height = …`), which the CSP permits.

export type Child = Node | string | null | undefined | false;

export interface ElementOptions {
  /** Class names. */
  readonly class?: string;
  /** Text content (set with textContent). */
  readonly text?: string;
  /** Attributes: string values are set with setAttribute, `true` sets an empty attribute, false/undefined skip it. */
  readonly attrs?: Readonly<Record<string, string | number | boolean | undefined>>;
  /** Event listeners. */
  readonly on?: Readonly<Record<string, (event: Event) => void>>;
}

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, options?: ElementOptions, ...children: Child[]): HTMLElementTagNameMap[K];
export function h(tag: string, options?: ElementOptions, ...children: Child[]): HTMLElement;
export function h(tag: string, options: ElementOptions = {}, ...children: Child[]): HTMLElement {
  const element = document.createElement(tag);
  if (options.class) element.className = options.class;
  if (options.text !== undefined) element.textContent = options.text;
  for (const [name, value] of Object.entries(options.attrs ?? {})) {
    if (value === undefined || value === false) continue;
    if (/^on/i.test(name) || name.toLowerCase() === 'style') throw new Error(`refusing to set the ${name} attribute`);
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const [type, listener] of Object.entries(options.on ?? {})) element.addEventListener(type, listener);
  append(element, ...children);
  return element;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
}

/** Removes every child. */
export function clear(element: Element): void {
  while (element.firstChild) element.removeChild(element.firstChild);
}

/** Reads `--vscode-*` theme variables as the page computes them now (one style computation for all). */
export function themeReader(): (name: string, fallback: string) => string {
  const style = getComputedStyle(document.body);
  return (name, fallback) => {
    const value = style.getPropertyValue(name).trim();
    return value === '' ? fallback : value;
  };
}

/** The theme kind VS Code puts on <body>: vscode-light, vscode-dark, vscode-high-contrast(-light). */
export function themeKind(): 'light' | 'dark' | 'high-contrast' | 'high-contrast-light' {
  const classes = document.body.classList;
  if (classes.contains('vscode-high-contrast-light')) return 'high-contrast-light';
  if (classes.contains('vscode-high-contrast')) return 'high-contrast';
  if (classes.contains('vscode-light')) return 'light';
  return 'dark';
}
