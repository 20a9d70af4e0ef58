import type { EmailMessages } from "../catalog";

/** The signer emails in Spanish, written for a consumer in the US (usted), not translated word for word. */
export const es: EmailMessages = {
  lang: "es",
  greeting: "Hola, {name}:",
  kba_notice: "Antes de ver el documento, tendrá que contestar unas preguntas para confirmar su identidad.",
  link_personal: "Este enlace es solo para usted: no se lo reenvíe a nadie.",
  link_until: "Puede usarlo hasta el {date} (hora UTC).",
  link_replaces: "Este enlace reemplaza al de los correos anteriores sobre este documento, que ya no sirve para abrirlo.",
  action_sign: "Revisar y firmar",
  invitation_subject: "{org} le envió “{envelope}” para que lo firme",
  invitation_lead: "{org} le envió “{envelope}” para que lo firme (como {role}).",
  reminder_subject: "Recordatorio: {org} todavía espera su firma en “{envelope}”",
  reminder_lead: "{org} todavía espera que usted firme “{envelope}” (como {role}).",
  expiry_subject_on: "“{envelope}” vence el {date}: fírmelo antes de esa fecha",
  expiry_subject_soon: "“{envelope}” vence pronto: fírmelo antes de que venza",
  expiry_lead_on: "“{envelope}”, que {org} le envió para firmar (como {role}), vence el {date} (hora UTC). Después de esa fecha ya no se podrá firmar.",
  expiry_lead_soon: "“{envelope}”, que {org} le envió para firmar (como {role}), vence pronto. Después de esa fecha ya no se podrá firmar.",
  copy_subject: "Completado: “{envelope}”: su copia del documento firmado",
  copy_lead_cc: "{org} le envió una copia de “{envelope}”. Todas las partes ya lo firmaron; aquí tiene una copia del documento firmado.",
  copy_lead_signer: "Todas las partes ya firmaron “{envelope}”, que {org} le envió. Aquí tiene su copia del documento firmado.",
  copy_until: "El enlace le permite descargar el PDF firmado hasta el {date} (hora UTC); guarde el archivo para conservarlo. Está marcado como copia: el original válido lo tiene {org} o su bóveda digital.",
  copy_personal: "Este enlace es solo para usted: no se lo reenvíe a nadie.",
  copy_action: "Descargar el documento firmado",
};
