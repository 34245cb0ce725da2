// No dead exports in src/: every name a module of src/ exports is used somewhere, by another module (src/, its
// tests, the benchmarks, the scripts, the webview) or in its own file. An export nothing reads is code nobody runs
// or a type nobody checks, and it reads as an API. The checker is syntactic (TypeScript's parser, no type
// checker): the names each file imports from each relative module, all of a module's names for a namespace import,
// `export *` or a dynamic `import()`, and the identifiers of the exporting file itself beyond the declaration.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SRC = join(ROOT, 'src');
/** Where code that may use src/ lives. */
const CONSUMERS = ['src', 'test', 'bench', 'scripts', 'webview'].map((dir) => join(ROOT, dir));
/** Bundle entry points: VS Code and esbuild read their exports (scripts/build.mjs). */
const ENTRY_POINTS = new Set(['src/extension.ts', 'src/inspect.ts', 'src/remote.ts', 'src/cli/main.ts'].map((file) => join(ROOT, file)));
/**
 * Exports written for a front that is not there yet: the right-sizing core's, which `gpumem recommend` and the
 * fleet panel's recommendations will print. Each goes from this list when its first caller lands.
 */
const AWAITING_CALLERS = new Set<string>();
/** Everything a module exports: a namespace import, `export *` or `import()`. */
const ALL = '*';

function codeFiles(directory: string): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'fixtures') files.push(...codeFiles(path));
    } else if (/\.(?:ts|mts|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) files.push(path);
  }
  return files;
}

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
}

function hasExportModifier(node: ts.Node): boolean {
  return ts.canHaveModifiers(node) && (ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.ExportKeyword) ?? false);
}

/** The names a file declares with `export`, with the identifier that declares each. */
function exportsOf(source: ts.SourceFile): Map<string, ts.Node> {
  const names = new Map<string, ts.Node>();
  for (const statement of source.statements) {
    if (
      ts.isExportDeclaration(statement) &&
      !statement.moduleSpecifier &&
      statement.exportClause &&
      ts.isNamedExports(statement.exportClause)
    ) {
      for (const element of statement.exportClause.elements) names.set(element.name.text, element.name);
      continue;
    }
    if (!hasExportModifier(statement)) continue;
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations)
        if (ts.isIdentifier(declaration.name)) names.set(declaration.name.text, declaration.name);
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isEnumDeclaration(statement)) &&
      statement.name
    ) {
      names.set(statement.name.text, statement.name);
    }
  }
  return names;
}

/** For each module a file imports by a relative path: the names it takes (ALL for every name). */
function importsOf(source: ts.SourceFile): Map<string, Set<string>> {
  const used = new Map<string, Set<string>>();
  const take = (specifier: string, name: string): void => {
    if (!specifier.startsWith('.')) return;
    const target = resolve(dirname(source.fileName), specifier);
    const names = used.get(target) ?? new Set<string>();
    names.add(name);
    used.set(target, names);
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const specifier = node.moduleSpecifier.text;
      const bindings = node.importClause?.namedBindings;
      if (node.importClause?.name) take(specifier, 'default');
      if (bindings && ts.isNamespaceImport(bindings)) take(specifier, ALL);
      if (bindings && ts.isNamedImports(bindings))
        for (const element of bindings.elements) take(specifier, (element.propertyName ?? element.name).text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      if (!clause || ts.isNamespaceExport(clause)) take(node.moduleSpecifier.text, ALL);
      else for (const element of clause.elements) take(node.moduleSpecifier.text, (element.propertyName ?? element.name).text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const [argument] = node.arguments;
      if (argument && ts.isStringLiteralLike(argument)) take(argument.text, ALL);
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      take(node.argument.literal.text, ALL);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return used;
}

/** The identifiers of a file other than the ones that declare its exports. */
function ownReferences(source: ts.SourceFile, declarations: ReadonlySet<ts.Node>): Set<string> {
  const names = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && !declarations.has(node)) names.add(node.text);
    ts.forEachChild(node, visit);
  };
  visit(source);
  return names;
}

function unusedExports(): string[] {
  const files = CONSUMERS.flatMap(codeFiles);
  const sources = new Map(files.map((file) => [file, parse(file)]));
  const imported = new Map<string, Set<string>>();
  for (const source of sources.values()) {
    for (const [target, names] of importsOf(source)) {
      const all = imported.get(target) ?? new Set<string>();
      for (const name of names) all.add(name);
      imported.set(target, all);
    }
  }
  const unused: string[] = [];
  for (const [file, source] of sources) {
    if (!file.startsWith(SRC + '/') || ENTRY_POINTS.has(file)) continue;
    const exported = exportsOf(source);
    const taken = imported.get(file) ?? new Set<string>();
    if (taken.has(ALL)) continue;
    const own = ownReferences(source, new Set(exported.values()));
    for (const name of exported.keys()) if (!taken.has(name) && !own.has(name)) unused.push(`${relative(ROOT, file)}: ${name}`);
  }
  return unused.filter((entry) => !AWAITING_CALLERS.has(entry)).sort();
}

test('every export of src/ is used: by another module, a test, a benchmark, a script, or its own file', () => {
  assert.deepEqual(unusedExports(), []);
});

test('the checker sees an unused export, and not one that is used', () => {
  const source = ts.createSourceFile(
    join(SRC, 'sample.ts'),
    "import { used } from './other.ts';\nexport const kept = 1;\nexport function dead(): number { return kept; }\nexport type Gone = number;\nexport { used };\n",
    ts.ScriptTarget.Latest,
    true,
  );
  const exported = exportsOf(source);
  assert.deepEqual([...exported.keys()].sort(), ['Gone', 'dead', 'kept', 'used']);
  const own = ownReferences(source, new Set(exported.values()));
  assert.deepEqual(
    [...exported.keys()].filter((name) => !own.has(name)).sort(),
    ['Gone', 'dead'],
    'kept is read in its file; used is imported there',
  );
  assert.deepEqual([...(importsOf(source).get(join(SRC, 'other.ts')) ?? [])], ['used']);
});
