CREATE TABLE `bulk_batches` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`document_source` text NOT NULL,
	`source_template_id` text,
	`source_package_id` text,
	`kba_required` integer DEFAULT false NOT NULL,
	`provider_instance` text DEFAULT 'default' NOT NULL,
	`preserve_signing_order` integer DEFAULT true NOT NULL,
	`add_me_as_signer` integer DEFAULT false NOT NULL,
	`auto_vault_enabled` integer DEFAULT false NOT NULL,
	`vault_terms_accepted_at` text,
	`vault_terms_accepted_by` text,
	`tag_ids` text NOT NULL,
	`master_template_id` text,
	`master_source` text,
	`status` text NOT NULL,
	`total_count` integer DEFAULT 0 NOT NULL,
	`running_count` integer DEFAULT 0 NOT NULL,
	`sent_count` integer DEFAULT 0 NOT NULL,
	`failed_count` integer DEFAULT 0 NOT NULL,
	`skipped_count` integer DEFAULT 0 NOT NULL,
	`cancelled_count` integer DEFAULT 0 NOT NULL,
	`created_by` text NOT NULL,
	`error` text,
	`submitted_at` text,
	`finished_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `bulk_batches_org_idx` ON `bulk_batches` (`org_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `bulk_items` (
	`id` text PRIMARY KEY NOT NULL,
	`batch_id` text NOT NULL,
	`org_id` text NOT NULL,
	`position` integer NOT NULL,
	`customer_id` text NOT NULL,
	`customer_name` text NOT NULL,
	`email` text,
	`status` text NOT NULL,
	`envelope_key` text NOT NULL,
	`envelope_id` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`error` text,
	`sent_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`batch_id`) REFERENCES `bulk_batches`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`customer_id`) REFERENCES `customers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `bulk_items_envelope_key_unique` ON `bulk_items` (`envelope_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `bulk_items_batch_customer_uq` ON `bulk_items` (`batch_id`,`customer_id`);--> statement-breakpoint
CREATE INDEX `bulk_items_batch_status_idx` ON `bulk_items` (`batch_id`,`status`,`position`);