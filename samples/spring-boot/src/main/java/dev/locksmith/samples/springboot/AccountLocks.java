package dev.locksmith.samples.springboot;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.core.Lease;
import dev.locksmith.core.Locks;
import java.util.function.Function;
import org.springframework.stereotype.Component;

/**
 * One lock per account: {@code account:<id>}, both accounts of a transfer under one annotation. A
 * separate bean, so that every call goes through the Spring proxy (calls from inside the same bean
 * would not be locked).
 */
@Component
class AccountLocks {

  /**
   * Runs {@code work} while this process holds the locks of both accounts, waiting for them when
   * another request or another instance holds either. The engine takes the two locks in one global
   * order (sorted), so two opposite transfers cannot deadlock, and all or nothing.
   *
   * @param from one account to lock
   * @param to the other account to lock
   * @param work what to do under the locks; it is given the lease, whose {@link
   *     Lease#lease(String)} gives each account's fencing token
   * @return what {@code work} returned
   */
  @DistributedLock(
      name = "account",
      key = "{#from, #to}",
      ttl = "10s",
      waitTimeout = "${bank.transfer.wait-timeout}")
  public <T> T withAccounts(String from, String to, Function<Lease, T> work) {
    return work.apply(Locks.current());
  }
}
