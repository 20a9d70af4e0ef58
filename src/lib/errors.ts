import type { ContentfulStatusCode } from "hono/utils/http-status";

export type ErrorDetails = Record<string, unknown> | unknown[];

/** The one error type routes and services throw; `app.onError` renders it as `{ error, details?, code? }`. */
export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    message: string,
    readonly details?: ErrorDetails,
    readonly code?: string,
  ) {
    super(message);
  }
}

export const badRequest = (message: string, details?: ErrorDetails) => new ApiError(400, message, details);
export const unauthorized = (message: string) => new ApiError(401, message);
export const forbidden = (message: string) => new ApiError(403, message);
export const notFound = (what: string) => new ApiError(404, `${what} not found`);
export const conflict = (message: string, details?: ErrorDetails, code?: string) =>
  new ApiError(409, message, details, code);
export const unprocessable = (message: string, details?: ErrorDetails, code?: string) => new ApiError(422, message, details, code);

/**
 * `code` of a 409 whose cause clears by itself (a requested payment that settles): the same request
 * succeeds later, so the Idempotency-Key middleware never stores it as the request's final answer.
 */
export const PAYMENT_PENDING = "payment_pending";
export const RETRYABLE_CONFLICT_CODES: ReadonlySet<string> = new Set([PAYMENT_PENDING]);
export const notConfigured = (variable: string) =>
  new ApiError(503, `Service not configured: the ${variable} variable is not set`);

/**
 * The specific `code` values an operation can answer, by status (`{ 409: ["transfer_pending"] }`). The module
 * that throws a code exports the list beside it; a route merges the lists of the verbs it calls under
 * `x-error-codes`, and the OpenAPI document lists them on the operation's error responses.
 */
export type ErrorCodesByStatus = Readonly<Record<number, readonly string[]>>;

/** Merges error-code lists, for a route or helper that answers the codes of several verbs. */
export function mergeErrorCodes(...lists: (ErrorCodesByStatus | undefined)[]): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  for (const list of lists) for (const [status, codes] of Object.entries(list ?? {})) out[Number(status)] = [...new Set([...(out[Number(status)] ?? []), ...codes])];
  return out;
}

/** The answers of a payment not yet settled (payments/payment-gate.ts, embed tokens). */
export const PAYMENT_PENDING_ERRORS: ErrorCodesByStatus = { 409: [PAYMENT_PENDING] };
