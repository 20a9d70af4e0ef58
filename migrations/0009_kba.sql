CREATE TABLE `kba_checks` (
	`signer_id` text PRIMARY KEY NOT NULL,
	`envelope_id` text NOT NULL,
	`org_id` text NOT NULL,
	`provider` text NOT NULL,
	`status` text DEFAULT 'required' NOT NULL,
	`attempts_used` integer DEFAULT 0 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	CONSTRAINT "kba_checks_attempts_ck" CHECK(attempts_used BETWEEN 0 AND 2)
);
--> statement-breakpoint
CREATE INDEX `kba_checks_envelope_idx` ON `kba_checks` (`envelope_id`);--> statement-breakpoint
CREATE TABLE `kba_results` (
	`id` text PRIMARY KEY NOT NULL,
	`signer_id` text NOT NULL,
	`envelope_id` text NOT NULL,
	`org_id` text NOT NULL,
	`signer_email` text NOT NULL,
	`status` text NOT NULL,
	`provider` text NOT NULL,
	`provider_session_id` text NOT NULL,
	`ip_address` text,
	`price_cents` integer NOT NULL,
	`attempts` integer NOT NULL,
	`occurred_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `kba_results_signer_uq` ON `kba_results` (`signer_id`);--> statement-breakpoint
CREATE INDEX `kba_results_envelope_idx` ON `kba_results` (`envelope_id`);--> statement-breakpoint
CREATE TABLE `kba_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`signer_id` text NOT NULL,
	`envelope_id` text NOT NULL,
	`org_id` text NOT NULL,
	`provider` text NOT NULL,
	`provider_session_id` text NOT NULL,
	`attempt` integer NOT NULL,
	`status` text DEFAULT 'open' NOT NULL,
	`outcome` text,
	`expires_at` text NOT NULL,
	`created_at` text NOT NULL,
	`scored_at` text,
	CONSTRAINT "kba_sessions_attempt_ck" CHECK(attempt BETWEEN 1 AND 2)
);
--> statement-breakpoint
CREATE UNIQUE INDEX `kba_sessions_open_uq` ON `kba_sessions` (`signer_id`) WHERE status = 'open';--> statement-breakpoint
CREATE UNIQUE INDEX `kba_sessions_scored_attempt_uq` ON `kba_sessions` (`signer_id`,`attempt`) WHERE status = 'scored';--> statement-breakpoint
CREATE TABLE `usage_lines` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`month` text NOT NULL,
	`kind` text NOT NULL,
	`quantity` integer DEFAULT 1 NOT NULL,
	`unit_cents` integer NOT NULL,
	`envelope_id` text,
	`signer_id` text,
	`description` text NOT NULL,
	`unique_key` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `usage_lines_unique_key_uq` ON `usage_lines` (`unique_key`);--> statement-breakpoint
CREATE INDEX `usage_lines_org_month_idx` ON `usage_lines` (`org_id`,`month`);