import { securedPartyOf, type EnvelopeRow } from "../envelopes/repository";

// The UCC §9-105 checks, pure: the vault issues its certificates from them, and the compliance verb
// (services/compliance/evaluate.ts) evaluates them live on what the vault repository reads.

/** The facts the eight UCC §9-105 checks are decided on (docs/decisions/compliance-and-certificate.md). */
export type ComplianceFacts = {
  /** authoritative copies stored for the envelope */
  authoritativeCopies: number;
  /** the authoritative copy's id and SHA-256 recorded at vaulting */
  copyId: string | null;
  documentHash: string | null;
  /** outcome of the newest integrity check of the stored bytes (null: never checked) */
  lastIntegrityMatched: boolean | null;
  /** the copy is held in the vault under the envelope's organization */
  custodyOrgId: string | null;
  envelopeOrgId: string;
  /** changes of controller made outside an authorized, audited operation (an accepted transfer the controller of the time requested, or a pledge release), and whether the record disagrees with its chain */
  unauthorizedAmendments: number;
  /** control moves by an organization that held a control key then, made without a valid Control-Signature by one of them (evidence/key-history.ts) */
  unsignedMoves?: string[];
  /** unsigned moves made after the operator removed the acting organization's keys (said, not failed) */
  movesAfterRecovery?: string[];
  /** control of the authoritative copy (docs/control.md) */
  control: ControlFacts;
  /** non-authoritative copies, and how many of them carry the copy marking */
  copies: number;
  markedCopies: number;
  auditChainVerified: boolean;
  securedPartyName: string | null;
};

/** A legal hold in force, as its chain entry recorded it. */
export type HoldFact = { hold_id: string; placed_by_org_id: string | null; reason: string; reference: string | null; placed_at: string };

export type ControlFacts = {
  /** the vaulting organization, forever (null: not vaulted) */
  originatorOrgId: string | null;
  originatorName: string | null;
  controllerOrgId: string | null;
  controllerName: string | null;
  pledgorOrgId: string | null;
  pledgorName: string | null;
  status: "active" | "paid_off" | "paper_out" | "destroyed" | null;
  /** accepted transfers (assignments and pledges) */
  transferCount: number;
  /** retention (docs/control.md): until when a closed record is kept, when it was destroyed, the legal holds in force (from the chain) */
  retainUntil?: string | null;
  destroyedAt?: string | null;
  holds?: HoldFact[];
  /** changes of controller on the chain: accepted transfers and pledge releases */
  changes: number;
  pledgeReleases: number;
};

const partyName = (name: string | null, orgId: string | null) => (name ? `${name} (${orgId})` : (orgId ?? "no one"));

/**
 * Check 8 names the controller (docs/control.md): who holds control of the vaulted copy, and under whose
 * pledge; after a paper-out, that control went with the paper.
 */
const controlHeld = (f: ComplianceFacts) =>
  f.control.status === "destroyed"
    ? `; the record was destroyed after its retention period, its last controller ${partyName(f.control.controllerName, f.control.controllerOrgId)}`
    : f.control.status === "paper_out"
    ? `; the record was converted to paper by ${partyName(f.control.controllerName, f.control.controllerOrgId)}, who holds the paper original`
    : f.authoritativeCopies > 0 && f.control.controllerOrgId !== null
    ? `; control is held by ${partyName(f.control.controllerName, f.control.controllerOrgId)}${f.control.pledgorOrgId ? `, pledged by ${partyName(f.control.pledgorName, f.control.pledgorOrgId)}` : ""}`
    : "";

export type ComplianceCheck = {
  requirement: string;
  ucc_reference: string;
  satisfied: boolean;
  detail: string;
};

const check = (requirement: string, ucc_reference: string, satisfied: boolean, yes: string, no: string): ComplianceCheck => ({
  requirement,
  ucc_reference,
  satisfied,
  detail: satisfied ? yes : no,
});

