/**
 * The currencies a Sign + Pay payment may be requested in, lower-case ISO 4217 as Stripe takes them,
 * each with Stripe's minimum charge amount in the currency's smallest unit (Stripe's "Minimum and
 * maximum charge amounts" table: docs.stripe.com/currencies#minimum-and-maximum-charge-amounts).
 * These are the currencies Stripe settles in; `amount_cents` is in the smallest unit Stripe uses for
 * the currency (cents; whole yen for the zero-decimal `jpy`). A currency outside the list is refused
 * at create (422) rather than by Stripe when the payer is already on the payment step.
 */
export const CURRENCY_MINIMUMS = {
  usd: 50,
  aed: 200,
  aud: 50,
  bgn: 100,
  brl: 50,
  cad: 50,
  chf: 50,
  czk: 1500,
  dkk: 250,
  eur: 50,
  gbp: 30,
  hkd: 400,
  huf: 17500,
  inr: 50,
  jpy: 50,
  mxn: 1000,
  myr: 200,
  nok: 300,
  nzd: 50,
  pln: 200,
  ron: 200,
  sek: 300,
  sgd: 50,
  thb: 1000,
} as const satisfies Record<string, number>;

export type Currency = keyof typeof CURRENCY_MINIMUMS;
export const CURRENCIES = Object.keys(CURRENCY_MINIMUMS) as [Currency, ...Currency[]];

/** Stripe's largest `amount`: eight digits in the smallest unit (99,999,999). */
export const MAX_AMOUNT = 99_999_999;
