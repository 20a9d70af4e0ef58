import { assertWithinDecodeBudget } from "./budget/decode-budget";
import { hasPdfSignature, notAPdf } from "./open-pdf";

/**
 * An upload's gate before anything is stored or parsed: the bytes say PDF (415), and no stream
 * decompresses beyond the decode budget (413), so a decompression bomb is refused with nothing written.
 */
export async function checkUpload(bytes: Uint8Array): Promise<void> {
  if (!hasPdfSignature(bytes)) throw notAPdf("no %PDF- header");
  await assertWithinDecodeBudget(bytes);
}
