ALTER TABLE `organizations` ADD `embed_frame_ancestors` text;--> statement-breakpoint
ALTER TABLE `envelope_fields` ADD `options` text;--> statement-breakpoint
ALTER TABLE `template_fields` ADD `options` text;