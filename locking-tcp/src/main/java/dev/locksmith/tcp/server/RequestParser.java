package dev.locksmith.tcp.server;

import dev.locksmith.tcp.internal.LockIds;
import dev.locksmith.tcp.internal.Protocol;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** Parses request lines; every rejection names the field and what was wrong with it. */
final class RequestParser {
  static final int MAX_OWNER_CHARS = 256;

  private static final String ACQUIRE_ALL_USAGE =
      "'<id> ACQUIRE-ALL <ttl-ms> <n> <lock> <owner-token|-> ... [owner description]'";

  private final int maxKeyBytes;

  RequestParser(int maxKeyBytes) {
    this.maxKeyBytes = maxKeyBytes;
  }

  Request parse(String line) throws ProtocolException {
    for (int i = 0; i < line.length(); i++) {
      char c = line.charAt(i);
      if (c < 0x20 && c != '\t' || c == 0x7F) {
        throw new ProtocolException(
            LineWords.leadingId(line),
            "SYNTAX",
            "control character 0x" + Integer.toHexString(c) + " at column " + (i + 1));
      }
    }
    String trimmed = line.strip();
    if (trimmed.isEmpty()) {
      throw new ProtocolException(null, "SYNTAX", "empty line; expected '<id> <COMMAND> ...'");
    }
    List<String> words = LineWords.split(trimmed, 7);
    String id = words.get(0);
    if (!LineWords.isId(id)) {
      throw new ProtocolException(
          null,
          "SYNTAX",
          "request id '"
              + LineWords.abbreviate(id)
              + "' is invalid; use 1 to 32 letters, digits, '_', '.', ':' or '-'");
    }
    if (words.size() < 2) {
      throw new ProtocolException(id, "SYNTAX", "missing command after request id");
    }
    String verb = words.get(1).toUpperCase(Locale.ROOT);
    return switch (verb) {
      case "PING" -> {
        arity(id, verb, words, 0, "");
        yield new Request.Ping(id);
      }
      case "QUIT" -> {
        arity(id, verb, words, 0, "");
        yield new Request.Quit(id);
      }
      case "AUTH" -> {
        String secret = LineWords.rest(trimmed, 2);
        if (secret.isEmpty()) {
          throw new ProtocolException(id, "SYNTAX", "AUTH needs a secret: '<id> AUTH <secret>'");
        }
        yield new Request.Auth(id, secret);
      }
      case "ACQUIRE" -> {
        if (words.size() < 6) {
          throw new ProtocolException(
              id,
              "SYNTAX",
              "ACQUIRE takes '<lock> <ttl-ms> <wait-ms> <owner-token|-> [owner description]'");
        }
        String lock = lockId(id, words.get(2));
        long ttl = millis(id, "ttl-ms", words.get(3), 1);
        long wait = millis(id, "wait-ms", words.get(4), 0);
        String token = words.get(5);
        String ownerToken = token.equals("-") ? null : token(id, token);
        String owner = words.size() > 6 ? LineWords.rest(trimmed, 6) : "";
        if (owner.length() > MAX_OWNER_CHARS) {
          owner = owner.substring(0, MAX_OWNER_CHARS);
        }
        yield new Request.Acquire(id, lock, ttl, wait, ownerToken, owner);
      }
      case "ACQUIRE-ALL" -> acquireAll(id, trimmed, words);
      case "RENEW", "HOLD" -> {
        arity(id, verb, words, 3, " <lock> <owner-token> <ttl-ms>");
        String lock = lockId(id, words.get(2));
        String token = token(id, words.get(3));
        long ttl = millis(id, "ttl-ms", words.get(4), 1);
        yield verb.equals("RENEW")
            ? new Request.Renew(id, lock, token, ttl)
            : new Request.Hold(id, lock, token, ttl);
      }
      case "STATS" -> {
        arity(id, verb, words, 0, "");
        yield new Request.Stats(id);
      }
      case "RELEASE" -> {
        arity(id, verb, words, 2, " <lock> <owner-token>");
        yield new Request.Release(id, lockId(id, words.get(2)), token(id, words.get(3)));
      }
      case "STATUS" -> {
        arity(id, verb, words, 1, " <lock>");
        yield new Request.Status(id, lockId(id, words.get(2)));
      }
      case "CANCEL" -> {
        arity(id, verb, words, 1, " <acquire-request-id>");
        String target = words.get(2);
        if (!LineWords.isId(target)) {
          throw new ProtocolException(
              id,
              "BAD_ARGUMENT",
              "CANCEL target '" + LineWords.abbreviate(target) + "' is not a request id");
        }
        yield new Request.Cancel(id, target);
      }
      default ->
          throw new ProtocolException(
              id,
              "UNKNOWN_COMMAND",
              "unknown command '"
                  + LineWords.abbreviate(words.get(1))
                  + "'; known: AUTH, PING, ACQUIRE, ACQUIRE-ALL, RENEW, HOLD, RELEASE, STATUS,"
                  + " STATS, CANCEL, QUIT");
    };
  }

