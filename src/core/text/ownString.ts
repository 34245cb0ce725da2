// Strings that outlive the capture they were read from. V8 keeps a sliced string's whole parent alive, and most
// strings of an analysis are slices of its capture (megabytes on a large node): what is kept after the capture is
// dropped (the agent's facts between cycles, live sampling's 300 points) copies the strings it keeps.

/** A copy of `text` that refers to no larger string. */
export function ownString(text: string): string {
  return JSON.parse(JSON.stringify(text)) as string;
}
