export {};

declare module "vitest" {
  /** Values the Node-side global setup hands to the tests (`inject(...)`). */
  export interface ProvidedContext {
    /** port of the webhook receiver on 127.0.0.1 (test/global/webhook-receiver.mjs) */
    receiverPort: number;
  }
}
