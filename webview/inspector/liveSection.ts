// The live sampling section: pause/resume, the pod the chart follows, the host's sampling status and the box the
// live chart is drawn into (main.ts feeds it the samples).
import type { LiveState } from '../../src/core/inspector/protocol.ts';
import type { InspectorViewModel } from '../../src/core/inspectorPanel/viewModelTypes.ts';
import type { Actions } from './actions.ts';
import { h } from '../shared/dom.ts';
import { section } from './widgets.ts';

export interface LiveSlots {
  readonly element: HTMLElement;
  readonly chart: HTMLElement;
  readonly status: HTMLElement;
  readonly toggle: HTMLElement & { disabled: boolean };
  readonly select: HTMLSelectElement;
  readonly debug: HTMLElement;
}

export function renderLiveSection(
  model: InspectorViewModel,
  selected: string,
  actions: Actions,
  onSelect: (podUid: string) => void,
): LiveSlots | null {
  if (!model.live.possible) return null;
  const select = h('select', { attrs: { id: 'live-pod', 'aria-label': 'Pod the live chart follows' } });
  select.append(h('option', { text: 'All pods (sum)', attrs: { value: '' } }));
  for (const pod of model.live.pods)
    select.append(h('option', { text: pod.label, attrs: { value: pod.podUid, selected: pod.podUid === selected } }));
  select.addEventListener('change', () => onSelect(select.value));
  const status = h('span', {
    class: 'live-status',
    attrs: { id: 'live-status', role: 'status' },
    text: 'Live sampling: waiting for the host…',
  });
  const toggle = h('vscode-button', { text: 'Pause', attrs: { id: 'live-toggle', secondary: true, disabled: true } }) as HTMLElement & {
    disabled: boolean;
  };
  toggle.addEventListener('click', () => {
    if (toggle.disabled) return;
    actions.setLive(toggle.dataset.live !== 'true');
  });
  const chart = h('div', { class: 'chart-box chart-live', attrs: { id: 'live-chart', 'data-points': 0 } });
  const debug = h('output', {
    class: 'visually-hidden',
    attrs: { id: 'live-debug', 'data-samples': 0, 'data-status': 'off', 'aria-hidden': 'true' },
  });
  const element = section(
    'live',
    'Live sampling',
    h('div', { class: 'live-controls' }, toggle, h('label', { attrs: { for: 'live-pod' }, text: 'Pod: ' }), select, status),
    h('p', {
      class: 'hint',
      text: "memory.current (what the cgroup is charged) against GTT (charged to no cgroup) and the node's MemAvailable. The light probe re-runs on the open connection every few seconds (setting gpumem.inspector.sampleSeconds); it stops while the panel is hidden and when it closes.",
    }),
    chart,
    debug,
  );
  return { element, chart, status, toggle, select, debug };
}

export function showLiveState(slots: LiveSlots, state: LiveState): void {
  slots.status.textContent = state.detail;
  const running = state.status === 'running';
  slots.toggle.textContent = running ? 'Pause' : 'Resume';
  slots.toggle.dataset.live = running ? 'true' : 'false';
  slots.toggle.disabled = !(state.status === 'running' || state.status === 'paused');
  slots.debug.setAttribute('data-status', state.status);
  slots.debug.setAttribute('data-samples', String(state.samples));
}
