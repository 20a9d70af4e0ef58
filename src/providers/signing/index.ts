import type { Env } from "../../env";
import { ApiError } from "../../lib/errors";
import { BuiltinSigningProvider } from "./builtin";
import { SigningProviderError, type SigningProvider } from "./interface";

export type { SigningProvider } from "./interface";

/** The configured signing provider: today always the built-in one, so it is never "not configured". */
export function signingProvider(env: Env): SigningProvider {
  return new BuiltinSigningProvider(env);
}

/** Runs a provider call, turning its failures into the spec's 502 / 503. */
export async function viaProvider<T>(what: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (err) {
    if (!(err instanceof SigningProviderError)) throw err;
    if (err.kind === "not_configured") throw new ApiError(503, `Signing provider not configured: ${err.message}`);
    throw new ApiError(502, `Signing provider failure: ${what}: ${err.message}`);
  }
}
