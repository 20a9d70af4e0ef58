// Copies vendored browser code into public/static/vendor, served by the Worker's static assets.
// Nothing is loaded from a CDN at run time.
import { cpSync, mkdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const swagger = join(root, "node_modules", "swagger-ui-dist");
const out = join(root, "public", "static", "vendor", "swagger-ui");
mkdirSync(out, { recursive: true });
for (const file of ["swagger-ui.css", "swagger-ui-bundle.js"]) cpSync(join(swagger, file), join(out, file));
console.log("assets: public/static/vendor ready");
