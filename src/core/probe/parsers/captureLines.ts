// Reading the container probe's capture records as text: a section's bodies joined, its non-blank lines.
import type { CaptureSection } from '../capture.ts';

/** All of a section's record bodies, joined. */
export function sectionBody(section: CaptureSection | undefined): string {
  return (section?.records ?? []).map((record) => record.body).join('\n');
}

export function lines(text: string | undefined): string[] {
  return (text ?? '')
    .split('\n')
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => line.trim() !== '');
}
