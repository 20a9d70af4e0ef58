// Shards (docs/decisions/shards.md): the partner's create and status read with the organization on its first shard
// next to an organization on its second shard (created on shard 1, then moved to shard 2 by the
// operator, so its shard set spans both), timed one request at a time through wrangler dev, interleaved
// round by round with GET /health (the bare baseline) in the same run. Also the envelope list, which
// reads one shard for the first organization and merges two for the moved one.
import { api, timedRequest } from "./lib/dev-server.mjs";
import { fmt, log, newEnvelope, percentile, positiveInt } from "./lib/bench-util.mjs";

const ROUNDS = positiveInt("BENCH_SHARD_ROUNDS", 200);
const SCOPES = ["envelopes:read", "envelopes:write"];

const timed = timedRequest;

export async function shardsSection(ctx) {
  ctx.setPhase("shards");
  const op = { token: ctx.operatorToken };
  for (const n of [1, 2]) await api(ctx.base, "PATCH", `/operator/shards/${n}`, { ...op, body: { state: "open" } });
  const tenants = [];
  for (const [name, shard] of [["Bench Shard-1 Org", 1], ["Bench Moved Org", 2]]) {
    const org = await api(ctx.base, "POST", "/operator/orgs", { ...op, body: { name } });
    // both start on shard 1 (their first shard); the second is then moved to shard 2
    if (org.shard_id !== 1) await api(ctx.base, "PATCH", `/operator/orgs/${org.org_id}`, { ...op, body: { current_shard_id: 1 } });
    const key = await api(ctx.base, "POST", `/operator/orgs/${org.org_id}/api-keys`, { ...op, body: { scopes: SCOPES, rate_limit_rpm: 1_000_000 } });
    const first = await api(ctx.base, "POST", "/partner/envelopes", { apiKey: key.api_key, body: newEnvelope() });
    if (shard === 2) await api(ctx.base, "PATCH", `/operator/orgs/${org.org_id}`, { ...op, body: { current_shard_id: 2 } });
    const envelope = await api(ctx.base, "POST", "/partner/envelopes", { apiKey: key.api_key, body: newEnvelope() });
    tenants.push({ name, shard, key: key.api_key, envelopeId: envelope.envelope_id, firstShardEnvelopeId: first.envelope_id });
  }
  const [onFirst, moved] = tenants;
  if (!/^env_2_/.test(moved.envelopeId)) throw new Error(`the moved organization's new envelope is not on shard 2: ${moved.envelopeId}`);

  const failures = [];
  const samples = { health: [], create1: [], create2: [], status1: [], status2: [], statusOld: [], list1: [], list2: [] };
  log(`shards: ${ROUNDS} rounds of create, status read and list for an organization on shard 1 and one moved to shard 2, interleaved with GET /health`);
  for (let i = 0; i < ROUNDS && failures.length === 0; i++) {
    samples.health.push((await timed(ctx.base, "GET", `${ctx.base}/health`, null, undefined, failures)).ms);
    samples.create1.push((await timed(ctx.base, "POST", "/partner/envelopes", onFirst.key, newEnvelope(), failures)).ms);
    samples.create2.push((await timed(ctx.base, "POST", "/partner/envelopes", moved.key, newEnvelope(), failures)).ms);
    samples.status1.push((await timed(ctx.base, "GET", `/partner/envelopes/${onFirst.envelopeId}/status`, onFirst.key, undefined, failures)).ms);
    samples.status2.push((await timed(ctx.base, "GET", `/partner/envelopes/${moved.envelopeId}/status`, moved.key, undefined, failures)).ms);
    samples.statusOld.push((await timed(ctx.base, "GET", `/partner/envelopes/${moved.firstShardEnvelopeId}/status`, moved.key, undefined, failures)).ms);
    if (i % 4 === 0) {
      samples.list1.push((await timed(ctx.base, "GET", "/partner/envelopes?limit=20", onFirst.key, undefined, failures)).ms);
      samples.list2.push((await timed(ctx.base, "GET", "/partner/envelopes?limit=20", moved.key, undefined, failures)).ms);
    }
  }
  const row = (name, values) => [name, String(values.length), fmt(percentile(values, 0.5)), fmt(percentile(values, 0.99)), fmt(Math.max(...values))];
  return {
    title: `Shards: partner create and status read, organization on its first shard vs on its second (${ROUNDS} interleaved rounds, one request at a time, wrangler dev, local)`,
    columns: ["request", "n", "p50 ms", "p99 ms", "max ms"],
    rows: [
      row("GET /health (baseline, same rounds)", samples.health),
      row("POST /partner/envelopes, org on shard 1 (its first)", samples.create1),
      row("POST /partner/envelopes, org moved to shard 2 (its second)", samples.create2),
      row("GET /partner/envelopes/:id/status, shard 1", samples.status1),
      row("GET /partner/envelopes/:id/status, shard 2 (moved org's new envelope)", samples.status2),
      row("GET /partner/envelopes/:id/status, moved org's envelope left on shard 1", samples.statusOld),
      row("GET /partner/envelopes?limit=20, one shard", samples.list1),
      row("GET /partner/envelopes?limit=20, merged over two shards", samples.list2),
    ],
    notes: [
      "The status read finds its shard in the id's tag (env_2_…) and makes no global read; the create goes to the key's cached current shard, after one " +
        "round trip of parallel global reads (the organization's shard set, E-SIGN disclosure and live endpoints), then its one shard batch. " +
        "The list of the moved organization runs its query on both shards and merges them.",
    ],
    failures: failures.slice(0, 5),
  };
}
