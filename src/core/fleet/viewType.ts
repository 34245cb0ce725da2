// The fleet view's WebviewPanel view type, alone in its file: dist/extension.js registers the panel serializer with
// it at activation, and the panel's code (in dist/remote.js) loads only when a panel is opened or restored.

/** The WebviewPanel view type (and the `onWebviewPanel:` activation event's argument). */
export const FLEET_VIEW_TYPE = 'gpumem.fleet';
