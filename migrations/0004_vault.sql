CREATE TABLE `job_cursors` (
	`job` text PRIMARY KEY NOT NULL,
	`cycle_started_at` text NOT NULL,
	`cycle_completed_at` text,
	`cursor` text NOT NULL,
	`processed` integer DEFAULT 0 NOT NULL,
	`bytes_processed` integer DEFAULT 0 NOT NULL,
	`failures` integer DEFAULT 0 NOT NULL,
	`lease_until` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `vault_certificates` (
	`id` text PRIMARY KEY NOT NULL,
	`envelope_id` text NOT NULL,
	`org_id` text NOT NULL,
	`vault_id` text NOT NULL,
	`version` integer NOT NULL,
	`body` text NOT NULL,
	`compliant` integer NOT NULL,
	`score` real NOT NULL,
	`pdf_key` text NOT NULL,
	`reason` text NOT NULL,
	`issued_at` text NOT NULL,
	FOREIGN KEY (`envelope_id`) REFERENCES `envelopes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vault_certificates_version_uq` ON `vault_certificates` (`envelope_id`,`version`);--> statement-breakpoint
CREATE TABLE `vault_consents` (
	`envelope_id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`auto_vault_enabled` integer NOT NULL,
	`terms_accepted_at` text,
	`terms_accepted_by` text,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`envelope_id`) REFERENCES `envelopes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `vault_integrity_checks` (
	`id` text PRIMARY KEY NOT NULL,
	`vault_id` text NOT NULL,
	`envelope_id` text NOT NULL,
	`org_id` text NOT NULL,
	`source` text NOT NULL,
	`matched` integer NOT NULL,
	`expected_hash` text NOT NULL,
	`observed_hash` text,
	`observed_size_bytes` integer,
	`checked_at` text NOT NULL,
	FOREIGN KEY (`vault_id`) REFERENCES `vault_records`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `vault_integrity_envelope_idx` ON `vault_integrity_checks` (`envelope_id`,`checked_at`);--> statement-breakpoint
CREATE TABLE `vault_records` (
	`id` text PRIMARY KEY NOT NULL,
	`envelope_id` text NOT NULL,
	`org_id` text NOT NULL,
	`custodian_org_id` text NOT NULL,
	`authoritative_key` text NOT NULL,
	`document_hash` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`page_count` integer NOT NULL,
	`copy_key` text NOT NULL,
	`copy_hash` text NOT NULL,
	`copy_size_bytes` integer NOT NULL,
	`copy_marked` integer NOT NULL,
	`source` text NOT NULL,
	`actor_type` text NOT NULL,
	`actor_id` text,
	`on_behalf_of` text,
	`stored_at` text NOT NULL,
	FOREIGN KEY (`envelope_id`) REFERENCES `envelopes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `vault_records_envelope_uq` ON `vault_records` (`envelope_id`);--> statement-breakpoint
CREATE INDEX `vault_records_org_idx` ON `vault_records` (`org_id`);