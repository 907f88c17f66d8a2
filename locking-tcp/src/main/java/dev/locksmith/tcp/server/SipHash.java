package dev.locksmith.tcp.server;

/**
 * SipHash-1-3, a keyed hash: without the key, ids that share a hash cannot be made on purpose,
 * unlike with {@code String.hashCode}. Reads an id's UTF-16 chars four to a 64-bit word; the length
 * goes into the last word, so no two ids of different lengths are read alike.
 */
record SipHash(long k0, long k1) {

  /** The id's hash, folded to 32 bits. */
  int of(String id) {
    State state = new State(k0, k1);
    int length = id.length();
    int whole = length & ~3;
    for (int i = 0; i < whole; i += 4) {
      state.absorb(
          id.charAt(i)
              | (long) id.charAt(i + 1) << 16
              | (long) id.charAt(i + 2) << 32
              | (long) id.charAt(i + 3) << 48);
    }
    long last = (long) (length & 0xff) << 56;
    for (int i = whole, shift = 0; i < length; i++, shift += 16) {
      last |= (long) id.charAt(i) << shift;
    }
    state.absorb(last);
    return state.finish();
  }

  /** The four words of state: one compression round per word, three to finish. */
  private static final class State {
    private long v0;
    private long v1;
    private long v2;
    private long v3;

    State(long k0, long k1) {
      v0 = k0 ^ 0x736f6d6570736575L;
      v1 = k1 ^ 0x646f72616e646f6dL;
      v2 = k0 ^ 0x6c7967656e657261L;
      v3 = k1 ^ 0x7465646279746573L;
    }

    void absorb(long m) {
      v3 ^= m;
      round();
      v0 ^= m;
    }

    int finish() {
      v2 ^= 0xff;
      round();
      round();
      round();
      long h = v0 ^ v1 ^ v2 ^ v3;
      return (int) (h ^ (h >>> 32));
    }

    private void round() {
      v0 += v1;
      v1 = Long.rotateLeft(v1, 13) ^ v0;
      v0 = Long.rotateLeft(v0, 32);
      v2 += v3;
      v3 = Long.rotateLeft(v3, 16) ^ v2;
      v0 += v3;
      v3 = Long.rotateLeft(v3, 21) ^ v0;
      v2 += v1;
      v1 = Long.rotateLeft(v1, 17) ^ v2;
      v2 = Long.rotateLeft(v2, 32);
    }
  }
}
