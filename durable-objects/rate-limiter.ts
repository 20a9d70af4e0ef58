import { DurableObject } from "cloudflare:workers";

/**
 * The bindings the limiter uses, declared here rather than imported from src/env.ts (which names this
 * class for RATE_LIMITER): the Worker's Env satisfies it, and the two files do not import each other.
 */
type LimiterEnv = { DB: D1Database };

/** What the limiter knows of its key: enough to authenticate a partner request without D1. */
export type KeyRecord = {
  keyId: string;
  orgId: string;
  scopes: string[];
  rateLimitRpm: number;
  active: boolean;
  /** the organization's current shard, where the key's creates go (docs/decisions/shards.md); a move pushes a fresh record */
  currentShardId: number;
  /** the row's `updated_at`: of two records for one key, the later one is the truth */
  version: string;
};

export type Admission =
  | { outcome: "invalid" }
  | {
      outcome: "admitted" | "limited";
      key: KeyRecord;
      limit: number;
      remaining: number;
      /** epoch seconds at which the current window ends */
      reset: number;
      /** whole seconds until the window ends (1..60) */
      retryAfter: number;
    };

const WINDOW_MS = 60_000;
const LAST_USED_FLUSH_MS = 60_000;
const LAST_USED_RESOLUTION_MS = 10_000;
/**
 * How long a cached key record is trusted: past it the next request reads D1 again, so a change whose
 * push was lost (an organization's shard move, a re-scope) reaches this instance within a minute.
 */
const RECORD_TTL_MS = 60_000;

type WindowState = { start: number; count: number };

/**
 * How many admissions one write of the window to storage covers: at most a twentieth of the limit, so
 * a limiter evicted mid-window refuses at most that many requests too early, and never admits one too
 * many. Limits under 40 a minute persist every admission, exactly as before.
 */
const reservationFor = (limit: number) => Math.max(1, Math.min(100, Math.floor(limit / 20)));

const sameRecord = (a: KeyRecord, b: KeyRecord) =>
  a.keyId === b.keyId && a.orgId === b.orgId && a.active === b.active && a.rateLimitRpm === b.rateLimitRpm && a.currentShardId === b.currentShardId && a.scopes.join(" ") === b.scopes.join(" ");

/**
 * One instance per API key (named by the key's SHA-256). It holds the key's record next to its
 * request counter, so admitting a partner request is a single round trip. Requests reach an
 * instance one at a time, which is what makes the count exact under concurrency.
 *
 * The window opens with the first request and lasts 60 s; `rate_limit_rpm` requests are admitted in
 * it. The counter lives in the object's storage, so an eviction mid-window does not reset it.
 * The key record is cached in memory only: D1 stays the truth, the operator calls push changes here
 * (`refresh`), and a cold instance reloads from D1.
 */
export class RateLimiter extends DurableObject<LimiterEnv> {
  private record: KeyRecord | null | undefined;
  /** set by `refresh(null)`: this hash was rotated away, and no late record brings it back */
  private forgotten = false;
  private window: WindowState | null = null;
  /** the count the stored window holds for the current window: never below the admissions made in it */
  private reserved = 0;
  private lastUsedWrittenAt = 0;
  /** when the cached record was last read from D1 or pushed */
  private recordAt = 0;

  async admit(keyHash: string): Promise<Admission> {
    const key = await this.load(keyHash);
    if (!key || !key.active) return { outcome: "invalid" };

    const now = Date.now();
    let window = this.window;
    if (!window) {
      // A cold instance resumes from the stored reservation: at least as many as were admitted.
      window = this.window = this.ctx.storage.kv.get<WindowState>("window") ?? null;
      this.reserved = window?.count ?? 0;
    }
    if (!window || now - window.start >= WINDOW_MS) {
      window = this.window = { start: now, count: 0 };
      this.reserved = 0;
    }
    const limit = key.rateLimitRpm;
    const reset = Math.ceil((window.start + WINDOW_MS) / 1000);
    const retryAfter = Math.max(1, Math.ceil((window.start + WINDOW_MS - now) / 1000));
    if (window.count >= limit) return { outcome: "limited", key, limit, remaining: 0, reset, retryAfter };
    window.count += 1;
    // The count is decided in memory (requests arrive one at a time). Storage holds a reservation ahead
    // of it (reservationFor), written when the count passes it: one write per batch of admissions, not
    // per request, and after an eviction mid-window the count resumes from the reservation, so the
    // limit still holds. The write must not hold the response back: it is not awaited for confirmation.
    if (window.count > this.reserved) {
      this.reserved = Math.min(limit, window.count + reservationFor(limit) - 1);
      void this.ctx.storage.put("window", { start: window.start, count: this.reserved }, { allowUnconfirmed: true });
    }
    this.touch(key.keyId, now);
    return { outcome: "admitted", key, limit, remaining: Math.max(0, limit - window.count), reset, retryAfter };
  }

