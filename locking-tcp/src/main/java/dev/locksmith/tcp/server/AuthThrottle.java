package dev.locksmith.tcp.server;

import java.net.InetAddress;
import java.time.Duration;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Slows down and summarises wrong secrets, per client address. Each wrong AUTH from an address is
 * answered (and its connection closed) only after a delay that doubles with every failure in a row
 * from that address, from {@value #FIRST_DELAY_MILLIS} ms to {@value #MAX_DELAY_MILLIS} ms; with at
 * most a few unauthenticated connections per address, that bounds the guesses one address can make
 * to about one a second. An address is forgiven after a quiet minute.
 *
 * <p>Logging: the first wrong secret from an address is logged at once; further ones are counted
 * and logged at most once per interval (a minute by default) as one line with the count, by the
 * next failure or by {@link #sweep()}, which the server runs every interval. The table is bounded:
 * beyond {@value #MAX_ADDRESSES} addresses, the rest are counted together. Thread-safe.
 */
final class AuthThrottle {
  static final long FIRST_DELAY_MILLIS = 250;
  static final long MAX_DELAY_MILLIS = 5000;
  static final int MAX_ADDRESSES = 10_000;
  private static final long FORGIVE_NANOS = TimeUnit.MINUTES.toNanos(1);
  private static final String OTHERS = "other addresses";

  private final long intervalNanos;
  private final Duration interval;
  private final Consumer<String> log;
  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final AtomicLong linesLogged = new AtomicLong();

  /** Failures from one address; guarded by itself. */
  private static final class Entry {
    int streak;
    long lastFailure;
    long unlogged;
    long lastLogged;
    boolean everLogged;
  }

  /**
   * @param interval at most one log line per address per interval
   * @param log where the lines go (the server's WARN log)
   */
  AuthThrottle(Duration interval, Consumer<String> log) {
    this.interval = interval;
    this.intervalNanos = interval.toNanos();
    this.log = log;
  }

  /**
   * Records a wrong secret from {@code address}.
   *
   * @return how many milliseconds to wait before answering it
   */
  long failed(@Nullable InetAddress address) {
    String key = address == null ? "unknown address" : address.getHostAddress();
    Entry entry = entries.get(key);
    if (entry == null) {
      if (entries.size() >= MAX_ADDRESSES) {
        key = OTHERS;
      }
      entry = entries.computeIfAbsent(key, k -> new Entry());
    }
    long now = System.nanoTime();
    long delay;
    synchronized (entry) {
      if (entry.streak > 0 && now - entry.lastFailure > FORGIVE_NANOS) {
        entry.streak = 0;
      }
      entry.streak++;
      entry.lastFailure = now;
      entry.unlogged++;
      delay = Math.min(MAX_DELAY_MILLIS, FIRST_DELAY_MILLIS << Math.min(entry.streak - 1, 16));
      if (!entry.everLogged) {
        entry.everLogged = true;
        entry.lastLogged = now;
        entry.unlogged = 0;
        emit(
            "Wrong secret from "
                + key
                + "; the connection is closed after "
                + delay
                + " ms. Further wrong secrets from this address are delayed up to "
                + MAX_DELAY_MILLIS
                + " ms each and logged at most once every "
                + interval.toSeconds()
                + " s");
      } else if (now - entry.lastLogged >= intervalNanos) {
        report(key, entry, now);
      }
    }
    return delay;
  }

  /** Logs the counts not yet logged whose interval has passed; forgets quiet addresses. */
  void sweep() {
    long now = System.nanoTime();
    for (Iterator<Map.Entry<String, Entry>> it = entries.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Entry> e = it.next();
      Entry entry = e.getValue();
      synchronized (entry) {
        if (entry.unlogged > 0 && now - entry.lastLogged >= intervalNanos) {
          report(e.getKey(), entry, now);
        }
        if (entry.unlogged == 0
            && now - entry.lastFailure > FORGIVE_NANOS
            && now - entry.lastLogged >= intervalNanos) {
          it.remove();
        }
      }
    }
  }

  private void report(String key, Entry entry, long now) {
    long seconds = Math.max(1, TimeUnit.NANOSECONDS.toSeconds(now - entry.lastLogged));
    emit(
        "Refused "
            + entry.unlogged
            + " AUTH attempt(s) with a wrong secret from "
            + key
            + " in the last "
            + seconds
            + " s (each answered after up to "
            + MAX_DELAY_MILLIS
            + " ms)");
    entry.unlogged = 0;
    entry.lastLogged = now;
  }

  private void emit(String line) {
    linesLogged.incrementAndGet();
    log.accept(line);
  }

  /** How many lines were logged (for tests). */
  long linesLogged() {
    return linesLogged.get();
  }

  /** How many addresses are tracked (for tests). */
  int addresses() {
    return entries.size();
  }
}
