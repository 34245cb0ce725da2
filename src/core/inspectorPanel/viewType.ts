// The inspector's WebviewPanel view type, alone in its file: dist/extension.js registers the panel serializer
// with it at activation, and importing protocol.ts for one string would load the whole protocol there.

/** The WebviewPanel view type (and the `onWebviewPanel:` activation event's argument). */
export const INSPECTOR_VIEW_TYPE = 'gpumem.inspector';
