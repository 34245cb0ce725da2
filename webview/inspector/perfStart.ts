// Imported first by main.ts, so it runs before the other modules of the bundle are evaluated: the bench reads
// this mark (with the later inspector:* marks) to split the page's time into script and render.
performance.mark('inspector:script-start');
