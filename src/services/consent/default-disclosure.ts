import type { Locale } from "../../db/schema/locales";

/**
 * The shipped E-SIGN disclosure (docs/consumer-signing.md): what an organization's signers are shown until an admin
 * saves its own (PUT /org/esign-disclosure). It covers what 15 U.S.C. §7001(c)(1) asks a consumer be
 * told before consenting to electronic records: the right to a paper copy, how to get one and its fee;
 * the right to withdraw consent, how, and what follows; the scope of the consent; how to update contact
 * information; and the hardware and software needed to open and keep the records. Version 0: not
 * required unless the organization says so (or an envelope asks for it). One per locale: the Spanish one
 * is written for a consumer in the US, not translated word for word (docs/decisions/signing-page-languages.md).
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

const DEFAULT_DISCLOSURE_ES = {
  required: false,
  text: [
    "CONSENTIMIENTO PARA USAR DOCUMENTOS Y FIRMAS ELECTRÓNICOS",
    "",
    "Lea esta información con atención y guarde una copia. Quien le envía este documento le pide que lo reciba, lo revise y lo firme por vía electrónica. Una ley federal de los Estados Unidos (la ley E-SIGN, 15 U.S.C. §7001) exige que usted dé su consentimiento antes de que le entreguemos documentos en formato electrónico.",
    "",
    "1. Qué cubre su consentimiento. Su consentimiento vale solo para este trámite: los documentos que se le envían para firmar, los avisos e información sobre ellos, y la copia firmada que recibirá cuando todos hayan firmado. No vale para otros trámites, a menos que usted lo vuelva a dar.",
    "",
    "2. Su derecho a recibir copias en papel. Puede pedir una copia en papel de cualquier documento que reciba en formato electrónico, antes o después de firmar. Las copias en papel son gratis, salvo que el remitente le indique otra cosa en los datos de contacto que aparecen más abajo. Para pedir una, use el contacto para copias en papel que aparece más abajo y diga de qué documento se trata.",
    "",
    "3. Su derecho a retirar su consentimiento. Puede retirar su consentimiento en cualquier momento antes de firmar: elija “Retirar consentimiento” en la página de firma, o siga las instrucciones que aparecen más abajo. Si lo retira, no podrá firmar este documento por vía electrónica: la solicitud de firma se rechaza y el remitente se comunicará con usted para terminar el trámite en papel, lo que puede tardar más. Retirar su consentimiento no cambia la validez de lo que usted ya haya firmado electrónicamente.",
    "",
    "4. Cómo actualizar sus datos de contacto. Si cambia su correo electrónico u otros datos de contacto, avísele al remitente por medio del contacto que aparece más abajo, para que siga recibiendo sus documentos y avisos.",
    "",
    "5. Equipo y programas que necesita. Una computadora, tableta o teléfono con conexión a internet; una versión actual de un navegador como Chrome, Safari, Firefox o Edge, con JavaScript y cookies activados; un programa que abra archivos PDF (la mayoría de los navegadores ya lo tienen); una cuenta de correo electrónico que pueda recibir mensajes; y espacio para guardar los documentos que firme, o una impresora para imprimirlos. Si estos requisitos cambian de tal forma que usted no pueda abrir o guardar sus documentos, se le avisará y podrá retirar su consentimiento sin costo.",
    "",
    "6. Su aceptación. Al elegir “Acepto”, usted confirma que leyó esta información; que puede abrir y guardar documentos electrónicos con el equipo y los programas descritos arriba (lo demuestra al leer esta información en su dispositivo); y que acepta recibir y firmar por vía electrónica los documentos de este trámite.",
  ].join("\n"),
  paper_copy_contact: "Comuníquese con quien le envió estos documentos (su nombre aparece en el correo de invitación) y pida una copia en papel. No tiene costo.",
  withdrawal_instructions:
    "Elija “Retirar consentimiento” en la página de firma antes de firmar, o avísele a quien le envió estos documentos (su nombre aparece en el correo de invitación) que retira su consentimiento para recibir documentos electrónicos.",
} as const;

/** The shipped disclosure of each locale. */
export const DEFAULT_DISCLOSURES: Record<Locale, { required: boolean; text: string; paper_copy_contact: string; withdrawal_instructions: string }> = {
  en: DEFAULT_DISCLOSURE,
  es: DEFAULT_DISCLOSURE_ES,
};
