// A toolbar or section button whose work is a request to the host (copy, save): it shows busy, then the
// answer, a cancellation, a failure or a timeout, and still reports an answer that arrives late.
import type { RequestResult, WebviewRequestMethod } from '../../src/core/inspector/protocol.ts';
import type { RequestOutcome } from '../../src/core/inspector/requests.ts';
import { h } from '../shared/dom.ts';

interface RequestButtonOptions<R> {
  readonly id?: string;
  readonly secondary?: boolean;
  readonly ariaLabel?: string;
  /** What the status next to the button says while the host works. */
  readonly busy: string;
  /** What it says once the host answered. */
  readonly done: (result: R) => string;
}

/**
 * A button that sends a request: busy (disabled, aria-busy, a status) until the host answers, then the result
 * or the failure next to it (`#<id>-status`, with data-state busy, done, cancelled, error or timeout).
 */
export function requestButton<M extends WebviewRequestMethod>(
  label: string,
  send: (onLate: (outcome: RequestOutcome<RequestResult<M>>) => void) => Promise<RequestOutcome<RequestResult<M>>>,
  options: RequestButtonOptions<RequestResult<M>>,
): HTMLElement {
  const element = h('vscode-button', {
    text: label,
    attrs: { id: options.id, secondary: options.secondary === true, 'aria-label': options.ariaLabel },
  }) as HTMLElement & { disabled: boolean };
  const status = h('span', {
    class: 'request-status',
    attrs: { id: options.id ? `${options.id}-status` : undefined, role: 'status', 'data-state': 'idle' },
  });
  let latest = 0;
  const show = (outcome: RequestOutcome<RequestResult<M>>): void => {
    element.disabled = false;
    element.removeAttribute('aria-busy');
    const cancelled = outcome.ok && outcome.result.kind === 'cancelled';
    status.setAttribute('data-state', outcome.ok ? (cancelled ? 'cancelled' : 'done') : outcome.reason === 'timeout' ? 'timeout' : 'error');
    status.className = `request-status ${outcome.ok ? (cancelled ? 'muted' : 'tone-text-ok') : 'tone-text-error'}`;
    status.textContent = outcome.ok ? options.done(outcome.result) : outcome.error;
  };
  element.addEventListener('click', () => {
    if (element.disabled) return;
    const mine = ++latest;
    element.disabled = true;
    element.setAttribute('aria-busy', 'true');
    status.setAttribute('data-state', 'busy');
    status.className = 'request-status muted';
    status.textContent = options.busy;
    // A late answer (after the timeout) still says what happened, unless the button was used again since.
    void send((late) => {
      if (mine === latest && !element.disabled) show(late);
    }).then((outcome) => {
      if (mine === latest) show(outcome);
    });
  });
  return h('span', { class: 'request' }, element, status);
}
