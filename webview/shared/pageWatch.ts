// What every gpumem webview page watches, the inspector's and the fleet's: CSP violations (counted for the e2e tests
// and the bench: there must be none) and theme changes (charts read their colours from the theme's variables).
import { h, themeKind } from './dom.ts';

/** Counts CSP violations on the page in a hidden #csp-violations element. */
export function countCspViolations(): void {
  const csp = h('output', { class: 'visually-hidden', attrs: { id: 'csp-violations', 'data-count': 0, 'aria-hidden': 'true' } });
  document.body.appendChild(csp);
  let violations = 0;
  document.addEventListener('securitypolicyviolation', (event) => {
    violations++;
    csp.setAttribute('data-count', String(violations));
    csp.textContent = `${event.violatedDirective} ${event.blockedURI}`;
  });
}

/**
 * Calls `onChange` when the theme changes. The theme changes the body's class (vscode-dark, vscode-light,
 * vscode-high-contrast…) and the variables; <html> carries the theme's kind for the stylesheet and the tests.
 */
export function watchTheme(root: HTMLElement, onChange: () => void): void {
  let theme = `${themeKind()} ${document.body.className}`;
  new MutationObserver(() => {
    const next = `${themeKind()} ${document.body.className}`;
    if (next === theme) return;
    theme = next;
    root.setAttribute('data-theme', themeKind());
    onChange();
  }).observe(document.body, { attributes: true, attributeFilter: ['class'] });
  root.setAttribute('data-theme', themeKind());
}
