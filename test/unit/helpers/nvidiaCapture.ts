// An H100 node's capture with the nvidia-smi sections spliced in (formats: src/core/probe/scripts/nodeScript.ts), shared
// by the NVIDIA node tests and the agent's metric tests.
import { NONCE } from './captureText.ts';
import type { SectionSpec } from './captureText.ts';
import { GiB } from './nodeCapture.ts';

export const POD = { uid: '3f0a5c2e-8b1d-4e6f-9a7c-1d2e3f4a5b6c', qos: 'burstable' as const, current: 2 * GiB, max: 24 * GiB };
export const OTHER = { uid: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a', qos: 'burstable' as const, current: 1 * GiB, max: 16 * GiB };
export const H100 = 'GPU-b42dd28e-ffdd-8720-1df0-98bd8cdc05b1';
export const H100_ROW = `0, ${H100}, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 565.57.01, 81559, 454, 19000, 62105, 30, Default, Disabled\n`;

export function withNvidia(base: string, sections: Readonly<Record<string, SectionSpec>>): string {
  const mark = (text: string) => `\n@@gpumem:${NONCE}:${text}@@\n`;
  let extra = '';
  for (const [name, spec] of Object.entries(sections)) {
    extra += mark(`begin ${name}`) + (spec.body ?? '');
    for (const missing of spec.missing ?? []) extra += mark(`missing ${missing}`);
    for (const [path, content] of spec.files ?? []) extra += mark(`file ${path}`) + content;
    if (spec.rc !== undefined) extra += mark(`rc ${spec.rc}`);
    extra += mark(`end ${name}`);
  }
  return base.replace(mark('done'), `${extra}${mark('done')}`);
}

export function pidFiles(pid: number, cgroup: string, comm: string, env: string): [string, string][] {
  return [
    [`/proc/${pid}/cgroup`, `0::${cgroup}\n`],
    [`/proc/${pid}/comm`, `${comm}\n`],
    [`/proc/${pid}/environ`, env],
  ];
}
