// The debug pod's image as the user gives it (gpumem.kubernetes.debugImage, --debug-image): a reference in the
// distribution grammar, `[domain[:port]/]path[:tag][@sha256:<64 hex>]`, checked before it reaches a manifest.
// A digest pins the image: the kubelet runs exactly those bytes whatever the tag now points at, which matters
// for a container that sees the node's root and its processes.
// Grammar: https://github.com/distribution/reference/blob/main/reference.go (kept to what kubelet pulls).
// Linear: the length is bounded first and every pattern below is anchored with no nested quantifier.

export type ImageReference =
  | {
      readonly kind: 'valid';
      /** The reference as given (trimmed). */
      readonly reference: string;
      /** `sha256:<hex>` when pinned by digest. */
      readonly digest: string | undefined;
    }
  | { readonly kind: 'invalid'; readonly reason: string };

const MAX_REFERENCE = 512;
const DOMAIN = /^[A-Za-z0-9][A-Za-z0-9.-]{0,252}(?::[0-9]{1,5})?$/;
const PATH_COMPONENT = /^[a-z0-9](?:[a-z0-9._-]{0,254}[a-z0-9])?$/;
const TAG = /^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$/;
const SHA256 = /^sha256:[a-f0-9]{64}$/;

export function parseImageReference(text: string): ImageReference {
  const reference = text.trim();
  if (reference === '') return { kind: 'invalid', reason: 'the image is empty' };
  if (reference.length > MAX_REFERENCE)
    return { kind: 'invalid', reason: `the image reference is longer than ${MAX_REFERENCE} characters` };
  const at = reference.indexOf('@');
  const named = at < 0 ? reference : reference.slice(0, at);
  const digest = at < 0 ? undefined : reference.slice(at + 1);
  if (digest !== undefined && !SHA256.test(digest)) {
    return { kind: 'invalid', reason: `"${clip(digest)}" is not a digest: use @sha256: and 64 lowercase hex digits` };
  }
  const slash = named.lastIndexOf('/');
  const colon = named.lastIndexOf(':');
  const tag = colon > slash ? named.slice(colon + 1) : undefined;
  const path = colon > slash ? named.slice(0, colon) : named;
  if (tag !== undefined && !TAG.test(tag)) return { kind: 'invalid', reason: `"${clip(tag)}" is not an image tag` };
  const components = path.split('/');
  const first = components[0] ?? '';
  const hasDomain =
    components.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase());
  if (hasDomain && !DOMAIN.test(first)) return { kind: 'invalid', reason: `"${clip(first)}" is not a registry host` };
  for (const component of hasDomain ? components.slice(1) : components) {
    if (!PATH_COMPONENT.test(component))
      return { kind: 'invalid', reason: `"${clip(component)}" is not an image name component (lowercase letters, digits, . _ -)` };
  }
  return { kind: 'valid', reference, digest };
}

function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 80)}…` : text;
}
