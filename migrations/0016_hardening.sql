-- The auto-vault sweep walks completed envelopes only, in id order (src/jobs/auto-vault-sweep.ts).
CREATE INDEX `envelopes_completed_idx` ON `envelopes` (`id`) WHERE status = 'completed';--> statement-breakpoint
-- An organization's audit chain head and length beside it, as envelopes keep `audit_seq`: deleting
-- the chain's newest entries no longer leaves a chain that verifies.
ALTER TABLE `organizations` ADD `audit_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `audit_head_hash` text DEFAULT '0000000000000000000000000000000000000000000000000000000000000000' NOT NULL;--> statement-breakpoint
-- Existing organizations take the head their chain has now (what was deleted before this point stays undetectable).
UPDATE `organizations` SET
  `audit_seq` = COALESCE((SELECT a.seq FROM audit_log a WHERE a.chain_id = organizations.id ORDER BY a.seq DESC LIMIT 1), 0),
  `audit_head_hash` = COALESCE((SELECT a.hash FROM audit_log a WHERE a.chain_id = organizations.id ORDER BY a.seq DESC LIMIT 1), '0000000000000000000000000000000000000000000000000000000000000000');
--> statement-breakpoint
-- A signer's permanent slug is stored as its SHA-256 ("sha256:" + 64 hex), never raw, so a read of
-- the database hands out no signing power. SQLite cannot hash, so rows written before this change keep
-- their raw slug: the signer API finds them by the raw value (never one in the hashed form) and rewrites
-- it as its hash on first use (docs/decisions/signer-credentials.md).
ALTER TABLE `signers` RENAME COLUMN `slug` TO `slug_hash`;--> statement-breakpoint
DROP INDEX IF EXISTS `signers_slug_unique`;--> statement-breakpoint
CREATE UNIQUE INDEX `signers_slug_hash_unique` ON `signers` (`slug_hash`);
--> statement-breakpoint
-- KBA question sets: a lapsed set now uses an attempt, and a signer gets at most KBA_SETS_PER_DAY sets
-- in any rolling day, counted by start time (src/services/kba/daily-cap.ts).
CREATE INDEX `kba_sessions_signer_created_idx` ON `kba_sessions` (`signer_id`,`created_at`);
--> statement-breakpoint
-- An email's signing link is no longer stored in the clear (docs/decisions/email-links-at-rest.md):
-- `text`, `html` and `link_url` show it withheld (`…/s/[slug]`) and `link_sealed` holds it sealed
-- (AES-GCM under a key derived from EMBED_TOKEN_SECRET) until the email is delivered.
ALTER TABLE `email_outbox` ADD `link_sealed` text;--> statement-breakpoint
-- Rows written before this change hold the permanent link in the clear. SQLite cannot seal, so rows
-- that may still go out keep it (the retry job sends them as stored); rows that never will (delivered,
-- refused for good, given up, or queued under the outbox-only transport more than a day ago, past the
-- retry job's reach) are scrubbed now: the path segment after the link's `/s/` becomes `[slug]`
-- wherever the email shows it (signing links hold nothing that HTML escapes, so `html` carries the
-- link as written).
UPDATE `email_outbox` SET
  `text` = replace(`text`, `link_url`, substr(`link_url`, 1, instr(`link_url`, '/s/') + 2) || '[slug]'),
  `html` = replace(`html`, `link_url`, substr(`link_url`, 1, instr(`link_url`, '/s/') + 2) || '[slug]'),
  `link_url` = substr(`link_url`, 1, instr(`link_url`, '/s/') + 2) || '[slug]'
WHERE `link_url` IS NOT NULL AND `link_sealed` IS NULL AND instr(`link_url`, '/s/') > 0 AND `link_url` NOT LIKE '%/s/[slug]'
  AND (`status` = 'sent'
    OR (`status` = 'failed' AND `next_attempt_at` IS NULL)
    OR (`status` = 'queued' AND `created_at` < strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-1 day')));
