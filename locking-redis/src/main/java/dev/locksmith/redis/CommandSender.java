package dev.locksmith.redis;

import dev.locksmith.core.LockProviderException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Sends the provider's commands (through {@link FirstContact}) and turns a failure into a {@link
 * LockProviderException} of one line naming the action, its subject, the node and what happened
 * ({@link RedisFailures}), Redisson's exception as its cause.
 */
final class CommandSender {
  private final FirstContact firstContact;
  private final String description;

  CommandSender(FirstContact firstContact, String description) {
    this.firstContact = firstContact;
    this.description = description;
  }

  /**
   * Runs one command and waits for its reply; a failure becomes one clean line naming {@code
   * subject} ({@code lock 'ID'}, {@code locks 'A', 'B'}).
   */
  <T> T call(String action, String subject, Supplier<? extends CompletionStage<T>> command) {
    try {
      return firstContact.send(command).join();
    } catch (RuntimeException e) {
      throw failed(action, subject, e);
    }
  }

  /**
   * Sends one command without waiting; the stage fails with one clean line naming {@code subject}
   * when the command does.
   */
  <T> CompletableFuture<T> send(
      String action, String subject, Supplier<? extends CompletionStage<T>> command) {
    CompletableFuture<T> sent;
    try {
      sent = firstContact.send(command);
    } catch (RuntimeException e) {
      return CompletableFuture.failedFuture(failed(action, subject, e));
    }
    CompletableFuture<T> answered = new CompletableFuture<>();
    sent.whenComplete(
        (reply, error) -> {
          if (error == null) {
            answered.complete(reply);
          } else {
            answered.completeExceptionally(failed(action, subject, error));
          }
        });
    return answered;
  }

  /** {@code Redis URL gave an unexpected reply to WHAT: REPLY}. */
  LockProviderException unexpectedReply(String what, @Nullable Object reply) {
    return new LockProviderException(
        "Redis " + description + " gave an unexpected reply to " + what + ": " + reply);
  }

  /** {@code Redis URL failed to ACTION lock 'ID': NODE unreachable: connection refused}. */
  private LockProviderException failed(String action, String subject, Throwable e) {
    Throwable cause = RedisFailures.unwrap(e);
    return new LockProviderException(
        "Redis "
            + description
            + " failed to "
            + action
            + " "
            + subject
            + ": "
            + RedisFailures.reason(cause),
        cause);
  }
}
