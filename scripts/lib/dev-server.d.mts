// Types for dev-server.mjs, for its TypeScript callers (the browser tests' global setup).
export type DevServer = {
  base: string;
  secrets: Record<"OPERATOR_TOKEN" | "SESSION_JWT_SECRET" | "EMBED_TOKEN_SECRET" | "STORAGE_URL_SECRET", string> & { SEAL_PRIVATE_KEY?: string; SEAL_CERTIFICATE?: string };
  watching: boolean;
  phase: string;
  child: { pid?: number };
};
export function randomSecrets(): DevServer["secrets"];
export function startFreshServer(persistDir: string, secrets?: DevServer["secrets"]): Promise<DevServer>;
export function stopServer(server: DevServer | undefined): Promise<void>;
export function logDigest(server: DevServer | undefined): string[];
