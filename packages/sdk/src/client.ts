import createClient, { type Client, type Middleware } from "openapi-fetch";
import type { paths } from "./schema.js";
import { EsignVaultError } from "./errors.js";
import { retryingFetch, type RetryOptions } from "./retry.js";
import { controlKeySignature, controlSignature, publicJwk, type ControlAction, type SigningKey } from "./control-signature.js";

export type EsignVaultOptions = {
  /** The partner API key (sent as X-API-Key). */
  apiKey: string;
  /** The service's origin, e.g. https://esign.example.com (paths carry /api/v2 themselves). */
  baseUrl: string;
  /** Default globalThis.fetch; a Worker's service binding or a test's SELF.fetch fits too. */
  fetch?: (request: Request) => Promise<Response>;
  retry?: RetryOptions;
  /** The organization's control key: record actions and key changes are then signed with it. */
  controlKey?: SigningKey;
};

type Json = Record<string, unknown>;
type Paths = keyof paths;
type GetPaths = { [P in Paths]: paths[P] extends { get: unknown } ? P : never }[Paths];
type JsonOf<R> = R extends { content: { "application/json": infer J } } ? J : never;
type Ok<Op> = Op extends { responses: infer R } ? JsonOf<R[200 & keyof R]> | JsonOf<R[201 & keyof R]> : never;
type DataOf<Op> = Ok<Op> extends { data: infer D } ? D : never;
type ListPaths = { [P in GetPaths]: DataOf<paths[P]["get" & keyof paths[P]]> extends readonly unknown[] ? (Ok<paths[P]["get" & keyof paths[P]]> extends { meta: unknown } ? P : never) : never }[GetPaths];
/** The item type of a list operation (`{ data: Item[], meta }`). */
export type ListItem<P extends ListPaths> = DataOf<paths[P]["get" & keyof paths[P]]> extends readonly (infer I)[] ? I : never;
type QueryOf<P extends Paths, M extends string> = paths[P][M & keyof paths[P]] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;
type PathParamsOf<P extends Paths, M extends string> = paths[P][M & keyof paths[P]] extends { parameters: { path?: infer Q } } ? NonNullable<Q> : never;
type BodyOf<P extends Paths, M extends string> = paths[P][M & keyof paths[P]] extends { requestBody?: { content: { "application/json": infer B } } } ? B : never;

const API = "/api/v2/partner";

/**
 * The partner API. `api` is the typed openapi-fetch client over every operation of the OpenAPI
 * document; the methods below are the lifecycle's calls with the data unwrapped. Every call:
 * - authenticates with the API key;
 * - sends an Idempotency-Key on each POST (a fresh one unless the caller gives its own), so a retried
 *   create or action is done once;
 * - retries 429 and 503 after Retry-After, with jitter (RetryOptions);
 * - throws EsignVaultError `{ status, code, details, requestId }` for any answer that is not 2xx.
 */
export class EsignVault {
  readonly api: Client<paths>;
  private readonly controlKey: SigningKey | undefined;

