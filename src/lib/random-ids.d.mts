// Types for random-ids.mjs (the generator shared by the Worker and scripts/dev-setup.mjs).
export function randomToken(bytes?: number): string;
export function randomHex(bytes: number): string;
export function prefixedId(prefix: string): string;
export function newRawApiKey(): string;
export const API_KEY_PATTERN: RegExp;
