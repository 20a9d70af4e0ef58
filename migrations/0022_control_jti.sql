CREATE TABLE `control_jtis` (
	`org_id` text NOT NULL,
	`jti` text NOT NULL,
	`used_at` text NOT NULL,
	PRIMARY KEY(`org_id`, `jti`)
);
--> statement-breakpoint
CREATE INDEX `control_jtis_used_idx` ON `control_jtis` (`used_at`);