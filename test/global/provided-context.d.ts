export {};

declare module "vitest" {
  /** Values the Node-side global setup hands to the tests (`inject(...)`). */
  export interface ProvidedContext {
    /** port of the webhook receiver on 127.0.0.1 (test/global/webhook-receiver.mjs) */
    receiverPort: number;
    /** port of the Postmark API stand-in on 127.0.0.1 (test/global/postmark-stand-in.mjs) */
    postmarkPort: number;
    /** port of the Twilio Messaging API stand-in on 127.0.0.1 (test/global/twilio-stand-in.mjs) */
    twilioPort: number;
    /** port of the Stripe API stand-in on 127.0.0.1 (test/global/stripe-stand-in.mjs) */
    stripePort: number;
    /** port of the OpenSSL TSA stand-in on 127.0.0.1 (test/global/tsa-stand-in.mjs) */
    tsaPort: number;
    /** port of the OpenSSL OCSP / CRL stand-in on 127.0.0.1 (test/global/ocsp-stand-in.mjs) */
    ocspPort: number;
    /** port of the auditor's machine on 127.0.0.1: `node verify.mjs` on a posted bundle, an Evil TSA's tokens (test/global/node-verifier.mjs) */
    nodeVerifierPort: number;
  }
}
