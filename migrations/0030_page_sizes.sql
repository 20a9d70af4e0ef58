ALTER TABLE `envelope_documents` ADD `page_sizes` text;--> statement-breakpoint
ALTER TABLE `templates` ADD `page_sizes` text;