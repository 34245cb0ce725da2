// Builds probe-capture text in the format scripts print (src/core/probe/capture.ts), for parser and
// verdict tests that do not need to run a shell.
export const NONCE = 'feedfacefeedface0001';

export interface SectionSpec {
  /** Plain body (a command's output, or key=value lines). */
  readonly body?: string;
  /** File records: [path, content]. */
  readonly files?: readonly (readonly [string, string])[];
  readonly missing?: readonly string[];
  readonly rc?: number;
  /** Leave the end marker out (a cut-off section). */
  readonly cut?: boolean;
}

export function captureText(
  scope: 'node' | 'container',
  sections: Readonly<Record<string, SectionSpec | string>>,
  options: { done?: boolean; nonce?: string } = {},
): string {
  const nonce = options.nonce ?? NONCE;
  const mark = (text: string) => `\n@@gpumem:${nonce}:${text}@@\n`;
  let out = `@@gpumem-probe v=1 scope=${scope} nonce=${nonce} root=@@\n`;
  for (const [name, raw] of Object.entries(sections)) {
    const spec: SectionSpec = typeof raw === 'string' ? { body: raw } : raw;
    out += mark(`begin ${name}`);
    if (spec.body !== undefined) out += spec.body;
    for (const missing of spec.missing ?? []) out += mark(`missing ${missing}`);
    for (const [path, content] of spec.files ?? []) out += mark(`file ${path}`) + content;
    if (spec.rc !== undefined) out += mark(`rc ${spec.rc}`);
    if (!spec.cut) out += mark(`end ${name}`);
  }
  if (options.done ?? true) out += mark('done');
  return out;
}

/** One /proc/<pid> record as the container probe prints it. */
export function procRecord(fields: {
  pid: number;
  ppid?: number;
  comm: string;
  cmdline?: string;
  maps?: string;
  nvidiaFd?: string;
  env?: readonly string[];
  environUnreadable?: boolean;
  exePath?: string;
  exe?: string;
}): readonly [string, string] {
  const lines = [
    `pid=${fields.pid}`,
    `ppid=${fields.ppid ?? 0}`,
    `comm=${fields.comm}`,
    `cmdline=${fields.cmdline ?? fields.comm}`,
    `maps=${fields.maps ?? 'libvgpu=0 libcuda=0 ld-musl=0 ld-linux=1 lines=40'}`,
    `nvidia_fd=${fields.nvidiaFd ?? '0'}`,
    ...(fields.environUnreadable ? ['@environ-unreadable'] : (fields.env ?? [])),
    ...(fields.exePath ? [`exe_path=${fields.exePath}`] : []),
    fields.exe ?? 'exe=dynamic via=od interp=/lib64/ld-linux-x86-64.so.2',
  ];
  return [`/proc/${fields.pid}`, `${lines.join('\n')}\n`];
}
