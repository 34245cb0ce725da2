// The "Driver books (amdgpu debugfs)" part of the inspection reports: how debugfs was found, each device's
// allocator totals, the clients by GTT and the largest buffers. Every string from the node is escaped.
import type { Inspection } from '../inspectionRun/analyze.ts';
import { formatBytes } from '../sizing.ts';
import { markdownText, terminalSafe } from '../text/escape.ts';
import type { DriverDebugfs } from '../verdicts/memory/driverDebugfs.ts';
import { TTM_PAGE_BYTES } from '../verdicts/memory/driverDebugfs.ts';

const MAX_ROWS = 20;

function accessText(driver: DriverDebugfs): string {
  const access = driver.debugfs.access;
  if (access.kind === 'refused') return `refused (${access.detail || 'no detail'})`;
  return access.kind;
}

export function driverMarkdown(inspection: Inspection): string[] {
  const driver = inspection.node?.driver;
  if (!driver || (driver.debugfs.devices.length === 0 && !hasAmd(inspection))) return [];
  const out = [
    '## Driver books (amdgpu debugfs)',
    '',
    `debugfs: ${markdownText(accessText(driver))}${driver.debugfs.lockdown ? ` · lockdown: ${markdownText(driver.debugfs.lockdown)}` : ''}`,
    '',
  ];
  if (driver.debugfs.devices.length > 0) {
    out.push(
      '| Device | clients | GTT of clients | GTT manager usage | VRAM manager usage | listing |',
      '| --- | --- | --- | --- | --- | --- |',
    );
    for (const device of driver.debugfs.devices) {
      const gem = device.gem;
      const clientsGtt =
        gem?.kind === 'read' ? gem.clients.reduce((total, client) => total + (client.placements.get('GTT')?.bytes ?? 0), 0) : undefined;
      out.push(
        `| dri/${markdownText(device.minor)}${device.pdev ? ` (${markdownText(device.pdev)})` : ''} | ${gem?.kind === 'read' ? gem.clients.length : '—'} | ${clientsGtt === undefined ? '—' : formatBytes(clientsGtt)} | ${bytes(device.gtt?.usage)} | ${bytes(device.vram?.usage)} | ${gem === undefined ? 'not read' : gem.kind === 'error' ? markdownText(gem.message) : gem.complete ? `complete, ${gem.buffers} buffers` : 'cut short'} |`,
      );
    }
    out.push('');
  }
  if (driver.unheldGtt !== undefined)
    out.push(`GTT held by no client: ${formatBytes(driver.unheldGtt)} (the driver's own buffers, or clients not yet torn down).`, '');
  if (driver.poolPages !== undefined)
    out.push(`TTM page pool: ${driver.poolPages} pages (${formatBytes(driver.poolPages * TTM_PAGE_BYTES)} at 4 KiB).`, '');
  if (driver.processes.length > 0) {
    out.push('| pid | command | pod | GTT (debugfs) | GTT (fdinfo) | VRAM | shared |', '| --- | --- | --- | --- | --- | --- | --- |');
    for (const process of driver.processes.slice(0, MAX_ROWS))
      out.push(
        `| ${process.pid} | ${markdownText(process.command)} | ${markdownText(process.podUid === undefined ? '—' : (inspection.podNames.get(process.podUid) ?? process.podUid))} | ${formatBytes(process.gtt)} | ${bytes(process.fdinfoGtt)} | ${formatBytes(process.vram)} | ${formatBytes(process.shared)} |`,
      );
    if (driver.processes.length > MAX_ROWS) out.push(`| … | ${driver.processes.length - MAX_ROWS} more | | | | | |`);
    out.push('');
  }
  if (driver.largest.length > 0) {
    out.push('Largest buffers:', '');
    for (const buffer of driver.largest)
      out.push(
        `- ${formatBytes(buffer.bytes)} ${markdownText(buffer.placement)}, pid ${buffer.pid} (${markdownText(buffer.command)})${buffer.detail ? `: ${markdownText(buffer.detail)}` : ''}`,
      );
    out.push('');
  }
  return out;
}

export function driverText(inspection: Inspection): string[] {
  const driver = inspection.node?.driver;
  if (!driver || driver.debugfs.access.kind !== 'mounted') return [];
  const out = ['', `driver books (amdgpu debugfs): ${oneLine(accessText(driver))}`];
  if (driver.clientsGtt !== undefined)
    out.push(`  clients' GTT   ${formatBytes(driver.clientsGtt)}${driver.complete ? '' : ' (listing cut short)'}`);
  if (driver.managerGtt !== undefined) out.push(`  amdgpu_gtt_mm usage ${formatBytes(driver.managerGtt)}`);
  if (driver.unheldGtt !== undefined) out.push(`  held by no client ${formatBytes(driver.unheldGtt)}`);
  if (driver.poolPages !== undefined) out.push(`  TTM page pool  ${driver.poolPages} pages`);
  for (const process of driver.processes.slice(0, 10))
    out.push(
      `  pid ${process.pid} ${oneLine(process.command)}: GTT ${formatBytes(process.gtt)}${process.fdinfoGtt !== undefined ? ` (fdinfo ${formatBytes(process.fdinfoGtt)})` : ''}`,
    );
  return out;
}

export function driverJson(inspection: Inspection): object | null {
  const driver = inspection.node?.driver;
  if (!driver) return null;
  return {
    access: driver.debugfs.access.kind,
    ...(driver.debugfs.access.kind === 'refused' ? { accessDetail: driver.debugfs.access.detail } : {}),
    lockdown: driver.debugfs.lockdown ?? null,
    complete: driver.complete,
    clientsGtt: driver.clientsGtt ?? null,
    managerGtt: driver.managerGtt ?? null,
    managerVram: driver.managerVram ?? null,
    unheldGtt: driver.unheldGtt ?? null,
    poolPages: driver.poolPages ?? null,
    devices: driver.debugfs.devices.map((device) => ({
      minor: device.minor,
      pdev: device.pdev ?? null,
      gem:
        device.gem === undefined
          ? null
          : device.gem.kind === 'error'
            ? { error: device.gem.message }
            : { clients: device.gem.clients.length, buffers: device.gem.buffers, complete: device.gem.complete },
      gttManager: device.gtt ?? null,
      vramManager: device.vram ?? null,
      pool: device.pool ?? null,
    })),
    processes: driver.processes.map((process) => ({ ...process, podUid: process.podUid ?? null, fdinfoGtt: process.fdinfoGtt ?? null })),
    largest: driver.largest,
  };
}

function hasAmd(inspection: Inspection): boolean {
  return (inspection.node?.model.gpus ?? []).some((gpu) => gpu.driver === 'amdgpu' || gpu.vendorId === '0x1002');
}

const bytes = (value: number | undefined) => (value === undefined ? '—' : formatBytes(value));

function oneLine(text: string): string {
  return terminalSafe(text, 'single-line');
}
