import { env } from "cloudflare:test";
import fc from "fast-check";
import { uploadPaths } from "../helpers/upload-paths";
import { describe, expect, it } from "vitest";
import { assertWithinDecodeBudget } from "../../src/pdf";
import { bombCase, bombPdf, type BombCase } from "../helpers/pdf-bomb-grammar";

/**
 * The decode budget against a grammar of obfuscated bombs (test/helpers/pdf-bomb-grammar.ts): comments
 * and odd whitespace between tokens, `#`-escaped and abbreviated filter names, filters by reference, in
 * arrays and inside object streams, wrong or indirect /Length, strings holding `obj`, `<<` and
 * `endstream`, `(obj)` after `/Type /ObjStm`, `/Subtype /Image` lies, dictionaries over 64 KB, xref
 * tables, xref streams or none, LZW, RunLength and text wrappers over Flate, all combined. A bounded
 * number of cases here (each bomb decodes 16 MiB before it is refused); `npm run fuzz:pdf` runs 10,000.
 */

const MiB = 1024 * 1024;
const refusedWithShape = (status: number, body: { error?: unknown; details?: unknown }) => {
  expect([413, 422]).toContain(status);
  expect(typeof body.error).toBe("string");
  if (status === 413) expect(body.details).toMatchObject({ decoded_limit_bytes: expect.any(Number) });
};

async function verdict(c: BombCase): Promise<number> {
  try {
    await assertWithinDecodeBudget(bombPdf(c));
    return 200;
  } catch (err) {
    return (err as { status?: number }).status ?? 500;
  }
}


const stored = async (orgId: string) => [
  ...(await env.DOCS.list({ prefix: `documents/${orgId}/` })).objects,
  ...(await env.DOCS.list({ prefix: `vault/${orgId}/` })).objects,
];

describe("generated PDF bombs are refused, and the same obfuscations around small streams pass", () => {
  it("the budget check refuses every generated bomb (413 or 422)", async () => {
    await fc.assert(
      fc.asyncProperty(bombCase(false), async (c) => {
        expect({ c, status: await verdict(c) }).toMatchObject({ status: expect.toBeOneOf([413, 422]) });
      }),
      { numRuns: 5 },
    );
  }, 120_000);

  it("the budget check passes every benign file of the same obfuscations", async () => {
    await fc.assert(
      fc.asyncProperty(bombCase(true), async (c) => {
        expect({ c, status: await verdict(c) }).toEqual({ c, status: 200 });
      }),
      { numRuns: 25 },
    );
  }, 120_000);

  it("through every upload path in turn: bombs refused in the error shape with nothing stored, benign files uploaded", async () => {
    const { orgId, paths } = await uploadPaths();
    const names = Object.keys(paths);
    let turn = 0;
    // one path per case, in turn (each bomb costs ~16 MiB of decoding): every path meets a generated bomb
    await fc.assert(
      fc.asyncProperty(bombCase(false), bombCase(true), async (bomb, benign) => {
        const pathName = names[turn++ % names.length]!;
        const file = bombPdf(bomb);
        expect(file.length).toBeLessThan(4 * MiB);
        const res = await paths[pathName]!(file);
        expect({ pathName, bomb, status: res.status }).toMatchObject({ status: expect.toBeOneOf([413, 422]) });
        refusedWithShape(res.status, res.body);
        expect(await stored(orgId)).toEqual([]);
        const ok = await paths["POST /partner/templates"]!(bombPdf(benign));
        expect({ benign, status: ok.status, body: ok.status === 200 ? null : ok.body }).toEqual({ benign, status: 200, body: null });
        await env.DOCS.delete((await stored(orgId)).map((o) => o.key));
      }),
      { numRuns: 4 },
    );
  }, 120_000);
});
