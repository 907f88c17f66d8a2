package dev.locksmith.file;

import dev.locksmith.core.spi.LockIdText;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * The content of a lock file: who holds the lock and until when.
 *
 * <p>Text in UTF-8, one {@code key=value} per line after the header {@value #HEADER}, values
 * escaped ({@code \\}, {@code \n}, {@code \r}), and a last line {@code crc32=<8 hex digits>} over
 * every byte before it. A file that lacks the header, a key or the checksum line, or whose checksum
 * does not match, was cut short or garbled and does not parse.
 *
 * @param lockId the lock id the file belongs to
 * @param ownerToken the holding acquisition's owner token
 * @param fencingToken the lease's fencing token
 * @param expiresAtMillis the lease's expiry on the writer's wall clock, in epoch milliseconds
 * @param ttlMillis the lease length last granted
 * @param owner the holder's readable description as the request gave it
 * @param host the host that wrote the file
 * @param pid the process that wrote the file
 * @param thread the thread that wrote the file
 * @param acquiredAtMillis when the lease was first granted, in epoch milliseconds
 */
record LockRecord(
    String lockId,
    String ownerToken,
    long fencingToken,
    long expiresAtMillis,
    long ttlMillis,
    String owner,
    String host,
    long pid,
    String thread,
    long acquiredAtMillis) {

  static final String HEADER = "locksmith-lock 1";

  /**
   * The ttl a record stores for a lease of {@code ttl}: whole milliseconds rounded up, at least 1.
   */
  static long ttlMillis(Duration ttl) {
    long nanos = ttl.toNanos();
    return Math.max(1, (nanos + 999_999) / 1_000_000);
  }

  /** The same lease with a new expiry and ttl, as a renewal writes it. */
  LockRecord renewed(long newExpiresAtMillis, long newTtlMillis) {
    return new LockRecord(
        lockId,
        ownerToken,
        fencingToken,
        newExpiresAtMillis,
        newTtlMillis,
        owner,
        host,
        pid,
        thread,
        acquiredAtMillis);
  }

  /**
   * The same lease with another fencing token, as an acquisition that had to re-choose writes it.
   */
  LockRecord withToken(long newFencingToken) {
    return new LockRecord(
        lockId,
        ownerToken,
        newFencingToken,
        expiresAtMillis,
        ttlMillis,
        owner,
        host,
        pid,
        thread,
        acquiredAtMillis);
  }

  /** Whether this record shows the lease of {@code ownerToken} with {@code fencingToken}. */
  boolean heldBy(String lockIdToMatch, String ownerTokenToMatch, long fencingTokenToMatch) {
    return lockId.equals(lockIdToMatch)
        && ownerToken.equals(ownerTokenToMatch)
        && fencingToken == fencingTokenToMatch;
  }

  byte[] encode() {
    StringBuilder text = new StringBuilder(384).append(HEADER).append('\n');
    line(text, "lock-id", lockId);
    line(text, "owner-token", ownerToken);
    line(text, "fencing-token", Long.toString(fencingToken));
    line(text, "expires-at", Long.toString(expiresAtMillis));
    line(text, "expires-at-utc", Instant.ofEpochMilli(expiresAtMillis).toString());
    line(text, "ttl-ms", Long.toString(ttlMillis));
    line(text, "owner", owner);
    line(text, "host", host);
    line(text, "pid", Long.toString(pid));
    line(text, "thread", thread);
    line(text, "acquired-at", Long.toString(acquiredAtMillis));
    line(text, "acquired-at-utc", Instant.ofEpochMilli(acquiredAtMillis).toString());
    return KeyValueText.seal(text);
  }

  private static void line(StringBuilder text, String key, String value) {
    text.append(key).append('=').append(KeyValueText.escape(value)).append('\n');
  }

  /**
   * Parses a lock file's bytes.
   *
   * @throws KeyValueText.MalformedException naming the line that is wrong
   */
  static LockRecord decode(byte[] bytes) throws KeyValueText.MalformedException {
    Map<String, String> fields = KeyValueText.open(bytes, HEADER);
    return new LockRecord(
        KeyValueText.text(fields, "lock-id"),
        KeyValueText.text(fields, "owner-token"),
        KeyValueText.number(fields, "fencing-token"),
        KeyValueText.number(fields, "expires-at"),
        KeyValueText.number(fields, "ttl-ms"),
        KeyValueText.text(fields, "owner"),
        KeyValueText.text(fields, "host"),
        KeyValueText.number(fields, "pid"),
        KeyValueText.text(fields, "thread"),
        KeyValueText.number(fields, "acquired-at"));
  }

  /** The small sealed key-value text format shared by lock files and fencing counter files. */
  static final class KeyValueText {
    private KeyValueText() {}

    /** A file's text is cut short, garbled or not of the expected kind. */
    static final class MalformedException extends Exception {
      private static final long serialVersionUID = 1L;

      MalformedException(String message) {
        super(message);
      }
    }

    static String escape(String value) {
      StringBuilder out = new StringBuilder(value.length());
      for (int i = 0; i < value.length(); i++) {
        char c = value.charAt(i);
        switch (c) {
          case '\\' -> out.append("\\\\");
          case '\n' -> out.append("\\n");
          case '\r' -> out.append("\\r");
          default -> {
            if (LockIdText.isLoneSurrogate(value, i)) {
              // No UTF-8 form: it would be read back as '?', the text of another id.
              out.append("\\u").append(HexFormat.of().withUpperCase().toHexDigits(c));
            } else {
              out.append(c);
            }
          }
        }
      }
      return out.toString();
    }

    static String unescape(String value, int lineNumber) throws MalformedException {
      StringBuilder out = new StringBuilder(value.length());
      for (int i = 0; i < value.length(); i++) {
        char c = value.charAt(i);
        if (c != '\\') {
          out.append(c);
          continue;
        }
        if (++i == value.length()) {
          throw new MalformedException("line " + lineNumber + " ends in a lone backslash");
        }
        switch (value.charAt(i)) {
          case '\\' -> out.append('\\');
          case 'n' -> out.append('\n');
          case 'r' -> out.append('\r');
          case 'u' -> {
            if (i + 4 >= value.length()) {
              throw new MalformedException("line " + lineNumber + " has a short \\u escape");
            }
            try {
              out.append((char) HexFormat.fromHexDigits(value, i + 1, i + 5));
            } catch (IllegalArgumentException e) {
              throw new MalformedException("line " + lineNumber + " has a bad \\u escape");
            }
            i += 4;
          }
          default ->
              throw new MalformedException(
                  "line " + lineNumber + " has an unknown escape \\" + value.charAt(i));
        }
      }
      return out.toString();
    }

    /** Appends the checksum line and returns the UTF-8 bytes. */
    static byte[] seal(StringBuilder text) {
      byte[] body = text.toString().getBytes(StandardCharsets.UTF_8);
      CRC32 crc = new CRC32();
      crc.update(body);
      String sealed = text + "crc32=" + HexFormat.of().toHexDigits((int) crc.getValue()) + "\n";
      return sealed.getBytes(StandardCharsets.UTF_8);
    }

    /** Checks the header and checksum and returns the fields in order. */
    static Map<String, String> open(byte[] bytes, String header) throws MalformedException {
      if (bytes.length == 0) {
        throw new MalformedException("the file is empty");
      }
      int end = bytes.length;
      if (bytes[end - 1] != '\n') {
        throw new MalformedException("the last line is cut short (no final newline)");
      }
      int lastStart = end - 1;
      while (lastStart > 0 && bytes[lastStart - 1] != '\n') {
        lastStart--;
      }
      String last = new String(bytes, lastStart, end - 1 - lastStart, StandardCharsets.UTF_8);
      if (!last.startsWith("crc32=")) {
        throw new MalformedException("the checksum line 'crc32=...' is missing at the end");
      }
      CRC32 crc = new CRC32();
      crc.update(bytes, 0, lastStart);
      String expected = HexFormat.of().toHexDigits((int) crc.getValue());
      if (!last.substring("crc32=".length()).equals(expected)) {
        throw new MalformedException(
            "checksum mismatch: file says '" + last + "', content gives crc32=" + expected);
      }
      String[] lines = new String(bytes, 0, lastStart, StandardCharsets.UTF_8).split("\n", -1);
      if (!lines[0].equals(header)) {
        throw new MalformedException(
            "line 1 is '" + lines[0] + "'; expected the header '" + header + "'");
      }
      Map<String, String> fields = new LinkedHashMap<>();
      for (int i = 1; i < lines.length - 1; i++) {
        String line = lines[i];
        int eq = line.indexOf('=');
        if (eq <= 0) {
          throw new MalformedException("line " + (i + 1) + " is not key=value: '" + line + "'");
        }
        if (fields.put(line.substring(0, eq), unescape(line.substring(eq + 1), i + 1)) != null) {
          throw new MalformedException(
              "line " + (i + 1) + " repeats key '" + line.substring(0, eq) + "'");
        }
      }
      return fields;
    }

    static String text(Map<String, String> fields, String key) throws MalformedException {
      String value = fields.get(key);
      if (value == null) {
        throw new MalformedException("key '" + key + "' is missing");
      }
      return value;
    }

    static long number(Map<String, String> fields, String key) throws MalformedException {
      String value = text(fields, key);
      try {
        return Long.parseLong(value);
      } catch (NumberFormatException e) {
        throw new MalformedException("key '" + key + "' is not a whole number: '" + value + "'");
      }
    }
  }
}