  constructor(options: EsignVaultOptions) {
    const base = options.fetch ?? ((request: Request) => globalThis.fetch(request));
    this.api = createClient<paths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ""),
      fetch: retryingFetch(base, options.retry),
      headers: { "X-API-Key": options.apiKey },
    });
    this.api.use(idempotencyKeys, throwOnError);
    this.controlKey = options.controlKey;
  }

  /** Every item of a list operation, page after page (`page`/`limit`, `meta.total`). */
  async *paginate<P extends ListPaths>(path: P, init: { query?: Omit<QueryOf<P, "get">, "page" | "limit">; path?: PathParamsOf<P, "get">; limit?: number } = {}): AsyncGenerator<ListItem<P>> {
    const limit = init.limit ?? 100;
    for (let page = 1; ; page++) {
      const { data } = await (this.api.GET as (p: string, i: unknown) => Promise<{ data?: { data: ListItem<P>[]; meta: { page: number; limit: number; total: number } } }>)(path, {
        params: { path: init.path, query: { ...(init.query ?? {}), page, limit } },
      });
      const items = data!.data;
      for (const item of items) yield item;
      if (items.length === 0 || page * data!.meta.limit >= data!.meta.total) return;
    }
  }

  // Templates and envelopes

  /** POST /partner/templates: a PDF and its fields (multipart). */
  async createTemplate(input: { file: Blob; filename?: string; name: string; fields?: unknown[]; externalId?: string }) {
    const form = new FormData();
    form.append("file", input.file, input.filename ?? "document.pdf");
    form.append("name", input.name);
    if (input.fields) form.append("fields_json", JSON.stringify(input.fields));
    if (input.externalId) form.append("external_id", input.externalId);
    const { data } = await this.api.POST(`${API}/templates`, { body: form as never, bodySerializer: (b: unknown) => b as FormData });
    return data!.data;
  }

  async createEnvelope(body: BodyOf<`${typeof API}/envelopes`, "post">, opts: { idempotencyKey?: string } = {}) {
    const { data } = await this.api.POST(`${API}/envelopes`, { body, headers: idempotency(opts) });
    return data!.data;
  }

  async getEnvelope(envelopeId: string) {
    const { data } = await this.api.GET(`${API}/envelopes/{envelope_id}`, { params: { path: { envelope_id: envelopeId } } });
    return data!.data;
  }

  async sendEnvelope(envelopeId: string, body: BodyOf<`${typeof API}/envelopes/{envelope_id}/send`, "post"> = {} as never, opts: { idempotencyKey?: string } = {}) {
    const { data } = await this.api.POST(`${API}/envelopes/{envelope_id}/send`, { params: { path: { envelope_id: envelopeId } }, body, headers: idempotency(opts) });
    return data!.data;
  }

  async voidEnvelope(envelopeId: string, body: BodyOf<`${typeof API}/envelopes/{envelope_id}/void`, "post">) {
    const { data } = await this.api.POST(`${API}/envelopes/{envelope_id}/void`, { params: { path: { envelope_id: envelopeId } }, body });
    return data!.data;
  }

  // Vault

  /** POST vault-in-signed: the completed envelope's signed document becomes the authoritative copy. */
  async vaultSigned(envelopeId: string, body: BodyOf<`${typeof API}/envelopes/{envelope_id}/vault-in-signed`, "post"> = {} as never, opts: { idempotencyKey?: string } = {}) {
    const { data } = await this.api.POST(`${API}/envelopes/{envelope_id}/vault-in-signed`, { params: { path: { envelope_id: envelopeId } }, body, headers: idempotency(opts) });
    return data!.data;
  }

  async getCertificate(envelopeId: string) {
    const { data } = await this.api.GET(`${API}/envelopes/{envelope_id}/vault/certificate`, { params: { path: { envelope_id: envelopeId } } });
    return data!.data;
  }

  async getCompliance(envelopeId: string) {
    const { data } = await this.api.GET(`${API}/envelopes/{envelope_id}/compliance`, { params: { path: { envelope_id: envelopeId } } });
    return data!.data;
  }

  async getVaultRecord(vaultId: string) {
    const { data } = await this.api.GET(`${API}/vault/{vault_id}`, { params: { path: { vault_id: vaultId } } });
    return data!.data;
  }

  // Control of the authoritative copy (signed with `controlKey` when the client has one)

  async offerTransfer(vaultId: string, body: BodyOf<`${typeof API}/vault/{vault_id}/transfers`, "post">, opts: { controlSeq?: number } = {}) {
    const signature = await this.recordSignature({ vaultId, action: "transfer", body, controlSeq: opts.controlSeq });
    const { data } = await this.api.POST(`${API}/vault/{vault_id}/transfers`, { params: { path: { vault_id: vaultId } }, body, headers: signature });
    return data!.data;
  }

  /** Accept, reject or cancel a pending transfer (the record's control_seq is read when not given). */
  async answerTransfer(transfer: { transfer_id: string; vault_id: string }, verb: "accept" | "reject" | "cancel", opts: { controlSeq?: number } = {}) {
    const signature = await this.recordSignature({ vaultId: transfer.vault_id, action: verb, transferId: transfer.transfer_id, controlSeq: opts.controlSeq });
    const path = `${API}/vault/transfers/{transfer_id}/${verb}` as `${typeof API}/vault/transfers/{transfer_id}/accept`;
    const { data } = await this.api.POST(path, { params: { path: { transfer_id: transfer.transfer_id } }, headers: signature });
    return data!.data;
  }

  /** Registers the public half of `privateJwk` as a control key, signed with the client's key when it has one. */
  async addControlKey(privateJwk: SigningKey["privateJwk"], targetKid: string) {
    const headers = await this.keySignature("add_key", targetKid);
    const { data } = await this.api.POST(`${API}/vault/control-keys`, { body: { jwk: publicJwk(privateJwk) } as never, headers });
    return data!.data;
  }

  /** The Control-Signature header of adding or deleting the key `targetKid`, or none when the client has no control key. */
  async keySignature(action: "add_key" | "delete_key", targetKid: string): Promise<Record<string, string>> {
    if (!this.controlKey) return {};
    return { "Control-Signature": await controlKeySignature({ ...this.controlKey, action, targetKid }) };
  }

  /**
   * The Control-Signature header of a record action, or none when the client has no control key.
   * Without `controlSeq` the record is read first (GET /partner/vault/{vault_id}).
   */
  async recordSignature(input: { vaultId: string; action: ControlAction; transferId?: string; controlSeq?: number; body?: unknown }): Promise<Record<string, string>> {
    if (!this.controlKey) return {};
    let controlSeq = input.controlSeq;
    if (controlSeq === undefined) {
      const record = (await this.getVaultRecord(input.vaultId)) as { control_seq?: number };
      if (typeof record.control_seq !== "number") throw new Error(`The record ${input.vaultId} answered no control_seq: pass controlSeq`);
      controlSeq = record.control_seq;
    }
    return { "Control-Signature": await controlSignature({ ...this.controlKey, vaultId: input.vaultId, action: input.action, transferId: input.transferId, controlSeq, body: input.body }) };
  }
}

const idempotency = (opts: { idempotencyKey?: string }) => (opts.idempotencyKey ? { "Idempotency-Key": opts.idempotencyKey } : {});

/** A POST without an Idempotency-Key gets a fresh one: every retry of that call then carries the same key. */
const idempotencyKeys: Middleware = {
  onRequest({ request }) {
    if (request.method !== "POST" || request.headers.has("Idempotency-Key")) return request;
    const headers = new Headers(request.headers);
    headers.set("Idempotency-Key", crypto.randomUUID());
    return new Request(request, { headers });
  },
};

const throwOnError: Middleware = {
  async onResponse({ response }) {
    if (!response.ok) throw await EsignVaultError.fromResponse(response);
    return response;
  },
};

export type { Json };
