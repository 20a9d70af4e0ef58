import { SELF } from "cloudflare:test";
import { expect, it } from "vitest";
import snapshot from "../../packages/sdk/openapi.json";

// The SDK's types are generated from a committed copy of the OpenAPI document. When the routes change,
// this fails and prints the live document between markers; `npm run sdk:generate` runs this file, keeps
// what it printed as packages/sdk/openapi.json and regenerates packages/sdk/src/schema.d.ts.
it("the SDK's OpenAPI snapshot is the document the Worker serves (else: npm run sdk:generate)", async () => {
  const res = await SELF.fetch("http://localhost/api/v2/openapi.json");
  expect(res.status).toBe(200);
  const live = await res.json();
  const current = JSON.stringify(live) === JSON.stringify(snapshot);
  if (!current) console.log(`@@OPENAPI-BEGIN@@${JSON.stringify(live)}@@OPENAPI-END@@`);
  expect(current, "packages/sdk/openapi.json differs from the live document: run `npm run sdk:generate`").toBe(true);
});
