CREATE TABLE `vault_pools` (
	`id` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`from_org_id` text NOT NULL,
	`to_org_id` text NOT NULL,
	`status` text NOT NULL,
	`reference` text,
	`count` integer NOT NULL,
	`manifest_sha256` text NOT NULL,
	`shards` text NOT NULL,
	`offer_signature` text,
	`answer_signature` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`settled_at` text,
	`completed_at` text,
	`released_at` text
);
--> statement-breakpoint
CREATE INDEX `vault_pools_status_idx` ON `vault_pools` (`status`,`expires_at`);--> statement-breakpoint
CREATE INDEX `vault_pools_from_idx` ON `vault_pools` (`from_org_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `vault_pools_to_idx` ON `vault_pools` (`to_org_id`,`created_at`);--> statement-breakpoint
ALTER TABLE `vault_transfers` ADD `pool_id` text;--> statement-breakpoint
CREATE INDEX `vault_transfers_pool_idx` ON `vault_transfers` (`pool_id`,`status`);