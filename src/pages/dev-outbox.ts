/**
 * The frame of the development outbox pages (`/dev/emails`, `/dev/sms`): newest first, one item a list
 * entry, the intro naming what was really sent. No script, inline style only.
 */
export function devOutboxPage({ title, intro, items, empty }: { title: string; intro: string; items: string[]; empty: string }): string {
  const body = items.length ? `<ol>\n${items.join("\n")}\n</ol>` : `<p>${empty}</p>`;
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="robots" content="noindex">
  <title>${title} (dev)</title>
  <style>
    body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0 auto;max-width:52rem;padding:1rem;line-height:1.4}
    ol{list-style:none;padding:0} li{border:1px solid #ccc;border-radius:6px;margin:0 0 1rem;padding:0 1rem}
    h2{font-size:1.1rem} .meta{color:#555;font-size:.9rem} .error{color:#a00}
    pre{white-space:pre-wrap;background:#f6f6f6;padding:.75rem;border-radius:4px}
  </style>
</head>
<body>
  <h1>${title}</h1>
  <p>${intro}</p>
  ${body}
</body>
</html>`;
}
