// One work budget for every analysis: units proportional to the input's size, spent as the analysis
// goes, so hostile input (alias bombs, huge flow lines, findings multiplied across thousands of
// containers) ends in a "stopped at budget" result instead of minutes of work. The entry point that
// created the budget catches BudgetExhausted and reports it; nothing else should.

export class BudgetExhausted extends Error {
  /** What ran out, for the message at the entry point ("alias expansion", "finding text", …). */
  readonly what: string;
  constructor(what: string) {
    super(`${what} exceeded the analysis budget`);
    this.what = what;
  }
}

export class WorkBudget {
  private remainingUnits: number;
  private readonly what: string;
  private readonly exhausted: (what: string) => BudgetExhausted;

  constructor(units: number, what = 'analysis', exhausted: (what: string) => BudgetExhausted = (label) => new BudgetExhausted(label)) {
    this.remainingUnits = units;
    this.what = what;
    this.exhausted = exhausted;
  }

  /** Spends `units` (default one); throws once the budget is overdrawn. */
  spend(units = 1): void {
    this.remainingUnits -= units;
    if (this.remainingUnits < 0) throw this.exhausted(this.what);
  }

  get remaining(): number {
    return Math.max(0, this.remainingUnits);
  }
}

/** `perChar` units per character of input, never below `floor` (tiny inputs still get room) nor above `ceiling`. */
export function unitsFor(length: number, perChar: number, floor: number, ceiling = Number.MAX_SAFE_INTEGER): number {
  return Math.min(Math.max(floor, length * perChar), ceiling);
}
