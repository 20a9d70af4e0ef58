ALTER TABLE `webhook_endpoints` ADD `consecutive_failures` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `failing_since` text;--> statement-breakpoint
ALTER TABLE `webhook_endpoints` ADD `paused_at` text;