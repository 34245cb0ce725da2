// The few parts of the `vscode` API the LintService uses, for bench/liveRelint.mjs to run the real service in Node:
// positions, ranges, diagnostics and their collection (kept in a Map, as the host keeps them), events and
// disposables, and a workspace with no documents. Both sides of that bench run on it alike; it is a measuring
// harness, not a test double of behaviour.
export class Position {
  constructor(line, character) {
    this.line = line;
    this.character = character;
  }
}
export class Range {
  constructor(start, end) {
    this.start = start;
    this.end = end;
  }
}
export const DiagnosticSeverity = { Error: 0, Warning: 1, Information: 2, Hint: 3 };
export class Diagnostic {
  constructor(range, message, severity) {
    this.range = range;
    this.message = message;
    this.severity = severity;
  }
}
export class Disposable {
  constructor(dispose) {
    this.dispose = dispose;
  }
}
export class EventEmitter {
  #listeners = new Set();
  event = (listener) => {
    this.#listeners.add(listener);
    return new Disposable(() => this.#listeners.delete(listener));
  };
  fire(value) {
    for (const listener of this.#listeners) listener(value);
  }
  dispose() {
    this.#listeners.clear();
  }
}
const none = () => new Disposable(() => {});
export const workspace = {
  textDocuments: [],
  onDidOpenTextDocument: none,
  onDidChangeTextDocument: none,
  onDidCloseTextDocument: none,
  asRelativePath: (uri) => String(uri),
};
export const languages = {
  createDiagnosticCollection: () => {
    const map = new Map();
    return {
      set: (uri, diagnostics) => map.set(uri.toString(), diagnostics),
      delete: (uri) => map.delete(uri.toString()),
      clear: () => map.clear(),
      get: (uri) => map.get(uri.toString()),
      dispose: () => map.clear(),
    };
  },
};
