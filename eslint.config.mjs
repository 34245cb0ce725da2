// ESLint flat config. The architectural rules live here: src/core/ is pure TypeScript and may not import the VS Code
// API, Node's process/network/file modules, or the host layers; src/clusters/ (the Clusters view's model and rows,
// tested against the API simulator) may not import the VS Code API or src/vscode/.
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.cache/**', 'test-artifacts/**', 'webview/dist/**'] },
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      eqeqeq: ['error', 'always'],
      'no-eval': 'error',
      'no-implied-eval': 'error',
      // Prettier (npm run format) wraps code at 140 columns; what it cannot wrap is caught here. A string,
      // template literal, regular expression or URL is left whole: cutting a message or a pattern in two hides it
      // from search.
      'max-len': [
        'error',
        { code: 140, tabWidth: 2, ignoreStrings: true, ignoreTemplateLiterals: true, ignoreRegExpLiterals: true, ignoreUrls: true },
      ],
    },
  },
  {
    // The .mjs scripts (bench/, scripts/) are plain JavaScript that TypeScript does not check: an undefined name is
    // found here, not when a bench that runs once a release reaches it. Node's globals, and the browser's that the
    // functions handed to Playwright's page.evaluate() use.
    files: ['**/*.mjs'],
    languageOptions: {
      globals: Object.fromEntries(
        [
          ...['process', 'console', 'Buffer', 'URL', 'URLSearchParams', 'performance', 'PerformanceObserver', 'AbortController'],
          ...['AbortSignal', 'fetch', 'structuredClone', 'queueMicrotask', 'TextDecoder', 'TextEncoder', 'globalThis'],
          ...['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'setImmediate', 'clearImmediate'],
          ...['document', 'window', 'requestAnimationFrame', 'HTMLCanvasElement'],
        ].map((name) => [name, 'readonly']),
      ),
    },
    rules: { 'no-undef': 'error' },
  },
  {
    // An array spread into call arguments throws past ~125k elements (issue 17): use src/core/arrays.ts.
    files: ['src/**/*.ts', 'webview/**/*.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: 'CallExpression[callee.property.name=/^(push|unshift|max|min|fromCharCode|fromCodePoint)$/] > SpreadElement',
          message:
            'Spreading an array into push/unshift/Math.max/min/fromCharCode throws past ~125k elements: use pushAll/maxOf/minOf from src/core/arrays.ts or a loop.',
        },
      ],
    },
  },
  {
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            { name: 'vscode', message: 'src/core/ is vscode-free: move VS Code code to src/vscode/.' },
            { name: 'node:child_process', message: 'src/core/ runs no processes: use a transport outside core.' },
            { name: 'child_process', message: 'src/core/ runs no processes: use a transport outside core.' },
            { name: 'node:fs', message: 'src/core/ does no I/O: pass text in from the CLI or the host.' },
            { name: 'fs', message: 'src/core/ does no I/O: pass text in from the CLI or the host.' },
            { name: 'node:net', message: 'src/core/ does no I/O.' },
            { name: 'ssh2', message: 'src/core/ does no I/O: transports live outside core.' },
            { name: '@kubernetes/client-node', message: 'src/core/ does no I/O: cluster access lives in src/kube/.' },
          ],
          patterns: [
            { group: ['../vscode/*', '../../vscode/*', '../cli/*', '../../cli/*'], message: 'src/core/ may not import the host layers.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/clusters/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: [
            {
              name: 'vscode',
              message: 'src/clusters/ runs without VS Code (its integration tests): the VS Code side is src/vscode/clusters/.',
            },
          ],
          patterns: [{ group: ['../vscode/*', '../../vscode/*'], message: 'src/clusters/ may not import the VS Code layer.' }],
        },
      ],
    },
  },
);
