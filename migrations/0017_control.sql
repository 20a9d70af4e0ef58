CREATE TABLE `control_keys` (
	`org_id` text NOT NULL,
	`kid` text NOT NULL,
	`alg` text NOT NULL,
	`jwk` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `kid`)
);
--> statement-breakpoint
CREATE TABLE `vault_transfers` (
	`id` text PRIMARY KEY NOT NULL,
	`vault_id` text NOT NULL,
	`envelope_id` text NOT NULL,
	`kind` text NOT NULL,
	`from_org_id` text NOT NULL,
	`to_org_id` text NOT NULL,
	`status` text NOT NULL,
	`reference` text,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`settled_at` text,
	FOREIGN KEY (`vault_id`) REFERENCES `vault_records`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vault_transfers_pending_uq` ON `vault_transfers` (`vault_id`) WHERE status = 'pending';--> statement-breakpoint
CREATE INDEX `vault_transfers_to_idx` ON `vault_transfers` (`to_org_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `vault_transfers_from_idx` ON `vault_transfers` (`from_org_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `vault_transfers_expiry_idx` ON `vault_transfers` (`status`,`expires_at`);--> statement-breakpoint
ALTER TABLE `vault_records` ADD `controller_org_id` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `vault_records` ADD `pledgor_org_id` text;--> statement-breakpoint
ALTER TABLE `vault_records` ADD `control_status` text DEFAULT 'active' NOT NULL;--> statement-breakpoint
ALTER TABLE `vault_records` ADD `transfer_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `vault_records` ADD `closed_at` text;--> statement-breakpoint
ALTER TABLE `vault_records` ADD `closed_note` text;--> statement-breakpoint
CREATE INDEX `vault_records_controller_idx` ON `vault_records` (`controller_org_id`,`stored_at`);--> statement-breakpoint
CREATE INDEX `vault_records_pledgor_idx` ON `vault_records` (`pledgor_org_id`,`stored_at`);--> statement-breakpoint
-- every record vaulted before control could move is controlled by its originator
UPDATE `vault_records` SET `controller_org_id` = `org_id` WHERE `controller_org_id` = '';
