// Types of scripts/agent-image.mjs for the tests that import it.
export declare const VERSION: string;
export declare const IMAGE: string;
export declare const IMAGE_APPLETS: readonly string[];
export declare function stage(dir: string): void;
export declare function build(file: string): string;
