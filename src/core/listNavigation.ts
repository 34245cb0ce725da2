// Keyboard navigation of a list of rows (the inspector's chart bars, the fleet's node table, both in webview/): the row a
// key moves to. Pure, so it has unit tests (test/unit/listNavigation.test.ts) besides the e2e ones.

export interface ListKeyOptions {
  /** Rows PageUp and PageDown move by; without it they do nothing. */
  readonly page?: number;
  /** ArrowLeft and ArrowRight move as ArrowUp and ArrowDown do (a chart whose bars run both ways). */
  readonly horizontal?: boolean;
}

/** The index a navigation key moves to from `index` in a list of `count` rows, or undefined for any other key. */
export function listKeyTarget(key: string, index: number, count: number, options: ListKeyOptions = {}): number | undefined {
  const last = count - 1;
  const page = options.page;
  switch (key) {
    case 'ArrowDown':
      return Math.min(last, index + 1);
    case 'ArrowUp':
      return Math.max(0, index - 1);
    case 'ArrowRight':
      return options.horizontal ? Math.min(last, index + 1) : undefined;
    case 'ArrowLeft':
      return options.horizontal ? Math.max(0, index - 1) : undefined;
    case 'PageDown':
      return page === undefined ? undefined : Math.min(last, index + page);
    case 'PageUp':
      return page === undefined ? undefined : Math.max(0, index - page);
    case 'Home':
      return 0;
    case 'End':
      return last;
    default:
      return undefined;
  }
}
