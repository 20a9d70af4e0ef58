import { ErrorSchema, jsonContent } from "../../../lib/openapi";

/** The statuses of routes that take a PDF, beyond the common ones, with what they mean here. */
export const UploadErrors = {
  413: jsonContent(ErrorSchema, "The file is larger than 50 MB"),
  502: jsonContent(ErrorSchema, "The signing provider rejected the write (built-in provider: its store refused it)"),
  503: jsonContent(ErrorSchema, "Signing provider not configured (never with the built-in provider)"),
};
