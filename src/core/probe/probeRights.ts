// What the node probe recorded about its own rights (the meta section's `dmesg_restrict=` and `cap_eff=`): whether
// the kernel log is restricted to CAP_SYSLOG (kernel.dmesg_restrict, Documentation/admin-guide/sysctl/kernel.rst),
// and the effective capabilities of the probe's processes (CapEff of /proc/self/status, a hex mask of the bits in
// include/uapi/linux/capability.h). A capture from an older probe has neither: its rights are then unrecorded.

/** include/uapi/linux/capability.h. */
const CAP_SYS_PTRACE = 19n;
const CAP_SYSLOG = 34n;

export type ProbeCapabilities =
  { readonly kind: 'unrecorded' } | { readonly kind: 'known'; readonly hex: string; readonly sysPtrace: boolean; readonly syslog: boolean };

export interface ProbeRights {
  /** kernel.dmesg_restrict: 0 (anyone may read the log), 1 (CAP_SYSLOG only); undefined when not recorded. */
  readonly dmesgRestrict: number | undefined;
  readonly capabilities: ProbeCapabilities;
}

/** From the meta section's key=value pairs. */
export function probeRightsOf(meta: ReadonlyMap<string, string>): ProbeRights {
  const restrict = meta.get('dmesg_restrict')?.trim();
  const hex = meta.get('cap_eff')?.trim().toLowerCase();
  // CapEff is 16 hex digits (the kernel prints %016llx); a shorter or longer one is not trusted.
  const capabilities: ProbeCapabilities =
    hex !== undefined && /^[0-9a-f]{16}$/.test(hex)
      ? { kind: 'known', hex, sysPtrace: hasBit(hex, CAP_SYS_PTRACE), syslog: hasBit(hex, CAP_SYSLOG) }
      : { kind: 'unrecorded' };
  return { dmesgRestrict: restrict !== undefined && /^[0-2]$/.test(restrict) ? Number(restrict) : undefined, capabilities };
}

function hasBit(hex: string, bit: bigint): boolean {
  return ((BigInt(`0x${hex}`) >> bit) & 1n) === 1n;
}
