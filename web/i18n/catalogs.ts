import { en } from "./en";
import { es } from "./es";

/** The signing page's and the vault widget's keys: English defines them, every other locale has the same (no DOM here: tests import it). */
export type PageMessages = { [K in keyof typeof en]: string };
export type PageLocale = "en" | "es";

export const PAGE_CATALOGS: Record<PageLocale, PageMessages> = { en, es };
