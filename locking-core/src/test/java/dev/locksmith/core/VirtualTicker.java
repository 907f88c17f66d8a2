package dev.locksmith.core;

import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/** Virtual time for engine tests: moves only when a test advances it. */
final class VirtualTicker implements Ticker {
  private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
  private final AtomicReference<@Nullable ReadHook> hook = new AtomicReference<>();

  @Override
  public long read() {
    long now = nanos.get();
    ReadHook armed = hook.get();
    if (armed != null && armed.matchesCaller() && hook.compareAndSet(armed, null)) {
      armed.action().run();
    }
    return now;
  }

  void advance(Duration duration) {
    nanos.addAndGet(duration.toNanos());
  }

  /**
   * Runs {@code action} once, inside the next reading taken by a method named {@code method}, after
   * the time is read and before that method has it: for what happens between the two.
   */
  void onNextReadIn(String method, Runnable action) {
    hook.set(new ReadHook(method, action));
  }

  private record ReadHook(String method, Runnable action) {
    boolean matchesCaller() {
      return Arrays.stream(Thread.currentThread().getStackTrace())
          .anyMatch(frame -> frame.getMethodName().equals(method));
    }
  }
}
