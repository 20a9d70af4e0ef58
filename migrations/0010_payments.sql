CREATE TABLE `payments` (
	`id` text PRIMARY KEY NOT NULL,
	`envelope_id` text NOT NULL,
	`org_id` text NOT NULL,
	`amount_cents` integer NOT NULL,
	`currency` text NOT NULL,
	`payer_email` text NOT NULL,
	`destination_account` text NOT NULL,
	`application_fee_cents` integer NOT NULL,
	`platform_fee_bps` integer NOT NULL,
	`status` text DEFAULT 'requires_payment' NOT NULL,
	`stripe_payment_intent_id` text,
	`paid_at` text,
	`failure_count` integer DEFAULT 0 NOT NULL,
	`last_failure_code` text,
	`last_failure_message` text,
	`last_failed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`envelope_id`) REFERENCES `envelopes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `payments_envelope_uq` ON `payments` (`envelope_id`);--> statement-breakpoint
CREATE UNIQUE INDEX `payments_intent_uq` ON `payments` (`stripe_payment_intent_id`);--> statement-breakpoint
CREATE INDEX `payments_org_idx` ON `payments` (`org_id`);--> statement-breakpoint
CREATE TABLE `stripe_events` (
	`id` text PRIMARY KEY NOT NULL,
	`type` text NOT NULL,
	`payment_intent_id` text,
	`payment_id` text,
	`outcome` text NOT NULL,
	`reason` text,
	`received_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `stripe_events_payment_idx` ON `stripe_events` (`payment_id`);