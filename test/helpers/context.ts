import { env } from "cloudflare:test";
import type { Env } from "../../src/env";
import { inOrg, systemContext, type OrgContext, type RequestContext } from "../../src/lib/context";

/** The context a cron or queue run builds (system actor, no organization), over the test bindings. */
export const jobContext = (bindings: Env = env): RequestContext => systemContext(bindings, () => {});

/** A system context acting in one organization, for calling an organization's verb directly. */
export const orgContext = (orgId: string): OrgContext => inOrg(jobContext(), orgId);
