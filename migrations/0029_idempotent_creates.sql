CREATE TABLE `idempotent_creates` (
	`org_id` text NOT NULL,
	`ref` text NOT NULL,
	`record_id` text NOT NULL,
	`created_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `ref`)
);
--> statement-breakpoint
CREATE INDEX `idempotent_creates_created_idx` ON `idempotent_creates` (`created_at`);