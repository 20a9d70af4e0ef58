/** Text for an HTML element or a quoted attribute value: the five characters that could break out, as numeric references. */
export const escapeHtml = (s: string): string => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
