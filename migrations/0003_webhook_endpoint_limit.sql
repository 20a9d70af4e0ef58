-- At most 25 live (not soft-deleted) webhook endpoints per organization (spec part 8). Enforced in
-- the database so that two concurrent creates cannot both take the 25th place, and so the batch that
-- carries the endpoint's audit entry fails whole. The service maps the message to a 422; keep the
-- number in step with WEBHOOK_ENDPOINT_LIMIT in src/services/webhooks/schema.ts.
CREATE TRIGGER `webhook_endpoint_limit` BEFORE INSERT ON `webhook_endpoints`
WHEN (SELECT COUNT(*) FROM `webhook_endpoints` WHERE `org_id` = NEW.`org_id` AND `deleted_at` IS NULL) >= 25
BEGIN
  SELECT RAISE(ABORT, 'webhook_endpoint_limit: an organization may register at most 25 webhook endpoints');
END;
