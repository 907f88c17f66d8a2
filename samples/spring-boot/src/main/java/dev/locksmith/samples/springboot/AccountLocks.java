package dev.locksmith.samples.springboot;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Lease;
import dev.locksmith.core.Locks;
import java.util.function.Function;
import org.springframework.stereotype.Component;

/**
 * One lock per account: {@code account:<id>}. A separate bean, so that every call goes through the
 * Spring proxy (calls from inside the same bean would not be locked).
 */
@Component
class AccountLocks {

  /**
   * Runs {@code work} while this process holds the lock of {@code accountId}, waiting for it when
   * another request or another instance holds it.
   *
   * @param accountId the account to lock
   * @param work what to do under the lock; it is given the lease, for its fencing token
   * @return what {@code work} returned
   */
  @DistributedLock(
      name = "account",
      key = "#accountId",
      ttl = "10s",
      waitTimeout = "${bank.transfer.wait-timeout}")
  public <T> T withAccount(String accountId, Function<Lease, T> work) {
    return work.apply(Locks.current());
  }
}
