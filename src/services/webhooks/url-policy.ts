import type { Env } from "../../env";
import { isDevelopment, refuseInProduction } from "../../lib/service-env";

/**
 * Where the service may POST webhooks (spec 4.10, docs/webhooks.md). Checked at create, at update and
 * again before every attempt, since the rules (or the policy) may have changed since the URL was
 * stored.
 *
 * The threat is server-side request forgery: a partner registering a URL that makes the service talk
 * to something that is not the partner's public server (loopback, the private network, a cloud
 * metadata service). The checks are on the URL as written; the Worker cannot resolve DNS before
 * `fetch`, so a public name that resolves to a private address is left to the platform's egress
 * (Workers' subrequests do not reach a private network of ours: there is none behind them).
 *
 * `public-https` (production): `https:` on port 443, a public DNS name or a public IP literal written
 * canonically. `allow-loopback` (local development and tests only) additionally admits exactly
 * `http://127.0.0.1:<port>` and `http://localhost:<port>`.
 *
 * WEBHOOK_URL_POLICY unset (or empty) means the deployment's default: `allow-loopback` in development
 * (SERVICE_ENV=development, which `npm run dev` writes), so a local receiver works with no setting to
 * find; `public-https` everywhere else. An explicit `public-https` is strict in development too.
 */
export type UrlPolicy = "public-https" | "allow-loopback";
export type UrlVerdict = { ok: true; url: URL } | { ok: false; reason: string };

export const MAX_URL_LENGTH = 2048;

/**
 * The policy a request registers URLs under. Anything but the exact opt-in value is the strict
 * policy: a typo must not open the door. The opt-in in production (SERVICE_ENV) is refused, 503
 * naming `WEBHOOK_URL_POLICY`, so the misconfiguration shows at the first endpoint written.
 */
export function urlPolicyOf(env: Pick<Env, "WEBHOOK_URL_POLICY" | "SERVICE_ENV">): UrlPolicy {
  if (unset(env)) return isDevelopment(env) ? "allow-loopback" : "public-https";
  if (env.WEBHOOK_URL_POLICY !== "allow-loopback") return "public-https";
  refuseInProduction(env, "WEBHOOK_URL_POLICY", "allow-loopback");
  return "allow-loopback";
}

/**
 * The policy a delivery is sent under: as {@link urlPolicyOf}, but with no request to answer, the
 * opt-in in production falls back to the strict policy (a loopback URL's attempt fails "URL not
 * allowed", recorded on the delivery) rather than throwing in the queue consumer.
 */
export function deliveryUrlPolicyOf(env: Pick<Env, "WEBHOOK_URL_POLICY" | "SERVICE_ENV">): UrlPolicy {
  return (unset(env) || env.WEBHOOK_URL_POLICY === "allow-loopback") && isDevelopment(env) ? "allow-loopback" : "public-https";
}

/** No policy chosen: the deployment's default applies (development: loopback allowed; production: strict). */
const unset = (env: Pick<Env, "WEBHOOK_URL_POLICY">) => env.WEBHOOK_URL_POLICY === undefined || (env.WEBHOOK_URL_POLICY as string) === "";

/** Suffixes that name private networks or the machine itself, never a partner's public server. */
const PRIVATE_SUFFIXES = ["localhost", "local", "internal", "intranet", "lan", "localdomain", "home.arpa", "home", "corp", "private"];
/** Cloud metadata services reachable by name (the addresses are caught by the ranges below). */
const METADATA_NAMES = new Set(["metadata.google.internal", "metadata.goog", "metadata.azure.internal", "instance-data.ec2.internal"]);

const refuse = (reason: string): UrlVerdict => ({ ok: false, reason });

export function checkWebhookUrl(raw: string, policy: UrlPolicy): UrlVerdict {
  if (raw.length > MAX_URL_LENGTH) return refuse(`the URL is longer than ${MAX_URL_LENGTH} characters`);
  // The WHATWG parser forgives whitespace, control characters and backslashes; forgiving them here
  // would let the host we check differ from the host someone reads.
  if (/[\s\u0000-\u001f\u007f\\]/.test(raw)) return refuse("the URL contains whitespace, control characters or backslashes");
  const authority = /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(raw)?.[1];
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return refuse("not a valid absolute URL");
  }
  if (authority === undefined) return refuse("not a valid absolute URL");
  if (authority.includes("@") || url.username !== "" || url.password !== "") return refuse("credentials (user:password@) are not allowed in the URL");

  const writtenHost = (authority.startsWith("[") ? authority.slice(0, authority.indexOf("]") + 1) : authority.replace(/:[^:]*$/, "")).toLowerCase();
  const host = url.hostname;

  if (policy === "allow-loopback" && url.protocol === "http:" && (host === "127.0.0.1" || host === "localhost") && writtenHost === host && url.port !== "") {
    return { ok: true, url };
  }
  if (url.protocol !== "https:") return refuse("only https URLs are allowed");
  if (url.port !== "") return refuse("only the default HTTPS port 443 is allowed");

  const reason = host.startsWith("[") ? ipv6Problem(host.slice(1, -1)) : isIpv4(host) ? ipv4Problem(host, writtenHost) : hostnameProblem(host);
  return reason ? refuse(reason) : { ok: true, url };
}

