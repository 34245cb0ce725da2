// The oldest Node.js the CLI and the agent run on (package.json's engines.node; a unit test keeps them equal), and
// the one line an older Node gets instead of a stack from deep inside the bundle.
// dist/cli.js checks this before it loads anything else, so this module must stay tiny and free of imports.

export const MINIMUM_NODE = { major: 22, minor: 19 } as const;

/** The message for a Node.js older than MINIMUM_NODE; undefined when `version` (process.versions.node) is new enough. */
export function unsupportedNodeMessage(version: string): string | undefined {
  const [major, minor] = version.split('.').map((part) => Number.parseInt(part, 10));
  if (major === undefined || minor === undefined || Number.isNaN(major) || Number.isNaN(minor)) return undefined;
  const { major: needMajor, minor: needMinor } = MINIMUM_NODE;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return `gpumem needs Node.js ≥ ${needMajor}.${needMinor}; this is ${version}`;
}
