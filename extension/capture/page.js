// The in-page half of "Archive this page": injected into every frame of the tab as a classic
// content script (scripting.executeScript with files, allFrames), after sha256.js. It serializes
// the document as it is rendered now and fetches the bytes of everything the rendering uses,
// from inside the page, so the browser cache and the user's session are used. The bytes stay
// here, in this frame, until the background pulls them in parts (readParts) and releases them.
//
//   const frame = await pagekeeperCapture.run({ key: 'c1', keepScripts: false, resourceBytes: 50e6 });
//   // {url, title, html, content_type, resources: [{url, type, size, sha256, status?, error?}], cors: [...]}
//   const [b64] = await pagekeeperCapture.readParts('c1', [{ url, offset: 0, length: 1 << 20 }]);
//   pagekeeperCapture.release('c1');
//
// What is recorded: the current source of each image (currentSrc, so the srcset candidate and
// the lazy-loading swap the page made), CSS backgrounds (computed style), video posters,
// favicons, SVG <use>/<image> references, every stylesheet with its @imports, fonts and images
// (url() in the rules; of an @font-face src list the format the browser fetched, per the
// Resource Timing entries, else the first supported one), the CSSOM of <style> elements changed
// with insertRule and of adopted stylesheets (as <style>), open shadow roots as declarative shadow
// DOM (<template shadowrootmode>), <canvas> as a PNG, and form values. Scripts, event handler
// attributes and <noscript> are left out unless keepScripts is set.

