// Lints a set of files whose pods may use DRA claims defined in other files of the set, in O(total size):
// files that mention claims are scanned for ResourceClaim / ResourceClaimTemplate objects (and the templates
// NVIDIA's ComputeDomains create) into one index,
// files whose pods use claims wait until the index is complete, every other file is linted at once.
import { parseAllDocuments } from 'yaml';
import type { Node } from 'yaml';
import { computeDomainClaimTemplate, isClaimKind, readClaimObject } from './manifest/draClaims.ts';
import type { ClaimIndex } from './manifest/draClaims.ts';
import { maskHelmTemplates } from './manifest/source.ts';
import { AliasBudgetExceeded, YamlTree } from './manifest/yamlTree.ts';
import { PARSE_OPTIONS } from './manifest/kubectlYaml.ts';

const MAX_LIST_DEPTH = 4;
/** Cheap tests on the text, so that only files that can matter are parsed twice or kept. */
const DEFINES_CLAIMS = /\b(?:ResourceClaim(?:Template)?|ComputeDomain)\b/;
const USES_CLAIMS = /\bresourceClaims\s*:/;

export function mayDefineClaims(text: string): boolean {
  return DEFINES_CLAIMS.test(text);
}

export function mayUseClaims(text: string): boolean {
  return USES_CLAIMS.test(text);
}

/** Adds the claim objects of one file to `index`; documents that do not parse are left to the lint to report. */
export function indexClaims(text: string, index: ClaimIndex): void {
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
      if (root) collect(tree, root, index, 0);
    } catch (error) {
      if (!(error instanceof AliasBudgetExceeded)) throw error;
    }
  }
}

function collect(tree: YamlTree, root: Node, index: ClaimIndex, depth: number): void {
  const kind = tree.text(tree.get(root, 'kind'));
  if (kind === undefined) return;
  const apiVersion = tree.text(tree.get(root, 'apiVersion'));
  if (kind.endsWith('List') && depth < MAX_LIST_DEPTH) {
    for (const item of tree.items(tree.get(root, 'items'))) collect(tree, item, index, depth + 1);
    return;
  }
  const metadata = tree.get(root, 'metadata');
  const channelTemplate = computeDomainClaimTemplate(tree, root, kind, apiVersion, tree.text(tree.get(metadata, 'namespace')));
  if (channelTemplate) index.add(channelTemplate);
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
