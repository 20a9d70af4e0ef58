import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";

/** Where a Chromium or Chrome usually is; the first that exists is used. */
const SYSTEM_NAMES = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"];
const MAC_APPS = [
  "/Applications/Google Chrome.app/Contents/MacOS/Google Chrome",
  "/Applications/Chromium.app/Contents/MacOS/Chromium",
];

export type FoundChromium = { path: string; source: "CHROMIUM_PATH" | "system" | "@sparticuz/chromium" };

function systemChromium(): string | undefined {
  if (process.platform === "darwin") return MAC_APPS.find((app) => existsSync(app));
  if (process.platform === "win32") return undefined;
  const dirs = ["/usr/bin", ...(process.env.PATH ?? "").split(delimiter).filter(Boolean)];
  for (const name of SYSTEM_NAMES) {
    for (const dir of dirs) {
      const candidate = join(dir, name);
      if (existsSync(candidate)) return candidate;
    }
  }
  return undefined;
}

/**
 * The browser the tests drive, never downloaded: `CHROMIUM_PATH`; else a system Chromium or Chrome;
 * else, on x86-64 Linux, the Chromium inside the `@sparticuz/chromium` devDependency, which unpacks it
 * from its own npm package to the temporary directory (`$TMPDIR/chromium`, reused by later runs).
 * Called once per run by the global setup, which hands the path to the test files.
 */
export async function findChromium(): Promise<FoundChromium> {
  const configured = process.env.CHROMIUM_PATH;
  if (configured) {
    if (!existsSync(configured)) throw new Error(`CHROMIUM_PATH=${configured} does not exist`);
    return { path: configured, source: "CHROMIUM_PATH" };
  }
  const system = systemChromium();
  if (system) return { path: system, source: "system" };
  if (process.platform === "linux" && process.arch === "x64") {
    const bundled = (await import("@sparticuz/chromium")).default;
    return { path: await bundled.executablePath(), source: "@sparticuz/chromium" };
  }
  throw new Error(
    `No Chromium found: set CHROMIUM_PATH to a Chromium or Chrome binary, or install Google Chrome ` +
      `(found in /Applications on macOS, or as ${SYSTEM_NAMES.join(", ")} on the PATH elsewhere). ` +
      `The bundled @sparticuz/chromium only runs on x86-64 Linux.`,
  );
}
