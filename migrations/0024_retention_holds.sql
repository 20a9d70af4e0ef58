CREATE TABLE `vault_holds` (
	`id` text PRIMARY KEY NOT NULL,
	`vault_id` text NOT NULL,
	`envelope_id` text NOT NULL,
	`placed_by_org_id` text,
	`placed_by_actor_id` text,
	`reason` text NOT NULL,
	`reference` text,
	`placed_at` text NOT NULL,
	`released_at` text,
	`released_by_actor_id` text,
	FOREIGN KEY (`vault_id`) REFERENCES `vault_records`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `vault_holds_vault_idx` ON `vault_holds` (`vault_id`,`placed_at`);--> statement-breakpoint
ALTER TABLE `organizations` ADD `retain_years_after_close` integer DEFAULT 7 NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `auto_destroy` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `retention_updated_at` text;--> statement-breakpoint
ALTER TABLE `vault_records` ADD `retain_until` text;--> statement-breakpoint
ALTER TABLE `vault_records` ADD `destroyed_at` text;--> statement-breakpoint
ALTER TABLE `vault_records` ADD `destruction_certificate` text;--> statement-breakpoint
ALTER TABLE `vault_records` ADD `destruction_jws` text;--> statement-breakpoint
CREATE INDEX `vault_records_retain_idx` ON `vault_records` (`retain_until`);