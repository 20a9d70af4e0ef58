ALTER TABLE `organizations` ADD `reminder_after_days` integer;--> statement-breakpoint
ALTER TABLE `organizations` ADD `reminder_every_days` integer;--> statement-breakpoint
ALTER TABLE `envelopes` ADD `reminder_after_days` integer;--> statement-breakpoint
ALTER TABLE `envelopes` ADD `reminder_every_days` integer;--> statement-breakpoint
ALTER TABLE `envelopes` ADD `reminders_sent` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `envelopes` ADD `last_reminder_at` text;--> statement-breakpoint
ALTER TABLE `envelopes` ADD `expiry_warned_at` text;--> statement-breakpoint
CREATE INDEX `envelopes_reminder_idx` ON `envelopes` (`status`,`last_reminder_at`);--> statement-breakpoint
ALTER TABLE `signers` ADD `phone` text;--> statement-breakpoint
ALTER TABLE `signers` ADD `last_resent_at` text;