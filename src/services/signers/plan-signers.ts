import { unprocessable } from "../../lib/errors";
import type { ApiIssue } from "../../lib/validation";
import type { SendEnvelopeInput } from "./schema";

export type PlannedSigner = { role: string; email: string; name: string; routing_order: number; phone?: string; auth?: "sms_otp" };

const issue = (path: (string | number)[], expected: string, received: string, message: string): ApiIssue => ({ code: "invalid_value", expected, received, path, message });
const list = (roles: string[]) => roles.join(", ");

/**
 * Who signs, in which order. `roles` are the roles the envelope's fields name, in field order. With
 * `signers`, each names one of those roles, no role twice, and every role has its signer; an omitted
 * `routing_order` is the signer's position (1-based), so a plain list signs one after the other.
 * Without `signers`, the envelope's customer signs its single role. An envelope without fields has
 * nothing to sign.
 */
export function planSigners(input: { roles: string[]; customer: { email: string | null; name: string }; signers: SendEnvelopeInput["signers"] }): PlannedSigner[] {
  const { roles } = input;
  if (roles.length === 0) {
    throw unprocessable("The envelope has no fields to sign: place at least one field for a signer before sending", [
      issue([], "an envelope with fields", "no fields", "The envelope's document has no fields"),
    ]);
  }
  if (!input.signers) {
    if (roles.length > 1) {
      throw unprocessable(`The envelope's fields name several roles (${list(roles)}): name a signer for each in signers`, [
        issue(["signers"], `one signer per role: ${list(roles)}`, "undefined", `Name a signer for each role: ${list(roles)}`),
      ]);
    }
    if (!input.customer.email) {
      throw unprocessable("The envelope's customer has no email address: name the signer in signers", [
        issue(["signers"], `a signer for role ${roles[0]}`, "undefined", "The customer has no email address"),
      ]);
    }
    return [{ role: roles[0]!, email: input.customer.email, name: input.customer.name, routing_order: 1 }];
  }

  const known = new Set(roles);
  const taken = new Map<string, number>();
  const issues: ApiIssue[] = [];
  input.signers.forEach((s, i) => {
    if (!known.has(s.role)) {
      issues.push(issue(["signers", i, "role"], `one of: ${list(roles)}`, JSON.stringify(s.role), `The envelope's fields have no role ${JSON.stringify(s.role)}`));
    } else if (taken.has(s.role)) {
      issues.push(issue(["signers", i, "role"], "a role no other signer has", JSON.stringify(s.role), `Role ${JSON.stringify(s.role)} is already signed by signers[${taken.get(s.role)}]`));
    } else {
      taken.set(s.role, i);
    }
  });
  for (const role of roles) {
    if (!taken.has(role)) issues.push(issue(["signers"], `a signer for role ${role}`, "none", `No signer for role ${JSON.stringify(role)}`));
  }
  if (issues.length) throw unprocessable("The signers do not match the envelope's roles", issues);
  return input.signers.map((s, i) => ({ role: s.role, email: s.email.trim(), name: s.name, routing_order: s.routing_order ?? i + 1, ...(s.phone ? { phone: s.phone } : {}), ...(s.auth ? { auth: s.auth } : {}) }));
}
