import { describe, expect, it } from "vitest";
import { pruneWebhookAttempts } from "../../src/jobs/prune-webhook-attempts";
import { deliverWebhook } from "../../src/services/webhooks/deliver";
import { fanOutEvent } from "../../src/services/webhooks/fan-out";
import { call } from "../helpers/api";
import { attemptsOf, deliveriesOf, insertEvent, tenantWithEndpoint } from "../helpers/webhooks";
import { jobContextOf, jobContextOnOrg } from "../helpers/context";
import { shardDbOf } from "../helpers/shards";

const DAY = 86_400_000;

async function backdate(deliveryId: string, iso: string) {
  await shardDbOf(deliveryId).prepare("UPDATE webhook_attempts SET attempted_at = ? WHERE delivery_id = ?").bind(iso, deliveryId).run();
}

describe("webhook attempt log retention", () => {
  it("drops the per-attempt detail of settled deliveries after 30 days and keeps the deliveries themselves", async () => {
    const { t, token, ep } = await tenantWithEndpoint("ok");
    const now = new Date();
    const [oldId] = await fanOutEvent(await jobContextOnOrg(t.orgId), { eventId: await insertEvent(t.orgId), now });
    const [youngId] = await fanOutEvent(await jobContextOnOrg(t.orgId), { eventId: await insertEvent(t.orgId), now });
    await deliverWebhook(jobContextOf(oldId!), { deliveryId: oldId! });
    await deliverWebhook(jobContextOf(youngId!), { deliveryId: youngId! });
    await backdate(oldId!, new Date(now.getTime() - 31 * DAY).toISOString());
    await backdate(youngId!, new Date(now.getTime() - 29 * DAY).toISOString());

    const { deleted } = await pruneWebhookAttempts(await jobContextOnOrg(t.orgId), now);
    expect(deleted).toBeGreaterThanOrEqual(1);
    expect(await attemptsOf(oldId!)).toHaveLength(0);
    expect(await attemptsOf(youngId!)).toHaveLength(1);

    // the partner still sees both deliveries, settled, and can read the pruned one
    const deliveries = await deliveriesOf(ep.endpoint_id);
    expect(deliveries.map((d) => d.status).sort()).toEqual(["succeeded", "succeeded"]);
    const detail = await call("GET", `/webhooks/deliveries/${oldId}`, { bearer: token, headers: { "X-Org-Id": t.orgId } });
    expect(detail.status).toBe(200);
    expect(detail.body.data).toMatchObject({ delivery_id: oldId, status: "succeeded", attempts: 1 });
  });

  it("keeps the attempts of a delivery still being retried, however old", async () => {
    const { t, ep } = await tenantWithEndpoint("fail");
    const now = new Date();
    const [id] = await fanOutEvent(await jobContextOnOrg(t.orgId), { eventId: await insertEvent(t.orgId), now });
    await deliverWebhook(jobContextOf(id!), { deliveryId: id! });
    await backdate(id!, new Date(now.getTime() - 40 * DAY).toISOString());
    expect((await deliveriesOf(ep.endpoint_id))[0]!.status).toBe("pending");
    await pruneWebhookAttempts(await jobContextOnOrg(t.orgId), now);
    expect(await attemptsOf(id!)).toHaveLength(1);
  });

  it("a minute with nothing past retention costs no reads of the attempt log, however long it is", async () => {
    const { t } = await tenantWithEndpoint("ok");
    const now = new Date();
    const young = 60;
    for (let i = 0; i < young; i++) {
      const [id] = await fanOutEvent(await jobContextOnOrg(t.orgId), { eventId: await insertEvent(t.orgId), now });
      await deliverWebhook(jobContextOf(id!), { deliveryId: id! });
    }
    const { deleted, rowsRead } = await pruneWebhookAttempts(await jobContextOnOrg(t.orgId), now);
    expect(deleted).toBe(0);
    // walking the whole log in id order read every young attempt; the age index reads none of them
    expect(rowsRead).toBeLessThan(young);
  });
});
