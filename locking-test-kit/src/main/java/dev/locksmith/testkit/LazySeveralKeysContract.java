package dev.locksmith.testkit;

import org.junit.jupiter.api.Test;

/**
 * {@link SeveralKeysContract} for an integration whose bean also has a method that takes its locks
 * when its result is subscribed to (such as one returning a {@code Mono}): adds {@link
 * SeveralKeysScenarios#aLazyResultHoldsBothAccountsFromSubscriptionUntilItCompletes}.
 *
 * <pre>{@code
 * class SeveralKeysInterceptorTest implements LazySeveralKeysContract {
 *   public LazyTransfer lazyTransfer() {
 *     return (from, to, work) ->
 *         transfers.settleLater(from, to, Mono.fromCompletionStage(work))::toFuture;
 *   }
 * }
 * }</pre>
 */
public interface LazySeveralKeysContract extends SeveralKeysContract {
  /**
   * Calls the bean's lazy method, annotated as {@link SeveralKeysScenarios.LazyTransfer} says.
   *
   * @return the lazy transfer
   */
  SeveralKeysScenarios.LazyTransfer lazyTransfer();

  /**
   * See {@link SeveralKeysScenarios#aLazyResultHoldsBothAccountsFromSubscriptionUntilItCompletes}.
   *
   * @throws Exception if the first call fails or times out
   */
  @Test
  default void aLazyResultHoldsBothAccountsFromSubscriptionUntilItCompletes() throws Exception {
    severalKeys()
        .scenarios()
        .aLazyResultHoldsBothAccountsFromSubscriptionUntilItCompletes(lazyTransfer());
  }
}
