/**
 * A bzip2 encoder (the format of bzip2 1.0: RLE1, Burrows–Wheeler transform, move-to-front with
 * zero-run coding, up to six Huffman tables chosen per 50 symbols). No npm package offers a
 * maintained, non-GPL bzip2 *compressor* that neither prints to stdout nor hooks the process, so
 * this one is ours. It runs in a worker thread (bzip2-stream.ts); everything it uses is inside
 * `bzip2Encoder` so that the worker can be started from this function's source text.
 *
 * `compress(input)` returns one complete .bz2 stream; concatenated streams are a valid .bz2 file
 * (bzip2 -d and tar -j read them as one).
 */
export function bzip2Encoder() {
  const BLOCK_MAX = 100000 * 9 - 19;
  const MAX_CODE_LEN = 17;
  const GROUP = 50;

  const CRC = new Int32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 24;
    for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    CRC[i] = c;
  }

  class Bits {
    buf = new Uint8Array(1 << 16);
    len = 0;
    acc = 0;
    n = 0;
    private grow(): void {
      const b = new Uint8Array(this.buf.length * 2);
      b.set(this.buf);
      this.buf = b;
    }
    /** Writes the low `count` bits of `value` (count ≤ 24), most significant first. */
    put(count: number, value: number): void {
      this.acc = ((this.acc << count) | (value & ((1 << count) - 1))) >>> 0;
      this.n += count;
      while (this.n >= 8) {
        if (this.len === this.buf.length) this.grow();
        this.n -= 8;
        this.buf[this.len++] = (this.acc >>> this.n) & 0xff;
      }
      this.acc &= (1 << this.n) - 1;
    }
    put32(value: number): void {
      this.put(16, (value >>> 16) & 0xffff);
      this.put(16, value & 0xffff);
    }
    finish(): Uint8Array {
      if (this.n > 0) this.put(8 - this.n, 0);
      return this.buf.subarray(0, this.len);
    }
  }

  /** Sorted order of the cyclic rotations of `s` (prefix doubling with counting sorts). */
  function sortRotations(s: Uint8Array, n: number): Int32Array {
    const sa = new Int32Array(n);
    const cls = new Int32Array(n);
    const tmp = new Int32Array(n);
    const next = new Int32Array(n);
    const count = new Int32Array(Math.max(256, n) + 1);
    for (let i = 0; i < n; i++) count[s[i]!]!++;
    for (let i = 1; i < 256; i++) count[i]! += count[i - 1]!;
    for (let i = n - 1; i >= 0; i--) sa[--count[s[i]!]!] = i;
    let classes = 1;
    cls[sa[0]!] = 0;
    for (let i = 1; i < n; i++) {
      if (s[sa[i]!] !== s[sa[i - 1]!]) classes++;
      cls[sa[i]!] = classes - 1;
    }
    for (let k = 1; k < n && classes < n; k <<= 1) {
      for (let i = 0; i < n; i++) {
        let p = sa[i]! - k;
        if (p < 0) p += n;
        tmp[i] = p;
      }
      count.fill(0, 0, classes + 1);
      for (let i = 0; i < n; i++) count[cls[tmp[i]!]!]!++;
      for (let i = 1; i < classes; i++) count[i]! += count[i - 1]!;
      for (let i = n - 1; i >= 0; i--) sa[--count[cls[tmp[i]!]!]!] = tmp[i]!;
      next[sa[0]!] = 0;
      let c = 1;
      for (let i = 1; i < n; i++) {
        const a = sa[i]!;
        const b = sa[i - 1]!;
        let a2 = a + k;
        if (a2 >= n) a2 -= n;
        let b2 = b + k;
        if (b2 >= n) b2 -= n;
        if (cls[a] !== cls[b] || cls[a2] !== cls[b2]) c++;
        next[a] = c - 1;
      }
      cls.set(next);
      classes = c;
    }
    return sa;
  }

  /** Huffman code lengths limited to `maxLen` (bzip2's hbMakeCodeLengths). */
  function codeLengths(freq: Int32Array, alphaSize: number, maxLen: number): Uint8Array {
    const len = new Uint8Array(alphaSize);
    const weight = new Int32Array(alphaSize * 2);
    const parent = new Int32Array(alphaSize * 2);
    const heap = new Int32Array(alphaSize + 2);
    for (let i = 0; i < alphaSize; i++) weight[i + 1] = (freq[i] === 0 ? 1 : freq[i]!) << 8;
    for (;;) {
      let nNodes = alphaSize;
      let nHeap = 0;
      heap[0] = 0;
      weight[0] = 0;
      parent[0] = -2;
      const up = (z0: number) => {
        let z = z0;
        const t = heap[z]!;
        while (weight[t]! < weight[heap[z >> 1]!]!) {
          heap[z] = heap[z >> 1]!;
          z >>= 1;
        }
        heap[z] = t;
      };
      const down = (z0: number) => {
        let z = z0;
        const t = heap[z]!;
        for (;;) {
          let y = z << 1;
          if (y > nHeap) break;
          if (y < nHeap && weight[heap[y + 1]!]! < weight[heap[y]!]!) y++;
          if (weight[t]! < weight[heap[y]!]!) break;
          heap[z] = heap[y]!;
          z = y;
        }
        heap[z] = t;
      };
      for (let i = 1; i <= alphaSize; i++) {
        parent[i] = -1;
        heap[++nHeap] = i;
        up(nHeap);
      }
      while (nHeap > 1) {
        const n1 = heap[1]!;
        heap[1] = heap[nHeap--]!;
        down(1);
        const n2 = heap[1]!;
        heap[1] = heap[nHeap--]!;
        down(1);
        nNodes++;
        parent[n1] = parent[n2] = nNodes;
        const w1 = weight[n1]!;
        const w2 = weight[n2]!;
        weight[nNodes] = ((w1 & 0xffffff00) + (w2 & 0xffffff00)) | (1 + Math.max(w1 & 0xff, w2 & 0xff));
        parent[nNodes] = -1;
        heap[++nHeap] = nNodes;
        up(nHeap);
      }
      let tooLong = false;
      for (let i = 1; i <= alphaSize; i++) {
        let j = 0;
        let k = i;
        while (parent[k]! >= 0) {
          k = parent[k]!;
          j++;
        }
        len[i - 1] = j;
        if (j > maxLen) tooLong = true;
      }
      if (!tooLong) return len;
      for (let i = 1; i <= alphaSize; i++) {
        const j = weight[i]! >> 8;
        weight[i] = (1 + (j >> 1)) << 8;
      }
    }
  }

  function writeBlock(out: Bits, block: Uint8Array, n: number, blockCrc: number): void {
    const sa = sortRotations(block, n);
    let origPtr = 0;
    const inUse = new Uint8Array(256);
    for (let i = 0; i < n; i++) inUse[block[i]!] = 1;
    const unseqToSeq = new Uint8Array(256);
    let nInUse = 0;
    for (let i = 0; i < 256; i++) if (inUse[i]) unseqToSeq[i] = nInUse++;
    const EOB = nInUse + 1;
    const alphaSize = nInUse + 2;

    // MTF with RUNA/RUNB zero runs.
    const mtf = new Uint16Array(n + 1);
    let nMTF = 0;
    const freq = new Int32Array(alphaSize);
    const list = new Uint8Array(nInUse);
    for (let i = 0; i < nInUse; i++) list[i] = i;
    let zPend = 0;
    const flushZeros = () => {
      if (zPend === 0) return;
      zPend--;
      for (;;) {
        const sym = zPend & 1;
        mtf[nMTF++] = sym;
        freq[sym]!++;
        if (zPend < 2) break;
        zPend = (zPend - 2) >> 1;
      }
      zPend = 0;
    };
    for (let i = 0; i < n; i++) {
      const p = sa[i]!;
      if (p === 0) origPtr = i;
      const ll = unseqToSeq[block[p === 0 ? n - 1 : p - 1]!]!;
      if (list[0] === ll) {
        zPend++;
        continue;
      }
      flushZeros();
      let j = 1;
      let prev = list[0]!;
      list[0] = ll;
      while (list[j] !== ll) {
        const t = list[j]!;
        list[j] = prev;
        prev = t;
        j++;
      }
      list[j] = prev;
      mtf[nMTF++] = j + 1;
      freq[j + 1]!++;
    }
    flushZeros();
    mtf[nMTF++] = EOB;
    freq[EOB]!++;

    // Huffman tables: initial partition, then four refinement passes.
    const nGroups = nMTF < 200 ? 2 : nMTF < 600 ? 3 : nMTF < 1200 ? 4 : nMTF < 2400 ? 5 : 6;
    const lens: Uint8Array[] = [];
    for (let t = 0; t < nGroups; t++) lens.push(new Uint8Array(alphaSize));
    {
      let nPart = nGroups;
      let remF = nMTF;
      let gs = 0;
      while (nPart > 0) {
        const tFreq = remF / nPart;
        let ge = gs - 1;
        let aFreq = 0;
        while (aFreq < tFreq && ge < alphaSize - 1) {
          ge++;
          aFreq += freq[ge]!;
        }
        if (ge > gs && nPart !== nGroups && nPart !== 1 && (nGroups - nPart) % 2 === 1) {
          aFreq -= freq[ge]!;
          ge--;
        }
        for (let v = 0; v < alphaSize; v++) lens[nPart - 1]![v] = v >= gs && v <= ge ? 0 : 15;
        nPart--;
        gs = ge + 1;
        remF -= aFreq;
      }
    }
    const nSelectors = Math.ceil(nMTF / GROUP);
    const selectors = new Uint8Array(nSelectors);
    const rfreq: Int32Array[] = [];
    for (let t = 0; t < nGroups; t++) rfreq.push(new Int32Array(alphaSize));
    const cost = new Int32Array(nGroups);
    for (let iter = 0; iter < 4; iter++) {
      for (const r of rfreq) r.fill(0);
      for (let g = 0, gs = 0; gs < nMTF; g++, gs += GROUP) {
        const ge = Math.min(gs + GROUP, nMTF);
        cost.fill(0);
        for (let i = gs; i < ge; i++) {
          const sym = mtf[i]!;
          for (let t = 0; t < nGroups; t++) cost[t]! += lens[t]![sym]!;
        }
        let bt = 0;
        for (let t = 1; t < nGroups; t++) if (cost[t]! < cost[bt]!) bt = t;
        selectors[g] = bt;
        const rf = rfreq[bt]!;
        for (let i = gs; i < ge; i++) rf[mtf[i]!]!++;
      }
      for (let t = 0; t < nGroups; t++) lens[t] = codeLengths(rfreq[t]!, alphaSize, MAX_CODE_LEN);
    }
    const codes: Int32Array[] = lens.map((len) => {
      const code = new Int32Array(alphaSize);
      let minLen = 32;
      let maxLen = 0;
      for (const l of len) {
        if (l < minLen) minLen = l;
        if (l > maxLen) maxLen = l;
      }
      let vec = 0;
      for (let l = minLen; l <= maxLen; l++) {
        for (let i = 0; i < alphaSize; i++) if (len[i] === l) code[i] = vec++;
        vec <<= 1;
      }
      return code;
    });

    // Block header.
    out.put(24, 0x314159);
    out.put(24, 0x265359);
    out.put32(blockCrc);
    out.put(1, 0);
    out.put(24, origPtr);
    let used16 = 0;
    for (let i = 0; i < 16; i++) {
      for (let j = 0; j < 16; j++) if (inUse[i * 16 + j]) used16 |= 0x8000 >> i;
    }
    out.put(16, used16);
    for (let i = 0; i < 16; i++) {
      if (!(used16 & (0x8000 >> i))) continue;
      let bits = 0;
      for (let j = 0; j < 16; j++) if (inUse[i * 16 + j]) bits |= 0x8000 >> j;
      out.put(16, bits);
    }
    out.put(3, nGroups);
    out.put(15, nSelectors);
    const pos = [0, 1, 2, 3, 4, 5].slice(0, nGroups);
    for (let i = 0; i < nSelectors; i++) {
      const s = selectors[i]!;
      const j = pos.indexOf(s);
      pos.splice(j, 1);
      pos.unshift(s);
      for (let k = 0; k < j; k++) out.put(1, 1);
      out.put(1, 0);
    }
    for (const len of lens) {
      let curr = len[0]!;
      out.put(5, curr);
      for (let i = 0; i < alphaSize; i++) {
        while (curr < len[i]!) {
          out.put(2, 2);
          curr++;
        }
        while (curr > len[i]!) {
          out.put(2, 3);
          curr--;
        }
        out.put(1, 0);
      }
    }
    for (let g = 0, gs = 0; gs < nMTF; g++, gs += GROUP) {
      const ge = Math.min(gs + GROUP, nMTF);
      const len = lens[selectors[g]!]!;
      const code = codes[selectors[g]!]!;
      for (let i = gs; i < ge; i++) out.put(len[mtf[i]!]!, code[mtf[i]!]!);
    }
  }

  /** One complete .bz2 stream (level 9 block size) holding `input`. */
  function compress(input: Uint8Array): Uint8Array {
    const out = new Bits();
    out.put(24, 0x425a68); // "BZh"
    out.put(8, 0x39); // "9"
    let combined = 0;
    const block = new Uint8Array(BLOCK_MAX + 5);
    let i = 0;
    while (i < input.length) {
      let n = 0;
      let crc = -1;
      while (i < input.length) {
        const b = input[i]!;
        let run = 1;
        while (run < 255 && i + run < input.length && input[i + run] === b) run++;
        const need = run < 4 ? run : 5;
        if (n + need > BLOCK_MAX) break;
        for (let k = 0; k < run; k++) crc = (crc << 8) ^ CRC[((crc >>> 24) ^ b) & 0xff]!;
        if (run < 4) {
          for (let k = 0; k < run; k++) block[n++] = b;
        } else {
          block[n++] = b;
          block[n++] = b;
          block[n++] = b;
          block[n++] = b;
          block[n++] = run - 4;
        }
        i += run;
      }
      const blockCrc = ~crc >>> 0;
      combined = (((combined << 1) | (combined >>> 31)) ^ blockCrc) >>> 0;
      writeBlock(out, block, n, blockCrc);
    }
    out.put(24, 0x177245);
    out.put(24, 0x385090);
    out.put32(combined);
    return out.finish();
  }

  return { compress };
}
