// Builds everything the Worker serves as static assets into public/static (git-ignored output):
// - vendor/swagger-ui: the API reference page's UI
// - vendor/pdfjs: pdf.js's worker, standard fonts, CMaps, ICC profiles and wasm decoders
// - app/: the signing page and the vault widget (web/), bundled with esbuild, and their stylesheet
// Nothing is loaded from a CDN at run time.
import { build } from "esbuild";
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const modules = join(root, "node_modules");
const out = join(root, "public", "static");

const swagger = join(out, "vendor", "swagger-ui");
mkdirSync(swagger, { recursive: true });
for (const file of ["swagger-ui.css", "swagger-ui-bundle.js"]) cpSync(join(modules, "swagger-ui-dist", file), join(swagger, file));

const pdfjs = join(out, "vendor", "pdfjs");
mkdirSync(pdfjs, { recursive: true });
cpSync(join(modules, "pdfjs-dist", "build", "pdf.worker.min.mjs"), join(pdfjs, "pdf.worker.min.mjs"));
for (const dir of ["standard_fonts", "cmaps", "iccs", "wasm"]) cpSync(join(modules, "pdfjs-dist", dir), join(pdfjs, dir), { recursive: true });

const app = join(out, "app");
rmSync(app, { recursive: true, force: true });
await build({
  entryPoints: { signing: join(root, "web", "signing", "main.ts"), vault: join(root, "web", "vault", "main.ts") },
  outdir: app,
  bundle: true,
  splitting: true,
  format: "esm",
  platform: "browser",
  target: ["es2022", "chrome110", "safari16", "firefox115"],
  minify: true,
  sourcemap: "linked",
  legalComments: "linked",
  chunkNames: "chunks/[name]-[hash]",
  logLevel: "warning",
});
cpSync(join(root, "web", "styles", "signing.css"), join(app, "signing.css"));
console.log("assets: public/static/vendor and public/static/app ready");
