CREATE TABLE `envelope_cc_recipients` (
	`id` text PRIMARY KEY NOT NULL,
	`envelope_id` text NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`email` text NOT NULL,
	`position` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`envelope_id`) REFERENCES `envelopes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `envelope_cc_recipients_envelope_idx` ON `envelope_cc_recipients` (`envelope_id`);--> statement-breakpoint
CREATE TABLE `esign_disclosures` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`version` integer NOT NULL,
	`required` integer NOT NULL,
	`text` text NOT NULL,
	`paper_copy_contact` text NOT NULL,
	`withdrawal_instructions` text NOT NULL,
	`sha256` text NOT NULL,
	`created_by` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `esign_disclosures_org_version_uq` ON `esign_disclosures` (`org_id`,`version`);--> statement-breakpoint
CREATE TABLE `vault_evidence_records` (
	`id` text PRIMARY KEY NOT NULL,
	`vault_id` text NOT NULL,
	`org_id` text NOT NULL,
	`record_key` text NOT NULL,
	`record_sha256` text NOT NULL,
	`timestamp_count` integer NOT NULL,
	`renew_by` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `vault_evidence_records_vault_idx` ON `vault_evidence_records` (`vault_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `vault_evidence_records_renew_idx` ON `vault_evidence_records` (`renew_by`);--> statement-breakpoint
ALTER TABLE `envelopes` ADD `consumer_consent` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `envelopes` ADD `disclosure_id` text;--> statement-breakpoint
ALTER TABLE `signers` ADD `consent_given_at` text;--> statement-breakpoint
ALTER TABLE `envelope_documents` ADD `evidence_level` text;--> statement-breakpoint
ALTER TABLE `vault_records` ADD `evidence_level` text DEFAULT 'B-B' NOT NULL;