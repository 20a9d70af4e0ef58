// A bulk send ready to submit (organization, admin token, master template, customers, batch with items),
// shared by the bulk section of scripts/bench.mjs and the bulk flood of scripts/bench-webhooks.mjs.
import { api, fetchWithDeadline } from "./dev-server.mjs";
import { log, sleep } from "./bench-util.mjs";

/** POST /partner/templates with `fields_json`; the time it took, its status and body. */
export async function uploadTemplateTimed(ctx, bytes, fields) {
  const form = new FormData();
  form.append("file", new Blob([bytes], { type: "application/pdf" }), "template.pdf");
  form.append("name", "Bench template");
  if (fields) form.append("fields_json", JSON.stringify(fields));
  const started = performance.now();
  const res = await fetchWithDeadline(`${ctx.base}/api/v2/partner/templates`, { method: "POST", headers: { "x-api-key": ctx.apiKey }, body: form });
  return { ms: performance.now() - started, status: res.status, text: res.text };
}

/**
 * An organization `name` with an admin, a one-page master template (client signature + name) and `clients`
 * customers in a bulk batch, not submitted. `beforeItems(console_)` runs once the admin exists (the bulk
 * flood registers its webhook endpoints there). Returns the console caller, the batch and the organization.
 */
export async function prepareBulkBatch(ctx, { name, clients, beforeItems = async () => {} }) {
  const { PDFDocument, StandardFonts } = await import("pdf-lib");
  const op = { token: ctx.operatorToken };
  const org = await api(ctx.base, "POST", "/operator/orgs", { ...op, body: { name } });
  const key = await api(ctx.base, "POST", `/operator/orgs/${org.org_id}/api-keys`, { ...op, body: { scopes: ["envelopes:read", "envelopes:write"], rate_limit_rpm: 1_000_000 } });
  const user = await api(ctx.base, "POST", `/operator/orgs/${org.org_id}/users`, { ...op, body: { email: `bulk-sender-${org.org_id}@bench.example`, name: "Bench Sender", role: "admin" } });
  const { access_token: admin } = await api(ctx.base, "POST", `/operator/users/${user.user_id}/access-tokens`, { ...op, body: { org_id: org.org_id, ttl_seconds: 3600 } });
  const console_ = (method, path, body) => api(ctx.base, method, path, { token: admin, body });
  const doc = await PDFDocument.create();
  doc.addPage([612, 792]).drawText("Rate change addendum", { x: 72, y: 700, size: 14, font: await doc.embedFont(StandardFonts.Helvetica) });
  const area = (y) => ({ mode: "absolute", areas: [{ page: 1, x: 0.1, y, w: 0.3, h: 0.05 }] });
  const up = await uploadTemplateTimed({ ...ctx, apiKey: key.api_key }, await doc.save(), [
    { name: "client_signature", type: "signature", role: "client", required: true, placement: area(0.5) },
    { name: "customer_name", type: "text", role: "client", placement: area(0.3) },
  ]);
  if (up.status !== 200) throw new Error(`template upload answered ${up.status}: ${up.text}`);
  await beforeItems(console_);
  log(`bulk: creating ${clients} customers`);
  // a local workerd that restarts mid-request (seen on a loaded machine) loses that POST: create the client again under a fresh address
  const createClient = async (n, attempt = 0) => {
    try {
      return await api(ctx.base, "POST", `/operator/orgs/${org.org_id}/customers`, { ...op, body: { name: `Client ${n}`, email: `client${n}${attempt ? `-r${attempt}` : ""}@bench.example` } });
    } catch (err) {
      if (attempt >= 3 || !/answered 503: Your worker restarted/.test(String(err))) throw err;
      log(`bulk: worker restarted while creating client ${n}; creating it again`);
      await sleep(1000);
      return createClient(n, attempt + 1);
    }
  };
  const customers = [];
  for (let i = 0; i < clients; i += 25) {
    const chunk = Array.from({ length: Math.min(25, clients - i) }, (_, j) => i + j);
    customers.push(...(await Promise.all(chunk.map((n) => createClient(n)))).map((c) => c.customer_id));
  }
  const batch = await console_("POST", "/bulk-send", { name: "Rate change addendum", document_source: "template", source_template_id: JSON.parse(up.text).data.template_id });
  await console_("POST", "/esign/builder-session", { batch_id: batch.batch_id });
  await console_("POST", `/bulk-send/${batch.batch_id}/items`, { customer_ids: customers });
  return { org, admin, console_, batch };
}

/** Polls the batch every 250 ms until it ends (or `timeoutMs`); its last progress answer. */
export async function waitForBatch(console_, batchId, timeoutMs = 600_000) {
  const started = performance.now();
  for (;;) {
    const last = await console_("GET", `/bulk-send/${batchId}?limit=1`);
    if (["completed", "cancelled", "failed"].includes(last.batch.status) || performance.now() - started > timeoutMs) return last;
    await sleep(250);
  }
}
