import { sha256Hex } from "../../lib/crypto";
import { randomHex } from "../../lib/ids";
import { newShardSlug } from "../../lib/shards";

/** Marks a stored slug as hashed; a raw slug (base64url) never contains `:`. */
export const SLUG_HASH_PREFIX = "sha256:";

/**
 * A fresh permanent slug: it exists only in the invitation that carries it. 16 bytes (128 bits) from
 * the CSPRNG after the number of the signer's shard (`2_…`, docs/decisions/shards.md 2), so
 * `/signing/{slug}` reads that shard with no lookup (middleware/record-shard.ts).
 */
export const newSlug = (shard: number) => newShardSlug(shard);

/**
 * What `signers.slug_hash` stores for `slug`. Plain SHA-256 is enough: a slug has 128 random bits,
 * so there is nothing to guess and no need for a key (that a leaked key would make worthless).
 */
export async function hashSlug(slug: string): Promise<string> {
  return SLUG_HASH_PREFIX + (await sha256Hex(slug));
}

/**
 * The stored value of a signer no invitation has reached yet (a later routing order, a send without
 * email): 256 random bits in the hashed form, a hash of no slug anyone holds. The invitation replaces
 * it with the hash of the slug it carries.
 */
export const unissuedSlugHash = () => SLUG_HASH_PREFIX + randomHex(32);
