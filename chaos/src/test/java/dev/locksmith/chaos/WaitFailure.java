package dev.locksmith.chaos;

import dev.locksmith.core.LockProviderException;
import dev.locksmith.core.LockTimeoutException;

/**
 * How a waiter's {@code WAIT} ended without a grant, judged by the engine's rule that a {@code
 * WAIT} rides through a provider outage: it retries until its {@code waitTimeout} and then fails
 * with a {@link LockTimeoutException} caused by the outage; it never fails at once with the
 * provider's error (only {@code SKIP} and {@code FAIL} do).
 *
 * @param waiter the waiter's name
 * @param outcome what kind of end it was
 * @param error what the acquire threw
 */
record WaitFailure(String waiter, Outcome outcome, Throwable error) {

  /** The kinds of end a {@code WAIT} without a grant may have. */
  enum Outcome {
    /** Timed out while its provider failed: the end the rule gives a wait through an outage. */
    TIMED_OUT_THROUGH_OUTAGE("timed out through the provider's outage"),
    /** Timed out with the provider answering: the lock was not handed on in time. */
    TIMED_OUT("timed out with the provider answering"),
    /** Failed with the provider's error instead of waiting through the outage. */
    PROVIDER_ERROR("failed with a provider error instead of waiting through the outage"),
    /** Anything else. */
    OTHER("failed");

    private final String text;

    Outcome(String text) {
      this.text = text;
    }
  }

  /** Classifies {@code error}, what {@code waiter}'s acquire threw. */
  static WaitFailure of(String waiter, Throwable error) {
    Outcome outcome;
    if (error instanceof LockTimeoutException) {
      outcome = error.getCause() != null ? Outcome.TIMED_OUT_THROUGH_OUTAGE : Outcome.TIMED_OUT;
    } else if (error instanceof LockProviderException) {
      outcome = Outcome.PROVIDER_ERROR;
    } else {
      outcome = Outcome.OTHER;
    }
    return new WaitFailure(waiter, outcome, error);
  }

  /** Whether the wait timed out through the outage, the rule's end of a wait that outlasts it. */
  boolean timedOutThroughOutage() {
    return outcome == Outcome.TIMED_OUT_THROUGH_OUTAGE;
  }

  /** How the wait ended and what was thrown, without the waiter's name. */
  String end() {
    return outcome.text + ": " + error;
  }

  @Override
  public String toString() {
    return waiter + " " + end();
  }
}
