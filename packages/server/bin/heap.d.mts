// Types of heap.mjs (plain JavaScript, run before any TypeScript support loads), for its test.
export declare const YOUNG_GENERATION_MOST_BYTES: number
export declare const youngGenerationStep: (mostBytes: number) => (sizeBytes: number) => string | undefined
export declare const loadTuned: <A>(load: () => Promise<A>) => Promise<A>
