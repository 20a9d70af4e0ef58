DROP INDEX `esign_disclosures_org_version_uq`;--> statement-breakpoint
ALTER TABLE `esign_disclosures` ADD `locale` text DEFAULT 'en' NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `esign_disclosures_org_locale_version_uq` ON `esign_disclosures` (`org_id`,`locale`,`version`);--> statement-breakpoint
ALTER TABLE `organizations` ADD `default_locale` text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE `envelopes` ADD `locale` text DEFAULT 'en' NOT NULL;--> statement-breakpoint
ALTER TABLE `bulk_items` ADD `locale` text;