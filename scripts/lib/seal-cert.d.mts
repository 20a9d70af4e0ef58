// Types for seal-cert.mjs, for its TypeScript callers (vitest.config.ts).
export function generateSealCertificate(options?: { commonName?: string; days?: number; algorithm?: "RSA" | "ECDSA" }): Promise<{ privateKeyPem: string; certificatePem: string }>;
export function pemForDotenv(value: string): string;
