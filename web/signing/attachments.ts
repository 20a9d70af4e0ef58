import { h } from "../shared/dom";
import { apiErrorMessage } from "../shared/api";
import type { RenderedPage } from "../shared/page-layout";
import type { Area, Field } from "./types";
import { t as pageT } from "../i18n";
import type { PageMessages } from "../i18n/catalogs";

/**
 * Attachment fields (docs/decisions/attachments.md): a labelled file input per field, reached from a
 * button placed on the document where the field is. Choosing a file uploads it at once
 * (PUT /signing/:slug/attachments/:field_name) with its progress and outcome announced; choosing again
 * replaces it until Finish. On a phone, an image-only field opens the camera (`capture`).
 */

const MAX_BYTES = 10 * 1024 * 1024;
const TYPE_NAMES: Record<string, string> = { "application/pdf": "PDF", "image/jpeg": "JPEG", "image/png": "PNG" };

/** A string of this step in the page's language (web/i18n: the `attachment_*` keys). */
const t = (key: string, vars: Record<string, string | number> = {}) => pageT(`attachment_${key}` as keyof PageMessages, vars);

type Uploaded = { filename: string };

/** PUT with progress (fetch has no upload progress): resolves with the stored file, or rejects with the API's message. */
function upload(url: string, file: File, progress: (percent: number) => void): Promise<Uploaded> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", url);
    xhr.setRequestHeader("accept", "application/json");
    xhr.upload.onprogress = (e) => e.lengthComputable && progress(Math.round((e.loaded / e.total) * 100));
    xhr.onerror = () => reject(new Error(t("network")));
    xhr.onload = () => {
      let body: { data?: Uploaded; error?: string; code?: string; details?: unknown } = {};
      try {
        body = JSON.parse(xhr.responseText) as typeof body;
      } catch {
        /* keep the status */
      }
      if (xhr.status >= 200 && xhr.status < 300 && body.data) resolve(body.data);
      else reject(new Error(apiErrorMessage(body, `HTTP ${xhr.status}`)));
    };
    const form = new FormData();
    form.append("file", file);
    xhr.send(form);
  });
}

/** The control of one attachment field; `changed` runs once a file is attached (for the progress). */
export function buildAttachmentControl(field: Field & { accept?: string[] }, areas: Area[], page: (a: Area) => RenderedPage, place: <T extends HTMLElement>(el: T, area: Area, page: RenderedPage, required: boolean) => T, label: string, api: string, changed: () => void) {
  const accept = field.accept ?? Object.keys(TYPE_NAMES);
  const id = `attach-${field.name.replace(/[^A-Za-z0-9_-]/g, "_")}`;
  const existing = field.value as { kind?: string; filename?: string } | null;
  let attached: string | null = existing?.kind === "attachment" ? (existing.filename ?? "") : null;
  const input = h("input", {
    type: "file",
    id,
    class: "visually-hidden attach-input",
    accept: accept.join(","),
    // image-only fields open the camera on phones; a PDF field offers the files too
    capture: accept.every((a) => a.startsWith("image/")) ? "environment" : null,
    "aria-describedby": `${id}-status ${id}-hint`,
    "data-field": field.name,
  });
  const inputLabel = h("label", { for: id, class: "visually-hidden" }, t("inputLabel", { label }));
  const hint = h("span", { id: `${id}-hint`, class: "visually-hidden" }, t("accepts", { types: accept.map((a) => TYPE_NAMES[a] ?? a).join(", ") }));
  const status = h("span", { id: `${id}-status`, class: "attach-status", role: "status", "aria-live": "polite" });
  const buttons = areas.map((area) =>
    place(
      h("button", { type: "button", class: "attach", "data-field": field.name, "aria-describedby": `${id}-status ${id}-hint` }),
      area,
      page(area),
      field.required,
    ),
  );
  // the input, its label and the live status are for assistive technology; the button on the page shows the same state
  const wrapper = h("span", { class: "attach-controls visually-hidden" }, inputLabel, input, hint, status);
  buttons[0]!.after(wrapper);
  // the accessible name starts with the text the button shows (WCAG 2.5.3, axe's label-content-name-mismatch), then says which field
  const spoken = `${t("buttonLabel", { label })}${field.required ? `, ${t("required")}` : ""}`;
  const setText = (b: HTMLButtonElement, text: string) => {
    b.textContent = text;
    b.setAttribute("aria-label", `${text}, ${spoken}`);
  };
  const show = () => {
    for (const b of buttons) {
      setText(b, attached ? `${t("replace")}: ${attached}` : t("attach"));
      b.classList.toggle("filled", attached !== null);
    }
  };
  show();
  if (attached) status.textContent = t("uploaded", { label, name: attached });
  buttons.forEach((b) => b.addEventListener("click", () => input.click()));
  input.addEventListener("change", async () => {
    const file = input.files?.[0];
    if (!file) return;
    buttons.forEach((b) => b.removeAttribute("aria-invalid"));
    if (file.size > MAX_BYTES) {
      status.textContent = t("failed", { label, reason: t("tooLarge") });
      status.className = "attach-status attach-error";
      input.value = "";
      return;
    }
    buttons.forEach((b) => (b.disabled = true));
    status.className = "attach-status";
    const progress = (percent: number) => {
      status.textContent = t("uploading", { name: file.name, percent });
      buttons.forEach((b) => setText(b, `${percent}%`));
    };
    progress(0);
    try {
      const stored = await upload(`${api}/attachments/${encodeURIComponent(field.name)}`, file, progress);
      attached = stored.filename;
      status.textContent = t("uploaded", { label, name: stored.filename });
      show();
      changed();
    } catch (err) {
      status.className = "attach-status attach-error";
      status.textContent = t("failed", { label, reason: (err as Error).message });
      show();
      buttons.forEach((b) => {
        b.setAttribute("aria-invalid", "true");
        b.title = status.textContent ?? "";
      });
    } finally {
      buttons.forEach((b) => (b.disabled = false));
      input.value = "";
      buttons[0]!.focus();
    }
  });
  return {
    focusTarget: buttons[0]! as HTMLElement,
    // the file is on the server already: nothing goes into submit's values
    value: () => undefined,
    filled: () => attached !== null,
    setInvalid: (message: string | null) =>
      buttons.forEach((b) => {
        if (message) b.setAttribute("aria-invalid", "true");
        else b.removeAttribute("aria-invalid");
      }),
    disable: () => buttons.forEach((b) => (b.disabled = true)),
  };
}
