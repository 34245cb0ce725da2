// gpumem.live.* as a typed snapshot: the window the figures cover, how often the cluster is read again, how long a
// snapshot stays fresh, and whether the quick fix writes a comment saying where its numbers came from. Pure; the
// ranges are the ones package.json declares.
import type { FleetWindow } from '../fleet/facts.ts';
import { parseWindow } from '../fleet/promFacts.ts';
import type { SettingsReader } from '../settings.ts';
import { clampNumber } from '../settings.ts';

export interface LiveSettings {
  readonly window: FleetWindow;
  /** How often the live data is read again, in ms; 0: only on demand (gpumem: Refresh Live Data). */
  readonly refreshMs: number;
  /** A snapshot older than this is shown as stale (its figures kept, marked so): three missed refreshes, at least 15 min. */
  readonly staleAfterMs: number;
  readonly commentOnFix: boolean;
  /** Values that were ignored, one line each. */
  readonly problems: readonly string[];
}

const DEFAULT_WINDOW: FleetWindow = { label: '7d', seconds: 7 * 86_400 };
/** liveFindings.ts's DEFAULT_STALE_AFTER_MS, here so dist/extension.js need not hold the judging (a unit test keeps them equal). */
export const LIVE_STALE_AFTER_MS = 15 * 60 * 1000;

export function parseLiveSettings(read: SettingsReader): LiveSettings {
  const live = (key: string): unknown => read(`gpumem.live.${key}`);
  const problems: string[] = [];
  const windowText = live('window');
  let window = DEFAULT_WINDOW;
  if (typeof windowText === 'string' && windowText.trim() !== '') {
    const parsed = parseWindow(windowText);
    if (parsed) window = parsed;
    else problems.push(`gpumem.live.window: "${windowText.slice(0, 40)}" is not a window from 5m to 90d such as 24h or 7d (using 7d)`);
  }
  const refreshSeconds = live('refreshSeconds');
  const refreshMs =
    typeof refreshSeconds === 'number' && Number.isFinite(refreshSeconds) && refreshSeconds <= 0
      ? 0
      : Math.round(clampNumber(refreshSeconds, 30, 86_400, 300)) * 1000;
  const comment = live('commentOnFix');
  return {
    window,
    refreshMs,
    staleAfterMs: Math.max(LIVE_STALE_AFTER_MS, 3 * refreshMs),
    commentOnFix: typeof comment === 'boolean' ? comment : true,
    problems,
  };
}
