package dev.locksmith.benchmarks.load;

import java.nio.charset.StandardCharsets;

/**
 * How the capacity benchmark takes a lock with one request and reads the answer, on the Locksmith
 * line protocol or on Redis's RESP ({@code SET key token NX PX ttl}), both written by hand and
 * pipelined, so that neither a client library nor round trips bound what the server can hold.
 */
interface Wire {
  /** The request that takes {@code key} for {@code token}. */
  byte[] acquire(long id, String key, String token, long ttlMillis);

  /** Whether a reply line (without its line end) says the lock was taken. */
  boolean granted(String line);

  /** The Locksmith lock protocol: {@code <id> ACQUIRE <key> <ttl> 0 <token>}. */
  Wire LOCKSMITH =
      new Wire() {
        @Override
        public byte[] acquire(long id, String key, String token, long ttlMillis) {
          return (Long.toString(id, 36)
                  + " ACQUIRE "
                  + key
                  + " "
                  + ttlMillis
                  + " 0 "
                  + token
                  + "\n")
              .getBytes(StandardCharsets.US_ASCII);
        }

        @Override
        public boolean granted(String line) {
          int space = line.indexOf(' ');
          return space > 0 && line.startsWith("OK ", space + 1);
        }
      };

  /** Redis: {@code SET key token NX PX ttl}, answered {@code +OK} or a nil. */
  Wire REDIS =
      new Wire() {
        @Override
        public byte[] acquire(long id, String key, String token, long ttlMillis) {
          String ttl = Long.toString(ttlMillis);
          return ("*6\r\n$3\r\nSET\r\n$"
                  + key.length()
                  + "\r\n"
                  + key
                  + "\r\n$"
                  + token.length()
                  + "\r\n"
                  + token
                  + "\r\n$2\r\nNX\r\n$2\r\nPX\r\n$"
                  + ttl.length()
                  + "\r\n"
                  + ttl
                  + "\r\n")
              .getBytes(StandardCharsets.US_ASCII);
        }

        @Override
        public boolean granted(String line) {
          return line.equals("+OK");
        }
      };
}
