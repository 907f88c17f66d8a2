package dev.locksmith.tcp;

import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;

/**
 * The answers the server said would come late ({@code * DELAYED <id> <ms>}, sent for a wrong
 * secret, whose answer the server holds back): when each is due, by request id, so that a caller
 * waiting for one within a deadline can wait for it. Only requests still in flight are noted, and
 * each is forgotten with its answer. Thread-safe.
 */
final class AnnouncedDelays {
  /** The longest delay believed; the server's longest is 5 s. */
  static final long MAX_MILLIS = 10_000;

  private final Map<String, Long> dueAt = new ConcurrentHashMap<>();

  /**
   * Notes the push line {@code reply} if it is a well-formed delay for a request that {@code
   * inFlight} says is in flight.
   *
   * @return whether it was noted
   */
  boolean note(Reply reply, Predicate<String> inFlight) {
    String[] words = reply.rest().split(" ");
    if (words.length != 2 || !inFlight.test(words[0])) {
      return false;
    }
    long millis;
    try {
      millis = Long.parseLong(words[1]);
    } catch (NumberFormatException e) {
      return false;
    }
    if (millis < 0 || millis > MAX_MILLIS) {
      return false;
    }
    dueAt.put(words[0], reply.arrivedNanos() + TimeUnit.MILLISECONDS.toNanos(millis));
    return true;
  }

  /** When the answer to request {@code id} is due on {@link System#nanoTime()}, if announced. */
  OptionalLong dueAt(String id) {
    Long due = dueAt.get(id);
    return due == null ? OptionalLong.empty() : OptionalLong.of(due);
  }

  /** Forgets request {@code id}, answered or failed. */
  void forget(String id) {
    if (!dueAt.isEmpty()) {
      dueAt.remove(id);
    }
  }
}
