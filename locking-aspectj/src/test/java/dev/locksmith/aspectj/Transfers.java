package dev.locksmith.aspectj;

import dev.locksmith.annotation.DistributedLock;
import dev.locksmith.annotation.OnBusy;
import dev.locksmith.core.Lease;
import dev.locksmith.testkit.BookedAccounts;
import dev.locksmith.testkit.SeveralKeysScenarios;
import java.util.List;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Transfers between accounts, each call locking both accounts ({@code key = "{#from, #to}"}), woven
 * at compile time by ajc, for {@link SeveralKeysScenarios}.
 */
class Transfers extends BookedAccounts {
  @Override
  @DistributedLock(name = "acct", key = "{#from, #to}", waitTimeout = "30s")
  public void transfer(String from, String to, long amount, Consumer<Lease> inside) {
    book.transfer(from, to, amount, inside);
  }

  @Override
  @DistributedLock(name = "acct", key = "{#from, #to}", onBusy = OnBusy.SKIP)
  public @Nullable String transferOrSkip(String from, String to, long amount) {
    return book.move(from, to, amount);
  }

  @Override
  @DistributedLock(name = "acct", key = "{#from, #to}", onBusy = OnBusy.FAIL)
  public String transferOrFail(String from, String to, long amount) {
    return book.move(from, to, amount);
  }

  @Override
  @DistributedLock(name = "acct", key = "{#from, #to}", waitTimeout = "200ms")
  public String transferBriefly(String from, String to, long amount) {
    return book.move(from, to, amount);
  }

  @Override
  @DistributedLock(name = "acct", key = "#account", onBusy = OnBusy.FAIL)
  public long audit(String account) {
    return book.audit();
  }

  @Override
  @DistributedLock(name = "acct", key = "#list")
  public String settle(List<String> list) {
    return book.settle();
  }
}
