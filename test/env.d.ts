import type { D1Migration } from "cloudflare:test";
import type { Env as AppEnv } from "../src/env";

declare global {
  namespace Cloudflare {
    interface Env extends AppEnv {
      TEST_MIGRATIONS: D1Migration[];
      /** evidence levels (vitest.config.ts): OpenSSL TSA / OCSP stand-ins and seals issued by the test CA */
      TEST_TSA_URL: string;
      TEST_OCSP_URL: string;
      TEST_PKI_CA_CERTIFICATE: string;
      TEST_LT_SEAL_PRIVATE_KEY: string;
      TEST_LT_SEAL_CERTIFICATE: string;
      TEST_LT_OUTAGE_SEAL_PRIVATE_KEY: string;
      TEST_LT_OUTAGE_SEAL_CERTIFICATE: string;
      TEST_LT_SERVICE_OUTAGE_SEAL_PRIVATE_KEY: string;
      TEST_LT_SERVICE_OUTAGE_SEAL_CERTIFICATE: string;
      TEST_LT_CRL_SEAL_PRIVATE_KEY: string;
      TEST_LT_CRL_SEAL_CERTIFICATE: string;
    }
  }
}
export {};
