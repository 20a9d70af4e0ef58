import { z } from "@hono/zod-openapi";
import { Timestamp } from "../envelopes/schema";

// Control keys (docs/control.md): the public keys by whose signature an organization acts on control.

const B64URL = /^[A-Za-z0-9_-]+$/;

/**
 * A public JWK as a partner exports it (`jose` `exportJWK`, WebCrypto, OpenSSL): ES256 (EC P-256) or
 * Ed25519 (OKP). Other members (`kid`, `use`, `key_ops`, ...) are accepted and dropped; a private
 * member (`d`) and any other key type or curve is 422 (services/control/add-control-key.ts).
 */
export const ControlKeyJwk = z
  .object({
    kty: z.string().max(16).openapi({ description: "`EC` (with `crv` `P-256`) or `OKP` (with `crv` `Ed25519`)" }),
    crv: z.string().max(16).optional(),
    x: z.string().max(256).regex(B64URL).optional(),
    y: z.string().max(256).regex(B64URL).optional(),
    alg: z.string().max(16).optional().openapi({ description: "If given: `ES256` for P-256, `EdDSA` or `Ed25519` for Ed25519" }),
  })
  .catchall(z.unknown())
  .openapi("ControlKeyJwk", {
    description: "A public JWK: ES256 (EC P-256) or Ed25519 (OKP). Never send the private member `d` (refused with 422).",
    example: { kty: "OKP", crv: "Ed25519", x: "nHGkQL8F8HZzrezWJe7HOlcHgSJPfWcmDttfviHKxJQ" },
  });

export const AddControlKeyBody = z
  .object({ jwk: ControlKeyJwk })
  .openapi("AddControlKey", { example: { jwk: { kty: "OKP", crv: "Ed25519", x: "nHGkQL8F8HZzrezWJe7HOlcHgSJPfWcmDttfviHKxJQ" } } });

export const ControlKeySchema = z
  .object({
    kid: z.string().openapi({ description: "The key's RFC 7638 JWK thumbprint (SHA-256, base64url): put it in the `kid` header of each Control-Signature" }),
    alg: z.enum(["ES256", "EdDSA"]),
    jwk: z
      .object({ kty: z.enum(["EC", "OKP"]), crv: z.enum(["P-256", "Ed25519"]), x: z.string(), y: z.string().optional() })
      .openapi({ description: "The public key as stored: its thumbprint members only" }),
    created_at: Timestamp,
  })
  .openapi("ControlKey", {
    example: {
      kid: "di7t9vm0EzOX6LqorGbo6f4Jzv19c8KIkphpkCLf4FA",
      alg: "EdDSA",
      jwk: { kty: "OKP", crv: "Ed25519", x: "nHGkQL8F8HZzrezWJe7HOlcHgSJPfWcmDttfviHKxJQ" },
      created_at: "2026-11-23T09:30:00.000Z",
    },
  });

export const KidParams = z.object({
  kid: z
    .string()
    .min(1)
    .max(64)
    .openapi({ param: { name: "kid", in: "path" }, description: "The key's RFC 7638 thumbprint", example: "di7t9vm0EzOX6LqorGbo6f4Jzv19c8KIkphpkCLf4FA" }),
});

export const ControlKeyDeletedSchema = z.object({ kid: z.string(), deleted: z.literal(true) }).openapi("ControlKeyDeleted");

export const ControlKeysRecoveredSchema = z
  .object({
    org_id: z.string(),
    removed: z.array(z.string()).openapi({ description: "The kids of the keys removed" }),
  })
  .openapi("ControlKeysRecovered", { example: { org_id: "org_4d2k8m1q7c9v3b5n6p0r2t4w6y", removed: ["di7t9vm0EzOX6LqorGbo6f4Jzv19c8KIkphpkCLf4FA"] } });

/** The Control-Signature request header, documented on every signed action (header names are case-insensitive). */
export const ControlSignatureHeaders = z.object({
  "control-signature": z
    .string()
    .max(8192)
    .optional()
    .openapi({
      param: { name: "control-signature", in: "header" }, // the key hono validates (headers are case-insensitive); the same name or the document refuses it
      description:
        "Required once the organization has a control key: a compact JWS by one of its keys (`kid` in the protected header) over the action's payload with `iat` (Unix seconds, within 5 minutes of now). An action on a record signs `control_seq` (the record's, as GET /partner/vault/{vault_id} answers it) and `body_sha256` (SHA-256 hex of the request body as RFC 8785 canonical JSON, of `{}` without a body), so a signature is good for one request; a key change signs a fresh `jti` instead. Missing: 403 `control_signature_required` (its message gives the payload to sign); wrong: 403 `control_signature_invalid` (`details.mismatch` names the claims that differ).",
    }),
});
