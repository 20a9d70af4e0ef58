import { describe, expect, it } from "vitest";
import { ENVELOPE_STATUSES, type EnvelopeStatus } from "../../src/db/schema";
import { ApiError } from "../../src/lib/errors";
import { verifyChain } from "../../src/services/audit/verify-chain";
import { transitionEnvelope } from "../../src/services/envelopes/transition";
import { canTransition, TRANSITIONS, type EnvelopeAction } from "../../src/services/envelopes/state-machine";
import { createEnvelope, newTenant } from "../helpers/api";
import { orgContextOf } from "../helpers/context";
import { shardDbOf } from "../helpers/shards";

/** The lifecycle of spec part 3 and docs/decisions/envelope-state-machine.md, written out independently of the implementation. */
const EXPECTED: Record<EnvelopeAction, Partial<Record<EnvelopeStatus, EnvelopeStatus>>> = {
  attach_document: { pending: "uploaded" },
  prepare: { pending: "preparing", uploaded: "preparing" },
  send: { preparing: "sent" },
  view: { sent: "viewed" },
  complete: { sent: "completed", viewed: "completed" },
  record_paper_signed: { pending: "completed", uploaded: "completed" },
  vault: { completed: "vaulted" },
  decline: { sent: "declined", viewed: "declined" },
  void: { pending: "voided", uploaded: "voided", preparing: "voided", sent: "voided", viewed: "voided" },
  expire: { sent: "expired", viewed: "expired" },
};


describe("envelope state machine", () => {
  it("allows exactly the moves of the lifecycle table", () => {
    for (const action of Object.keys(TRANSITIONS) as EnvelopeAction[]) {
      for (const status of ENVELOPE_STATUSES) {
        expect(canTransition(status, action), `${action} from ${status}`).toBe(EXPECTED[action][status] !== undefined);
      }
    }
  });

  it("never leaves a terminal status", () => {
    for (const status of ["declined", "voided", "expired", "vaulted"] as const) {
      for (const action of Object.keys(TRANSITIONS) as EnvelopeAction[]) expect(canTransition(status, action)).toBe(false);
    }
  });

  it("applies every legal move in the database with its audit entry and event, and refuses every illegal one untouched", async () => {
    const t = await newTenant({ rpm: 1_000_000 });
    for (const action of Object.keys(TRANSITIONS) as EnvelopeAction[]) {
      for (const from of ENVELOPE_STATUSES) {
        const e = await createEnvelope(t.key);
        await shardDbOf(e.envelope_id).prepare("UPDATE envelopes SET status = ? WHERE id = ?").bind(from, e.envelope_id).run();
        const to = EXPECTED[action][from];
        const eventsBefore = await shardDbOf(e.envelope_id).prepare("SELECT COUNT(*) AS n FROM events WHERE envelope_id = ?").bind(e.envelope_id).first<{ n: number }>();
        if (to) {
          const updated = await transitionEnvelope(orgContextOf(t.orgId, e.envelope_id), { envelopeId: e.envelope_id, action });
          expect(updated.status).toBe(to);
          const row = await shardDbOf(e.envelope_id).prepare("SELECT status, audit_seq FROM envelopes WHERE id = ?").bind(e.envelope_id).first();
          expect(row).toEqual({ status: to, audit_seq: 2 });
          const audit = await shardDbOf(e.envelope_id).prepare("SELECT action, data FROM audit_log WHERE chain_id = ? AND seq = 2").bind(e.envelope_id).first<{ action: string; data: string }>();
          expect(audit!.action).toBe(`envelope.${action}`);
          expect(JSON.parse(audit!.data)).toMatchObject({ from, to });
          const eventsAfter = await shardDbOf(e.envelope_id).prepare("SELECT COUNT(*) AS n FROM events WHERE envelope_id = ?").bind(e.envelope_id).first<{ n: number }>();
          expect(eventsAfter!.n - eventsBefore!.n).toBe(TRANSITIONS[action].event ? 1 : 0);
          if (TRANSITIONS[action].event) {
            const ev = await shardDbOf(e.envelope_id).prepare("SELECT type FROM events WHERE envelope_id = ? ORDER BY created_at DESC, rowid DESC LIMIT 1").bind(e.envelope_id).first<{ type: string }>();
            expect(ev!.type).toBe(TRANSITIONS[action].event);
          }
        } else {
          const err = await transitionEnvelope(orgContextOf(t.orgId, e.envelope_id), { envelopeId: e.envelope_id, action }).catch((x: unknown) => x);
          expect(err).toBeInstanceOf(ApiError);
          expect((err as ApiError).status).toBe(422);
          expect((err as ApiError).message).toMatch(new RegExp(`with status ${from}$`));
          const row = await shardDbOf(e.envelope_id).prepare("SELECT status, audit_seq FROM envelopes WHERE id = ?").bind(e.envelope_id).first();
          expect(row).toEqual({ status: from, audit_seq: 1 });
        }
      }
    }
  });

  it("walks the signing path pending → preparing → sent → viewed → completed → vaulted with a verifying chain", async () => {
    const t = await newTenant();
    const e = await createEnvelope(t.key);
    for (const action of ["prepare", "send", "view", "complete", "vault"] as const) {
      await transitionEnvelope(orgContextOf(t.orgId, e.envelope_id), { envelopeId: e.envelope_id, action });
    }
    const row = await shardDbOf(e.envelope_id).prepare("SELECT status FROM envelopes WHERE id = ?").bind(e.envelope_id).first<{ status: string }>();
    expect(row!.status).toBe("vaulted");
    expect(await verifyChain(shardDbOf(e.envelope_id), e.envelope_id)).toMatchObject({ verified: true, entries: 6 });
  });

  it("refuses a transition on an envelope of another organization as not found", async () => {
    const a = await newTenant();
    const b = await newTenant();
    const e = await createEnvelope(a.key);
    const err = await transitionEnvelope(orgContextOf(b.orgId, e.envelope_id), { envelopeId: e.envelope_id, action: "void" }).catch((x: unknown) => x);
    expect((err as ApiError).status).toBe(404);
  });
});
