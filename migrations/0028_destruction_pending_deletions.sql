ALTER TABLE `vault_records` ADD `pending_deletions` text;--> statement-breakpoint
CREATE INDEX `vault_records_pending_deletions_idx` ON `vault_records` (`id`) WHERE pending_deletions IS NOT NULL;