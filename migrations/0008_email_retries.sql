ALTER TABLE `email_outbox` ADD `attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `email_outbox` ADD `next_attempt_at` text;--> statement-breakpoint
CREATE INDEX `email_outbox_status_next_idx` ON `email_outbox` (`status`,`next_attempt_at`);