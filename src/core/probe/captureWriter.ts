// The capture format's writer, beside its reader (capture.ts). It writes a parsed capture back as text, for
// "Save probe capture" when the caller no longer has the text it analysed (an inspection handed over without
// it). The result parses back to the same sections, records, rc and missing markers (`gpumem analyze` and
// "Analyze Probe Capture…" read it); only stray text outside sections is gone. A fresh nonce marks the lines,
// as the probe does.
import type { Capture } from './capture.ts';
import { newNonce } from './script.ts';

export function serializeCapture(capture: Capture, nonce: string = newNonce()): string {
  if (!/^[0-9a-f]{8,64}$/.test(nonce)) throw new Error('capture nonce must be 8–64 lowercase hex characters');
  const mark = (text: string) => `\n@@gpumem:${nonce}:${text}@@\n`;
  // A path with a newline cannot be a marker argument; the probe never prints one (onefile skips them).
  const safe = (text: string) => text.replace(/[\r\n]/g, ' ');
  let out = `@@gpumem-probe v=${capture.version || 1} scope=${capture.scope ?? 'node'} nonce=${nonce} root=${safe(capture.root).replace(/@/g, '')}@@\n`;
  for (const section of capture.sections.values()) {
    out += mark(`begin ${safe(section.name)}`);
    for (const record of section.records) {
      if (record.path !== undefined) out += mark(`file ${safe(record.path)}`);
      out += record.body;
    }
    for (const missing of section.missing) out += mark(`missing ${safe(missing)}`);
    if (section.rc !== undefined) out += mark(`rc ${section.rc}`);
    if (section.complete) out += mark(`end ${safe(section.name)}`);
  }
  if (capture.complete) out += mark('done');
  return out;
}
