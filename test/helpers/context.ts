import { env } from "cloudflare:test";
import type { Env } from "../../src/env";
import { inOrg, onShard, onShardOf, systemContext, type OrgContext, type RequestContext } from "../../src/lib/context";
import { orgShardNumber } from "./shards";

/** The context a cron or queue run builds (system actor, no organization), over the test bindings. */
export const jobContext = (bindings: Env = env): RequestContext => systemContext(bindings, () => {});

/** A job's context working on shard `n` (a per-shard job's run, as the cron handler starts it for each shard). */
export const jobContextOn = (n: number, bindings: Env = env): RequestContext => onShard(jobContext(bindings), n, false);

/** A job's context on the shard the record `id` names (an envelope, event, delivery, vault record…). */
export const jobContextOf = (id: string, bindings: Env = env): RequestContext => onShardOf(jobContext(bindings), id);

/** A job's context on the organization's current shard (where its envelopes, events and deliveries created now are). */
export const jobContextOnOrg = async (orgId: string, bindings: Env = env): Promise<RequestContext> => jobContextOn(await orgShardNumber(orgId), bindings);

/** A system context acting in one organization, for calling an organization's verb directly. */
export const orgContext = (orgId: string): OrgContext => inOrg(jobContext(), orgId);

/**
 * The organization's context on its current shard, as its partner and console requests get it: for a
 * verb called directly that creates or reads shard rows. `orgContext` stays for verbs of global tables only.
 */
export const orgContextOn = async (orgId: string): Promise<OrgContext> => onShard(orgContext(orgId), await orgShardNumber(orgId), false);

/** The organization's context on the shard of the record `id` names, as a request naming that record in its path gets it. */
export const orgContextOf = (orgId: string, id: string): OrgContext => onShardOf(orgContext(orgId), id);
