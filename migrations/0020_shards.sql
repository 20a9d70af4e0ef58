CREATE TABLE `org_shards` (
	`org_id` text NOT NULL,
	`shard_id` integer NOT NULL,
	`reason` text NOT NULL,
	`first_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `shard_id`)
);
--> statement-breakpoint
CREATE TABLE `shards` (
	`id` integer PRIMARY KEY NOT NULL,
	`state` text NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
ALTER TABLE `organizations` ADD `current_shard_id` integer DEFAULT 1 NOT NULL;--> statement-breakpoint
INSERT OR IGNORE INTO `shards` (`id`, `state`, `created_at`, `updated_at`) VALUES (1, 'open', '2026-11-26T00:00:00.000Z', '2026-11-26T00:00:00.000Z');
