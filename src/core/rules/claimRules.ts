// Rules about DRA claims whose GPU-ness gpumem cannot decide from the files it was given.
import type { UnresolvedClaim } from '../manifest/gpuSource.ts';
import type { Rule } from './types.ts';
import { ruleMetaOf } from './ruleMetaOf.ts';

function explain(claim: UnresolvedClaim): { text: string; invalid: boolean } {
  const name = `"${claim.ref.name}"`;
  switch (claim.reason.kind) {
    case 'not-found':
      return {
        text: `may get a GPU through claim ${name} (${claim.reason.object} "${claim.reason.name}"), which is not in the linted files (another file, or created in the cluster): gpumem cannot tell whether it is a GPU and does not guess. Lint it together with the file that defines the ${claim.reason.object}`,
        invalid: false,
      };
    case 'templated':
      return {
        text: `may get a GPU through claim ${name}, whose name comes from an unrendered template: gpumem cannot tell whether it is a GPU. Lint the rendered output`,
        invalid: false,
      };
    case 'undeclared':
      return {
        text: `uses claim ${name}, which spec.resourceClaims does not declare, so the API server rejects the pod. Add it to spec.resourceClaims with a resourceClaimTemplateName or resourceClaimName`,
        invalid: true,
      };
    case 'no-reference':
      return {
        text: `uses claim ${name}, whose spec.resourceClaims entry names neither a resourceClaimTemplateName nor a resourceClaimName, so the API server rejects the pod`,
        invalid: true,
      };
    case 'no-such-request':
      return {
        text: `uses request "${claim.ref.request ?? ''}" of claim ${name}, but ${claim.reason.object} "${claim.reason.name}" has no request of that name, so the pod cannot be scheduled`,
        invalid: true,
      };
  }
}

export const gpuClaimUnresolved: Rule = {
  meta: ruleMetaOf('gpu-claim-unresolved'),
  check(context) {
    for (const container of context.pod.containers) {
      for (const claim of context.gpuOf(container).unresolved) {
        const { text, invalid } = explain(claim);
        context.report({
          ruleId: 'gpu-claim-unresolved',
          container,
          span: claim.ref.span,
          ...(invalid ? { severity: 'warning' as const } : {}),
          message: `Container "${container.name}" ${text}.`,
        });
      }
    }
  },
};
