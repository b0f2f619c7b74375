// Types of src/server-bundle.mjs (plain JavaScript: src/start.mjs reads it before any TypeScript loads).
export declare const ROOT: string;
export declare function bundleDir(root?: string): string;
export declare function manifestPath(root?: string): string;
export declare function bundleState(root?: string): 'fresh' | 'stale' | 'missing';
export declare function bundleIsFresh(root?: string): boolean;
