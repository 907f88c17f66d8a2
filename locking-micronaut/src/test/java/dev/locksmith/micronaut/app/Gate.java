package dev.locksmith.micronaut.app;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** Lets a test hold a locked method open: the method enters, then waits to be let go. */
final class Gate {
  private final CountDownLatch entered = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);

  /** Called by the locked method: signals entry, then waits for {@link #open()}. */
  void pass() {
    entered.countDown();
    try {
      if (!released.await(20, TimeUnit.SECONDS)) {
        throw new IllegalStateException("the test never opened the gate");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Waits until the method has entered. */
  void awaitEntered() throws InterruptedException {
    if (!entered.await(20, TimeUnit.SECONDS)) {
      throw new AssertionError("the locked method was never entered");
    }
  }

  /** Lets the method return. */
  void open() {
    released.countDown();
  }

  /** A gate that is already open. */
  static Gate opened() {
    Gate gate = new Gate();
    gate.open();
    return gate;
  }
}
