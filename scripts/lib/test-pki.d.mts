// Types for test-pki.mjs, for its TypeScript callers (vitest.config.ts).
type SealPair = { privateKeyPem: string; certificatePem: string };
export type TestPki = {
  dir: string;
  ocspBase: string;
  crlBase: string;
  caPem: string;
  seal: SealPair;
  sealOutage: SealPair;
  sealOutageService: SealPair;
  sealCrl: SealPair;
  tsaPem: string;
  paths: Record<"ca" | "caKey" | "index" | "tsaConfig" | "tsaCert" | "tsaKey" | "ocspCert" | "ocspKey" | "crlDer", string>;
};
export function makeTestPki(options: { ocspBase: string; crlBase?: string; dir?: string }): TestPki;
export function readTestPki(dir: string): TestPki;
