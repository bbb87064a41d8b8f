// Types of heap.mjs (plain JavaScript, run before any TypeScript support loads), for its test.
export declare const youngGenerationStep: (mostBytes: number) => (sizeBytes: number) => string | undefined
