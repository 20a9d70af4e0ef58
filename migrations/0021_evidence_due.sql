ALTER TABLE `vault_records` ADD `evidence_due_at` text;--> statement-breakpoint
CREATE INDEX `vault_records_evidence_due_idx` ON `vault_records` (`evidence_due_at`);--> statement-breakpoint
UPDATE `vault_records` SET `evidence_due_at` = COALESCE((SELECT e.`renew_by` FROM `vault_evidence_records` e WHERE e.`vault_id` = `vault_records`.`id` ORDER BY e.`timestamp_count` DESC LIMIT 1), `stored_at`);
