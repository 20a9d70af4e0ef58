/** An error answer of the API: its status and `{ error, details?, code? }` body. */
export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details?: unknown,
    /** the body's machine-readable `code` (e.g. `consent_required`), when it has one */
    readonly code?: string,
  ) {
    super(message);
  }
}

/**
 * The page's own words for an error code it knows, in its language (set by the signing page from its
 * catalogs); undefined keeps the server's text, which is English. The vault widget sets none.
 */
let localize: (code: string | undefined, details: unknown) => string | undefined = () => undefined;
export function localizeApiErrors(fn: typeof localize) {
  localize = fn;
}
/** The message a failed answer shows: the page's words for its code, else the server's `error`. */
export const apiErrorMessage = (body: { error?: string; code?: string; details?: unknown }, fallback: string) => localize(body.code, body.details) ?? body.error ?? fallback;

/** Same-origin JSON call; returns `data`, throws ApiFailure with the server's message. */
export async function callApi<T>(path: string, init: RequestInit & { json?: unknown } = {}): Promise<T> {
  const headers = new Headers(init.headers);
  headers.set("accept", "application/json");
  let body = init.body;
  if (init.json !== undefined) {
    headers.set("content-type", "application/json");
    body = JSON.stringify(init.json);
  }
  let res: Response;
  try {
    res = await fetch(path, { ...init, headers, body, credentials: "omit", cache: "no-store" });
  } catch {
    throw new ApiFailure(0, "The service could not be reached. Check your connection and try again.");
  }
  const text = await res.text();
  let parsed: { data?: T; error?: string; details?: unknown; code?: string } = {};
  try {
    parsed = text ? JSON.parse(text) : {};
  } catch {
    /* not JSON: fall through with the status */
  }
  if (!res.ok) throw new ApiFailure(res.status, apiErrorMessage(parsed, `The service answered ${res.status}`), parsed.details, parsed.code);
  return parsed.data as T;
}

/** Fetches a PDF as bytes (the document to sign, or the vaulted copy). */
export async function fetchBytes(url: string): Promise<Uint8Array> {
  const res = await fetch(url, { credentials: "omit", cache: "no-store" });
  if (!res.ok) {
    let message = `The document could not be loaded (${res.status})`;
    let code: string | undefined;
    try {
      const body = (await res.json()) as { error?: string; code?: string; details?: unknown };
      message = apiErrorMessage(body, message);
      code = body.code;
    } catch {
      /* keep the status message */
    }
    throw new ApiFailure(res.status, message, undefined, code);
  }
  return new Uint8Array(await res.arrayBuffer());
}
