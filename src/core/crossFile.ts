// Lints a set of files whose pods may use DRA claims defined in other files of the set, in O(total size):
// files that mention claims are scanned for ResourceClaim / ResourceClaimTemplate objects (and the templates
// NVIDIA's ComputeDomains create) and DeviceClasses into one index,
// files whose pods use claims, or request extended resources a DeviceClass may serve, wait until the index is
// complete; every other file is linted at once.
import { parseAllDocuments } from 'yaml';
import type { Node } from 'yaml';
import { computeDomainClaimTemplate, isClaimKind, isDeviceClassKind, readClaimObject, readDeviceClass } from './manifest/draClaims.ts';
import type { ClaimIndex } from './manifest/draClaims.ts';
import { classifyGpuResource } from './gpuResources.ts';
import { maskHelmTemplates } from './manifest/source.ts';
import { AliasBudgetExceeded, YamlTree } from './manifest/yamlTree.ts';
import { PARSE_OPTIONS } from './manifest/kubectlYaml.ts';

const MAX_LIST_DEPTH = 4;
/** Cheap tests on the text, so that only files that can matter are parsed twice or kept. */
const DEFINES_CLAIMS = /\b(?:ResourceClaim(?:Template)?|ComputeDomain|DeviceClass)\b/;
const USES_CLAIMS = /\bresourceClaims\s*:/;

export function mayDefineClaims(text: string): boolean {
  return DEFINES_CLAIMS.test(text);
}

/** Whether a file's pods may use claims or DeviceClasses of other files: such a file is linted once all are indexed. */
export function mayUseClaims(text: string): boolean {
  return USES_CLAIMS.test(text) || mayRequestDeviceClassResources(text);
}

const NAME_CHAR = /[A-Za-z0-9._-]/;

/**
 * Whether the text sets a quantity on an extended resource that gpumem does not know as a GPU by its name
 * (`example.com/accel: 1`, `deviceclass.resource.kubernetes.io/x: 1`, `<domain>/gpu: 1`): a DeviceClass of another
 * file may make it one. One pass from each `/` rightwards over the name, so linear in the text.
 */
export function mayRequestDeviceClassResources(text: string): boolean {
  for (let slash = text.indexOf('/'); slash > 0; slash = text.indexOf('/', slash + 1)) {
    let start = slash;
    while (start > 0 && start > slash - 253 && NAME_CHAR.test(text[start - 1] ?? '')) start--;
    if (start === slash || !text.slice(start, slash).includes('.')) continue;
    let end = slash + 1;
    while (end < text.length && end < slash + 64 && NAME_CHAR.test(text[end] ?? '')) end++;
    if (end === slash + 1) continue;
    let at = end;
    const quoted = text[at] === '"' || text[at] === "'";
    if (quoted) at++;
    while (text[at] === ' ') at++;
    if (text[at] !== ':') continue;
    at++;
    // A plain YAML key needs a space after its colon: `registry.k8s.io/pause:3.9` is an image, not a resource.
    if (!quoted && text[at] !== ' ' && text[at] !== '\t') continue;
    while (text[at] === ' ' || text[at] === '\t') at++;
    if (text[at] === '"' || text[at] === "'") at++;
    if (!/[0-9]/.test(text[at] ?? '')) continue;
    const info = classifyGpuResource(text.slice(start, end));
    if (!info || info.vendor === 'DRA' || info.vendor === 'other') return true;
  }
  return false;
}

/**
 * Adds the claim objects and DeviceClasses of one file to `index`; documents that do not parse are left to the lint
 * to report. `origin` (the file's name as the user sees it) is what findings say a DeviceClass came from.
 */
export function indexClaims(text: string, index: ClaimIndex, origin?: string): void {
  if (!mayDefineClaims(text)) return;
  const source = maskHelmTemplates(text)?.text ?? text;
  let documents;
  try {
    documents = parseAllDocuments(source, PARSE_OPTIONS);
  } catch {
    return;
  }
  if (!Array.isArray(documents)) return;
  for (const doc of documents) {
    if (doc.errors.length > 0) continue;
    const tree = new YamlTree(doc, Math.max(100_000, (doc.range[2] - doc.range[0]) * 10));
    try {
      const root = tree.root;
      if (root) collect(tree, root, index, origin, 0);
    } catch (error) {
      if (!(error instanceof AliasBudgetExceeded)) throw error;
    }
  }
}

function collect(tree: YamlTree, root: Node, index: ClaimIndex, origin: string | undefined, depth: number): void {
  const kind = tree.text(tree.get(root, 'kind'));
  if (kind === undefined) return;
  const apiVersion = tree.text(tree.get(root, 'apiVersion'));
  if (kind.endsWith('List') && depth < MAX_LIST_DEPTH) {
    for (const item of tree.items(tree.get(root, 'items'))) collect(tree, item, index, origin, depth + 1);
    return;
  }
  const metadata = tree.get(root, 'metadata');
  const channelTemplate = computeDomainClaimTemplate(tree, root, kind, apiVersion, tree.text(tree.get(metadata, 'namespace')));
  if (channelTemplate) index.add(channelTemplate);
  if (isDeviceClassKind(kind, apiVersion)) {
    const deviceClass = readDeviceClass(tree, root, origin);
    if (deviceClass) index.addDeviceClass(deviceClass);
    return;
  }
  if (!isClaimKind(kind, apiVersion)) return;
  const claim = readClaimObject(
    tree,
    root,
    kind,
    apiVersion ?? '',
    tree.text(tree.get(metadata, 'name')),
    tree.text(tree.get(metadata, 'namespace')),
  );
  if (claim) index.add(claim);
}
