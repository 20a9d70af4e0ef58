CREATE TABLE `envelope_documents` (
	`id` text PRIMARY KEY NOT NULL,
	`envelope_id` text NOT NULL,
	`org_id` text NOT NULL,
	`kind` text NOT NULL,
	`r2_key` text NOT NULL,
	`sha256` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`page_count` integer,
	`created_at` text NOT NULL,
	FOREIGN KEY (`envelope_id`) REFERENCES `envelopes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `envelope_documents_kind_uq` ON `envelope_documents` (`envelope_id`,`kind`);--> statement-breakpoint
CREATE INDEX `envelope_documents_org_idx` ON `envelope_documents` (`org_id`);