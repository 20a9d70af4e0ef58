import { describe, expect, it } from "vitest";
import { ApiError } from "../../../src/lib/errors";
import { acceptValues, MAX_SIGNATURE_PNG_BYTES } from "../../../src/services/signing/field-values";
import type { EnvelopeFieldRow } from "../../../src/services/signing/repository";
import { TINY_PNG } from "../../helpers/signing-flow";

const field = (name: string, type: string, extra: Partial<EnvelopeFieldRow> = {}): EnvelopeFieldRow => ({
  seq: 1,
  name,
  type,
  role: "buyer",
  required: 0,
  readonly: 0,
  default_value: null,
  options: null,
  areas: "[]",
  value: null,
  ...extra,
});

function refused(fields: EnvelopeFieldRow[], values: Record<string, unknown>): { message: string; details: { path: string[]; code: string }[] } {
  try {
    acceptValues(fields, values as never);
  } catch (err) {
    if (err instanceof ApiError && err.status === 422) return { message: err.message, details: err.details as never };
    throw err;
  }
  throw new Error("accepted");
}

describe("signer values by field type", () => {
  it("accepts each type in its form and stores it as text", () => {
    const fields = [field("sig", "signature"), field("ini", "initials"), field("d", "date"), field("n", "number"), field("c", "checkbox"), field("s", "select", { options: JSON.stringify(["monthly", "yearly"]) }), field("t", "text")];
    const accepted = acceptValues(fields, { sig: TINY_PNG, ini: "AB", d: "2026-01-31", n: "12.5", c: true, s: "monthly", t: "hello" });
    expect(accepted.map((a) => [a.field.name, a.stored])).toEqual([
      ["sig", ""],
      ["ini", JSON.stringify({ typed: "AB" })],
      ["d", "2026-01-31"],
      ["n", "12.5"],
      ["c", "true"],
      ["s", "monthly"],
      ["t", "hello"],
    ]);
    expect(accepted[0]!.png![0]).toBe(0x89);
  });

  it("refuses malformed values, naming each field", () => {
    const fields = [field("d", "date"), field("n", "number"), field("c", "checkbox"), field("sig", "signature")];
    const r = refused(fields, { d: "31/01/2026", n: "many", c: "yes", sig: "data:image/jpeg;base64,AAAA" });
    expect(r.details.map((d) => d.path.join("."))).toEqual(["values.d", "values.n", "values.c", "values.sig"]);
  });

  it("refuses a drawn signature that is not a PNG or is larger than the 512 KiB cap", () => {
    const fields = [field("sig", "signature")];
    expect(refused(fields, { sig: `data:image/png;base64,${btoa("GIF89a not a png at all, really not")}` }).details[0]!.path).toEqual(["values", "sig"]);
    const big = new Uint8Array(MAX_SIGNATURE_PNG_BYTES + 10);
    big.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    let binary = "";
    for (let i = 0; i < big.length; i += 0x8000) binary += String.fromCharCode(...big.subarray(i, i + 0x8000));
    expect(JSON.stringify(refused(fields, { sig: `data:image/png;base64,${btoa(binary)}` }))).toContain("larger than");
  });

  it("lists every required field left empty; a required checkbox must be ticked; prefilled values count", () => {
    const fields = [field("a", "text", { required: 1 }), field("b", "checkbox", { required: 1 }), field("c", "text", { required: 1, value: "prefilled" })];
    const r = refused(fields, { b: false });
    expect(r.message).toBe("Required fields are not filled: a, b");
    expect(acceptValues(fields, { a: "x", b: true }).map((x) => [x.field.name, x.stored])).toEqual([["a", "x"], ["b", "true"], ["c", "prefilled"]]);
  });

  it("keeps readonly values: the same value or none is fine, another is refused", () => {
    const fields = [field("vin", "text", { readonly: 1, value: "VIN1", default_value: "VIN1" })];
    expect(acceptValues(fields, {})).toEqual([]);
    expect(acceptValues(fields, { vin: "VIN1" })).toEqual([]);
    expect(refused(fields, { vin: "VIN2" }).details[0]!.code).toBe("readonly");
  });
});

describe("select and radio values", () => {
  const plan = field("plan", "select", { options: JSON.stringify(["Monthly", "Yearly"]) });
  const term = field("term", "radio", { options: JSON.stringify(["12 months", "24 months"]), required: 1 });

  it("accept one of the field's options, exactly as listed", () => {
    expect(acceptValues([plan, term], { plan: "Yearly", term: "24 months" }).map((a) => [a.field.name, a.stored])).toEqual([
      ["plan", "Yearly"],
      ["term", "24 months"],
    ]);
  });

  it("refuse anything else with invalid_value naming the field and listing its options", () => {
    const r = refused([plan, term], { plan: "yearly", term: 24 });
    expect(r.message).toBe("Validation failed");
    expect(r.details).toEqual([
      { path: ["values", "plan"], code: "invalid_value", message: "plan must be one of its options: Monthly, Yearly" },
      { path: ["values", "term"], code: "invalid_value", message: "term must be one of its options: 12 months, 24 months" },
    ]);
  });

  it("keep the required rule: a required radio left empty is listed as not filled", () => {
    expect(refused([plan, term], { plan: "Monthly", term: "" }).message).toBe("Required fields are not filled: term");
  });

  it("of fields placed before options existed take any text, as before", () => {
    expect(acceptValues([field("legacy", "radio")], { legacy: "anything" })[0]!.stored).toBe("anything");
  });
});

