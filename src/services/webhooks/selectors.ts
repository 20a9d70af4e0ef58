import { EVENT_TYPES, type EventType } from "../events/outbox";

/**
 * Subscription selectors (spec 6.1): an exact event type, a domain wildcard `<domain>.*`, or `*`.
 * Wildcards are prefix-only; `*.completed`, `envelope.*.x`, `env*` and unknown types or domains are
 * refused, so a typo cannot silently subscribe to nothing.
 */
export const EVENT_DOMAINS: ReadonlySet<string> = new Set(Object.keys(EVENT_TYPES).map((t) => t.split(".")[0]!));

export const isEventType = (value: string): value is EventType => Object.prototype.hasOwnProperty.call(EVENT_TYPES, value);

export function isValidSelector(selector: string): boolean {
  if (selector === "*" || isEventType(selector)) return true;
  return selector.endsWith(".*") && EVENT_DOMAINS.has(selector.slice(0, -2));
}

export function selectorMatches(selector: string, eventType: string): boolean {
  if (selector === "*" || selector === eventType) return true;
  return selector.endsWith(".*") && eventType.startsWith(selector.slice(0, -1));
}

/**
 * selectorMatches in SQL, for matching inside a statement (fan-out.ts): true when one of the selectors
 * in the JSON array `selectorsJson` takes the event type `eventType` (both SQL expressions).
 */
export const subscribesSql = (selectorsJson: string, eventType: string) =>
  `EXISTS (SELECT 1 FROM json_each(${selectorsJson}) s WHERE s.value = '*' OR s.value = ${eventType}
     OR (substr(s.value, -2) = '.*' AND substr(${eventType}, 1, length(s.value) - 1) = substr(s.value, 1, length(s.value) - 1)))`;
