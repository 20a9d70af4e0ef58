import { z } from "@hono/zod-openapi";
import { onShardOf, type RequestContext } from "../../lib/context";
import { getPageSettingsOfOrg } from "../organizations/repository";
import { findRecordOwnerAndLocale } from "../envelopes/repository";
import type { Locale } from "../../db/schema/locales";

/**
 * Which partner sites may show the signing page and the widgets in an iframe: the organization's
 * list of origins, sent as CSP `frame-ancestors` on the HTML pages. Without one, only the embed host
 * itself may frame them (`'self'`), so a page cannot be framed by a site nobody allowed (clickjacking).
 */
export const FRAME_ANCESTORS_LIMIT = 20;

/** An origin as stored: lowercase scheme and host, an optional `*.` subdomain wildcard and port, nothing else. */
const STORED_ORIGIN = /^https?:\/\/(\*\.)?[a-z0-9-]+(\.[a-z0-9-]+)*(:\d{1,5})?$/;
const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1"]);
const HOSTNAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

export type OriginCheck = { ok: true; origin: string } | { ok: false; reason: string };

/**
 * Reads one entry as a CSP host-source that names exactly one site: `scheme://host[:port]`, an
 * optional trailing `/`, no path, query, fragment or credentials, `*` only as a leading `*.` label
 * (as CSP allows; not on an IP address, and above at least two labels, so `*.com` is refused).
 * `https:` is required; `http:` only for `localhost` and `127.0.0.1` (local development and the
 * browser tests). Returns the normalized form: lowercase, punycode host, default port dropped.
 */
export function normalizeOrigin(input: string): OriginCheck {
  const raw = input.trim();
  const parts = /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([^/?#\s]+)\/?$/.exec(raw);
  if (!parts) return { ok: false, reason: "must be a bare origin such as https://app.example.com (no path, query or fragment)" };
  const scheme = parts[1]!.toLowerCase();
  let authority = parts[2]!;
  if (scheme !== "https" && scheme !== "http") return { ok: false, reason: "must use https:" };
  if (authority.includes("@")) return { ok: false, reason: "must not contain credentials" };
  const wildcard = authority.startsWith("*.");
  if (wildcard) authority = authority.slice(2);
  if (authority.includes("*")) return { ok: false, reason: "may use * only as a leading *. subdomain label" };
  let url: URL;
  try {
    url = new URL(`${scheme}://${authority}`);
  } catch {
    return { ok: false, reason: "is not a valid origin" };
  }
  if (url.pathname !== "/" || url.search || url.hash || url.username || url.password) {
    return { ok: false, reason: "must be a bare origin such as https://app.example.com (no path, query or fragment)" };
  }
  const host = url.hostname;
  if (!HOSTNAME.test(host)) return { ok: false, reason: "must name a host by DNS name or IPv4 address" };
  const isIp = /^\d+(\.\d+){3}$/.test(host);
  if (wildcard && (isIp || host.split(".").length < 2)) return { ok: false, reason: "may put *. only in front of a domain of at least two labels" };
  if (scheme === "http" && (wildcard || !LOOPBACK_HOSTS.has(host))) {
    return { ok: false, reason: "must use https: (http: only for localhost and 127.0.0.1)" };
  }
  const origin = `${scheme}://${wildcard ? "*." : ""}${host}${url.port ? `:${url.port}` : ""}`;
  return STORED_ORIGIN.test(origin) ? { ok: true, origin } : { ok: false, reason: "is not a valid origin" };
}

/** Request schema of an origin list: each entry checked (422 at its index), at most 20. */
export const FrameAncestorsInput = z
  .array(
    z
      .string()
      .max(300)
      .superRefine((value, ctx) => {
        const check = normalizeOrigin(value);
        if (!check.ok) ctx.addIssue({ code: "custom", message: `${JSON.stringify(value)} ${check.reason}` });
      }),
  )
  .max(FRAME_ANCESTORS_LIMIT)
  .openapi({
    description: `Origins allowed to frame the signing page and widgets (CSP \`frame-ancestors\`): at most ${FRAME_ANCESTORS_LIMIT}, each \`https://host[:port]\` (a leading \`*.\` subdomain wildcard allowed; \`http:\` only for localhost and 127.0.0.1). Stored lowercase without a trailing slash, duplicates dropped.`,
    example: ["https://dealer.example.com", "https://*.partner.example"],
  });

/** Normalizes and de-duplicates a list that passed `FrameAncestorsInput` (first occurrence kept). */
export function normalizeOrigins(origins: string[]): string[] {
  const out: string[] = [];
  for (const value of origins) {
    const check = normalizeOrigin(value);
    if (check.ok && !out.includes(check.origin)) out.push(check.origin);
  }
  return out;
}

/** The column value for a normalized list: NULL for none, so "no origins" has one representation. */
export const storedOrigins = (origins: string[]): string | null => (origins.length ? JSON.stringify(origins) : null);

/** The stored column (JSON text) as a list; anything unreadable counts as none. */
export function parseStoredOrigins(column: string | null | undefined): string[] {
  if (!column) return [];
  try {
    const value: unknown = JSON.parse(column);
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}

/** What a page's HTML needs of the record its URL names, before its script runs. */
export type PageFacts = {
  /** the origins the record's organization allows to frame its pages */
  frameAncestors: string[];
  /** the envelope's language (a signer's link, the signing widget) */
  envelopeLocale: Locale;
  /** the organization's default language (the vault widget, until its script reads the session) */
  orgLocale: Locale;
};

const NO_RECORD: PageFacts = { frameAncestors: [], envelopeLocale: "en", orgLocale: "en" };

/**
 * PageFacts of an envelope (or a signer's envelope), in two reads whatever the page: the record's
 * organization and language on the record's shard (its id names it), then that organization's origins
 * and default language from the global database; never one statement across databases. An unknown
 * envelope or signer gets no origins and English. No tenant check: the origins are only ever sent back
 * as a CSP header, which the organization publishes to every framing site anyway.
 */
export async function pageFacts(ctx: RequestContext, ref: { envelopeId: string } | { signerId: string }): Promise<PageFacts> {
  const owner = await findRecordOwnerAndLocale(onShardOf(ctx, "envelopeId" in ref ? ref.envelopeId : ref.signerId).db, ref);
  if (!owner) return NO_RECORD;
  const org = await getPageSettingsOfOrg(ctx.global, owner.org_id);
  return {
    frameAncestors: parseStoredOrigins(org?.origins),
    envelopeLocale: owner.locale === "es" ? "es" : "en",
    orgLocale: org?.default_locale === "es" ? "es" : "en",
  };
}

/** The origins an envelope's (or a signer's) organization allows to frame its pages; [] when unknown or none. */
export const frameAncestorsFor = async (ctx: RequestContext, ref: { envelopeId: string } | { signerId: string }): Promise<string[]> => (await pageFacts(ctx, ref)).frameAncestors;

/**
 * The CSP directive for a page: `frame-ancestors 'self' <origins…>`. Each origin is re-checked
 * against the stored form, so a value that is not one (a hand-edited row, say) can never add a
 * directive or a source to the policy; it is left out.
 */
export function frameAncestorsCsp(origins: string[]): string {
  return ["frame-ancestors", "'self'", ...origins.filter((o) => STORED_ORIGIN.test(o))].join(" ");
}