function hostnameProblem(host: string): string | null {
  const name = host.endsWith(".") ? host.slice(0, -1) : host;
  // "localhost.." or "metadata.google.internal.." would slip past the suffix checks below, and resolvers differ on what they mean.
  if (name.split(".").some((label) => label === "")) return "host names with an empty label (two dots in a row, or a leading dot) are not allowed";
  if (!name.includes(".")) return "single-label host names resolve inside private networks; use a public DNS name";
  if (METADATA_NAMES.has(name)) return "cloud metadata services are not allowed";
  const suffix = PRIVATE_SUFFIXES.find((s) => name === s || name.endsWith(`.${s}`));
  if (suffix) return `hosts under .${suffix} are private; use a public DNS name`;
  return null;
}

// --- IPv4 -----------------------------------------------------------------------------------------

const isIpv4 = (host: string) => /^\d{1,3}(\.\d{1,3}){3}$/.test(host);

/** [first address, prefix length, what it is] of every range that is not the public internet. */
const IPV4_BLOCKED: [string, number, string][] = [
  ["0.0.0.0", 8, "this-network"],
  ["10.0.0.0", 8, "private"],
  ["100.64.0.0", 10, "carrier-grade NAT (shared address space)"],
  ["127.0.0.0", 8, "loopback"],
  ["169.254.0.0", 16, "link-local (cloud metadata)"],
  ["172.16.0.0", 12, "private"],
  ["192.0.0.0", 24, "IETF protocol assignments"],
  ["192.0.2.0", 24, "documentation"],
  ["192.88.99.0", 24, "6to4 relay anycast"],
  ["192.168.0.0", 16, "private"],
  ["198.18.0.0", 15, "benchmarking"],
  ["198.51.100.0", 24, "documentation"],
  ["203.0.113.0", 24, "documentation"],
  ["224.0.0.0", 4, "multicast"],
  ["240.0.0.0", 4, "reserved"],
];

const ipv4ToInt = (ip: string) => ip.split(".").reduce((acc, part) => acc * 256 + Number(part), 0);

function ipv4Range(ip: number): string | null {
  for (const [base, bits, what] of IPV4_BLOCKED) {
    const size = 2 ** (32 - bits);
    const start = ipv4ToInt(base);
    if (ip >= start && ip < start + size) return what;
  }
  return null;
}

function ipv4Problem(host: string, written: string): string | null {
  // The URL parser turns 2130706433, 0x7f000001, 0177.0.0.1 and 127.1 into 127.0.0.1. Only the
  // canonical dotted-decimal form is accepted, so what a reviewer reads is what we connect to.
  if (written !== host && written !== `${host}.`) return "numeric host encodings (decimal, hex, octal or shortened) are not allowed; write the address as four decimal numbers";
  const range = ipv4Range(ipv4ToInt(host));
  return range ? `${range} addresses are not allowed` : null;
}

// --- IPv6 -----------------------------------------------------------------------------------------

/** The 8 16-bit groups of an IPv6 address as the URL parser serializes it (no embedded IPv4). */
function ipv6Groups(text: string): number[] | null {
  const halves = text.split("::");
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === "" ? [] : s.split(":").map((g) => parseInt(g, 16)));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  const fill = 8 - head.length - tail.length;
  if (fill < 0 || (halves.length === 1 && fill !== 0)) return null;
  const groups = [...head, ...Array<number>(fill).fill(0), ...tail];
  return groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

function ipv6Problem(text: string): string | null {
  const g = ipv6Groups(text);
  if (!g) return "not a valid IPv6 address";
  const [g0, g1] = [g[0]!, g[1]!];
  const zeros = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeros(8)) return "the unspecified address is not allowed";
  if (zeros(7) && g[7] === 1) return "loopback addresses are not allowed";
  if (zeros(5) && g[5] === 0xffff) return "IPv4-mapped IPv6 addresses are not allowed";
  if (zeros(6)) return "IPv4-compatible IPv6 addresses are not allowed";
  if (g0 === 0x64 && g1 === 0xff9b) return "NAT64 addresses embed IPv4 and are not allowed";
  if ((g0 & 0xfe00) === 0xfc00) return "unique local (fc00::/7) addresses are not allowed";
  if ((g0 & 0xffc0) === 0xfe80) return "link-local (fe80::/10) addresses are not allowed";
  if ((g0 & 0xffc0) === 0xfec0) return "site-local (fec0::/10) addresses are not allowed";
  if ((g0 & 0xff00) === 0xff00) return "multicast addresses are not allowed";
  if ((g0 & 0xe000) !== 0x2000) return "only global unicast (2000::/3) IPv6 addresses are allowed";
  if (g0 === 0x2001 && g1 === 0x0db8) return "documentation addresses are not allowed";
  if (g0 === 0x2001 && g1 === 0) return "Teredo addresses embed IPv4 and are not allowed";
  if (g0 === 0x2002) return "6to4 addresses embed IPv4 and are not allowed";
  return null;
}
