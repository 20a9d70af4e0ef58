CREATE TABLE `signer_otps` (
	`signer_id` text PRIMARY KEY NOT NULL,
	`envelope_id` text NOT NULL,
	`org_id` text NOT NULL,
	`code_hash` text,
	`code_expires_at` text,
	`attempts_used` integer DEFAULT 0 NOT NULL,
	`last_sent_at` text,
	`verified_at` text,
	`created_at` text NOT NULL,
	CONSTRAINT "signer_otps_attempts_ck" CHECK(attempts_used BETWEEN 0 AND 5)
);
--> statement-breakpoint
CREATE INDEX `signer_otps_envelope_idx` ON `signer_otps` (`envelope_id`);--> statement-breakpoint
CREATE TABLE `sms_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`envelope_id` text NOT NULL,
	`signer_id` text NOT NULL,
	`to_masked` text NOT NULL,
	`provider` text NOT NULL,
	`status` text NOT NULL,
	`provider_message_id` text,
	`error` text,
	`body_sealed` text,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `sms_outbox_signer_created_idx` ON `sms_outbox` (`signer_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `sms_outbox_created_idx` ON `sms_outbox` (`created_at`);