/** Pure: the same facts always give the same checks. The live evaluation and the certificate share it. */
export function runChecks(f: ComplianceFacts): ComplianceCheck[] {
  const vaulted = f.authoritativeCopies > 0;
  // After a paper-out the paper is the original: the electronic record is no longer the single
  // authoritative copy, and the service no longer holds it in custody for anyone (docs/decisions/live-compliance.md).
  const paper = f.control.status === "paper_out";
  const PAPER = "The record was converted to paper: the electronic copy is no longer authoritative (the paper original is)";
  // A destroyed record (docs/control.md "Retention"): its files were deleted; what remains verifiable is its
  // SHA-256, its chain, its certificate JSON and its evidence record, so the checks on stored bytes fail and say so.
  const destroyed = f.control.status === "destroyed";
  const DESTROYED = "The record was destroyed after its retention period: its authoritative copy and copies were deleted; its SHA-256, audit chain, certificate JSON and evidence record remain";
  return [
    check(
      "single_authoritative_copy",
      "UCC §9-105(b)(1)",
      f.authoritativeCopies === 1 && !paper && !destroyed,
      "Exactly one authoritative copy is stored",
      destroyed ? DESTROYED : paper ? PAPER : f.authoritativeCopies === 0 ? "No authoritative copy has been stored (the envelope is not vaulted)" : `${f.authoritativeCopies} authoritative copies are stored`,
    ),
    check(
      "unique_identifiable",
      "UCC §9-105(b)(1)",
      vaulted && f.copyId !== null && f.documentHash !== null,
      "The authoritative copy has an id and a SHA-256 recorded at vaulting",
      "No identified authoritative copy with a recorded SHA-256",
    ),
    check(
      "unalterable",
      "UCC §9-105(b)(1)",
      vaulted && !destroyed && f.lastIntegrityMatched === true,
      "The last integrity check of the stored bytes matched the recorded hash",
      destroyed ? `${DESTROYED}: no stored bytes are left to check` : vaulted ? "The last integrity check did not match the recorded hash" : "No stored copy to check for alteration",
    ),
    check(
      "custody_by_secured_party",
      "UCC §9-105(b)(3)",
      vaulted && !paper && !destroyed && f.custodyOrgId === f.envelopeOrgId && f.control.controllerOrgId !== null,
      `The copy is held by the service as custodian for ${partyName(f.control.controllerName, f.control.controllerOrgId)}`,
      destroyed ? `${DESTROYED}; the service holds nothing in custody` : paper ? `${PAPER}; the service keeps the electronic record as a marked copy, in no one's custody as chattel paper` : "The copy is not held in the vault under the organization",
    ),
    check(
      "controlled_amendments",
      "UCC §9-105(b)(4)",
      vaulted && f.unauthorizedAmendments === 0 && (f.unsignedMoves ?? []).length === 0,
      `${f.control.changes} change(s) of controller, each an authorized, audited operation: ${f.control.changes - f.control.pledgeReleases} accepted transfer(s) requested by the controller of the time, ${f.control.pledgeReleases} pledge release(s); every move by an organization holding a control key signed by one of its keys${(f.movesAfterRecovery ?? []).length > 0 ? `; ${f.movesAfterRecovery!.length} unsigned move(s) after an operator recovery of the organization's keys (${f.movesAfterRecovery!.join("; ")})` : ""}`,
      vaulted
        ? (f.unsignedMoves ?? []).length > 0
          ? `${(f.unsignedMoves ?? []).length} control move(s) by an organization holding a control key carry no valid Control-Signature by one of its keys: ${f.unsignedMoves!.join("; ")}`
          : `${f.unauthorizedAmendments} change(s) of controller happened outside an authorized, audited operation`
        : "No authoritative copy whose amendments could be controlled",
    ),
    check(
      "copies_identifiable",
      "UCC §9-105(b)(5)",
      vaulted && !destroyed && f.copies > 0 && f.markedCopies === f.copies,
      "Every non-authoritative copy carries the copy marking",
      destroyed ? `${DESTROYED}: no copy is left` : vaulted ? "A non-authoritative copy is missing or unmarked" : "No marked non-authoritative copy exists",
    ),
    check(
      "revisions_identifiable",
      "UCC §9-105(b)(6)",
      f.auditChainVerified,
      "The audit chain for the envelope verifies end to end",
      "The audit chain for the envelope does not verify",
    ),
    check(
      "secured_party_identified",
      "UCC §9-105(b)(2)",
      f.securedPartyName !== null && f.securedPartyName.trim() !== "",
      `The envelope names ${f.securedPartyName} as secured party${controlHeld(f)}`,
      `The envelope names no secured party (secured_party.name)${controlHeld(f)}`,
    ),
  ];
}

