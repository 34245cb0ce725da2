// Files the container probe lists and reads: `ls -ln` lines, /proc/self/mountinfo (Documentation/filesystems/proc.rst
// "/proc/<pid>/mountinfo"), and /etc/ld.so.preload (ld.so(8): whitespace- or colon-separated objects).
import type { CaptureSection } from '../capture.ts';
import { lines, sectionBody } from './captureLines.ts';
import { parseBoundedNumber } from './kernelNumber.ts';

export interface LsEntry {
  readonly line: string;
  readonly type: 'file' | 'directory' | 'symlink' | 'char' | 'block' | 'socket' | 'fifo' | 'other';
  readonly mode: string;
  readonly uid: string;
  readonly gid: string;
  /** Bytes; undefined for devices. */
  readonly size: number | undefined;
  readonly name: string;
  readonly target: string | undefined;
}

export interface MountInfo {
  readonly line: string;
  readonly mountId: number | undefined;
  readonly root: string;
  readonly mountPoint: string;
  readonly options: readonly string[];
  readonly fsType: string;
  readonly source: string;
  readonly superOptions: readonly string[];
  readonly readOnly: boolean;
}

export interface PreloadFile {
  readonly state: 'file' | 'directory' | 'symlink' | 'missing' | 'unreadable' | 'unknown';
  readonly content: string | undefined;
  /** Whitespace-separated objects, comments dropped. */
  readonly entries: readonly string[];
  readonly lsLine: string | undefined;
  readonly sizeBytes: number | undefined;
}

const LS = /^([-dlcbps])([-rwxsStT]{9})[.+@]?\s+\d+\s+(\S+)\s+(\S+)\s+(?:(\d+),\s*\d+|(\d+))\s+\S+\s+\S+\s+\S+\s([^\n]*)$/;

export function parseLsLine(line: string): LsEntry | undefined {
  const match = LS.exec(line);
  if (!match) return undefined;
  const typeChar = match[1] ?? '-';
  const type: LsEntry['type'] =
    typeChar === '-'
      ? 'file'
      : typeChar === 'd'
        ? 'directory'
        : typeChar === 'l'
          ? 'symlink'
          : typeChar === 'c'
            ? 'char'
            : typeChar === 'b'
              ? 'block'
              : typeChar === 's'
                ? 'socket'
                : typeChar === 'p'
                  ? 'fifo'
                  : 'other';
  let name = match[7] ?? '';
  let target: string | undefined;
  if (type === 'symlink') {
    const arrow = name.indexOf(' -> ');
    if (arrow >= 0) {
      target = name.slice(arrow + 4);
      name = name.slice(0, arrow);
    }
  }
  // `ls -lnd /etc/ld.so.preload` prints the path: keep the basename like a directory listing.
  const size = parseBoundedNumber(match[6]);
  return { line, type, mode: `${typeChar}${match[2] ?? ''}`, uid: match[3] ?? '', gid: match[4] ?? '', size, name, target };
}

export function parsePreload(section: CaptureSection | undefined): PreloadFile | undefined {
  if (!section) return undefined;
  if (section.missing.includes('/etc/ld.so.preload'))
    return { state: 'missing', content: undefined, entries: [], lsLine: undefined, sizeBytes: undefined };
  const lsLine = lines(section.records.find((record) => record.path === 'ls')?.body)[0];
  const ls = lsLine === undefined ? undefined : parseLsLine(lsLine);
  const file = section.records.find((record) => record.path === '/etc/ld.so.preload');
  let state: PreloadFile['state'] =
    ls?.type === 'directory' ? 'directory' : ls?.type === 'symlink' ? 'symlink' : ls?.type === 'file' ? 'file' : 'unknown';
  let content = file?.body;
  if (content !== undefined && content.trim() === 'gpumem: permission denied') {
    state = 'unreadable';
    content = undefined;
  }
  if (file && state === 'unknown') state = 'file';
  const entries = (content ?? '')
    .split('\n')
    .map((line) => line.replace(/#[^\n]*$/, ''))
    .flatMap((line) => line.split(/[\s:]+/))
    .filter((entry) => entry !== '');
  return { state, content, entries, lsLine, sizeBytes: ls?.size };
}

function unescapeMount(text: string): string {
  return text.replace(/\\([0-7]{3})/g, (_all, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}

export function parseMountInfoLine(line: string): MountInfo | undefined {
  const dash = line.indexOf(' - ');
  if (dash < 0) return undefined;
  const head = line.slice(0, dash).split(' ');
  const tail = line.slice(dash + 3).split(' ');
  if (head.length < 6) return undefined;
  const options = (head[5] ?? '').split(',');
  return {
    line,
    mountId: parseBoundedNumber(head[0]),
    root: unescapeMount(head[3] ?? ''),
    mountPoint: unescapeMount(head[4] ?? ''),
    options,
    fsType: tail[0] ?? '',
    source: unescapeMount(tail[1] ?? ''),
    superOptions: (tail[2] ?? '').split(','),
    readOnly: options.includes('ro'),
  };
}

export function parseMounts(section: CaptureSection | undefined): MountInfo[] | undefined {
  if (!section || section.missing.includes('/proc/self/mountinfo')) return undefined;
  return lines(sectionBody(section))
    .map(parseMountInfoLine)
    .filter((mount): mount is MountInfo => mount !== undefined);
}
