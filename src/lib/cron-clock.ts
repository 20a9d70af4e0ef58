import type { Env } from "../env";
import { isDevelopment } from "./service-env";

/**
 * The run's cron and clock: the trigger's `scheduledTime`, or, in development only, the time after an `@`
 * in the cron string (`* * * * *@1795943714607`, milliseconds). wrangler dev's /__scheduled passes the
 * cron string but drops `time`, and /cdn-cgi/handler/scheduled answered 500 without running the handler
 * here; the soak needs cron runs hours apart so that retries come due (docs/decisions/fault-layer.md).
 * Deployed triggers come from wrangler.toml and never carry an `@`; outside development it is ignored.
 */
export function cronClock(controller: Pick<ScheduledController, "cron" | "scheduledTime">, env: Env): { cron: string; now: Date } {
  const at = controller.cron.lastIndexOf("@");
  if (at < 0) return { cron: controller.cron, now: new Date(controller.scheduledTime) };
  const cron = controller.cron.slice(0, at);
  const ms = Number(controller.cron.slice(at + 1));
  return { cron, now: new Date(isDevelopment(env) && Number.isFinite(ms) && ms > 0 ? ms : controller.scheduledTime) };
}
