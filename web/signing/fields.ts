import { t } from "../i18n";
import { h, humanize } from "../shared/dom";
import type { RenderedPage } from "../shared/page-layout";
import { buildAttachmentControl } from "./attachments";
import type { Area, Field, SignatureValue, SubmittedValue } from "./types";

/** One field of the signer on the page: its controls on the document and its current value. */
export type FieldControl = {
  field: Field;
  label: string;
  /** the first focusable control, for "next field" and error focus */
  focusTarget: HTMLElement;
  value(): SubmittedValue | undefined;
  filled(): boolean;
  setInvalid(message: string | null): void;
  disable(): void;
};

export type SignatureRequest = (field: Field, label: string, change: boolean) => Promise<SignatureValue | null>;

/** Document order: page, then top to bottom, then left to right (the tab order follows it). */
export const documentOrder = (a: Field, b: Field) => {
  const p = a.areas[0];
  const q = b.areas[0];
  if (!p || !q) return p ? -1 : q ? 1 : 0;
  return p.page - q.page || p.y - q.y || p.x - q.x;
};

/**
 * Places an overlay at an area, in fractions of its page. The text size follows the area's height
 * (container query units of the page wrapper), so it scales with the page on a phone or a desktop.
 */
function place<T extends HTMLElement>(el: T, area: Area, page: RenderedPage, required: boolean): T {
  el.classList.add("field");
  if (required) el.classList.add("is-required");
  el.style.left = `${area.x * 100}%`;
  el.style.top = `${area.y * 100}%`;
  el.style.width = `${area.w * 100}%`;
  el.style.height = `${area.h * 100}%`;
  const heightInCqw = area.h * (page.height / page.width) * 100;
  el.style.fontSize = `clamp(11px, ${(heightInCqw * 0.55).toFixed(3)}cqw, 20px)`;
  page.wrapper.append(el);
  return el;
}

const initialText = (field: Field): string => {
  if (typeof field.value === "string") return field.value;
  if (typeof field.value === "number") return String(field.value);
  return field.default_value ?? "";
};