export function summarize(checks: ComplianceCheck[]) {
  const satisfied = checks.filter((c) => c.satisfied).length;
  return {
    compliant: satisfied === checks.length,
    score: Math.round((satisfied / checks.length) * 100) / 100,
    missing_requirements: checks.filter((c) => !c.satisfied).map((c) => c.requirement),
  };
}

/** What the vault knows about an envelope's authoritative copy, as the checks need it. */
export type VaultFacts = {
  vaultId: string;
  documentHash: string;
  custodianOrgId: string;
  copyMarked: boolean;
  /** newest integrity check of the stored bytes (null: never checked) */
  lastIntegrityMatched: boolean | null;
  /** the record's control columns, with the parties' names; absent at vault-in, where the originator controls */
  control?: Omit<ControlFacts, "changes" | "pledgeReleases" | "originatorOrgId">;
  /** the chain's replay of control (vault/control-history.ts): absent at vault-in, where nothing has moved */
  audit?: { changes: number; pledgeReleases: number; unauthorized: number };
  /** the control-key rule's findings (check 5) */
  signatures?: { unsigned: string[]; afterRecovery: string[] };
};

/**
 * The facts from their sources: the envelope, its vault record (null before vault-in) and whether
 * its audit chain verifies. Vault-in uses it for the certificate it issues in the same batch as the
 * record, before the record can be read back.
 */
export function factsFrom(envelope: EnvelopeRow, vault: VaultFacts | null, auditChainVerified: boolean): ComplianceFacts {
  const control: ControlFacts = {
    // the vault record's org_id: the envelope's organization, which vaulted it
    originatorOrgId: vault ? envelope.org_id : null,
    originatorName: vault?.control?.originatorName ?? null,
    controllerOrgId: vault ? (vault.control?.controllerOrgId ?? envelope.org_id) : null,
    controllerName: vault?.control?.controllerName ?? null,
    pledgorOrgId: vault?.control?.pledgorOrgId ?? null,
    pledgorName: vault?.control?.pledgorName ?? null,
    status: vault ? (vault.control?.status ?? "active") : null,
    transferCount: vault?.control?.transferCount ?? 0,
    retainUntil: vault?.control?.retainUntil ?? null,
    destroyedAt: vault?.control?.destroyedAt ?? null,
    holds: vault?.control?.holds ?? [],
    changes: vault?.audit?.changes ?? 0,
    pledgeReleases: vault?.audit?.pledgeReleases ?? 0,
  };
  return {
    // The unique index on vault_records.envelope_id makes a second authoritative copy unrepresentable.
    authoritativeCopies: vault ? 1 : 0,
    copyId: vault?.vaultId ?? null,
    documentHash: vault?.documentHash ?? null,
    lastIntegrityMatched: vault?.lastIntegrityMatched ?? null,
    custodyOrgId: vault?.custodianOrgId ?? null,
    envelopeOrgId: envelope.org_id,
    // Every change of controller must be an authorized, audited operation (vault/control-history.ts).
    unauthorizedAmendments: vault?.audit?.unauthorized ?? 0,
    unsignedMoves: vault?.signatures?.unsigned ?? [],
    movesAfterRecovery: vault?.signatures?.afterRecovery ?? [],
    control,
    copies: vault ? 1 : 0,
    markedCopies: vault?.copyMarked ? 1 : 0,
    auditChainVerified,
    securedPartyName: securedPartyOf(envelope)?.name ?? null,
  };
}
