/**
 * The shipped E-SIGN disclosure (docs/consumer-signing.md): what an organization's signers are shown until an admin
 * saves its own (PUT /org/esign-disclosure). It covers what 15 U.S.C. §7001(c)(1) asks a consumer be
 * told before consenting to electronic records: the right to a paper copy, how to get one and its fee;
 * the right to withdraw consent, how, and what follows; the scope of the consent; how to update contact
 * information; and the hardware and software needed to open and keep the records. Version 0: not
 * required unless the organization says so (or an envelope asks for it).
 */
export const DEFAULT_DISCLOSURE = {
  required: false,
  text: [
    "CONSENT TO USE ELECTRONIC RECORDS AND SIGNATURES",
    "",
    "Please read this disclosure carefully and keep a copy for your records. The sender of this document asks you to receive, review and sign it electronically. Federal law (the Electronic Signatures in Global and National Commerce Act, 15 U.S.C. §7001) requires that you agree before we provide records to you electronically.",
    "",
    "1. Scope of your consent. Your consent applies to this transaction only: the documents in this envelope, the notices and disclosures about them, and the signed copy sent to you when everyone has signed. It does not apply to other transactions unless you agree again.",
    "",
    "2. Your right to paper copies. You may ask for a paper copy of any record provided to you electronically, before or after you sign. Paper copies are provided free of charge unless the sender tells you otherwise in the contact details below. To ask for one, use the paper-copy contact below and name the document.",
    "",
    "3. Your right to withdraw consent. You may withdraw your consent to electronic records at any time before you sign by choosing \"Withdraw consent\" on the signing page, or as the withdrawal instructions below explain. If you withdraw, you will not be able to sign this document electronically: the envelope is declined and the sender will contact you to complete the transaction on paper, which may take longer. Withdrawing does not affect the legal effect of anything you signed electronically before.",
    "",
    "4. Updating your contact information. If your email address or other contact details change, tell the sender using the contact below so that you keep receiving records and notices.",
    "",
    "5. Hardware and software you need. A computer, tablet or phone with an internet connection; a current version of a web browser such as Chrome, Safari, Firefox or Edge with JavaScript and cookies enabled; software that opens PDF files (built into most browsers); an email account that can receive messages; and enough storage to save, or a printer to print, the documents you sign. If these requirements change in a way that could stop you from opening or keeping your records, you will be told and may withdraw your consent without a fee.",
    "",
    "6. Your agreement. By choosing \"I agree\" you confirm that you have read this disclosure, that you can open and keep electronic records with the hardware and software described above (you have shown this by reading this disclosure on your device), and that you consent to receive and sign the records of this transaction electronically.",
  ].join("\n"),
  paper_copy_contact: "Contact the sender of this envelope (named in your invitation email) and ask for a paper copy; there is no fee.",
  withdrawal_instructions:
    "Choose \"Withdraw consent\" on the signing page before you sign, or tell the sender of this envelope (named in your invitation email) that you withdraw your consent to electronic records.",
} as const;