/** Builds the field's controls; `changed` runs after every change of its value (for the progress). */
export function buildFieldControl(field: Field, pages: Map<number, RenderedPage>, requestSignature: SignatureRequest, changed: () => void, api = ""): FieldControl | null {
  const areas = field.areas.filter((a) => pages.has(a.page));
  if (areas.length === 0) return null;
  const label = humanize(field.name);
  const spoken = `${label}${field.required ? t("required_suffix") : ""}${field.readonly ? t("readonly_suffix") : ""}`;
  const common = { "aria-label": spoken, title: label, "data-field": field.name, "aria-required": field.required ? "true" : null };
  const invalidTargets: HTMLElement[] = [];
  const setInvalid = (message: string | null) => {
    for (const el of invalidTargets) {
      if (message) {
        el.setAttribute("aria-invalid", "true");
        el.title = `${label}: ${message}`;
      } else {
        el.removeAttribute("aria-invalid");
        el.title = label;
      }
    }
  };
  const first = areas[0]!;
  const page = (a: Area) => pages.get(a.page)!;
  /** The controls of a field placed at several areas mirror each other: one value. */
  const mirrored = <T extends HTMLInputElement | HTMLSelectElement>(
    controls: T[],
    event: "change" | "input",
    copy: (from: T, to: T) => void,
    read: (first: T) => { value: SubmittedValue | undefined; filled: boolean },
  ): FieldControl => {
    controls.forEach((c) =>
      c.addEventListener(event, () => {
        controls.forEach((o) => o !== c && copy(c, o));
        setInvalid(null);
        changed();
      }),
    );
    invalidTargets.push(...controls);
    const first = controls[0]!;
    return {
      field,
      label,
      focusTarget: first,
      value: () => read(first).value,
      filled: () => read(first).filled,
      setInvalid,
      disable: () => controls.forEach((c) => (c.disabled = true)),
    };
  };

  switch (field.type) {
    case "attachment":
      // a file the signer uploads (./attachments.ts)
      return { field, label, ...buildAttachmentControl(field, areas, page, place, label, api, changed) };
    case "signature":
    case "initials": {
      let adopted: SignatureValue | null = null;
      const prefilled = field.value as { kind?: string; text?: string } | null;
      const action = field.type === "signature" ? t("sign") : t("initial");
      // a button takes no aria-required (its name says "required"); its name holds the text it shows (WCAG 2.5.3)
      const buttons = areas.map((area) => place(h("button", { type: "button", class: `sig sig-${field.type}`, ...common, "aria-required": null }), area, page(area), field.required));
      const show = () => {
        for (const b of buttons) {
          b.replaceChildren();
          const visible = adopted?.kind === "drawn" ? "" : adopted?.kind === "typed" ? adopted.text : prefilled?.kind === "typed" && prefilled.text ? prefilled.text : field.type === "signature" ? t("sign_here") : "";
          b.setAttribute("aria-label", visible ? `${visible}, ${action}: ${spoken}` : `${action}: ${spoken}`);
          if (adopted?.kind === "drawn") b.append(h("img", { src: adopted.dataUrl, alt: t("drawn_suffix", { label }) }));
          else if (adopted?.kind === "typed") b.append(h("span", { class: "typed" }, adopted.text));
          else if (prefilled?.kind === "typed" && prefilled.text) b.append(h("span", { class: "typed" }, prefilled.text));
          else b.append(h("span", { class: "sig-cta" }, field.type === "signature" ? t("sign_here") : t("initial")));
          b.classList.toggle("filled", adopted !== null);
        }
      };
      show();
      if (field.readonly) buttons.forEach((b) => (b.disabled = true));
      for (const b of buttons) {
        b.addEventListener("click", async () => {
          const value = await requestSignature(field, label, adopted !== null);
          if (!value) return;
          adopted = value;
          setInvalid(null);
          show();
          changed();
        });
      }
      invalidTargets.push(...buttons);
      return {
        field,
        label,
        focusTarget: buttons[0]!,
        value: () => (adopted ? (adopted.kind === "drawn" ? adopted.dataUrl : adopted.text) : undefined),
        filled: () => adopted !== null || Boolean(prefilled),
        setInvalid,
        disable: () => buttons.forEach((b) => (b.disabled = true)),
      };
    }
    case "checkbox": {
      const boxes = areas.map((area) => {
        const box = h("input", { type: "checkbox", ...common });
        box.checked = field.value === true || field.default_value === "true";
        box.disabled = field.readonly;
        place(h("span", { class: "checkbox-wrap" }, box), area, page(area), field.required);
        return box;
      });
      return mirrored(boxes, "change", (from, to) => (to.checked = from.checked), (first) => ({ value: first.checked, filled: first.checked }));
    }
    case "radio": {
      const options = field.options ?? [];
      const current = initialText(field);
      const group = `radio-${field.name}`;
      const radios: HTMLInputElement[] = [];
      if (options.length > 1 && areas.length === options.length) {
        // one area per option: each choice sits where the document shows it
        areas.forEach((area, i) => {
          const radio = h("input", { type: "radio", name: group, value: options[i]!, "aria-label": `${label}: ${options[i]}${field.required ? t("required_suffix") : ""}`, "data-field": field.name });
          place(h("span", { class: "radio-wrap" }, radio), area, page(area), field.required);
          radios.push(radio);
        });
      } else {
        const box = h("div", { role: "radiogroup", "aria-label": spoken, class: "radio-group" });
        for (const option of options) {
          const radio = h("input", { type: "radio", name: group, value: option, "data-field": field.name });
          radios.push(radio);
          box.append(h("label", {}, radio, ` ${option}`));
        }
        place(box, first, page(first), field.required);
      }
      for (const r of radios) {
        r.checked = r.value === current;
        r.disabled = field.readonly;
        r.addEventListener("change", () => {
          setInvalid(null);
          changed();
        });
      }
      invalidTargets.push(...radios);
      return {
        field,
        label,
        focusTarget: radios[0] ?? h("span"),
        value: () => radios.find((r) => r.checked)?.value,
        filled: () => radios.some((r) => r.checked),
        setInvalid,
        disable: () => radios.forEach((r) => (r.disabled = true)),
      };
    }
    case "select": {
      const current = initialText(field);
      const selects = areas.map((area) => {
        const select = h("select", { ...common }, h("option", { value: "" }, field.required ? t("choose") : t("none")));
        for (const option of field.options ?? []) select.append(h("option", { value: option }, option));
        select.value = current;
        select.disabled = field.readonly;
        place(select, area, page(area), field.required);
        return select;
      });
      return mirrored(selects, "change", (from, to) => (to.value = from.value), (first) => ({ value: first.value || undefined, filled: first.value !== "" }));
    }
    default: {
      // text, date, number: native inputs give the right keyboard on a phone and a date picker
      const type = field.type === "date" ? "date" : field.type === "number" ? "number" : "text";
      const inputs = areas.map((area) => {
        const input = h("input", { type, ...common, placeholder: type === "date" ? null : label, inputmode: type === "number" ? "decimal" : null, step: type === "number" ? "any" : null, autocomplete: "off" });
        input.value = initialText(field);
        input.readOnly = field.readonly;
        place(input, area, page(area), field.required);
        return input;
      });
      return mirrored(inputs, "input", (from, to) => (to.value = from.value), (first) => {
        const text = first.value.trim();
        return { value: text === "" ? undefined : type === "text" ? first.value : text, filled: text !== "" };
      });
    }
  }
}
