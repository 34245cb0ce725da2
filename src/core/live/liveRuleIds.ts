// The ids of the findings a manifest gets from a live cluster (liveFindings.ts), alone in a leaf module: the settings
// (config.ts) accept them as they accept the rule catalog's ids, without importing the live judgement.
export const LIVE_RULES = {
  footprintOverLimit: 'observed-footprint-over-limit',
  oomKills: 'observed-oom-kills',
  drift: 'manifest-drift',
} as const;

export type LiveRuleId = (typeof LIVE_RULES)[keyof typeof LIVE_RULES];
