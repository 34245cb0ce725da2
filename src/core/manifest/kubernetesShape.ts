// Whether a document that failed to parse was meant for Kubernetes at all. Only such documents get a
// yaml-syntax finding: Helm values with a duplicate key, Terraform templates or a tsconfig.json with comments
// are not manifests, and kubectl would refuse them for their missing `apiVersion`/`kind` anyway. The test is
// textual (the document did not parse): both keys, each at the start of a line or after `{`/`,` (JSON), in
// one linear pass per key.

/** True when `text[start, end)` holds an `apiVersion` key and a `kind` key. */
export function looksLikeKubernetes(text: string, start = 0, end = text.length): boolean {
  return hasKey(text, 'apiVersion', start, end) && hasKey(text, 'kind', start, end);
}

function hasKey(text: string, key: string, start: number, end: number): boolean {
  for (let at = text.indexOf(key, start); at >= 0 && at + key.length <= end; at = text.indexOf(key, at + key.length)) {
    if (keyStartsAt(text, at, start) && colonFollows(text, at + key.length, end)) return true;
  }
  return false;
}

/** Before the key: only an opening quote, then blanks or `- ` back to the start of the line, a `{` or a `,`. */
function keyStartsAt(text: string, at: number, start: number): boolean {
  let i = at - 1;
  if (i >= start && (text[i] === '"' || text[i] === "'")) i--;
  for (; i >= start; i--) {
    const char = text[i];
    if (char === '\n' || char === '{' || char === ',') return true;
    if (char !== ' ' && char !== '\t' && char !== '-') return false;
  }
  return true;
}

/** After the key: an optional closing quote, blanks, then `:`. */
function colonFollows(text: string, at: number, end: number): boolean {
  let i = at;
  if (i < end && (text[i] === '"' || text[i] === "'")) i++;
  while (i < end && (text[i] === ' ' || text[i] === '\t')) i++;
  return i < end && text[i] === ':';
}