  /**
   * {@code <id> ACQUIRE-ALL <ttl-ms> <n> <lock> <owner-token|-> ... [owner description]}: n pairs
   * of lock and owner token, n from 1 to {@link Protocol#MAX_LOCKS_PER_REQUEST}, no lock twice.
   */
  private Request acquireAll(String id, String line, List<String> head) throws ProtocolException {
    if (head.size() < 4) {
      throw new ProtocolException(id, "SYNTAX", "ACQUIRE-ALL takes " + ACQUIRE_ALL_USAGE);
    }
    long ttl = millis(id, "ttl-ms", head.get(2), 1);
    String count = head.get(3);
    if (!LineWords.isDigits(count)) {
      throw new ProtocolException(
          id, "BAD_ARGUMENT", "n '" + LineWords.abbreviate(count) + "' is not a whole number");
    }
    long n = Long.parseLong(count);
    if (n < 1) {
      throw new ProtocolException(id, "BAD_ARGUMENT", "n is 0; ACQUIRE-ALL names at least 1 lock");
    }
    if (n > Protocol.MAX_LOCKS_PER_REQUEST) {
      throw new ProtocolException(
          id,
          "LIMIT",
          "n is "
              + n
              + "; one ACQUIRE-ALL names at most "
              + Protocol.MAX_LOCKS_PER_REQUEST
              + " locks");
    }
    int pairs = (int) n;
    List<String> words = LineWords.split(line, 4 + 2 * pairs);
    if (words.size() < 4 + 2 * pairs) {
      int got = words.size() - 4;
      String missing =
          got % 2 == 0 ? "lock " + (got / 2 + 1) : "owner-token of lock " + (got + 1) / 2;
      throw new ProtocolException(
          id,
          "SYNTAX",
          "ACQUIRE-ALL with n "
              + n
              + " needs "
              + n
              + " lock and owner-token pairs; "
              + missing
              + " is missing; usage: "
              + ACQUIRE_ALL_USAGE);
    }
    List<Request.AcquireAll.Part> locks = new ArrayList<>(pairs);
    Map<String, Integer> seen = new HashMap<>(pairs * 2);
    for (int i = 0; i < pairs; i++) {
      int number = i + 1;
      String wire = words.get(4 + 2 * i);
      String lockId = lockId(id, wire, "lock " + number + ": ");
      Integer earlier = seen.putIfAbsent(lockId, number);
      if (earlier != null) {
        throw new ProtocolException(
            id,
            "BAD_ARGUMENT",
            "lock "
                + number
                + " '"
                + LineWords.abbreviate(wire)
                + "' is lock "
                + earlier
                + " again; every lock may appear once");
      }
      String token = words.get(5 + 2 * i);
      String ownerToken =
          token.equals("-") ? null : token(id, token, "owner token of lock " + number);
      locks.add(new Request.AcquireAll.Part(lockId, wire, ownerToken));
    }
    String owner = LineWords.rest(line, 4 + 2 * pairs);
    if (owner.length() > MAX_OWNER_CHARS) {
      owner = owner.substring(0, MAX_OWNER_CHARS);
    }
    return new Request.AcquireAll(id, ttl, locks, owner);
  }

  private static void arity(String id, String verb, List<String> words, int args, String usage)
      throws ProtocolException {
    if (words.size() != args + 2) {
      throw new ProtocolException(
          id,
          "SYNTAX",
          verb
              + " takes "
              + args
              + " argument"
              + (args == 1 ? "" : "s")
              + ", got "
              + (words.size() - 2)
              + "; usage: '<id> "
              + verb
              + usage
              + "'");
    }
  }

  private String lockId(String id, String wire) throws ProtocolException {
    return lockId(id, wire, "");
  }

  /** A lock id from the wire; {@code which} prefixes the error message, as "lock 2: ". */
  private String lockId(String id, String wire, String which) throws ProtocolException {
    String lockId;
    try {
      lockId = LockIds.decode(wire);
    } catch (IllegalArgumentException e) {
      throw new ProtocolException(id, "BAD_ARGUMENT", which + e.getMessage());
    }
    // At most 3 bytes of UTF-8 per char: a short id needs no counting.
    if ((long) lockId.length() * 3 <= maxKeyBytes) {
      return lockId;
    }
    int bytes = lockId.getBytes(StandardCharsets.UTF_8).length;
    if (bytes > maxKeyBytes) {
      throw new ProtocolException(
          id,
          "LIMIT",
          which + "lock id is " + bytes + " bytes, longer than the limit " + maxKeyBytes);
    }
    return lockId;
  }

  private static String token(String id, String token) throws ProtocolException {
    return token(id, token, "owner token");
  }

  /** An owner token; {@code field} names it in the error message. */
  private static String token(String id, String token, String field) throws ProtocolException {
    if (!LineWords.isToken(token)) {
      throw new ProtocolException(
          id,
          "BAD_ARGUMENT",
          field
              + " '"
              + LineWords.abbreviate(token)
              + "' is invalid; use 1 to 128 printable ASCII characters without spaces");
    }
    return token;
  }

  private static long millis(String id, String field, String value, long min)
      throws ProtocolException {
    if (!LineWords.isDigits(value)) {
      throw new ProtocolException(
          id,
          "BAD_ARGUMENT",
          field + " '" + LineWords.abbreviate(value) + "' is not a whole number");
    }
    long millis = Long.parseLong(value);
    if (millis < min || millis > Protocol.MAX_MILLIS) {
      throw new ProtocolException(
          id,
          "BAD_ARGUMENT",
          field + " " + millis + " is out of range " + min + ".." + Protocol.MAX_MILLIS);
    }
    return millis;
  }
}
