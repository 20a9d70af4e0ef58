CREATE TABLE `memberships` (
	`user_id` text NOT NULL,
	`org_id` text NOT NULL,
	`role` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`user_id`, `org_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` text PRIMARY KEY NOT NULL,
	`name` text NOT NULL,
	`stripe_account_id` text,
	`platform_fee_bps` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `users` (
	`id` text PRIMARY KEY NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`);--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text,
	`key_hash` text NOT NULL,
	`key_prefix` text NOT NULL,
	`scopes` text NOT NULL,
	`rate_limit_rpm` integer DEFAULT 60 NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`last_used_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_org_idx` ON `api_keys` (`org_id`);--> statement-breakpoint
CREATE TABLE `idempotency_keys` (
	`key_id` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`org_id` text NOT NULL,
	`request_hash` text NOT NULL,
	`state` text NOT NULL,
	`response_status` integer,
	`response_body` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`key_id`, `idempotency_key`)
);
--> statement-breakpoint
CREATE INDEX `idempotency_created_idx` ON `idempotency_keys` (`created_at`);--> statement-breakpoint
CREATE TABLE `customers` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`email` text,
	`email_normalized` text,
	`primary_contact_name` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `customers_org_email_uq` ON `customers` (`org_id`,`email_normalized`);--> statement-breakpoint
CREATE TABLE `envelopes` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`customer_id` text NOT NULL,
	`name` text NOT NULL,
	`status` text NOT NULL,
	`document_source` text NOT NULL,
	`external_id` text,
	`template_id` text,
	`metadata` text NOT NULL,
	`prefilled_data` text,
	`secured_party` text,
	`kba_required` integer DEFAULT false NOT NULL,
	`provider_instance` text DEFAULT 'default' NOT NULL,
	`expires_in_days` integer DEFAULT 30 NOT NULL,
	`expires_at` text,
	`signed_at` text,
	`voided_reason` text,
	`vaulted_at` text,
	`certificate_issued_at` text,
	`created_by_key_id` text,
	`audit_seq` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `envelopes_org_created_idx` ON `envelopes` (`org_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `envelopes_org_customer_idx` ON `envelopes` (`org_id`,`customer_id`);--> statement-breakpoint
CREATE INDEX `envelopes_org_status_idx` ON `envelopes` (`org_id`,`status`);--> statement-breakpoint
CREATE INDEX `envelopes_expiry_idx` ON `envelopes` (`status`,`expires_at`);--> statement-breakpoint
CREATE TABLE `signers` (
	`id` text PRIMARY KEY NOT NULL,
	`envelope_id` text NOT NULL,
	`org_id` text NOT NULL,
	`role` text NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`routing_order` integer DEFAULT 1 NOT NULL,
	`status` text DEFAULT 'pending' NOT NULL,
	`slug` text NOT NULL,
	`viewed_at` text,
	`signed_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`envelope_id`) REFERENCES `envelopes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `signers_slug_unique` ON `signers` (`slug`);--> statement-breakpoint
CREATE INDEX `signers_envelope_idx` ON `signers` (`envelope_id`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`chain_id` text NOT NULL,
	`seq` integer NOT NULL,
	`action` text NOT NULL,
	`actor_type` text NOT NULL,
	`actor_id` text,
	`ip` text,
	`user_agent` text,
	`data` text NOT NULL,
	`created_at` text NOT NULL,
	`prev_hash` text NOT NULL,
	`hash` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `audit_chain_seq_uq` ON `audit_log` (`chain_id`,`seq`);--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`envelope_id` text,
	`type` text NOT NULL,
	`data` text NOT NULL,
	`created_at` text NOT NULL,
	`dispatched_at` text
);
--> statement-breakpoint
CREATE INDEX `events_undispatched_idx` ON `events` (`dispatched_at`,`created_at`);--> statement-breakpoint
CREATE INDEX `events_org_idx` ON `events` (`org_id`,`created_at`);