// esbuild bundles the stylesheet imported by main.ts into dist/webview/inspector.css.
declare module '*.css';
