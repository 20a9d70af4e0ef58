/**
 * What the service answered when it refused a request: every error body carries `error` (a sentence)
 * and `code` (a stable snake_case name); a 422's `details` is the validation issue array. `requestId`
 * is the response's `X-Request-Id`, the id support asks for.
 */
export class EsignVaultError extends Error {
  readonly status: number;
  readonly code: string | null;
  readonly details: unknown;
  readonly requestId: string | null;
  /** The parsed body (or its text when it was not JSON). */
  readonly body: unknown;

  constructor(input: { status: number; code: string | null; message: string; details?: unknown; requestId: string | null; body?: unknown }) {
    super(input.message);
    this.name = "EsignVaultError";
    this.status = input.status;
    this.code = input.code;
    this.details = input.details;
    this.requestId = input.requestId;
    this.body = input.body;
  }

  /** The error a non-2xx response stands for (its body is read from a clone). */
  static async fromResponse(response: Response): Promise<EsignVaultError> {
    const text = await response.clone().text().catch(() => "");
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON: keep the text */
    }
    const json = (typeof body === "object" && body !== null ? body : {}) as { error?: unknown; code?: unknown; details?: unknown };
    const code = typeof json.code === "string" ? json.code : null;
    const message = typeof json.error === "string" ? json.error : `HTTP ${response.status}`;
    return new EsignVaultError({
      status: response.status,
      code,
      message: `${response.status}${code ? ` ${code}` : ""}: ${message}`,
      details: json.details,
      requestId: response.headers.get("X-Request-Id"),
      body,
    });
  }
}
