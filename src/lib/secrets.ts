import type { Env, SecretName } from "../env";
import { notConfigured } from "./errors";

/** A secret the request needs; missing means 503 naming the variable, never a silent default. */
export function requireSecret(env: Env, name: SecretName): string {
  const value = env[name];
  if (!value) throw notConfigured(name);
  return value;
}
