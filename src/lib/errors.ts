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
