// Types for stripe-stand-in.mjs, for its TypeScript callers (vitest.config.ts, the browser tests).
import type { TestProject } from "vitest/node";

export const STRIPE_TEST_SECRET_KEY: string;
export const STRIPE_TEST_PUBLISHABLE_KEY: string;
export const STRIPE_TEST_WEBHOOK_SECRET: string;
export function signStripePayload(payload: string, opts?: { secret?: string; timestamp?: number }): string;
export function startStripeStandIn(opts?: { port?: number }): Promise<{ port: number; close: () => Promise<void> }>;
export default function setup(project: TestProject): Promise<() => Promise<void>>;
