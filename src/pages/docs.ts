import type { Context } from "hono";
import type { AppEnv } from "../lib/hono";

/**
 * The human API reference: Swagger UI, served from the Worker's own static assets
 * (`npm run assets` copies it into public/static/vendor), reading the live OpenAPI document.
 */
export function docsPage(c: Context<AppEnv>) {
  c.header(
    "Content-Security-Policy",
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'",
  );
  return c.html(`<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>API reference · Electronic Signature and Vaulting Service</title>
  <link rel="stylesheet" href="/static/vendor/swagger-ui/swagger-ui.css">
  <style>body{margin:0;font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif}</style>
</head>
<body>
  <div id="reference"></div>
  <script src="/static/vendor/swagger-ui/swagger-ui-bundle.js"></script>
  <script src="/static/docs-init.js"></script>
</body>
</html>`);
}
