import type { Env } from "../../env";
import { notConfigured, ApiError } from "../../lib/errors";
import { refuseInProduction } from "../../lib/service-env";
import type { KbaProvider } from "./interface";
import { SandboxKbaProvider } from "./sandbox";

export type { KbaAnswer, KbaProvider, KbaQuestion, KbaStart, KbaSubject } from "./interface";

const PROVIDERS: Record<string, () => KbaProvider> = {
  sandbox: () => new SandboxKbaProvider(),
};

/** Providers that verify nobody: refused outside development (SERVICE_ENV). */
const DEVELOPMENT_ONLY = new Set(["sandbox"]);

/**
 * The KBA provider `KBA_PROVIDER` selects (or `name`, the provider a signer's check was sent with).
 * Unset: KBA is not configured, and anything that needs it (sending a KBA envelope, a signer's
 * questions) answers 503 naming the variable; an unknown name likewise, never a silent fallback to
 * the sandbox. The sandbox in production is refused the same way: it would "verify" anyone.
 */
export function kbaProvider(env: Pick<Env, "KBA_PROVIDER" | "SERVICE_ENV">, name = env.KBA_PROVIDER?.trim()): KbaProvider {
  if (!name) throw notConfigured("KBA_PROVIDER");
  const make = PROVIDERS[name];
  if (!make) throw new ApiError(503, `Service not configured: KBA_PROVIDER is "${name}"; expected one of: ${Object.keys(PROVIDERS).join(", ")}`);
  if (DEVELOPMENT_ONLY.has(name)) refuseInProduction(env, "KBA_PROVIDER", name);
  return make();
}
