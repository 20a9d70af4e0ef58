CREATE TABLE `email_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`envelope_id` text,
	`signer_id` text,
	`kind` text NOT NULL,
	`to_email` text NOT NULL,
	`to_name` text NOT NULL,
	`subject` text NOT NULL,
	`text` text NOT NULL,
	`html` text NOT NULL,
	`link_url` text,
	`status` text DEFAULT 'queued' NOT NULL,
	`created_at` text NOT NULL,
	`sent_at` text,
	`error` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_outbox_signer_kind_uq` ON `email_outbox` (`signer_id`,`kind`);--> statement-breakpoint
CREATE INDEX `email_outbox_created_idx` ON `email_outbox` (`created_at`);--> statement-breakpoint
CREATE INDEX `email_outbox_envelope_idx` ON `email_outbox` (`envelope_id`);