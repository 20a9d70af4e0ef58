import { t } from "../i18n";
import SignaturePad from "signature_pad";
import { h } from "../shared/dom";
import type { Field, SignatureValue } from "./types";

const initialsOf = (name: string) =>
  name
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase())
    .join("");

/**
 * "Adopt your signature": type it (the default, usable by keyboard alone; stamped as text) or draw
 * it with a mouse, finger or stylus (signature_pad; sent as a PNG). A native modal <dialog> keeps
 * focus inside and closes on Escape. Once adopted, a signature (or initials) is reused for the
 * signer's other fields of that kind, as DocuSign does; clicking a filled field opens this again.
 */
export class SignatureDialog {
  private readonly dialog: HTMLDialogElement;
  private readonly heading: HTMLHeadingElement;
  private readonly typed: HTMLInputElement;
  private readonly canvas: HTMLCanvasElement;
  private readonly pad: SignaturePad;
  private readonly tabs: { type: HTMLButtonElement; draw: HTMLButtonElement };
  private readonly panes: { type: HTMLElement; draw: HTMLElement };
  private readonly error: HTMLElement;
  private mode: "type" | "draw" = "type";
  private readonly adopted = new Map<string, SignatureValue>();
  private resolve: ((v: SignatureValue | null) => void) | null = null;

  constructor(private readonly signerName: string) {
    this.heading = h("h2", { id: "sig-title", tabindex: -1 }, t("adopt_title"));
    this.typed = h("input", { type: "text", id: "sig-typed", autocomplete: "name", maxlength: 200 });
    this.canvas = h("canvas", { class: "sig-canvas", "aria-label": t("draw_area") });
    this.error = h("p", { class: "field-error", role: "alert" });
    const preview = h("p", { class: "typed typed-preview", "aria-hidden": "true" });
    this.typed.addEventListener("input", () => (preview.textContent = this.typed.value));
    this.panes = {
      type: h("div", { id: "sig-pane-type", role: "tabpanel", "aria-labelledby": "sig-tab-type" }, h("label", { for: "sig-typed" }, t("type_label")), this.typed, preview),
      draw: h(
        "div",
        { id: "sig-pane-draw", role: "tabpanel", "aria-labelledby": "sig-tab-draw", hidden: true },
        h("p", { class: "hint" }, t("draw_hint")),
        this.canvas,
        h("button", { type: "button", class: "link", onclick: () => this.pad.clear() }, t("clear")),
      ),
    };
    this.tabs = {
      type: h("button", { type: "button", role: "tab", id: "sig-tab-type", "aria-controls": "sig-pane-type", onclick: () => this.show("type") }, t("tab_type")),
      draw: h("button", { type: "button", role: "tab", id: "sig-tab-draw", "aria-controls": "sig-pane-draw", onclick: () => this.show("draw") }, t("tab_draw")),
    };
    const form = h(
      "form",
      { method: "dialog" },
      this.heading,
      h("div", { role: "tablist", "aria-label": t("how_to_sign"), class: "tabs" }, this.tabs.type, this.tabs.draw),
      this.panes.type,
      this.panes.draw,
      this.error,
      h(
        "div",
        { class: "dialog-actions" },
        h("button", { type: "button", class: "secondary", onclick: () => this.close(null) }, t("cancel")),
        h("button", { type: "submit", class: "primary", id: "sig-adopt" }, t("adopt")),
      ),
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.adopt();
    });
    this.dialog = h("dialog", { class: "sig-dialog", "aria-labelledby": "sig-title" }, form);
    this.dialog.addEventListener("cancel", () => this.finish(null));
    document.body.append(this.dialog);
    this.pad = new SignaturePad(this.canvas, { minWidth: 0.8, maxWidth: 2.6, penColor: "#0b1f4b" });
  }

  /** The adopted value for the field's kind, asking for one if there is none (or `change` is set). */
  async request(field: Field, label: string, change: boolean): Promise<SignatureValue | null> {
    const kind = field.type === "initials" ? "initials" : "signature";
    const known = this.adopted.get(kind);
    if (known && !change) return known;
    this.heading.textContent = kind === "initials" ? t("adopt_initials", { label }) : t("adopt_signature", { label });
    this.typed.value = known?.kind === "typed" ? known.text : kind === "initials" ? initialsOf(this.signerName) : this.signerName;
    this.typed.dispatchEvent(new Event("input"));
    this.error.textContent = "";
    this.dialog.showModal();
    this.show(known?.kind === "drawn" ? "draw" : this.mode);
    const value = await new Promise<SignatureValue | null>((resolve) => (this.resolve = resolve));
    if (value) this.adopted.set(kind, value);
    return value;
  }

  private show(mode: "type" | "draw") {
    this.mode = mode;
    for (const m of ["type", "draw"] as const) {
      this.tabs[m].setAttribute("aria-selected", String(m === mode));
      this.panes[m].hidden = m !== mode;
    }
    if (mode === "draw") this.fitCanvas();
    (mode === "type" ? this.typed : this.canvas).focus();
  }

  /** The canvas backing store follows its CSS size and the screen's pixel ratio, else strokes blur. */
  private fitCanvas() {
    const ratio = Math.min(window.devicePixelRatio || 1, 2);
    const width = this.canvas.offsetWidth;
    const height = this.canvas.offsetHeight;
    if (this.canvas.width === Math.round(width * ratio) && this.canvas.height === Math.round(height * ratio)) return;
    this.canvas.width = Math.round(width * ratio);
    this.canvas.height = Math.round(height * ratio);
    this.canvas.getContext("2d")!.scale(ratio, ratio);
    this.pad.clear();
  }

  private adopt() {
    if (this.mode === "draw") {
      if (this.pad.isEmpty()) {
        this.error.textContent = t("draw_missing");
        return;
      }
      this.close({ kind: "drawn", dataUrl: this.pad.toDataURL("image/png") });
      return;
    }
    const text = this.typed.value.trim();
    if (!text) {
      this.error.textContent = t("type_missing");
      this.typed.focus();
      return;
    }
    this.close({ kind: "typed", text });
  }

  private close(value: SignatureValue | null) {
    this.dialog.close();
    this.finish(value);
  }

  private finish(value: SignatureValue | null) {
    const resolve = this.resolve;
    this.resolve = null;
    resolve?.(value);
  }
}
