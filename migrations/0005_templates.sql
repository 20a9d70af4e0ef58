CREATE TABLE `builder_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`envelope_id` text NOT NULL,
	`template_id` text NOT NULL,
	`source` text NOT NULL,
	`kba_required` integer DEFAULT false NOT NULL,
	`provider_instance` text NOT NULL,
	`created_by` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`envelope_id`) REFERENCES `envelopes`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`template_id`) REFERENCES `templates`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `builder_sessions_envelope_idx` ON `builder_sessions` (`envelope_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `document_package_items` (
	`package_id` text NOT NULL,
	`position` integer NOT NULL,
	`template_id` text NOT NULL,
	`org_id` text NOT NULL,
	`kba_required` integer DEFAULT false NOT NULL,
	`provider_instance` text NOT NULL,
	`provider_template_id` integer NOT NULL,
	PRIMARY KEY(`package_id`, `position`),
	FOREIGN KEY (`package_id`) REFERENCES `document_packages`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`template_id`) REFERENCES `templates`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `document_package_items_template_uq` ON `document_package_items` (`package_id`,`template_id`);--> statement-breakpoint
CREATE TABLE `document_packages` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`kba_required` integer DEFAULT false NOT NULL,
	`provider_instance` text DEFAULT 'default' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `document_packages_org_idx` ON `document_packages` (`org_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `envelope_fields` (
	`envelope_id` text NOT NULL,
	`seq` integer NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`role` text NOT NULL,
	`required` integer DEFAULT false NOT NULL,
	`readonly` integer DEFAULT false NOT NULL,
	`default_value` text,
	`value` text,
	`placement_mode` text NOT NULL,
	`areas` text NOT NULL,
	`anchor_match` text,
	`source_template_id` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`envelope_id`, `seq`),
	FOREIGN KEY (`envelope_id`) REFERENCES `envelopes`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `envelope_fields_name_uq` ON `envelope_fields` (`envelope_id`,`name`);--> statement-breakpoint
CREATE TABLE `signing_provider_templates` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`instance` text NOT NULL,
	`org_id` text NOT NULL,
	`template_id` text NOT NULL,
	`name` text NOT NULL,
	`document_key` text,
	`page_count` integer,
	`fields` text NOT NULL,
	`copied_from` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `template_fields` (
	`template_id` text NOT NULL,
	`seq` integer NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`type` text NOT NULL,
	`role` text NOT NULL,
	`required` integer DEFAULT false NOT NULL,
	`readonly` integer DEFAULT false NOT NULL,
	`default_value` text,
	`placement_mode` text NOT NULL,
	`areas` text NOT NULL,
	`anchor_match` text,
	`placement` text,
	`created_at` text NOT NULL,
	PRIMARY KEY(`template_id`, `seq`),
	FOREIGN KEY (`template_id`) REFERENCES `templates`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `template_fields_name_uq` ON `template_fields` (`template_id`,`name`);--> statement-breakpoint
CREATE TABLE `templates` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`name` text NOT NULL,
	`external_id` text,
	`kba_required` integer DEFAULT false NOT NULL,
	`provider_instance` text DEFAULT 'default' NOT NULL,
	`provider_template_id` integer NOT NULL,
	`origin` text NOT NULL,
	`document_key` text,
	`document_sha256` text,
	`document_size_bytes` integer,
	`page_count` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `templates_org_idx` ON `templates` (`org_id`,`created_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `templates_provider_uq` ON `templates` (`provider_instance`,`provider_template_id`);