import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A partner's web page on its own origin (another loopback port) that embeds a widget in an iframe,
 * as a dealer's portal would, and records the messages the widget posts to it.
 */
export async function startPartnerSite(): Promise<{ origin: string; pageFor: (embedUrl: string) => string; close: () => Promise<void> }> {
  // the widget's URL reaches the portal page in its own fragment, so no request of the test carries it
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(`<!doctype html><html><head><meta name="viewport" content="width=device-width, initial-scale=1"><title>Dealer portal</title></head><body>
<h1>Dealer portal</h1>
<iframe id="widget" title="Sign your contract" style="width:100%;height:860px;border:0"></iframe>
<script>
  window.messages = [];
  window.addEventListener("message", (e) => window.messages.push(e.data));
  document.getElementById("widget").src = decodeURIComponent(location.hash.slice("#src=".length));
</script></body></html>`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    pageFor: (embedUrl) => `${origin}/portal#src=${encodeURIComponent(embedUrl)}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