  /** Called by the operator API after it changed the key in D1 (scopes, limit, active, rotation). */
  async refresh(record: KeyRecord | null): Promise<void> {
    if (record === null) {
      this.forgotten = true;
      this.record = null;
      return;
    }
    this.record = this.newer(this.record, record);
    this.recordAt = Date.now();
  }

  /**
   * Versioned: two operator changes can push their records in either order, and a cold load's D1 read
   * can return after a refresh that followed a later change. The record with the later `updated_at`
   * wins; a forgotten (rotated-away) hash stays forgotten. Two different records of the same
   * millisecond cannot be ordered (say a scope change and a deactivation in one millisecond, the
   * record read between them arriving last): then neither is kept (undefined), and the next request
   * reads D1, which both changes had committed before either record was sent.
   */
  private newer(current: KeyRecord | null | undefined, incoming: KeyRecord | null): KeyRecord | null | undefined {
    if (this.forgotten) return null;
    if (!current) return incoming ?? current ?? null;
    if (!incoming) return current;
    if (incoming.version !== current.version) return incoming.version > current.version ? incoming : current;
    return sameRecord(incoming, current) ? incoming : undefined;
  }

  override async alarm(): Promise<void> {
    await this.flushLastUsed();
  }

  private async load(keyHash: string): Promise<KeyRecord | null> {
    if (this.record !== undefined && !this.forgotten && Date.now() - this.recordAt >= RECORD_TTL_MS) {
      // Stale: D1 is the truth. A key no longer found under this hash (rotated, push lost) is gone;
      // otherwise the later version wins as with a push (a tie of two different records reads again).
      const loaded = await this.read(keyHash);
      this.recordAt = Date.now();
      this.record = this.forgotten || loaded === null ? null : this.newer(this.record, loaded);
    }
    // Twice at most: a second read follows a tie with a refresh (newer), and is after both changes.
    for (let read = 1; ; read++) {
      if (this.record !== undefined) return this.record;
      const loaded = await this.read(keyHash);
      this.recordAt = Date.now();
      // D1 is read outside the input gate: a refresh (a deactivation, a rotation) may have arrived
      // meanwhile, and is at least as new as what was read.
      this.record = this.record === undefined && !this.forgotten ? loaded : this.newer(this.record, loaded);
      if (this.record === undefined && read >= 2) return (this.record = loaded);
    }
  }

  private async read(keyHash: string): Promise<KeyRecord | null> {
    const row = await this.env.DB.prepare(
      "SELECT k.id, k.org_id, k.scopes, k.rate_limit_rpm, k.active, k.updated_at, (SELECT o.current_shard_id FROM organizations o WHERE o.id = k.org_id) AS current_shard_id FROM api_keys k WHERE k.key_hash = ?",
    )
      .bind(keyHash)
      .first<{ id: string; org_id: string; scopes: string; rate_limit_rpm: number; active: number; updated_at: string; current_shard_id: number | null }>();
    return row
      ? {
          keyId: row.id,
          orgId: row.org_id,
          scopes: JSON.parse(row.scopes) as string[],
          rateLimitRpm: row.rate_limit_rpm,
          active: row.active === 1,
          currentShardId: row.current_shard_id ?? 1,
          version: row.updated_at,
        }
      : null;
  }

  /**
   * `last_used_at` is written to D1 at most once a minute, from an alarm, never per request. The
   * pending value sits in the object's storage (refreshed at most every 10 s) so an eviction before
   * the alarm loses nothing worth keeping.
   */
  private touch(keyId: string, now: number): void {
    if (now - this.lastUsedWrittenAt < LAST_USED_RESOLUTION_MS) return;
    this.lastUsedWrittenAt = now;
    const pending = this.ctx.storage.kv.get<{ keyId: string; at: string }>("lastUsed");
    this.ctx.storage.kv.put("lastUsed", { keyId, at: new Date(now).toISOString() });
    if (!pending) void this.ctx.storage.setAlarm(now + LAST_USED_FLUSH_MS);
  }

  private async flushLastUsed(): Promise<void> {
    const pending = this.ctx.storage.kv.get<{ keyId: string; at: string }>("lastUsed");
    if (!pending) return;
    await this.env.DB.prepare(
      "UPDATE api_keys SET last_used_at = ? WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)",
    )
      .bind(pending.at, pending.keyId, pending.at)
      .run();
    const now = this.ctx.storage.kv.get<{ keyId: string; at: string }>("lastUsed");
    if (now && now.at !== pending.at) await this.ctx.storage.setAlarm(Date.now() + LAST_USED_FLUSH_MS);
    else this.ctx.storage.kv.delete("lastUsed");
  }

  /** Test and operator hook: write `last_used_at` now instead of waiting for the alarm. */
  async flush(): Promise<void> {
    await this.flushLastUsed();
  }
}

export function rateLimiterFor(env: { RATE_LIMITER: DurableObjectNamespace<RateLimiter> }, keyHash: string) {
  return env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(keyHash));
}
