// esbuild bundles the stylesheet imported by main.ts into dist/webview/fleet.css.
declare module '*.css';
