// SHA-256 (FIPS 180-4) for pages where crypto.subtle is missing: WebCrypto is only exposed in
// secure contexts (https, loopback), and a content script on an http:// page has none. Injected
// before page.js as a classic script; defines globalThis.pagekeeperSha256.
//
//   await pagekeeperSha256(new TextEncoder().encode('abc'))
//   // 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'

(() => {
  const K = new Uint32Array([
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
  ]);

  /** The padded message: bytes, 0x80, zeros, and the bit length as a 64-bit big-endian number. */
  function padded(bytes) {
    const length = Math.ceil((bytes.length + 9) / 64) * 64;
    const out = new Uint8Array(length);
    out.set(bytes);
    out[bytes.length] = 0x80;
    const view = new DataView(out.buffer);
    view.setUint32(length - 8, Math.floor(bytes.length / 0x20000000));
    view.setUint32(length - 4, (bytes.length * 8) >>> 0);
    return view;
  }

  function compress(h, view, offset, w) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(offset + i * 4);
    for (let i = 16; i < 64; i++) {
      const a = w[i - 15];
      const b = w[i - 2];
      const s0 = ((a >>> 7) | (a << 25)) ^ ((a >>> 18) | (a << 14)) ^ (a >>> 3);
      const s1 = ((b >>> 17) | (b << 15)) ^ ((b >>> 19) | (b << 13)) ^ (b >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) | 0;
    }
    let [a, b, c, d, e, f, g, k] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7)))
        + ((e & f) ^ (~e & g)) + K[i] + w[i]) | 0;
      const t2 = ((((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10)))
        + ((a & b) ^ (a & c) ^ (b & c))) | 0;
      k = g; g = f; f = e; e = (d + t1) | 0; d = c; c = b; b = a; a = (t1 + t2) | 0;
    }
    [a, b, c, d, e, f, g, k].forEach((v, i) => { h[i] = (h[i] + v) | 0; });
  }

  function digest(bytes) {
    const h = new Int32Array([
      0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    ]);
    const view = padded(bytes);
    const w = new Int32Array(64);
    for (let offset = 0; offset < view.byteLength; offset += 64) compress(h, view, offset, w);
    return [...h].map((v) => (v >>> 0).toString(16).padStart(8, '0')).join('');
  }

  /** Hex SHA-256 of a Uint8Array or ArrayBuffer: WebCrypto when the page has it, else the above. */
  globalThis.pagekeeperSha256 = async function sha256(data) {
    const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
    if (globalThis.crypto?.subtle) {
      const sum = await crypto.subtle.digest('SHA-256', bytes);
      return [...new Uint8Array(sum)].map((b) => b.toString(16).padStart(2, '0')).join('');
    }
    return digest(bytes);
  };
  globalThis.pagekeeperSha256.portable = digest;
})();
