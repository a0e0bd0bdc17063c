// @ts-check
// RFC 6962 / RFC 9162 Merkle trees as a table's checkpoints state them: checking that a tree of
// one size is the start of the tree of a later size (a consistency proof, RFC 9162 §2.1.4.2),
// and reading a checkpoint's note. Pure: SHA-256 is WebCrypto's (`crypto.subtle.digest`), which
// the browser and node both have; no DOM, no storage. Tested with node against vectors the
// service's own tree code (crates/service/src/witness/tree.rs) produced.

/** @typedef {{ origin: string, size: number, root: string, body: string }} Checkpoint */

/**
 * SHA-256 of the bytes.
 * @param {Uint8Array} bytes
 * @returns {Promise<Uint8Array>}
 */
export async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', /** @type {BufferSource} */ (bytes)));
}

/**
 * RFC 6962's interior node hash: SHA-256(0x01 ‖ left ‖ right).
 * @param {Uint8Array} left
 * @param {Uint8Array} right
 * @returns {Promise<Uint8Array>}
 */
export async function nodeHash(left, right) {
  const joined = new Uint8Array(1 + left.length + right.length);
  joined[0] = 1;
  joined.set(left, 1);
  joined.set(right, 1 + left.length);
  return sha256(joined);
}

/**
 * @param {Uint8Array} a
 * @param {Uint8Array} b
 */
export function sameBytes(a, b) {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * Standard base64 to bytes (null for text that is not base64).
 * @param {string} text
 * @returns {Uint8Array | null}
 */
export function fromBase64(text) {
  try {
    const raw = atob(text);
    return Uint8Array.from(raw, (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/**
 * Bytes to standard base64.
 * @param {Uint8Array} bytes
 * @returns {string}
 */
export function toBase64(bytes) {
  let raw = '';
  for (const b of bytes) raw += String.fromCharCode(b);
  return btoa(raw);
}

const isPowerOfTwo = (/** @type {number} */ n) => n > 0 && (n & (n - 1)) === 0;

/**
 * Whether `proof` shows that the tree of `first` leaves with root `firstRoot` is the start of the
 * tree of `second` leaves with root `secondRoot` (RFC 9162 §2.1.4.2). Sizes are whole numbers
 * (a table's tree stays far below 2^31 leaves); a size of 0 is the empty tree, the start of
 * every tree.
 * @param {number} first
 * @param {number} second
 * @param {Uint8Array} firstRoot
 * @param {Uint8Array} secondRoot
 * @param {Uint8Array[]} proof
 * @returns {Promise<boolean>}
 */
export async function verifyConsistency(first, second, firstRoot, secondRoot, proof) {
  if (!Number.isInteger(first) || !Number.isInteger(second) || first < 0 || second < first) return false;
  if (second >= 2 ** 31) return false;
  if (proof.some((h) => h.length !== 32) || firstRoot.length !== 32 || secondRoot.length !== 32) return false;
  if (first === 0 || first === second) {
    return proof.length === 0 && (first === 0 || sameBytes(firstRoot, secondRoot));
  }
  if (proof.length === 0) return false;
  // When `first` is a power of two its root is a node of the later tree, and the proof leaves
  // it out: the walk starts from it.
  const path = isPowerOfTwo(first) ? [firstRoot, ...proof] : proof;
  let fn = first - 1;
  let sn = second - 1;
  while (fn & 1) {
    fn >>>= 1;
    sn >>>= 1;
  }
  let fr = path[0];
  let sr = path[0];
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn & 1 || fn === sn) {
      fr = await nodeHash(c, fr);
      sr = await nodeHash(c, sr);
      while (!(fn & 1) && fn !== 0) {
        fn >>>= 1;
        sn >>>= 1;
      }
    } else {
      sr = await nodeHash(sr, c);
    }
    fn >>>= 1;
    sn >>>= 1;
  }
  return sn === 0 && sameBytes(fr, firstRoot) && sameBytes(sr, secondRoot);
}

/**
 * A checkpoint's note read: its body (origin, size and root hash, a line each, up to the blank
 * line before its signatures) and those three fields. Null for text that is not a checkpoint.
 * Signatures are not checked here: the service checks every cosignature against its own tree.
 * @param {string} note
 * @returns {Checkpoint | null}
 */
export function readCheckpoint(note) {
  if (typeof note !== 'string') return null;
  const split = note.indexOf('\n\n');
  const body = split >= 0 ? note.slice(0, split + 1) : note;
  const [origin, size, root] = body.split('\n');
  if (!origin || !/^(0|[1-9][0-9]*)$/.test(size || '') || fromBase64(root || '')?.length !== 32) return null;
  return { origin, size: Number(size), root, body };
}

/**
 * The message a cosigner signs (C2SP tlog-cosignature, `cosignature/v1`): the header line, the
 * time line and the checkpoint's body.
 * @param {string} body
 * @param {number} time POSIX seconds
 * @returns {string}
 */
export function cosignedMessage(body, time) {
  return `cosignature/v1\ntime ${time}\n${body}`;
}

/**
 * A cosignature's signature line: `— <name> <base64(key id ‖ time (8 bytes, big-endian) ‖
 * signature)>`.
 * @param {string} name
 * @param {Uint8Array} keyId 4 bytes
 * @param {number} time POSIX seconds
 * @param {Uint8Array} signature 64 bytes
 * @returns {string}
 */
export function cosignatureLine(name, keyId, time, signature) {
  const bytes = new Uint8Array(76);
  bytes.set(keyId.slice(0, 4), 0);
  new DataView(bytes.buffer).setBigUint64(4, BigInt(time), false);
  bytes.set(signature.slice(0, 64), 12);
  return `\u2014 ${name} ${toBase64(bytes)}`;
}
