package dev.locksmith.core;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.jspecify.annotations.Nullable;

/**
 * One-line descriptions of exceptions for logs at WARN and for messages: provider clients put whole
 * scripts, buffer dumps and nested causes into their messages, and those belong at DEBUG with the
 * stack trace, not in an operator's log.
 */
final class Causes {
  /** The longest one-line cause, in characters. */
  static final int MAX = 200;

  private Causes() {}

  /**
   * The exception's simple class name and the first line of its message (or of its cause's, when it
   * has none), at most {@link #MAX} characters: {@code RedisTimeoutException: Command execution
   * timeout for command ...}.
   */
  static String oneLine(Throwable error) {
    String text = describe(error, 0);
    return text.length() <= MAX ? text : text.substring(0, MAX - 3) + "...";
  }

  /**
   * What a provider's stage failed with: the cause a {@code CompletionException} wraps, itself when
   * it is a runtime exception, else a {@link LockProviderException} around it.
   */
  static RuntimeException unwrapCompletion(Throwable error) {
    Throwable cause = error;
    while ((cause instanceof CompletionException || cause instanceof ExecutionException)
        && cause.getCause() != null) {
      cause = cause.getCause();
    }
    return cause instanceof RuntimeException runtime
        ? runtime
        : new LockProviderException("the provider's call failed: " + oneLine(cause), cause);
  }

  /**
   * Whether the failure came from an interrupt of the calling thread (an {@link
   * InterruptedException}, an interrupted I/O call or a channel closed by the interrupt in its
   * causes), not from a store that could not answer. A socket timeout is an {@code
   * InterruptedIOException} too, and a store's silence: it does not count.
   */
  static boolean byInterrupt(Throwable error) {
    int depth = 0;
    for (Throwable cause = error; cause != null && depth < 16; cause = cause.getCause(), depth++) {
      if (cause instanceof InterruptedException
          || cause.getClass() == java.io.InterruptedIOException.class
          || cause instanceof java.nio.channels.ClosedByInterruptException) {
        return true;
      }
    }
    return false;
  }

  private static String describe(Throwable error, int depth) {
    String type = error.getClass().getSimpleName();
    if (type.isEmpty()) {
      type = error.getClass().getName();
    }
    String message = firstLine(error.getMessage());
    if (message == null) {
      Throwable cause = error.getCause();
      return cause == null || cause == error || depth >= 3
          ? type
          : type + ": " + describe(cause, depth + 1);
    }
    return type + ": " + message;
  }

  private static @Nullable String firstLine(@Nullable String message) {
    if (message == null) {
      return null;
    }
    String stripped = message.strip();
    int end = 0;
    while (end < stripped.length()
        && stripped.charAt(end) != '\n'
        && stripped.charAt(end) != '\r') {
      end++;
    }
    String line = stripped.substring(0, end).strip();
    return line.isEmpty() ? null : line;
  }
}
