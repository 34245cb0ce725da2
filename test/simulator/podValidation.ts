// A created pod's validation, with the API server's field paths, reasons and messages.
import type { KubeObject, PodSpec } from './objects.ts';
import type { InvalidCause } from './status.ts';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

export const validatePod = (body: KubeObject): InvalidCause[] => {
  const causes: InvalidCause[] = [];
  const meta = body.metadata ?? {};
  if (!meta.name && !meta.generateName)
    causes.push({ field: 'metadata.name', reason: 'FieldValueRequired', message: 'Required value: name or generateName is required' });
  else if (meta.name && (!DNS_SUBDOMAIN.test(meta.name) || meta.name.length > 253)) {
    causes.push({
      field: 'metadata.name',
      reason: 'FieldValueInvalid',
      message: `Invalid value: "${meta.name}": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    });
  }
  const spec = body['spec'] as PodSpec | undefined;
  if (!spec || !Array.isArray(spec.containers) || spec.containers.length === 0) {
    causes.push({ field: 'spec.containers', reason: 'FieldValueRequired', message: 'Required value' });
    return causes;
  }
  const volumes = new Set((spec.volumes ?? []).map((v) => v.name));
  for (const [i, v] of (spec.volumes ?? []).entries()) {
    if (v.hostPath && !v.hostPath.path)
      causes.push({ field: `spec.volumes[${i}].hostPath.path`, reason: 'FieldValueRequired', message: 'Required value' });
  }
  const names = new Set<string>();
  spec.containers.forEach((c, i) => {
    if (!c.name) causes.push({ field: `spec.containers[${i}].name`, reason: 'FieldValueRequired', message: 'Required value' });
    else if (!DNS_LABEL.test(c.name))
      causes.push({
        field: `spec.containers[${i}].name`,
        reason: 'FieldValueInvalid',
        message: `Invalid value: "${c.name}": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
      });
    else if (names.has(c.name))
      causes.push({ field: `spec.containers[${i}].name`, reason: 'FieldValueDuplicate', message: `Duplicate value: "${c.name}"` });
    names.add(c.name);
    if (!c.image) causes.push({ field: `spec.containers[${i}].image`, reason: 'FieldValueRequired', message: 'Required value' });
    (c.volumeMounts ?? []).forEach((vm, j) => {
      if (!volumes.has(vm.name))
        causes.push({
          field: `spec.containers[${i}].volumeMounts[${j}].name`,
          reason: 'FieldValueNotSupported',
          message: `Not found: "${vm.name}"`,
        });
      // As the API server's ValidateVolumeMounts (KEP-3857): a known value; IfPossible/Enabled need readOnly
      // and mountPropagation None.
      const rro = vm.recursiveReadOnly;
      if (rro !== undefined) {
        const field = `spec.containers[${i}].volumeMounts[${j}].recursiveReadOnly`;
        if (rro !== 'Disabled' && rro !== 'IfPossible' && rro !== 'Enabled')
          causes.push({
            field,
            reason: 'FieldValueNotSupported',
            message: `Unsupported value: "${rro}": supported values: "Disabled", "Enabled", "IfPossible"`,
          });
        else if (rro !== 'Disabled' && vm.readOnly !== true)
          causes.push({ field, reason: 'FieldValueForbidden', message: 'Forbidden: may only be specified when readOnly is true' });
        else if (rro !== 'Disabled' && vm.mountPropagation !== undefined && vm.mountPropagation !== 'None')
          causes.push({
            field,
            reason: 'FieldValueForbidden',
            message: 'Forbidden: may only be specified when mountPropagation is None or not specified',
          });
      }
    });
  });
  return causes;
};
