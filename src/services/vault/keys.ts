/**
 * Where the vault keeps its objects in R2 (`DOCS`). Every object of one vault-in attempt lives under
 * that attempt's vault id, so two racing attempts never write to the same key and the loser's objects
 * can be told apart and deleted. These keys are the vault path: they never leave the service except
 * as the `path` of the `vault.stored` webhook event (spec 6.5).
 */
export const envelopeVaultPrefix = (orgId: string, envelopeId: string) => `vault/${orgId}/${envelopeId}/`;

export function vaultKeys(orgId: string, envelopeId: string, vaultId: string) {
  const dir = `${envelopeVaultPrefix(orgId, envelopeId)}${vaultId}/`;
  return {
    dir,
    authoritative: `${dir}authoritative.pdf`,
    copy: `${dir}copy.pdf`,
    /** the copy stamped as converted to paper at paper-out (docs/control.md): the electronic record is no longer authoritative */
    paper: `${dir}paper-out.pdf`,
    certificate: (certificateId: string) => `${dir}certificate-${certificateId}.pdf`,
  };
}
