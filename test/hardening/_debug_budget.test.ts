import { PDFDocument, PDFName } from "pdf-lib";
import { it } from "vitest";
import { assertWithinDecodeBudget } from "../../src/lib/pdf-budget";

it("debug", async () => {
  const cs = new CompressionStream("deflate");
  const writer = cs.writable.getWriter();
  const done = new Response(cs.readable).arrayBuffer();
  await writer.write(new TextEncoder().encode("q Q\n".repeat(100000)));
  await writer.close();
  const z = new Uint8Array(await done);
  const doc = await PDFDocument.create();
  const page = doc.addPage([612, 792]);
  page.node.set(PDFName.of("Contents"), doc.context.register(doc.context.stream(z, { Filter: "FlateDecode" })));
  const bytes = await doc.save({ useObjectStreams: false });
  console.log(new TextDecoder("latin1").decode(bytes).slice(0, 1500).replace(/[^\x20-\x7e\n]/g, "."));
  try { await assertWithinDecodeBudget(bytes, 1000); console.log("PASSED budget (bad)"); } catch (e) { console.log("threw", String(e)); }
  const ds = new Response(new Blob([z]).stream().pipeThrough(new DecompressionStream("deflate")));
  console.log("direct inflate", (await ds.arrayBuffer()).byteLength);
});
