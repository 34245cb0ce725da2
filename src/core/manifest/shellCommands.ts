// The programs a container command line starts: the exec-form words of `command`/`args` and the simple
// commands of the shell scripts inside them (`sh -c "dockerd & exec run-tests"`). One linear pass per
// string, no regular expression on the input: this reads a command position, not a full shell grammar.

/** A program started at a command position, with the words that follow it in the same simple command. */
export interface StartedProgram {
  /** The program's base name (`/usr/local/bin/dockerd` → `dockerd`). */
  readonly program: string;
  /** Up to MAX_ARGS following words, quotes removed. */
  readonly args: readonly string[];
  /** The program word as the script spells it (`/usr/local/bin/dockerd`), and its offset in the script; unset for exec-form words. */
  readonly spelled?: { readonly text: string; readonly offset: number };
}

/** A started program and the argv word (index) it comes from. */
export interface ArgvProgram extends StartedProgram {
  readonly word: number;
}

const MAX_ARGS = 6;

/** Words that run the next word as the command (`exec dockerd`, `tini -- dockerd`, the docker:dind image's `dind dockerd`). */
const WRAPPERS = new Set([
  'exec',
  'nohup',
  'sudo',
  'env',
  'command',
  'setsid',
  'time',
  'nice',
  'ionice',
  'tini',
  'dumb-init',
  'dind',
  'su-exec',
  'gosu',
  'runuser',
  'stdbuf',
  'timeout',
]);
/** Shell keywords after which a command starts. */
const KEYWORDS = new Set(['then', 'do', 'done', 'else', 'elif', 'if', 'fi', 'while', 'until', 'case', 'esac', '!', '{', '}']);
const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', 'zsh', 'ksh', 'busybox']);

/**
 * The programs that `argv` (exec form: command words then args words) starts: its first word, the word after
 * a wrapper, and the commands of every `sh -c` script it passes.
 */
export function startedPrograms(argv: readonly string[]): ArgvProgram[] {
  const out: ArgvProgram[] = [];
  let commandAt = 0;
  let wrapped = false;
  for (let i = 0; i < argv.length; i++) {
    const word = argv[i] ?? '';
    if (i === commandAt) {
      const program = baseName(word);
      if (WRAPPERS.has(program) || program === '--' || isAssignment(word) || (wrapped && word.startsWith('-'))) {
        wrapped ||= WRAPPERS.has(program);
        commandAt = i + 1;
      } else if (!SHELLS.has(program)) {
        out.push({ program, args: argv.slice(i + 1, i + 1 + MAX_ARGS), word: i });
      }
      continue;
    }
    // A script: the word after `-c`, or any word that holds spaces or command separators (args to an image whose entrypoint is a shell).
    if (isInlineScriptFlag(argv[i - 1]) || looksLikeScript(word))
      for (const program of scriptPrograms(word)) out.push({ ...program, word: i });
  }
  return out;
}

function looksLikeScript(word: string): boolean {
  for (let i = 0; i < word.length; i++) {
    const c = word[i];
    if (c === ' ' || c === '\n' || c === '\t' || c === ';' || c === '&' || c === '|') return true;
  }
  return false;
}

/** The simple commands of a shell script, in one pass. */
export function scriptPrograms(script: string): StartedProgram[] {
  const out: StartedProgram[] = [];
  let words: string[] = [];
  let starts: number[] = [];
  let word = '';
  let wordStart = 0;
  let inWord = false;
  let quote: '"' | "'" | undefined;
  /** The quote that opened an inline `-c` script, which runs as its own commands. */
  let scriptQuote: '"' | "'" | undefined;

  const endWord = (at: number) => {
    if (inWord) {
      words.push(word);
      starts.push(wordStart);
      ends.push(at);
    }
    word = '';
    inWord = false;
  };
  let ends: number[] = [];
  const endCommand = (at: number) => {
    endWord(at);
    const found = commandOf(words);
    if (found) {
      const offset = starts[found.index] ?? 0;
      out.push({ program: found.program, args: found.args, spelled: { text: script.slice(offset, ends[found.index] ?? offset), offset } });
    }
    words = [];
    starts = [];
    ends = [];
  };
  const begin = (at: number) => {
    if (!inWord) wordStart = at;
    inWord = true;
  };

  for (let i = 0; i < script.length; i++) {
    const c = script[i] ?? '';
    if (quote) {
      if (c === quote) quote = undefined;
      else word += c;
      continue;
    }
    if (scriptQuote && c === scriptQuote) {
      endCommand(i);
      scriptQuote = undefined;
      continue;
    }
    if ((c === '"' || c === "'") && !inWord && !scriptQuote && isInlineScriptFlag(words[words.length - 1])) {
      endCommand(i);
      scriptQuote = c;
      continue;
    }
    if (c === '"' || c === "'") {
      begin(i);
      quote = c;
      continue;
    }
    if (c === '\\') {
      begin(i);
      word += script[i + 1] ?? '';
      i++;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      endWord(i);
      continue;
    }
    // `2>&1`, `&>log`, `>&2` are redirections, not a background `&`.
    const redirection = c === '&' && (word.endsWith('>') || word.endsWith('<') || script[i + 1] === '>');
    if (!redirection && (c === '\n' || c === ';' || c === '&' || c === '|' || c === '(' || c === ')' || c === '`')) {
      endCommand(i);
      continue;
    }
    if (c === '#' && !inWord) {
      // A comment runs to the end of the line.
      const newline = script.indexOf('\n', i);
      endCommand(i);
      if (newline < 0) break;
      i = newline;
      continue;
    }
    if (c === '$' && script[i + 1] === '(') {
      endCommand(i);
      i++;
      continue;
    }
    begin(i);
    word += c;
  }
  endCommand(script.length);
  return out;
}

function isInlineScriptFlag(word: string | undefined): boolean {
  return word !== undefined && /^-[a-z]*c$/.test(word);
}

/** The program a simple command's words start, skipping assignments, keywords and wrappers with their flags. */
function commandOf(words: readonly string[]): { program: string; args: string[]; index: number } | undefined {
  let wrapped = false;
  for (let i = 0; i < words.length; i++) {
    const word = words[i] ?? '';
    if (KEYWORDS.has(word) || isAssignment(word)) continue;
    const program = baseName(word);
    if (WRAPPERS.has(program)) {
      wrapped = true;
      continue;
    }
    if (wrapped && word.startsWith('-')) continue;
    return { program, args: words.slice(i + 1, i + 1 + MAX_ARGS), index: i };
  }
  return undefined;
}

function isAssignment(word: string): boolean {
  const eq = word.indexOf('=');
  return eq > 0 && /^[A-Za-z_][A-Za-z0-9_]*$/.test(word.slice(0, eq));
}

function baseName(word: string): string {
  const trimmed = word.trim();
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}
