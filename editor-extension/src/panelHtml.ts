// Pure: the diagram panel's HTML with its Content-Security-Policy.

export const PANEL_TITLE = 'isamap diagram';

export interface PanelHtmlInput {
  /** webview.cspSource */
  cspSource: string;
  /** A fresh random nonce for this page. */
  nonce: string;
  /** webview.asWebviewUri of dist/webview.js and dist/diagram.css, as strings. */
  scriptUri: string;
  styleUri: string;
}

export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `img-src data: ${cspSource}`,
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `script-src 'nonce-${nonce}'`,
  ].join('; ');
}

export function makeNonce(random: (n: number) => Uint8Array): string {
  return Buffer.from(random(18)).toString('base64').replace(/[^A-Za-z0-9]/g, '').slice(0, 24) || 'isamap0nonce';
}

function attr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

export function panelHtml(i: PanelHtmlInput): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(i.cspSource, i.nonce))}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${attr(i.styleUri)}" nonce="${attr(i.nonce)}">
<title>${PANEL_TITLE}</title>
</head>
<body>
<header id="toolbar" role="toolbar" aria-label="diagram controls">
  <label for="view">View</label>
  <select id="view" aria-label="view"></select>
  <label id="mapping-label" for="mapping" hidden>Mapping #</label>
  <input id="mapping" type="number" min="1" value="1" hidden aria-label="mapping candidate">
  <span class="sep"></span>
  <button id="zoom-out" title="Zoom out (-)" aria-label="zoom out">&minus;</button>
  <button id="zoom-in" title="Zoom in (+)" aria-label="zoom in">+</button>
  <button id="zoom-focus" title="Readable size, on the statement in focus (r)" aria-label="zoom to the statement">Focus</button>
  <button id="zoom-fit" title="The whole picture in the panel (f)" aria-label="fit">Fit</button>
  <button id="zoom-reset" title="Actual size (0)" aria-label="reset zoom">1:1</button>
  <button id="refresh" title="Ask the server again" aria-label="refresh">&#x21bb;</button>
  <span id="caption"></span>
</header>
<div id="message" role="status">Waiting for the isamap language server…</div>
<main id="viewport"><div id="diagram" aria-label="${PANEL_TITLE}"></div></main>
<script nonce="${attr(i.nonce)}" src="${attr(i.scriptUri)}"></script>
</body>
</html>`;
}
