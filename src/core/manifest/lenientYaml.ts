// kubectl reads YAML with go-yaml (sigs.k8s.io/yaml, kustomize's kyaml), which does not check the indentation of
// flow collections or of multi-line quoted scalars, and takes `"value"#comment` as a value and a comment. The
// strict parser used here rejects all three (eemeli/yaml#113, #114, #328, #539; yaml/yaml-test-suite#31), so
// manifests that `kubectl apply` takes would go unanalysed. `relaxForGoYaml` rewrites just those constructs,
// one code unit for one so every offset still points into the original:
//   - a line break inside a flow collection (`args: [` … `]`) becomes a space, and a comment there becomes
//     spaces, so the collection sits on one line and has no indentation to get wrong;
//   - a quoted scalar whose continuation lines are not indented past their key is joined the same way;
//   - a comment glued to a closing quote becomes spaces.
// The result only matters when the strict parser accepts it; a document that still fails is reported.
// One linear pass; block scalars are skipped by indentation, plain scalars by YAML's indicator rules.

/** The text with go-yaml's leniencies made explicit, or undefined when nothing needed rewriting. */
export function relaxForGoYaml(text: string): string | undefined {
  const out: string[] = [];
  let changed = false;
  const blank = (from: number, to: number) => {
    for (let j = from; j < to; j++) {
      if (out[j] !== ' ') {
        out[j] = ' ';
        changed = true;
      }
    }
  };
  for (let j = 0; j < text.length; j++) out.push(text[j] ?? '');

  let i = 0;
  let lineStart = 0;
  /** Column of the key or sequence dash that owns what follows on this line: a block scalar's or quoted scalar's parent. */
  let keyColumn = 0;
  const indentAt = (at: number) => {
    let j = at;
    while (text[j] === ' ') j++;
    return j - at;
  };
  let nodeStart = true;
  let depth = 0;
  const lineEnd = (from: number) => {
    const newline = text.indexOf('\n', from);
    return newline < 0 ? text.length : newline;
  };
  /** Scans a quoted scalar starting at `at` (the quote); returns the offset past its closing quote, joining lines if needed. */
  const quoted = (at: number, inFlow: boolean): number => {
    const quote = text[at];
    let j = at + 1;
    const breaks: number[] = [];
    let underIndented = false;
    while (j < text.length) {
      const c = text[j];
      if (quote === '"' && c === '\\') {
        j += 2;
        continue;
      }
      if (c === quote) {
        if (quote === "'" && text[j + 1] === "'") {
          j += 2;
          continue;
        }
        break;
      }
      if (c === '\n' || c === '\r') {
        breaks.push(j);
        if (c === '\n') {
          const indent = indentAt(j + 1);
          const next = text[j + 1 + indent];
          if (next !== '\n' && next !== '\r' && next !== undefined && indent <= keyColumn) underIndented = true;
        }
      }
      j++;
    }
    if (j >= text.length) return text.length; // unclosed: leave it to the parser to report
    j++;
    // A key must be on one line for go-yaml too: a multi-line quoted key stays as it is, and fails.
    let after = j;
    while (text[after] === ' ' || text[after] === '\t') after++;
    const isKey = text[after] === ':';
    if ((inFlow || underIndented) && !isKey) for (const at of breaks) blank(at, at + 1);
    // go-yaml takes `"value"#comment` as the value and a comment.
    if (text[j] === '#') blank(j, lineEnd(j));
    return j;
  };

  while (i < text.length) {
    const c = text[i] ?? '';
    if (depth > 0) {
      if (c === '\n' && (text.startsWith('---', i + 1) || text.startsWith('...', i + 1))) {
        // A document marker ends an unclosed collection, as in go-yaml: the parser reports it.
        depth = 0;
      } else if (c === '\n' || c === '\r') {
        blank(i, i + 1);
        i++;
      } else if (c === '"' || c === "'") {
        const before = text[i - 1];
        if (before === undefined || '[{,: \t\n\r'.includes(before)) i = quoted(i, true);
        else i++;
      } else if (c === '#' && (text[i - 1] === ' ' || text[i - 1] === '\t' || text[i - 1] === '\n')) {
        const end = lineEnd(i);
        blank(i, end);
        i = end;
      } else {
        if (c === '[' || c === '{') depth++;
        else if (c === ']' || c === '}') {
          depth--;
          if (depth === 0) nodeStart = false;
        }
        i++;
      }
      continue;
    }
    // Block context.
    if (c === '\n') {
      i++;
      lineStart = i;
      const indent = indentAt(i);
      keyColumn = indent;
      nodeStart = true;
      i += indent;
      // Document markers reset everything.
      if (indent === 0 && (text.startsWith('---', i) || text.startsWith('...', i))) {
        const end = lineEnd(i);
        i = end;
      }
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      i++;
      continue;
    }
    if (c === '#' && (i === lineStart || ' \t'.includes(text[i - 1] ?? ''))) {
      i = lineEnd(i);
      continue;
    }
    if (!nodeStart) {
      // Inside a plain scalar: `: ` starts the value, ` #` a comment (above), anything else is text.
      if (c === ':' && (text[i + 1] === ' ' || text[i + 1] === '\n' || text[i + 1] === '\r' || i + 1 === text.length)) nodeStart = true;
      i++;
      continue;
    }
    if (
      (c === '-' || c === '?' || c === ':') &&
      (text[i + 1] === ' ' || text[i + 1] === '\n' || text[i + 1] === '\r' || i + 1 === text.length)
    ) {
      if (c !== ':') keyColumn = i - lineStart;
      i++;
      continue;
    }
    if (c === '&' || c === '!') {
      while (i < text.length && !' \t\n\r'.includes(text[i] ?? '')) i++;
      continue;
    }
    if (c === '[' || c === '{') {
      depth = 1;
      i++;
      continue;
    }
    if (c === '"' || c === "'") {
      i = quoted(i, false);
      nodeStart = false;
      continue;
    }
    if (c === '|' || c === '>') {
      // A block scalar: its content is every following line that is blank or indented past the parent.
      let j = lineEnd(i);
      while (j < text.length) {
        const next = j + 1;
        const indent = indentAt(next);
        const first = text[next + indent];
        if (first === undefined) {
          j = text.length;
          break;
        }
        if (first !== '\n' && first !== '\r' && indent <= keyColumn) break;
        j = lineEnd(next);
      }
      i = j;
      continue;
    }
    // A plain scalar (or a key) starts here.
    keyColumn = i - lineStart;
    nodeStart = false;
    i++;
  }
  return changed ? out.join('') : undefined;
}