(() => {
  if (globalThis.pagekeeperCapture) return; // a second archive of the same page reuses this frame's copy

  const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr', 'basefont', 'bgsound', 'frame', 'keygen', 'param']);
  // HTML serialization algorithm: the text of these elements is written as is, not escaped.
  const RAW_TEXT = new Set(['style', 'script', 'xmp', 'iframe', 'noembed', 'noframes', 'plaintext', 'noscript']);
  const DROPPED_LINKS = /(^|\s)(preload|prefetch|preconnect|dns-prefetch|modulepreload|prerender)(\s|$)/i;
  const ICON_LINKS = /(^|\s)(icon|apple-touch-icon|apple-touch-icon-precomposed|mask-icon)(\s|$)/i;
  const SCRIPT_TYPES = /^(|text\/javascript|application\/javascript|module|text\/ecmascript|application\/ecmascript)$/i;
  const FONT_FORMATS = ['woff2', 'woff', 'truetype', 'opentype', ''];
  const FETCH_TIMEOUT_MS = 20000;
  const FETCH_CONCURRENCY = 8;

  const held = new Map(); // capture key → Map(url → Blob)

  // ---- URLs -------------------------------------------------------------------------------

  /**
   * The image a lazy-loading script puts in `img` once it scrolls into view (`data-src`, else
   * the widest candidate of `data-srcset`: the lazysizes convention), while the image still shows
   * nothing or a data: placeholder; null otherwise. A copy runs no script, so it shows that image
   * at once, as the page does when the user scrolls to it.
   */
  function deferredSource(img, base) {
    const single = absolute(img.getAttribute('data-src') ?? '', base);
    if (single) return single;
    let best = null;
    for (const candidate of (img.getAttribute('data-srcset') ?? '').split(/,\s+/)) {
      const [ref, size = '1x'] = candidate.trim().split(/\s+/);
      const width = parseFloat(size) || 1;
      const url = absolute(ref ?? '', base);
      if (url && (!best || width > best.width)) best = { url, width };
    }
    return best?.url ?? null;
  }

  /** `ref` resolved against `base`, or null when it is not something to fetch (data:, #id, …). */
  function absolute(ref, base = document.baseURI) {
    if (!ref || /^\s*(data:|blob:|javascript:|about:|#)/i.test(ref)) return null;
    try {
      const url = new URL(ref.trim(), base);
      return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
    } catch {
      return null;
    }
  }

  /** The URL without its fragment: what is fetched and stored. */
  function withoutFragment(url) {
    const i = url.indexOf('#');
    return i < 0 ? url : url.slice(0, i);
  }

  const CSS_URL = /url\(\s*(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^)'"\s]*))\s*\)/gi;
  const CSS_IMPORT = /@import\s+(?:url\(\s*)?(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)'|([^)'"\s;]+))/gi;

  /** CSS text with every url() made absolute (against `base`); `found` collects the URLs. */
  function absoluteCSS(text, base, found) {
    return text.replace(CSS_URL, (whole, dq, sq, bare) => {
      const ref = dq ?? sq ?? bare ?? '';
      const url = absolute(ref, base);
      if (!url) return whole;
      found?.add(withoutFragment(url));
      return `url("${url.replace(/["\\\n]/g, (c) => (c === '\n' ? '\\a ' : `\\${c}`))}")`;
    });
  }

  // ---- stylesheets ------------------------------------------------------------------------

  /** The rules of a sheet as text, or null when the browser will not show them (cross-origin). */
  function rulesText(sheet) {
    try {
      return [...sheet.cssRules].map((rule) => rule.cssText).join('\n');
    } catch {
      return null;
    }
  }

  /**
   * The text a <style> element should carry: its own text, unless script changed its CSSOM
   * (insertRule into an empty or different sheet), then the rules the browser applies.
   */
  function styleText(el) {
    const own = el.textContent;
    const live = el.sheet ? rulesText(el.sheet) : null;
    if (live === null) return own;
    if (/@import/i.test(own)) return own; // constructed sheets refuse @import: cannot compare
    try {
      const parsed = new CSSStyleSheet();
      parsed.replaceSync(own);
      return rulesText(parsed) === live ? own : live;
    } catch {
      return own;
    }
  }

  /**
   * The sheets adopted by a document or shadow root, as the browser holds them. A Firefox content
   * script sees page objects through Xray wrappers, and Firefox ESR 140's wrapper of
   * adoptedStyleSheets (an ObservableArray) shows neither its items nor Symbol.iterator ("sheets
   * is not iterable"). So the list is read with the browser's own getter (through the wrapper),
   * unwrapped to read its items, and each sheet is wrapped again (MDN, "Sharing objects with page
   * scripts": XPCNativeWrapper.unwrap / XPCNativeWrapper): the page's script, which may redefine
   * getters such as CSSStyleSheet.prototype.cssRules, never runs in the capture. Chromium has no
   * such wrapper (its content scripts run in an isolated world).
   */
  function adoptedSheets(root) {
    const xpc = globalThis.XPCNativeWrapper;
    const held = root.adoptedStyleSheets;
    const items = (xpc && held ? xpc.unwrap(held) : held) ?? [];
    const sheets = Array.from({ length: items.length ?? 0 }, (_, i) => items[i]);
    return xpc ? sheets.map((sheet) => xpc(sheet)) : sheets;
  }

  /** Adopted stylesheets (document or shadow root) as <style> elements, in cascade order. */
  function adoptedStyles(root, found) {
    return adoptedSheets(root).map((sheet) => {
      const text = absoluteCSS(rulesText(sheet) ?? '', document.baseURI, found);
      return `<style data-pagekeeper="adopted">${text}</style>`;
    }).join('');
  }

  // ---- serialization ----------------------------------------------------------------------

  function escapeText(text) {
    return text.replace(/&/g, '&amp;').replace(/\u00a0/g, '&nbsp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  }

  function escapeAttr(text) {
    return text.replace(/&/g, '&amp;').replace(/\u00a0/g, '&nbsp;').replace(/"/g, '&quot;');
  }

  // Without script, Chromium shows a <video>'s controls (HTML: "if scripting is disabled, ...
  // expose a user interface"); the live page showed none unless it asked for them.
  const SEALED_STYLE = '<style data-pagekeeper="sealed">video:not([controls])::-webkit-media-controls { display: none !important; }</style>';

  // Elements that may host an author shadow root (DOM Standard, attachShadow): never read a
  // browser's own widget roots (video controls, inputs).
  const SHADOW_HOSTS = new Set(['article', 'aside', 'blockquote', 'body', 'div', 'footer', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'main', 'nav', 'p', 'section', 'span']);

  /** Shadow root of `el`, open or (for content scripts) closed. */
  function shadowOf(el) {
    if (!SHADOW_HOSTS.has(el.localName) && !el.localName.includes('-')) return null;
    const api = globalThis.chrome?.dom?.openOrClosedShadowRoot;
    if (api) return api(el);
    return el.openOrClosedShadowRoot ?? el.shadowRoot ?? null;
  }

  class Serializer {
    constructor(doc, options, found, uses = []) {
      this.doc = doc;
      this.options = options;
      this.found = found; // Set of resource URLs (fragment cut)
      this.uses = uses; // external SVG <use> targets to inline: [{url, fragment, id, original}]
      this.base = doc.baseURI;
    }

    add(ref) {
      const url = absolute(ref, this.base);
      if (url) this.found.add(withoutFragment(url));
      return url;
    }

    document() {
      const dt = this.doc.doctype;
      const doctype = dt ? `<!DOCTYPE ${dt.name}${dt.publicId ? ` PUBLIC "${dt.publicId}"` : ''}${dt.systemId ? ` "${dt.systemId}"` : ''}>\n` : '';
      return doctype + this.node(this.doc.documentElement);
    }

    children(parent) {
      let out = '';
      for (let child = parent.firstChild; child; child = child.nextSibling) out += this.node(child);
      return out;
    }

    node(node) {
      switch (node.nodeType) {
        case Node.ELEMENT_NODE:
          return this.element(node);
        case Node.TEXT_NODE: {
          const parent = node.parentNode?.localName;
          return RAW_TEXT.has(parent) && node.parentNode.namespaceURI === 'http://www.w3.org/1999/xhtml' ? node.data : escapeText(node.data);
        }
        case Node.COMMENT_NODE:
          return `<!--${node.data}-->`;
        default:
          return '';
      }
    }

    element(el) {
      const name = el.localName;
      const html = el.namespaceURI === 'http://www.w3.org/1999/xhtml';
      if (html && this.dropped(el, name)) return '';
      if (html && name === 'canvas') return this.canvas(el);
      const attrs = this.attributes(el, name, html);
      let inner;
      if (html && name === 'style') inner = absoluteCSS(styleText(el), this.base, this.found);
      else if (html && name === 'template') inner = this.children(el.content);
      else if (html && name === 'textarea') inner = escapeText(el.value);
      else if (html && name === 'iframe') inner = '';
      else inner = this.children(el);
      const shadow = shadowOf(el);
      if (shadow) inner = this.shadow(shadow) + inner;
      if (el === this.doc.body) inner += adoptedStyles(this.doc, this.found) + (this.doc.querySelector('video') ? SEALED_STYLE : '');
      const open = `<${name}${attrs}>`;
      if (html && VOID.has(name)) return open;
      if (!html && !inner) return `<${name}${attrs}/>`;
      return `${open}${inner}</${name}>`;
    }

    shadow(root) {
      const focus = root.delegatesFocus ? ' shadowrootdelegatesfocus' : '';
      const body = this.children(root) + adoptedStyles(root, this.found);
      return `<template shadowrootmode="${root.mode}"${focus}>${body}</template>`;
    }

    dropped(el, name) {
      if (name === 'script') return !this.options.keepScripts && SCRIPT_TYPES.test((el.type ?? '').trim());
      if (name === 'noscript') return !this.options.keepScripts;
      if (name === 'meta') return /^(refresh|content-security-policy)$/i.test(el.httpEquiv ?? '');
      if (name === 'link') return DROPPED_LINKS.test(el.rel) && !/stylesheet/i.test(el.rel);
      if (name === 'source' && el.parentNode?.localName === 'picture') return true; // the <img> carries currentSrc
      return false;
    }

    attributes(el, name, html) {
      const values = new Map([...el.attributes].map((a) => [a.name, a.value]));
      if (html) this.rewrite(el, name, values);
      else this.rewriteForeign(el, values);
      if (!this.options.keepScripts) {
        for (const key of [...values.keys()]) if (/^on/i.test(key)) values.delete(key);
        for (const key of ['href', 'src', 'action', 'formaction']) if (/^\s*javascript:/i.test(values.get(key) ?? '')) values.set(key, '#');
      }
      if (values.has('style')) values.set('style', absoluteCSS(values.get('style'), this.base, this.found));
      this.background(el);
      let out = '';
      for (const [key, value] of values) out += value === null ? '' : ` ${key}="${escapeAttr(value)}"`;
      return out;
    }

    /** HTML elements: the resource they show now, made absolute, and the form values. */
    rewrite(el, name, values) {
      const set = (key, value) => values.set(key, value);
      values.delete('integrity'); // the host rewrites URLs inside stored CSS, so the hash would no longer hold
      if (name === 'img') {
        const src = el.currentSrc || el.src;
        const deferred = !src || src.startsWith('data:') ? deferredSource(el, this.base) : null;
        if (deferred) {
          set('src', this.add(deferred) ?? deferred);
          values.delete('srcset'); values.delete('sizes');
        } else {
          if (src && !src.startsWith('data:')) set('src', this.add(src) ?? src);
          if (el.currentSrc) { values.delete('srcset'); values.delete('sizes'); }
        }
        values.delete('loading');
      } else if (name === 'link') {
        if (/stylesheet/i.test(el.rel) || ICON_LINKS.test(el.rel)) set('href', this.add(el.href) ?? el.getAttribute('href'));
      } else if (name === 'video') {
        if (el.poster) set('poster', this.add(el.poster) ?? el.poster);
      } else if (name === 'input') {
        this.field(el, values);
        if (el.type === 'image' && el.src) set('src', this.add(el.src) ?? el.src);
      } else if (name === 'select') {
        // option elements carry `selected`, see option below
      } else if (name === 'option') {
        values.delete('selected');
        if (el.selected) set('selected', '');
      } else if (name === 'iframe' || name === 'frame') {
        this.frame(el, values);
      } else if (name === 'script' && values.has('src')) {
        set('src', this.add(el.src) ?? el.src);
      } else if ((name === 'body' || name === 'table' || name === 'td' || name === 'th') && values.has('background')) {
        set('background', this.add(values.get('background')) ?? values.get('background'));
      }
    }

    /**
     * SVG <use>/<image> outside the document: a resource. An external <use> is also pointed at
     * a copy of its target inlined into the page (see inlineSprites): a copy's origin is opaque,
     * and SVG 2 lets <use> reference same-origin documents only.
     */
    rewriteForeign(el, values) {
      for (const key of ['href', 'xlink:href']) {
        const ref = values.get(key);
        if (!ref || ref.startsWith('#') || !/^(use|image|feImage)$/.test(el.localName)) continue;
        const url = this.add(ref);
        values.set(key, url ?? ref);
        const fragment = url && el.localName === 'use' ? new URL(url).hash.slice(1) : '';
        if (!fragment) continue;
        const id = `pagekeeper-use-${this.options.key}-${this.uses.length}`;
        this.uses.push({ url: withoutFragment(url), fragment: decodeURIComponent(fragment), id, original: url });
        values.set(key, `#${id}`);
      }
    }

    field(el, values) {
      if (el.type === 'password' || el.type === 'file') return;
      if (el.type === 'checkbox' || el.type === 'radio') {
        values.delete('checked');
        if (el.checked) values.set('checked', '');
      } else {
        values.set('value', el.value);
      }
    }

    /**
     * A canvas becomes an <img> of what was drawn (a data: PNG) with the canvas's attributes: in
     * a copy that runs no script a <canvas> would show its fallback content instead of a picture.
     */
    canvas(el) {
      let data;
      try {
        data = el.toDataURL('image/png');
      } catch {
        data = null; // tainted by a cross-origin image: the box stays, empty
      }
      const attrs = this.attributes(el, 'canvas', true);
      if (!data) return `<canvas${attrs}>${this.children(el)}</canvas>`;
      return `<img${attrs} src="${escapeAttr(data)}" data-pagekeeper="canvas">`;
    }

    /**
     * A frame is captured in its own frame: the src names that capture (its current address,
     * when this frame may read it). A same-origin frame without an address of its own
     * (about:srcdoc, about:blank) is serialized here into srcdoc.
     */
    frame(el, values) {
      let inner = null;
      try {
        inner = el.contentDocument;
      } catch {
        inner = null;
      }
      const location = inner?.location?.href;
      if (inner && location && !/^https?:/i.test(location)) {
        const nested = new Serializer(inner, this.options, this.found, this.uses);
        values.set('srcdoc', nested.document());
        values.delete('src');
        return;
      }
      const src = absolute(location || el.getAttribute('src') || '', this.base);
      if (src) values.set('src', src);
      values.delete('srcdoc');
      values.delete('loading');
    }

    /** CSS backgrounds the element shows now (computed style), whichever rule set them. */
    background(el) {
      if (!this.options.computed) return;
      const style = el.ownerDocument.defaultView?.getComputedStyle(el);
      for (const value of [style?.backgroundImage, style?.listStyleImage, style?.borderImageSource]) {
        if (value && value !== 'none') absoluteCSS(value, this.base, this.found);
      }
    }
  }

  // ---- resources: which URLs, then their bytes ----------------------------------------------

  /** The fonts the browser fetched (Resource Timing lists every fetched URL, any origin). */
  function fetchedURLs() {
    return new Set(performance.getEntriesByType('resource').map((e) => withoutFragment(e.name)));
  }

  /**
   * The URLs one stylesheet's text references, relative to `base`: its @imports (to fetch and
   * scan in turn), and fonts and images. Of an @font-face src list only the face the browser
   * fetched, or else the first in a supported format.
   */
  function cssReferences(text, base, loaded) {
    const imports = new Set();
    const urls = new Set();
    const plain = text.replace(/\/\*[\s\S]*?\*\//g, '');
    for (const m of plain.matchAll(CSS_IMPORT)) {
      const url = absolute(m[1] ?? m[2] ?? m[3], base);
      if (url) imports.add(withoutFragment(url));
    }
    const faces = plain.match(/@font-face\s*\{[^}]*\}/gi) ?? [];
    for (const face of faces) {
      const chosen = chooseFont(face, base, loaded);
      if (chosen) urls.add(chosen);
    }
    absoluteCSS(plain.replace(/@font-face\s*\{[^}]*\}/gi, '').replace(CSS_IMPORT, ''), base, urls);
    return { imports, urls };
  }

  function chooseFont(face, base, loaded) {
    const src = /(?:^|[;{\s])src\s*:([^;}]*)/i.exec(face)?.[1] ?? '';
    const options = [];
    for (const part of src.split(/,(?![^(]*\))/)) {
      const ref = /url\(\s*["']?([^"')]+)["']?\s*\)/i.exec(part)?.[1];
      const format = /format\(\s*["']?([^"')]+)["']?\s*\)/i.exec(part)?.[1]?.toLowerCase() ?? '';
      const url = ref && absolute(ref, base);
      if (url) options.push({ url: withoutFragment(url), format });
    }
    const used = options.find((o) => loaded.has(o.url));
    if (used) return used.url;
    return options.find((o) => FONT_FORMATS.includes(o.format.replace(/^(woff2|woff|truetype|opentype)-variations$/, '$1')))?.url ?? null;
  }

  /** Fetch with the page's cookies and cache; null bytes and a status/error when it failed. */
  async function fetchOne(url, options) {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), FETCH_TIMEOUT_MS);
    try {
      const response = await fetch(url, { credentials: 'include', cache: 'force-cache', signal: controller.signal, redirect: 'follow' });
      const type = response.headers.get('content-type') ?? '';
      if (!response.ok) return { url, type, status: response.status, error: `HTTP ${response.status}` };
      const declared = Number(response.headers.get('content-length') ?? '0');
      if (declared > options.resourceBytes) {
        controller.abort();
        return { url, type, status: response.status, size: declared, error: 'over the per-resource cap' };
      }
      const blob = await response.blob();
      if (blob.size > options.resourceBytes) return { url, type, status: response.status, size: blob.size, error: 'over the per-resource cap' };
      return { url, type, status: response.status, blob };
    } catch (err) {
      // A cross-origin resource without CORS headers cannot be read from the page (Chromium runs
      // content-script fetches as the page); the background fetches it with its host permission.
      return { url, cors: err?.name !== 'AbortError', error: err?.name === 'AbortError' ? 'timeout' : String(err?.message ?? err) };
    } finally {
      clearTimeout(timer);
    }
  }

  async function pool(items, limit, work) {
    const results = new Array(items.length);
    let next = 0;
    const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        results[i] = await work(items[i]);
      }
    });
    await Promise.all(lanes);
    return results;
  }

  /** Stylesheets and their @imports, fetched and scanned, breadth-first; returns fetch results. */
  async function fetchAll(found, options) {
    const loaded = fetchedURLs();
    const done = new Map();
    let queue = [...found];
    while (queue.length) {
      const batch = queue.filter((url) => !done.has(url));
      const results = await pool(batch, FETCH_CONCURRENCY, (url) => fetchOne(url, options));
      queue = [];
      for (const result of results) {
        done.set(result.url, result);
        if (!result.blob || !isCSS(result)) continue;
        const refs = cssReferences(await result.blob.text(), result.url, loaded);
        queue.push(...refs.imports, ...refs.urls);
      }
      queue = [...new Set(queue)].filter((url) => !done.has(url));
    }
    return [...done.values()];
  }

  function isCSS(result) {
    return /text\/css/i.test(result.type) || /\.css(\?|$)/i.test(result.url);
  }

  async function describe(result, store) {
    const entry = { url: result.url, type: result.type ?? '', size: result.size ?? 0 };
    if (result.status) entry.status = result.status;
    if (result.error) entry.error = result.error;
    if (!result.blob) return entry;
    store.set(result.url, result.blob);
    entry.size = result.blob.size;
    entry.sha256 = await globalThis.pagekeeperSha256(await result.blob.arrayBuffer());
    return entry;
  }

  /**
   * Copies of the external SVG <use> targets, in a hidden <svg> at the end of the body, under
   * the ids the serializer gave them; a target that could not be read keeps its absolute URL.
   */
  async function inlineSprites(html, uses, results) {
    if (!uses.length) return html;
    const bodies = new Map(results.filter((r) => r.blob).map((r) => [r.url, r.blob]));
    const parsed = new Map();
    let defs = '';
    for (const use of uses) {
      const blob = bodies.get(use.url);
      if (blob && !parsed.has(use.url)) parsed.set(use.url, new DOMParser().parseFromString(await blob.text(), 'image/svg+xml'));
      const target = parsed.get(use.url)?.getElementById(use.fragment);
      if (target) {
        const copy = target.cloneNode(true);
        copy.setAttribute('id', use.id);
        defs += new XMLSerializer().serializeToString(copy);
      } else {
        html = html.replace(`"#${use.id}"`, `"${escapeAttr(use.original)}"`);
      }
    }
    if (!defs) return html;
    const sprites = `<svg xmlns="http://www.w3.org/2000/svg" aria-hidden="true" data-pagekeeper="sprites" style="position:absolute;width:0;height:0;overflow:hidden">${defs}</svg>`;
    const end = html.lastIndexOf('</body>');
    return end < 0 ? html + sprites : html.slice(0, end) + sprites + html.slice(end);
  }

  // ---- the three calls the background makes -----------------------------------------------

  async function run(options) {
    // A frame without an address of its own (about:srcdoc, about:blank) is serialized by its parent.
    if (!/^https?:/i.test(location.href)) return null;
    const settings = { keepScripts: false, computed: true, resourceBytes: 50 * 2 ** 20, ...options };
    const found = new Set();
    const serializer = new Serializer(document, settings, found);
    const serialized = serializer.document();
    const results = await fetchAll(found, settings);
    const html = await inlineSprites(serialized, serializer.uses, results);
    const store = new Map();
    held.set(settings.key, store);
    const resources = [];
    const cors = [];
    for (const result of results) {
      if (result.cors) cors.push(result.url);
      else resources.push(await describe(result, store));
    }
    return {
      url: location.href,
      title: document.title,
      html,
      content_type: document.contentType,
      charset: document.characterSet,
      last_modified: document.lastModified,
      top: window === window.top,
      resources,
      cors,
    };
  }

  /** Base64 of byte ranges of held resources: [{url, offset, length}] → [string]. */
  async function readParts(key, ranges) {
    const store = held.get(key);
    if (!store) throw new Error('this capture is no longer held in the page');
    return Promise.all(ranges.map(async ({ url, offset, length }) => {
      const blob = store.get(url);
      if (!blob) throw new Error(`not held: ${url}`);
      return toBase64(blob.slice(offset, offset + length));
    }));
  }

  function toBase64(blob) {
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result).replace(/^data:[^,]*,/, ''));
      reader.onerror = () => reject(reader.error);
      reader.readAsDataURL(blob);
    });
  }

  function release(key) {
    return held.delete(key);
  }

  globalThis.pagekeeperCapture = { run, readParts, release, cssReferences, absoluteCSS };
})();
