// The YAML examples of a Markdown page: every fenced block whose info string starts with `yaml` or `yml`, in
// order, with the fence's indentation removed (docs nest examples in lists). Used by label.mjs and
// assemble.mjs, so a corpus entry `{ path: "x.md", block: 2 }` means the same text to both. Linear: one pass.

/** @returns {string[]} */
export function yamlBlocks(markdown) {
  const blocks = [];
  let open; // { indent, fence, lines }
  for (const line of markdown.split(/\r?\n/)) {
    if (!open) {
      const start = /^(\s*)(`{3,}|~{3,})\s*(ya?ml)\b/i.exec(line);
      if (start) open = { indent: start[1].length, fence: start[2], lines: [] };
      continue;
    }
    const trimmed = line.trimStart();
    if (trimmed.startsWith(open.fence) && trimmed.slice(open.fence.length).trim() === '') {
      blocks.push(open.lines.join('\n') + '\n');
      open = undefined;
      continue;
    }
    const lead = line.length - line.trimStart().length;
    open.lines.push(line.slice(Math.min(lead, open.indent)));
  }
  return blocks;
}

/** Where the assembled corpus keeps an entry: the file itself, or `<page>.md.block<k>.yaml` for a Markdown block. */
export function assembledPath(repo, path, block) {
  return block === undefined ? `${repo}/${path}` : `${repo}/${path}.block${block}.yaml`;
}
