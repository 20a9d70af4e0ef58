import type { Env } from "../../env";
import { notConfigured, ApiError } from "../../lib/errors";
import type { KbaProvider } from "./interface";
import { SandboxKbaProvider } from "./sandbox";

export type { KbaAnswer, KbaProvider, KbaQuestion, KbaStart, KbaSubject } from "./interface";

const PROVIDERS: Record<string, () => KbaProvider> = {
  sandbox: () => new SandboxKbaProvider(),
};

/**
 * The KBA provider `KBA_PROVIDER` selects. Unset: KBA is not configured, and anything that needs it
 * (sending a KBA envelope, a signer's questions) answers 503 naming the variable; an unknown name
 * likewise, never a silent fallback to the sandbox.
 */
export function kbaProvider(env: Pick<Env, "KBA_PROVIDER">, name = env.KBA_PROVIDER?.trim()): KbaProvider {
  if (!name) throw notConfigured("KBA_PROVIDER");
  const make = PROVIDERS[name];
  if (!make) throw new ApiError(503, `Service not configured: KBA_PROVIDER is "${name}"; expected one of: ${Object.keys(PROVIDERS).join(", ")}`);
  return make();
}
